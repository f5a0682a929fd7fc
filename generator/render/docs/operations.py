"""The docs of the client's operations, page by page: one page per top-level resource
(titled after its name, or its tag's OpenAPI 3.2 ``summary``, unique in the nav), its
sub-resources as sections, each operation with its call, HTTP line, samples (tabs),
response examples, parameters, body, responses and "Try it" console."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from generator.ir import Api, Operation, Response, Tag
from generator.render.docs.auth import curl_option, requirement_md
from generator.render.docs.samples import (
    Examples,
    async_sample,
    body_json,
    curl_sample,
    example,
    http_sample,
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
from generator.render.docs.try_it import try_it_html
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
class Sample:
    """One tab of an operation's samples: its label (plain text), language and code."""

    label: str
    lang: str
    code: str


@dataclass
class ExampleDoc:
    """A response example: the status (plain text: a tab's label) and the JSON."""

    status: str
    json: str


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
    http_line: str  # POST /v1/x (raw: shown in a code block)
    samples: list[Sample]
    examples: list[ExampleDoc]
    try_it: str  # safe HTML (generator/render/docs/try_it.py), or ""
    fence: str  # the code blocks' fence: longer than any backtick run in them


@dataclass
class SectionDoc:
    """A resource of a page: the page's own (``heading`` False) or a sub-resource's."""

    anchor: str  # res-knowledge_bases-async_jobs
    title: str  # plain text: Async Jobs, Test Cases › History
    client: str  # client.knowledge_bases.async_jobs
    heading: bool
    ops: list[OpDoc]


@dataclass
class ResourceDoc:
    attr: str  # chat_completions
    title: str
    page: str  # chat_completions.md
    nav_title: str  # plain text: letters, digits, spaces and ()._- only
    summary: str
    description: str
    client: str = ""  # client.knowledge_bases
    ops: list[OpDoc] = field(default_factory=list)
    sections: list[SectionDoc] = field(default_factory=list)

    @property
    def op_count(self) -> int:
        return len(self.ops)


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


def _http_auth(api: Api, op: Operation, cfg: ApiSettings) -> list[tuple[str, str]]:
    """The raw HTTP request's credential headers (of the first requirement), the value a
    placeholder naming the client's environment variable."""
    out: list[tuple[str, str]] = []
    for name in op.security[0] if op.security else ():
        try:
            scheme = api.security_scheme(name)
        except KeyError:
            continue
        if scheme.kind == "http-basic":
            out.append(("Authorization", f"Basic <base64 of ${cfg.env('api_key')}:>"))
        elif scheme.kind in ("http-bearer", "oauth2", "openid"):
            out.append(("Authorization", f"Bearer <${cfg.env('bearer_token')}>"))
        elif scheme.kind == "api-key" and scheme.location == "header" and scheme.parameter_name:
            out.append((scheme.parameter_name, f"<${cfg.env('api_key')}>"))
    return out


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


@dataclass(frozen=True)
class OpContext:
    """What every operation of an API shares while its docs are built."""

    tables: Tables
    cfg: ApiSettings
    package: str
    client_class: str
    base_url: str
    synth: Synthesizer
    cache: dict[str, Examples]


def _samples(
    ctx: OpContext, op: Operation, method: Method, call: str, values: list[Any], auth: list[str]
) -> list[Sample]:
    """The sample tabs: Python (sync, async, streaming), curl and the raw HTTP request."""
    pkg, cls, api = ctx.package, ctx.client_class, ctx.tables.api
    wires = {p.name: p.wire for p in method.params}
    env_base = ctx.cfg.env("base_url")
    flag = method.stream_flag
    always = "always" if method.stream and flag is None else None
    out = [
        Sample("Python", "python", python_sample(pkg, cls, call, values, stream=always)),
        Sample("Python (async)", "python", async_sample(pkg, cls, call, values, stream=always)),
    ]
    streams = method.stream is not None and flag is not None
    if streams and flag is not None:
        stream = python_sample(pkg, cls, call, values, stream=flag.name)
        out.append(Sample("Python (streaming)", "python", stream))
    out.append(Sample("curl", "sh", curl_sample(op, values, wires, env_base, auth, stream=None)))
    if streams and flag is not None:
        stream = curl_sample(op, values, wires, env_base, auth, stream=flag.wire)
        out.append(Sample("curl (streaming)", "sh", stream))
    headers = _http_auth(api, op, ctx.cfg)
    out.append(Sample("HTTP", "http", http_sample(op, values, wires, ctx.base_url, headers)))
    return out


def build_op(ctx: OpContext, method: Method, path: tuple[str, ...], page: str) -> OpDoc:
    tables, op = ctx.tables, method.op
    api = tables.api
    call = ".".join(("client", *path, method.name))
    needed = required_params(api, op, method)
    required = [p.name for p in needed]
    more = len(needed) < sum(p.location != "model" for p in method.params)
    signature = f"{call}({', '.join(required + (['...'] if more else []))})"
    values = request_values(api, op, method, ctx.synth)
    auth_text, auth_curl = _auth(api, op, ctx.cfg)
    samples = _samples(ctx, op, method, call, values, auth_curl)
    responses = [_response(tables, r, page, ctx.cache) for r in op.responses]
    examples = [
        ExampleDoc(re.sub(r"[^0-9A-Za-z]", "", r.status) or "default", d.example)
        for r, d in zip(op.responses, responses)
        if d.example
    ]
    wires = {p.name: p.wire for p in method.params}
    http_line = f"{op.method.upper()} {op.path}"
    return OpDoc(
        op=op,
        anchor=op_anchor(op),
        page=page,
        call=call,
        signature=signature,
        returns=returns_md(method.returns, page, tables.models),
        method=op.method.upper(),
        path=code(op.path),
        request_line=code(http_line),
        summary=inline(op.summary),
        title=inline(op.summary) or code(method.name),
        description=markdown(op.description, 5),
        deprecated=op.deprecated,
        auth=auth_text,
        params=_params(tables, op, page),
        body=_body_doc(tables, op, page),
        responses=responses,
        http_line=http_line,
        samples=samples,
        examples=examples,
        try_it=try_it_html(op, body_json(op, values, wires)),
        fence=code_fence(
            signature, http_line, *(s.code for s in samples), *(e.json for e in examples)
        ),
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


_WORDS = {"ai": "AI", "api": "API", "apis": "APIs", "id": "ID", "ids": "IDs", "llm": "LLM"}
_WORDS |= {"llms": "LLMs", "sso": "SSO", "url": "URL", "urls": "URLs", "http": "HTTP"}


def resource_title(attr: str) -> str:
    """A resource's title from its name: ``chat_completions`` -> "Chat Completions"."""
    words = [w for w in attr.split("_") if w]
    return " ".join(_WORDS.get(w.lower(), w[:1].upper() + w[1:]) for w in words) or "Client"


def _plain(title: str) -> str:
    """A title as nav text: letters, digits, spaces and ()._- only."""
    return " ".join(re.sub(r"[^A-Za-z0-9 ()._-]", "", title).split())


def _tag_summary(tags: Mapping[str, Tag], methods: list[Method], *, top: bool) -> str:
    """The OpenAPI 3.2 ``summary`` of the tag that every one of ``methods`` has first (or,
    ``top``, of the top of its ``parent`` chain: a page's); "" when they differ or it has
    none."""
    names = {m.op.tags[0] if m.op.tags else "" for m in methods}
    if len(names) != 1 or "" in names:
        return ""
    name = names.pop()
    tag = _page_tag(tags, name) if top else tags.get(name)
    return _plain(tag.summary or "") if tag is not None else ""


def _sections(
    ctx: OpContext, tags: Mapping[str, Tag], node: Resource, path: tuple[str, ...], page: str
) -> list[SectionDoc]:
    """The page's resource and its sub-resources, depth first, each with its operations."""
    out: list[SectionDoc] = []

    def visit(res: Resource, at: tuple[str, ...]) -> None:
        if res.methods:
            rel = at[len(path) :]
            names = [resource_title(a) for a in rel]
            summary = _tag_summary(tags, res.methods, top=False)
            if names and summary:
                names[-1] = summary
            title = " › ".join(names)
            out.append(
                SectionDoc(
                    anchor="res-" + "-".join(at or ("client",)),
                    title=title,
                    client=".".join(("client", *at)),
                    heading=bool(rel),
                    ops=[build_op(ctx, m, at, page) for m in res.methods],
                )
            )
        for attr, child in res.children.items():
            visit(child, (*at, attr))

    visit(node, path)
    return out


# the site's other nav titles (templates/docs/mkdocs.yml.jinja)
NAV_TITLES = ("Home", "Resources", "Models reference", "Client methods")


def _unique_titles(candidates: list[tuple[str, str]]) -> list[str]:
    """Nav titles, one per page, none twice nor one of ``NAV_TITLES``: each page's
    preferred title (a tag's summary, or its name's), else its name's, else its name's
    with the attribute."""

    def clashes(titles: list[str]) -> list[bool]:
        return [t in NAV_TITLES or titles.count(t) > 1 for t in titles]

    titles = [c[0] or resource_title(c[1]) for c in candidates]
    titles = [
        resource_title(a) if clash else t
        for t, clash, (_, a) in zip(titles, clashes(titles), candidates)
    ]
    return [
        f"{t} ({a})" if clash else t
        for t, clash, (_, a) in zip(titles, clashes(titles), candidates)
    ]


def build_resource_docs(
    tables: Tables,
    root: Resource,
    cfg: ApiSettings,
    package: str,
    client_class: str,
    base_url: str = "",
) -> list[ResourceDoc]:
    """A page per top-level resource of the client (its sub-resources as its sections),
    titled after the resource's name, or its tag's OpenAPI 3.2 ``summary``."""
    api = tables.api
    tags = {t.name: t for t in api.tags}
    ctx = OpContext(tables, cfg, package, client_class, base_url, Examples(api, depth=0), {})
    # (the client's own methods, "": a resource may be called client, or index)
    top: list[tuple[str, Resource]] = [(a, r) for a, r in root.children.items()]
    if root.methods:
        top.insert(0, ("", Resource("client", root.class_name, root.methods)))
    pages = []
    for attr, resource in top:
        page = resource_page(attr)
        sections = _sections(ctx, tags, resource, (attr,) if attr else (), page)
        ops = [o for s in sections for o in s.ops]
        every = [m for r in resource.walk() for m in r.methods]
        pages.append((attr, page, sections, ops, _tag_summary(tags, every, top=True)))
    titles = _unique_titles([(p[4], p[0] or "client") for p in pages])
    out: list[ResourceDoc] = []
    for (attr, page, sections, ops, _), title in zip(pages, titles):
        tag_names = [op.op.tags[0] for op in ops if op.op.tags]
        tag = _page_tag(tags, tag_names[0]) if tag_names else None
        summary = _first_sentence(tag.description if tag else None) or "; ".join(
            _first_sentence(o.op.summary) for o in ops[:3] if o.op.summary
        ) + ("; ..." if len(ops) > 3 else "")
        out.append(
            ResourceDoc(
                attr=attr or "client",
                title=inline(title),
                page=page,
                nav_title=_plain(title) or attr,
                summary=cell(summary),
                description=markdown(tag.description if tag else None, 2),
                client=".".join(("client", attr)) if attr else "client",
                ops=ops,
                sections=sections,
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
