"""The contexts of the client templates: the client's surface
(:mod:`generator.render.surface`) made ready to print, once per flavor (the sync classes,
then the async ones), and the import lines each module's code needs.

The layout: ``_client.py`` (``_client.py.jinja``) holds the two client classes, whose
resource attributes are ``cached_property``s that import their module on first use;
``resources/<module>.py`` (``resource.py.jinja``; named after the attribute, see
:func:`generator.render.surface.resources.resource_modules`) holds one top-level
resource, its sub-resources and their raw and streaming variants, for both flavors, with
the error tables its methods use; ``resources/__init__.py`` (``resources_init.py.jinja``)
lists them.

Spec text (paths, header names, descriptions, environment names) is passed raw: the
template quotes it with ``pyrepr``/``docstring``. Values that are *code* here (dict
literals, call arguments, class names) are built only from identifiers the IR has already
made valid and from ``repr`` of spec values. The imports come from what each piece of
code needs (``Method.imports``, ``ErrorTable.imports``, the features the template prints;
``builtins`` and the models module from the pieces of code that name them), not from
reading the rendered text.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from generator.render.client.code import (
    AuthBranch,
    AuthHeader,
    Call,
    Child,
    Flavor,
    MethodCode,
    ResourceCode,
    ResourceFlavor,
    SignatureCode,
)
from generator.render.client.imports import (
    RESOURCES_PACKAGE,
    client_imports,
    import_lines,
    module_imports,
    table_literals,
    type_imports,
)
from generator.render.surface.methods import Method, Param, Signature
from generator.render.surface.reserved import HTTP_MODULE
from generator.render.surface.resources import ErrorTable, Resource
from generator.render.webhooks import MODULE as WEBHOOKS_MODULE

ARG_WIDTH = 88 - 12  # an Args entry starts at column 12 of the generated module
HANG = "    "  # its continuation lines are indented by 4 more


def wrapped_arg(name: str, text: str) -> str:
    """``text`` as the ``Args:`` entry ``name: text``: long prose lines wrapped to the
    module's line length, continuation lines indented (Google style). Lines Markdown reads
    by their layout (fences, indented code, tables, headings) are kept as they are."""
    out: list[str] = []
    fenced = False
    for line in text.strip().splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
        layout = fenced or line.startswith(("    ", "\t")) or stripped.startswith(("|", "#"))
        first = len(name) + 2 if not out else len(HANG)  # what precedes the text
        if layout or first + len(line) <= ARG_WIDTH:
            out.append(line)
            continue
        lead = " " * (len(line) - len(line.lstrip()))
        marker = re.match(r"([-*+]|\d+[.)])\s+", stripped)  # a list item's continuation
        more = HANG + lead + " " * (marker.end() if marker else 0)
        chunks = textwrap.wrap(
            "x" * first + line.lstrip(),
            ARG_WIDTH,
            subsequent_indent=more,
            break_long_words=False,
            break_on_hyphens=False,
        )
        chunks[0] = lead + chunks[0][first:]
        out.append(chunks[0])
        out.extend(chunk.removeprefix(HANG) for chunk in chunks[1:])
    return "\n".join(HANG + line if i and line else line for i, line in enumerate(out))


def dict_literal(params: Iterable[Param]) -> str:
    """``{ 'wire': name, }``: a dict literal from wire names (repr) to parameter names."""
    return "{ " + "".join(f"{p.wire!r}: {p.name}, " for p in params) + "}"


def _body(m: Method) -> str | None:
    """The ``body=`` argument: the fields as a dict literal, or the whole body. A body that
    may also be a model instance is a conditional expression, in parentheses: black adds
    them when the line breaks, ruff format does not, and both keep them when present."""
    if m.body_fields:
        fields = dict_literal(m.body_fields)
        if m.model_body:
            return f"(body if not isinstance(body, NotGiven) else {fields})"
        return fields
    return m.whole_body.name if m.whole_body else None


def _stream(m: Method) -> str | None:
    """The ``stream=`` argument: the chunk type, or None when a body flag is not True."""
    flag = m.stream_flag
    if flag is None:
        return m.stream
    condition = f"{flag.name} is True"
    if m.model_body:
        condition += f" or getattr(body, {flag.name!r}, None) is True"
    return f"({m.stream} if {condition} else None)"


def query_styles(m: Method) -> str | None:
    """``{wire name: (style, explode)}`` of the query parameters not sent as ``form``,
    exploded (OpenAPI's default; Swagger 2.0's ``csv`` is not exploded), or None."""
    sent = {p.wire for p in m.query}
    styles = {
        p.name: (p.style or "form", bool(p.explode))
        for p in m.op.parameters_in("query")
        if p.name in sent and (p.style or "form", bool(p.explode)) != ("form", True)
    }
    return repr(styles) if styles else None


def call(m: Method) -> Call:
    return Call(
        method=m.op.method,
        path=m.path_expr,
        kind=m.kind,
        query=dict_literal(m.query) if m.query else None,
        query_styles=query_styles(m),
        headers=dict_literal(m.headers) if m.headers else None,
        body=_body(m),
        files=m.files,
        form=m.form,
        stream=_stream(m),
        page=m.page,
        errors=m.errors,
    )


def _method_code(m: Method, is_async: bool) -> MethodCode:
    def returns(s: Signature) -> str:
        return s.returns_async if is_async else s.returns

    return MethodCode(
        name=m.name,
        def_="async def" if is_async else "def",
        await_="await " if is_async else "",
        overloads=[SignatureCode(s.params, returns(s)) for s in m.overloads],
        params=m.params,
        returns=m.returns_async if is_async else m.returns,
        verb=m.op.method.upper(),
        path=m.op.path,
        summary=m.summary,
        description=m.description,
        deprecated_note=" (deprecated)" if m.op.deprecated else "",
        call=call(m),
        args_doc=[(p.name, wrapped_arg(p.name, p.doc)) for p in m.params if p.doc.strip()],
    )


def _prefix(is_async: bool) -> str:
    return "Async" if is_async else ""


def _child(attr: str, r: Resource, is_async: bool, module: str) -> Child:
    prefix = _prefix(is_async)
    return Child(attr, f"{prefix}{r.class_name}", f"{prefix}{r.class_name}WithRawResponse", module)


def _resource_code(r: Resource, is_async: bool, module: str) -> ResourceCode:
    prefix = _prefix(is_async)
    return ResourceCode(
        class_name=f"{prefix}{r.class_name}",
        raw_class_name=f"{prefix}{r.class_name}WithRawResponse",
        children=[_child(attr, c, is_async, module) for attr, c in r.children.items()],
        methods=[_method_code(m, is_async) for m in r.methods],
    )


def resource_flavor(top: Resource, is_async: bool) -> ResourceFlavor:
    """The sync classes of a top-level resource's module (the resource, its sub-resources
    and their raw and streaming variants), or the async ones."""
    return ResourceFlavor(
        base_client="AsyncAPIClient" if is_async else "SyncAPIClient",
        to_raw="async_to_raw" if is_async else "to_raw",
        resources=[
            _resource_code(r, is_async, f"{RESOURCES_PACKAGE}.{top.module}") for r in top.walk()
        ],
    )


def flavor(root: Resource, is_async: bool) -> Flavor:
    """The sync client (its attributes, their raw and streaming views), or the async one."""
    top = ResourceCode(
        class_name=f"{_prefix(is_async)}{root.class_name}",
        raw_class_name=f"{_prefix(is_async)}{root.class_name}WithRawResponse",
        children=[
            _child(attr, c, is_async, f"{RESOURCES_PACKAGE}.{c.module}")
            for attr, c in root.children.items()
        ],
        methods=[],
    )
    return Flavor(
        is_async=is_async,
        client=top.class_name,
        base_client="AsyncAPIClient" if is_async else "SyncAPIClient",
        http_client=f"{HTTP_MODULE}.AsyncClient" if is_async else f"{HTTP_MODULE}.Client",
        noun="Async client" if is_async else "Client",
        top=top,
    )


def auth_branches(alternatives: list[list[tuple[str, str, str]]]) -> list[AuthBranch]:
    """The constructor's auth alternatives, from ``auth_context``'s lists of ``(kind,
    header, param)`` sent together: Basic, Bearer, or the credential itself in a header,
    a query parameter or a cookie."""
    out = []
    targets = {"query": "query", "cookie": "cookies"}
    for i, group in enumerate(alternatives):
        headers = []
        for kind, header, param in group:
            if kind == "basic":
                value = f"basic_auth({param})"
            elif kind == "bearer":
                value = 'f"Bearer {' + param + '}"'
            else:
                value = param
            headers.append(AuthHeader(header, value, targets.get(kind, "headers")))
        condition = " and ".join(param for _, _, param in group)
        out.append(AuthBranch("if" if i == 0 else "elif", condition, tuple(headers)))
    return out


def resource_context(
    top: Resource, tables: list[ErrorTable], *, header: str, title: str | None
) -> dict[str, Any]:
    """Everything ``resource.py.jinja`` prints for the module of the top-level resource
    ``top`` (its top comment lists the keys): only the error tables its methods use."""
    used = {m.errors for r in top.walk() for m in r.methods if m.errors}
    own = [t for t in tables if t.name in used]
    flavors = [resource_flavor(top, False), resource_flavor(top, True)]
    return {
        "header": header,
        "title": title,
        "attr": top.attr,
        "class_name": top.class_name,
        "async_class_name": f"Async{top.class_name}",
        "imports": import_lines(module_imports(top, flavors, own), ".."),
        "error_tables": table_literals(own),
        "flavors": flavors,
    }


@dataclass(frozen=True)
class ListedModule:
    """A line of ``resources/__init__.py``'s list: ``file`` is the module's file when it is
    not named after the attribute (``resources/annotations_.py``), else ""."""

    attr: str
    class_name: str
    file: str


def resources_init_context(root: Resource, *, header: str, title: str | None) -> dict[str, Any]:
    """Everything ``resources_init.py.jinja`` prints: the resource modules, listed."""
    modules = [
        ListedModule(
            attr, r.class_name, "" if r.module == attr else f"{RESOURCES_PACKAGE}/{r.module}.py"
        )
        for attr, r in root.children.items()
    ]
    return {"header": header, "title": title, "modules": modules}


def client_context(
    root: Resource,
    auth: dict[str, Any],
    *,
    header: str,
    title: str | None,
    base_url: str | None,
    env_base_url: str,
    webhooks: str | None = None,
) -> dict[str, Any]:
    """Everything ``_client.py.jinja`` prints (its top comment lists the keys);
    ``webhooks``: the attribute of the ``Webhooks`` of ``webhooks.py``, if any."""
    if root.methods:  # the config names a method "resource.method": none is the client's
        raise ValueError(f"methods without a resource: {[m.name for m in root.methods]}")
    alternatives = auth_branches(auth["alternatives"])
    sent = [h for branch in alternatives for h in branch.headers]
    targets = {h.target for h in sent}
    flavors = [flavor(root, False), flavor(root, True)]
    imports = client_imports(root, sent) | ({"typing.TYPE_CHECKING"} if webhooks else set())
    webhooks_import = [f"from .{WEBHOOKS_MODULE} import Webhooks"] if webhooks else []
    return {
        "header": header,
        "title": title,
        "imports": import_lines(imports, "."),
        "type_imports": sorted([*type_imports(flavors), *webhooks_import]),
        "webhooks": webhooks,
        "webhooks_module": WEBHOOKS_MODULE,
        "client": root.class_name,
        "async_client": f"Async{root.class_name}",
        "default_base_url": base_url or "",
        "env_base_url": env_base_url,
        "credentials": auth["credentials"],
        "alternatives": alternatives,
        "extra_headers": auth["extra_headers"],
        "sends_query": "query" in targets,
        "sends_cookies": "cookies" in targets,
        "resource_attrs": list(root.children),
        "flavors": flavors,
    }
