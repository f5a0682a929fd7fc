"""The docs of the client's operations, page by page: one page per top-level resource,
each operation with its call, parameters, body, responses and samples."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from generator.ir import Api, Operation, Response, Tag
from generator.render.docs.auth import curl_option, requirement_md
from generator.render.docs.samples import (
    Examples,
    curl_sample,
    example,
    python_sample,
    request_values,
    required_params,
)
from generator.render.docs.tables import (
    MODELS_PAGE,
    PARAM_COLUMNS,
    Row,
    Table,
    Tables,
    constraints_md,
    default_md,
    model_anchor,
    op_anchor,
    required_first,
    table,
)
from generator.render.docs.text import cell, code, inline, markdown, python_md
from generator.render.examples import Synthesizer
from generator.render.meta import code_fence
from generator.render.settings import ApiSettings
from generator.render.surface import Method, Resource


@dataclass
class ResponseDoc:
    status: str
    description: str
    content_type: str
    type: str
    tables: list[Table]
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
    params: Table | None
    body: dict[str, Any] | None
    responses: list[ResponseDoc]
    python: str
    python_stream: str | None
    curl: str
    curl_stream: str | None
    fence: str  # the samples' code fence: longer than any backtick run in them


@dataclass
class ResourceDoc:
    attr: str  # chat_completions
    title: str
    page: str  # chat_completions.md
    nav_title: str  # plain text: letters, digits, spaces and ()._- only
    summary: str
    description: str
    ops: list[OpDoc] = field(default_factory=list)

    @property
    def op_count(self) -> int:
        return len(self.ops)


def _walk(resource: Resource, path: tuple[str, ...]) -> Iterable[tuple[tuple[str, ...], Method]]:
    for m in resource.methods:
        yield path, m
    for attr, child in resource.children.items():
        yield from _walk(child, (*path, attr))


def returns_md(annotation: str, page: str, models: set[str]) -> str:
    """A client return annotation as Markdown, with model names linked."""

    def link(name: str) -> str | None:
        return f"[{name}]({MODELS_PAGE}#{model_anchor(name)})" if name in models else None

    return python_md(annotation.replace("_m.", "").replace("builtins.", ""), link)


def _auth(api: Api, op: Operation, cfg: ApiSettings) -> tuple[str, list[str]]:
    """Who may call ``op`` (Markdown), and the curl options of its first requirement."""
    if not op.security:
        return "none", []
    curl: list[str] = []
    for name in op.security[0]:
        try:
            option = curl_option(api.security_scheme(name), cfg)
        except KeyError:
            continue
        if option is not None:
            curl.append(option)
    return " or ".join(requirement_md(api, req) for req in op.security), curl


def _response(tables: Tables, r: Response, page: str, cache: dict[str, Examples]) -> ResponseDoc:
    return ResponseDoc(
        status=inline(r.status),
        description=inline(r.description),
        content_type=code(r.content_type) if r.content_type else "",
        type=tables.type_md(r.schema, page) if r.schema is not None else "",
        tables=tables.body_tables(r.schema, page) if r.schema is not None else [],
        example=example(tables.api, r.schema, cache) if r.schema is not None else None,
    )


def _params(tables: Tables, op: Operation, page: str) -> Table | None:
    """The parameters table (required parameters first), None without parameters."""
    rows = []
    for p in op.parameters:
        if p.location == "cookie":
            continue
        extra = ["Deprecated."] if p.deprecated else []
        rows.append(
            Row(
                name=code(p.name),
                location=p.location,
                type=tables.type_md(p.schema, page),
                required="required" if p.required else "",
                default=default_md(p.has_default, p.default),
                constraints=constraints_md(p.schema.constraints),
                description=tables.describe(p.description, p.schema, extra),
            )
        )
    return table(required_first(rows), PARAM_COLUMNS) if rows else None


def _body_doc(tables: Tables, op: Operation, page: str) -> dict[str, Any] | None:
    if op.request_body is None:
        return None
    rb = op.request_body
    return {
        "content_type": code(rb.content_type),
        "required": rb.required,
        "type": tables.type_md(rb.schema, page),
        "description": markdown(rb.description, 4),
        "tables": tables.body_tables(rb.schema, page),
    }


def build_op(
    tables: Tables,
    op: Operation,
    method: Method,
    path: tuple[str, ...],
    page: str,
    cfg: ApiSettings,
    package: str,
    client_class: str,
    synth: Synthesizer,
    cache: dict[str, Examples],
) -> OpDoc:
    api = tables.api
    call = ".".join(("client", *path, method.name))
    needed = required_params(api, op, method)
    required = [p.name for p in needed]
    more = len(needed) < sum(p.location != "model" for p in method.params)
    signature = f"{call}({', '.join(required + (['...'] if more else []))})"
    params = _params(tables, op, page)
    body = _body_doc(tables, op, page)
    values = request_values(api, op, method, synth)
    wires = {p.name: p.wire for p in method.params}
    auth_text, auth_curl = _auth(api, op, cfg)
    env_base = cfg.env("base_url")
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
    curl = curl_sample(op, values, wires, env_base, auth_curl, stream=None)
    return OpDoc(
        op=op,
        anchor=op_anchor(op),
        page=page,
        call=call,
        signature=signature,
        returns=returns_md(method.returns, page, tables.models),
        method=op.method.upper(),
        path=code(op.path),
        request_line=code(f"{op.method.upper()} {op.path}"),
        summary=inline(op.summary),
        title=inline(op.summary) or code(method.name),
        description=markdown(op.description, 4),
        deprecated=op.deprecated,
        auth=auth_text,
        params=params,
        body=body,
        responses=[_response(tables, r, page, cache) for r in op.responses],
        python=python,
        python_stream=python_stream,
        curl=curl,
        curl_stream=curl_stream,
        fence=code_fence(python, python_stream or "", curl, curl_stream or ""),
    )


def _first_sentence(text: str | None) -> str:
    if not text:
        return ""
    one = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", one)
    return (m.group(1) if m else one)[:200]


def resource_page(attr: str) -> str:
    """The page of a top-level resource (``""``: the client's own methods). Hyphenated
    names are never a resource's (snake_case), so neither a resource called ``client``
    nor one called ``index`` takes another page."""
    if not attr:
        return "client-root.md"
    return f"{attr}.md" if attr != "index" else "index-resource.md"


def build_resource_docs(
    tables: Tables, root: Resource, cfg: ApiSettings, package: str, client_class: str
) -> list[ResourceDoc]:
    api = tables.api
    tags = {t.name: t for t in api.tags}
    synth = Examples(api, depth=0)  # minimal objects, one item per array
    cache: dict[str, Examples] = {}
    out: list[ResourceDoc] = []
    # (the client's own methods, "": a resource may be called client, or index)
    top: list[tuple[str, Resource]] = [(a, r) for a, r in root.children.items()]
    if root.methods:
        top.insert(0, ("", Resource("client", root.class_name, root.methods)))
    for attr, resource in top:
        page = resource_page(attr)
        ops: list[OpDoc] = []
        base: tuple[str, ...] = (attr,) if attr else ()
        for path, method in _walk(resource, base):
            ops.append(
                build_op(
                    tables,
                    method.op,
                    method,
                    path,
                    page,
                    cfg,
                    package,
                    client_class,
                    synth,
                    cache,
                )
            )
        tag_names = [op.op.tags[0] for op in ops if op.op.tags]
        tag = _page_tag(tags, tag_names[0]) if tag_names else None
        fallback = (attr or "client").replace("_", " ").capitalize()
        title = (tag.summary or tag.name) if tag else fallback
        summary = _first_sentence(tag.description if tag else None) or "; ".join(
            _first_sentence(o.op.summary) for o in ops[:3] if o.op.summary
        ) + ("; ..." if len(ops) > 3 else "")
        out.append(
            ResourceDoc(
                attr=attr or "client",
                title=inline(title),
                page=page,
                nav_title=" ".join(re.sub(r"[^A-Za-z0-9 ()._-]", "", title).split()) or attr,
                summary=cell(summary),
                description=markdown(tag.description if tag else None, 2),
                ops=ops,
            )
        )
    return out


def _page_tag(tags: Mapping[str, Tag], name: str) -> Tag | None:
    """The tag a resource page is titled after: its first operation's, or the top of that
    tag's OpenAPI 3.2 ``parent`` chain (the page is the top resource's)."""
    tag, seen = tags.get(name), {name}
    while tag is not None and tag.parent is not None and tag.parent not in seen:
        parent = tags.get(tag.parent)
        if parent is None:
            break
        seen.add(parent.name)
        tag = parent
    return tag
