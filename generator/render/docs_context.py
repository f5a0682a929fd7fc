"""The context of the docs templates, computed from the IR (templates only present it).

Every string in the context that holds spec text is already safe Markdown (see
:mod:`generator.render.docs_text`); the templates paste it as is. Links between pages use
explicit anchors (``op-<python name>``, ``model-<name>``), never heading slugs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from generator.config import ApiConfig
from generator.ir import Api, Field, Model, Operation, Response, TypeRef
from generator.normalize.diagnostics import Diagnostic
from generator.render.client import auth_context
from generator.render.client_config import ClientConfig
from generator.render.client_context import Method, Resource
from generator.render.docs_samples import (
    Examples,
    curl_sample,
    example,
    python_sample,
    request_values,
    required_params,
)
from generator.render.docs_text import as_json, cell, code, constraints, inline, markdown
from generator.render.mock_values import Synthesizer

MODELS_PAGE = "models-reference.md"  # hyphenated: never a resource page (snake_case)
MAX_OPTIONS = 60  # enum values listed in a table cell (the models page lists all)
DIAGRAM_NODES = 14


def model_anchor(name: str) -> str:
    return f"model-{name}"


def op_anchor(op: Operation) -> str:
    return f"op-{op.python_name}"


# --- types as users read them, with links ----------------------------------------------------


def type_md(t: TypeRef, page: str, *, models: set[str]) -> str:
    """``TypeRef.display`` as Markdown (safe in a table cell): model names link to the
    models page, literal values are code spans, ``|`` is escaped."""
    shown = _type_md(t, page, models)
    if t.nullable and t.kind not in ("any", "null"):
        shown += " \\| null"
    return shown


def _group(text: str) -> str:
    return f"({text})" if " \\| " in text else text


def _type_md(t: TypeRef, page: str, models: set[str]) -> str:
    if t.kind == "model":
        name = t.name or "any"
        if name in models:
            target = (
                f"#{model_anchor(name)}"
                if page == MODELS_PAGE
                else f"{MODELS_PAGE}#{model_anchor(name)}"
            )
            return f"[{name}]({target})"
        return name
    if t.kind == "array":
        if t.prefix_items:
            return (
                "tuple [" + ", ".join(type_md(m, page, models=models) for m in t.prefix_items) + "]"
            )
        return f"array of {_group(type_md(t.items, page, models=models))}" if t.items else "array"
    if t.kind == "map":
        return f"map of {_group(type_md(t.values, page, models=models))}" if t.values else "object"
    if t.kind == "union":
        return " \\| ".join(type_md(m, page, models=models) for m in t.members)
    if t.kind == "literal":
        return " \\| ".join(code(as_json(v)) for v in t.literals)
    if t.kind == "primitive":
        return _display_plain(t)
    return "null" if t.kind == "null" else "any"


def _display_plain(t: TypeRef) -> str:
    plain = TypeRef(kind=t.kind, primitive=t.primitive, format=t.format)
    return cell(plain.display)


# --- field rows ------------------------------------------------------------------------------


@dataclass
class Row:
    """One row of a parameters or fields table; every cell is ready-made Markdown."""

    name: str
    type: str
    required: str
    default: str
    constraints: str
    description: str
    location: str = ""
    depth: int = 0


def _options(api: Api, t: TypeRef) -> tuple[str, list[Any]]:
    """("options" | "const" | "", values) of an enum or const type (or enum model)."""
    base = t
    if t.kind == "model" and t.name:
        try:
            model = api.model(t.name)
        except KeyError:
            return "", []
        if model.kind == "enum":
            return "options", list(model.enum_values)
        return "", []
    if base.kind == "literal":
        if len(base.literals) == 1:
            return "const", list(base.literals)
        return "options", list(base.literals)
    if base.kind == "array" and base.items is not None and base.items.kind == "literal":
        return "options", list(base.items.literals)
    return "", []


def options_md(api: Api, t: TypeRef) -> str:
    kind, values = _options(api, t)
    if kind == "const":
        return f"Allowed value: {code(as_json(values[0]))}"
    if kind == "options":
        shown = ", ".join(code(as_json(v)) for v in values[:MAX_OPTIONS])
        more = f", and {len(values) - MAX_OPTIONS} more" if len(values) > MAX_OPTIONS else ""
        return f"Available options: {shown}{more}"
    return ""


def _description(api: Api, text: str | None, t: TypeRef, extra: Iterable[str] = ()) -> str:
    parts = [cell(text)] if text else []
    opts = options_md(api, t)
    if opts:
        parts.append(opts)
    parts += list(extra)
    return "<br>".join(p for p in parts if p)


def _default(has: bool, value: Any) -> str:
    return code(as_json(value)) if has else ""


def _constraints(c: Any) -> str:
    return "<br>".join(code(x) for x in constraints(c))


def _child_model(api: Api, t: TypeRef) -> tuple[str, Model] | None:
    """The object model a field holds directly, as an item, or as a map value."""
    suffix = ""
    while t.kind in ("array", "map"):
        inner = t.items if t.kind == "array" else t.values
        if inner is None:
            return None
        suffix += "[]" if t.kind == "array" else "{}"
        t = inner
    if t.kind != "model" or not t.name:
        return None
    try:
        model = api.model(t.name)
    except KeyError:
        return None
    return (suffix, model) if model.kind == "object" and model.fields else None


def field_rows(
    api: Api,
    model: Model,
    page: str,
    models: set[str],
    *,
    nested: int = 0,
    _prefix: str = "",
    _depth: int = 0,
    _seen: tuple[str, ...] = (),
) -> list[Row]:
    """A row per field; with ``nested`` > 0, the fields of object-typed fields follow their
    parent (``parent.child``), down to ``nested`` levels (child attributes)."""
    rows: list[Row] = []
    for f in model.fields:
        name = _prefix + f.name
        extra = []
        if f.python_name != f.name:
            extra.append(f"Python name: {code(f.python_name)}")
        if f.deprecated:
            extra.append("Deprecated.")
        if f.read_only:
            extra.append("Read-only.")
        if f.write_only:
            extra.append("Write-only.")
        rows.append(
            Row(
                name=code(name),
                type=type_md(f.type, page, models=models),
                required="required" if f.required else "",
                default=_default(f.has_default, f.default),
                constraints=_constraints(f.constraints),
                description=_description(api, f.description, f.type, extra),
                depth=_depth,
            )
        )
        child = _child_model(api, f.type) if _depth < nested else None
        if child is not None and child[1].name not in _seen:
            suffix, sub = child
            rows += field_rows(
                api,
                sub,
                page,
                models,
                nested=nested,
                _prefix=f"{name}{suffix}.",
                _depth=_depth + 1,
                _seen=(*_seen, model.name),
            )
    return rows


# --- operations ------------------------------------------------------------------------------


@dataclass
class ResponseDoc:
    status: str
    description: str
    content_type: str
    type: str
    rows: list[Row]
    example: str | None


@dataclass
class OpDoc:
    op: Operation
    anchor: str
    page: str
    call: str  # client.chat.completions.create
    signature: str  # client.chat.completions.create(model, messages, ...)
    returns: str  # Markdown, models linked
    method: str
    path: str  # a code span
    request_line: str  # a code span: POST /v1/x
    summary: str
    title: str
    description: str
    deprecated: bool
    auth: str
    params: list[Row]
    body: dict[str, Any] | None
    responses: list[ResponseDoc]
    python: str
    python_stream: str | None
    curl: str
    curl_stream: str | None


@dataclass
class ResourceDoc:
    attr: str  # chat_completions
    title: str
    page: str  # chat_completions.md
    nav_title: str  # plain text: letters, digits, spaces and ()._- only
    summary: str
    description: str
    ops: list[OpDoc] = field(default_factory=list)


def _walk(resource: Resource, path: tuple[str, ...]) -> Iterable[tuple[tuple[str, ...], Method]]:
    for m in resource.methods:
        yield path, m
    for attr, child in resource.children.items():
        yield from _walk(child, (*path, attr))


_RETURN_NAME = re.compile(r"\b[A-Za-z_]\w*\b")


def returns_md(annotation: str, page: str, models: set[str]) -> str:
    """A client return annotation as Markdown, with model names linked."""
    text = annotation.replace("_m.", "").replace("builtins.", "")
    out: list[str] = []
    last = 0
    for m in _RETURN_NAME.finditer(text):
        out.append(_escape_plain(text[last : m.start()]))
        name = m.group(0)
        if name in models:
            out.append(f"[{name}]({MODELS_PAGE}#{model_anchor(name)})")
        else:
            out.append(code(name))
        last = m.end()
    out.append(_escape_plain(text[last:]))
    return "".join(out)


def _escape_plain(text: str) -> str:
    return re.sub(r"([\\`*_\[\]|<>])", r"\\\1", text)


def _auth(api: Api, op: Operation, cfg: ClientConfig) -> tuple[str, list[str]]:
    """Who may call ``op`` (Markdown), and the curl options of its first requirement."""
    if not op.security:
        return "none", []
    parts = []
    for req in op.security:
        parts.append(" and ".join(code(n) for n in req) if req else "anonymous")
    curl: list[str] = []
    first = op.security[0]
    prefix = cfg.env_prefix
    for name in first:
        try:
            scheme = api.security_scheme(name)
        except KeyError:
            continue
        if scheme.kind == "http-basic":
            curl.append(f'-u "${prefix}_API_KEY:"')
        elif scheme.kind in ("http-bearer", "oauth2", "openid"):
            curl.append(f'-H "Authorization: Bearer ${prefix}_BEARER_TOKEN"')
        elif scheme.kind == "api-key" and scheme.location == "header" and scheme.parameter_name:
            curl.append(f'-H "{scheme.parameter_name}: ${prefix}_API_KEY"')
    return " or ".join(parts), curl


def _response(
    api: Api, r: Response, page: str, models: set[str], cache: dict[str, Examples]
) -> ResponseDoc:
    rows: list[Row] = []
    type_text = ""
    if r.schema is not None:
        type_text = type_md(r.schema, page, models=models)
        child = _child_model(api, r.schema)
        if child is not None and not child[0]:
            rows = field_rows(api, child[1], page, models, nested=1)
    return ResponseDoc(
        status=r.status,
        description=inline(r.description),
        content_type=code(r.content_type) if r.content_type else "",
        type=type_text,
        rows=rows,
        example=example(api, r.schema, cache) if r.schema is not None else None,
    )


def build_op(
    api: Api,
    op: Operation,
    method: Method,
    path: tuple[str, ...],
    page: str,
    cfg: ClientConfig,
    package: str,
    client_class: str,
    models: set[str],
    synth: Synthesizer,
    cache: dict[str, Examples],
) -> OpDoc:
    call = ".".join(("client", *path, method.name))
    needed = required_params(api, op, method)
    required = [p.name for p in needed]
    more = len(needed) < sum(p.location != "model" for p in method.params)
    signature = f"{call}({', '.join(required + (['...'] if more else []))})"
    rows = []
    for p in op.parameters:
        if p.location == "cookie":
            continue
        extra = ["Deprecated."] if p.deprecated else []
        rows.append(
            Row(
                name=code(p.name),
                location=p.location,
                type=type_md(p.schema, page, models=models),
                required="required" if p.required else "",
                default=_default(p.has_default, p.default),
                constraints=_constraints(p.schema.constraints),
                description=_description(api, p.description, p.schema, extra),
            )
        )
    body = None
    if op.request_body is not None:
        rb = op.request_body
        child = _child_model(api, rb.schema)
        body = {
            "content_type": code(rb.content_type),
            "required": rb.required,
            "type": type_md(rb.schema, page, models=models),
            "description": markdown(rb.description, 4),
            "rows": field_rows(api, child[1], page, models, nested=1)
            if child is not None and not child[0]
            else [],
        }
    values = request_values(api, op, method, synth)
    wires = {p.name: p.wire for p in method.params}
    auth_text, auth_curl = _auth(api, op, cfg)
    env_base = f"{cfg.env_prefix}_BASE_URL"
    flag = method.stream_flag
    python_stream = None
    curl_stream = None
    if method.stream and flag is None:
        python = python_sample(package, client_class, call, values, stream="always")
    else:
        python = python_sample(package, client_class, call, values, stream=None)
        if method.stream and flag is not None:
            python_stream = python_sample(package, client_class, call, values, stream=flag.name)
            curl_stream = curl_sample(op, values, wires, env_base, auth_curl, stream=flag.wire)
    return OpDoc(
        op=op,
        anchor=op_anchor(op),
        page=page,
        call=call,
        signature=signature,
        returns=returns_md(method.returns, page, models),
        method=op.method.upper(),
        path=code(op.path),
        request_line=code(f"{op.method.upper()} {op.path}"),
        summary=inline(op.summary),
        title=inline(op.summary) or code(method.name),
        description=markdown(op.description, 4),
        deprecated=op.deprecated,
        auth=auth_text,
        params=rows,
        body=body,
        responses=[_response(api, r, page, models, cache) for r in op.responses],
        python=python,
        python_stream=python_stream,
        curl=curl_sample(op, values, wires, env_base, auth_curl, stream=None),
        curl_stream=curl_stream,
    )


def _first_sentence(text: str | None) -> str:
    if not text:
        return ""
    one = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", one)
    return (m.group(1) if m else one)[:200]


def build_resource_docs(
    api: Api, root: Resource, cfg: ClientConfig, package: str, client_class: str
) -> list[ResourceDoc]:
    models = {m.name for m in api.models}
    tags = {t.name: t for t in api.tags}
    synth = Examples(api, depth=0)  # minimal objects, one item per array
    cache: dict[str, Examples] = {}
    out: list[ResourceDoc] = []
    top: list[tuple[str, Resource]] = [(a, r) for a, r in root.children.items()]
    if root.methods:
        top.insert(0, ("client", Resource("client", root.class_name, root.methods)))
    for attr, resource in top:
        page = f"{attr}.md"
        ops: list[OpDoc] = []
        base: tuple[str, ...] = () if attr == "client" else (attr,)
        for path, method in _walk(resource, base):
            ops.append(
                build_op(
                    api,
                    method.op,
                    method,
                    path,
                    page,
                    cfg,
                    package,
                    client_class,
                    models,
                    synth,
                    cache,
                )
            )
        tag_names = [op.op.tags[0] for op in ops if op.op.tags]
        tag = tags.get(tag_names[0]) if tag_names else None
        title = tag.name if tag else attr.replace("_", " ").capitalize()
        summary = _first_sentence(tag.description if tag else None) or "; ".join(
            _first_sentence(o.op.summary) for o in ops[:3] if o.op.summary
        ) + ("; ..." if len(ops) > 3 else "")
        out.append(
            ResourceDoc(
                attr=attr,
                title=inline(title),
                page=page,
                nav_title=re.sub(r"[^A-Za-z0-9 ()._-]", "", title).strip() or attr,
                summary=cell(summary),
                description=markdown(tag.description if tag else None, 2),
                ops=ops,
            )
        )
    return out


# --- models ----------------------------------------------------------------------------------


@dataclass
class ModelDoc:
    name: str
    anchor: str
    kind: str
    description: str
    notes: list[str]
    rows: list[Row]
    options: list[str]
    type: str
    used_by: list[str]


def build_model_docs(
    api: Api, resources: Sequence[ResourceDoc], diagnostics: Sequence[Diagnostic]
) -> list[ModelDoc]:
    models = {m.name for m in api.models}
    merged: dict[str, list[str]] = {}
    renamed: dict[str, str] = {}
    for d in diagnostics:
        if not d.pointer.startswith("#/components/schemas/") and d.pass_name != "defs":
            continue
        if d.kind == "merge" and d.old and d.new:
            merged.setdefault(d.new, []).append(d.old)
        elif d.kind == "rename" and d.old and d.new and d.pointer.count("/") <= 3:
            renamed[d.new] = d.old
    used: dict[str, list[str]] = {}
    for res in resources:
        for o in res.ops:
            names: list[str] = []
            if o.op.request_body is not None:
                names += o.op.request_body.schema.model_names()
            for r in o.op.responses:
                if r.schema is not None:
                    names += r.schema.model_names()
            for n in dict.fromkeys(names):
                link = f"[{code(o.call)}]({o.page}#{o.anchor})"
                used.setdefault(n, []).append(link)
    out: list[ModelDoc] = []
    for m in api.models:
        notes = []
        if m.name in merged:
            olds = ", ".join(code(o) for o in sorted(merged[m.name]))
            notes.append(
                f"Merged: the spec defines {olds}; they are the same schema, so they are one "
                "model here."
            )
        if m.name in renamed:
            notes.append(f"Named {code(renamed[m.name])} in the spec.")
        aliased = [f for f in m.fields if f.python_name != f.name]
        if aliased:
            pairs = ", ".join(f"{code(f.name)} → {code(f.python_name)}" for f in aliased)
            notes.append(
                f"Aliased fields: {pairs}. The wire name is the JSON key; in Python the field "
                "is the second name, and either name is accepted when building the model."
            )
        if m.deprecated:
            notes.append("Deprecated.")
        if m.discriminator is not None:
            notes.append(
                f"Tagged union on {code(m.discriminator.property_name)}: "
                + ", ".join(
                    f"{code(as_json(tag))} → {_model_link(n, models)}"
                    for tag, n in m.discriminator.mapping.items()
                )
            )
        rows = field_rows(api, m, MODELS_PAGE, models) if m.kind == "object" else []
        options = [code(as_json(v)) for v in m.enum_values] if m.kind == "enum" else []
        type_text = type_md(m.root, MODELS_PAGE, models=models) if m.root is not None else ""
        out.append(
            ModelDoc(
                name=m.name,
                anchor=model_anchor(m.name),
                kind=m.kind,
                description=markdown(m.description, 3),
                notes=notes,
                rows=rows,
                options=options,
                type=type_text,
                used_by=used.get(m.name, []),
            )
        )
    return out


def _model_link(name: str, models: set[str]) -> str:
    return type_md(TypeRef(kind="model", name=name), MODELS_PAGE, models=models)


# --- the diagram -----------------------------------------------------------------------------


def _refs(api: Api, name: str) -> list[tuple[str, str]]:
    """(python field name, model name) of the object models a model's fields hold."""
    model = api.model(name)
    out = []
    for f in model.fields:
        for n in f.type.model_names():
            out.append((f.python_name, n))
    return out


def diagram(api: Api) -> str:
    """A Mermaid class diagram of the main models: the request and response models used by
    the most operations, the models their fields hold, and those links."""
    count: dict[str, int] = {}
    for op in api.operations:
        types: list[TypeRef] = []
        if op.request_body is not None:
            types.append(op.request_body.schema)
        ok = op.success_response
        if ok is not None and ok.schema is not None:
            types.append(ok.schema)
        for t in types:
            for n in t.model_names():
                count[n] = count.get(n, 0) + 1
    objects = {m.name for m in api.models if m.kind == "object" and m.fields}
    ranked = sorted((n for n in count if n in objects), key=lambda n: (-count[n], n))
    chosen = ranked[: DIAGRAM_NODES // 2]
    for name in list(chosen):
        for _, n in _refs(api, name):
            if n in objects and n not in chosen and len(chosen) < DIAGRAM_NODES:
                chosen.append(n)
    if not chosen:
        return ""
    ident = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
    lines = ["classDiagram"]
    for name in sorted(chosen):
        if ident.match(name):
            lines.append(f"    class {name}")
    edges = set()
    for name in sorted(chosen):
        for fname, target in _refs(api, name):
            if target in chosen and target != name and ident.match(name) and ident.match(target):
                label = fname if ident.match(fname) else ""
                edges.add((name, target, label))
    for a, b, label in sorted(edges):
        lines.append(f"    {a} --> {b}" + (f" : {label}" if label else ""))
    return "\n".join(lines)


# --- the index -------------------------------------------------------------------------------


def index_context(
    api: Api, config: ApiConfig, cfg: ClientConfig | None, resources: Sequence[ResourceDoc]
) -> dict[str, Any]:
    base_urls: list[dict[str, str]] = []
    if config.base_url:
        base_urls.append({"url": config.base_url, "description": "default of the client"})
    for s in api.servers:
        if s.url != config.base_url:
            base_urls.append({"url": s.url, "description": inline(s.description)})
    auth: dict[str, Any] | None = None
    if cfg is not None:
        ctx = auth_context(api, cfg)
        credentials = [
            {"param": c["param"], "env": c["env"], "doc": inline(c["doc"])}
            for c in ctx["credentials"]
        ]
        client_class = f"{cfg.name}Client"
        env_base = f"{cfg.env_prefix}_BASE_URL"
        explicit = ", ".join(f'{c["param"]}="..."' for c in credentials)
        python = "\n".join(
            [
                "import os",
                "",
                f"from {config.package} import {client_class}",
                "",
                "# from the environment: "
                + ", ".join(c["env"] for c in credentials)
                + f", {cfg.env_prefix}_BASE_URL",
                f"client = {client_class}()",
                "",
                "# or explicitly",
                f"client = {client_class}(",
                *(f'    {c["param"]}=os.environ["{c["env"]}"],' for c in credentials[:1]),
                f'    base_url=os.environ.get("{env_base}", {config.base_url or ""!r}),',
                ")",
            ]
        )
        curl_lines = []
        url = f'"${env_base}/..."'
        for scheme in api.security_schemes:
            if scheme.kind == "http-basic":
                curl_lines.append(f'curl -u "${cfg.env_prefix}_API_KEY:" {url}')
            elif scheme.kind in ("http-bearer", "oauth2", "openid"):
                token = f"${cfg.env_prefix}_BEARER_TOKEN"
                curl_lines.append(f'curl -H "Authorization: Bearer {token}" {url}')
            elif scheme.kind == "api-key" and scheme.parameter_name:
                key = f"${cfg.env_prefix}_API_KEY"
                curl_lines.append(f'curl -H "{scheme.parameter_name}: {key}" {url}')
        schemes = [
            {
                "name": code(s.name),
                "kind": s.kind,
                "where": code(s.parameter_name) + f" ({s.location})" if s.parameter_name else "",
                "description": cell(s.description),
            }
            for s in api.security_schemes
        ]
        auth = {
            "credentials": credentials,
            "explicit": explicit,
            "python": python,
            "curl": "\n".join(curl_lines),
            "schemes": schemes,
            "env_base_url": f"{cfg.env_prefix}_BASE_URL",
            "client": client_class,
        }
    return {
        "title": inline(config.title or api.title),
        "version": api.version,
        "version_code": code(api.version) if api.version else "",
        "description": markdown(api.description, 2),
        "base_urls": [{"url": code(b["url"]), "description": b["description"]} for b in base_urls],
        "auth": auth,
        "resources": resources,
        "diagram": diagram(api),
        "model_count": len(api.models),
        "operation_count": len(api.operations),
        "package": config.package,
    }


__all__ = [
    "Field",
    "ModelDoc",
    "OpDoc",
    "ResourceDoc",
    "Row",
    "build_model_docs",
    "build_resource_docs",
    "diagram",
    "index_context",
    "type_md",
]
