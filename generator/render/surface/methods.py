"""The client's methods, computed from the IR: parameters (Python name, wire name,
location, annotation), overloads, return annotations and the runtime type of the answer.
The resource tree that holds them is in :mod:`generator.render.surface.resources`.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable
from dataclasses import dataclass

from generator.config.tables import StreamTable
from generator.ir import Api, Field, Operation, Parameter, TypeRef, annotate
from generator.normalize.naming import RESERVED_PARAMETER_NAMES, client_snake_case
from generator.render.layout import parameter_annotation
from generator.render.settings import ApiSettings
from generator.render.surface.bodies import union_fields, urlencoded
from generator.render.surface.inputs import input_annotation, input_imports, names_of

# the method's own keywords, and the names its body uses (``cast``, ``path_param``...)
RESERVED = {"self", "extra_headers", "extra_query", "extra_body", "timeout", "body"}
RESERVED |= RESERVED_PARAMETER_NAMES
VERSION = re.compile(r"^v\d+(beta\d*|alpha\d*)?$")
LIST_NAME = "builtins.list"  # how signatures spell ``list`` (a method may be called ``list``)


# --- types -----------------------------------------------------------------------------------


def annotation(t: TypeRef) -> str:
    """``t.python_type`` with models qualified by the models module (``_m.Message``) and
    ``builtins.list`` (a resource may have a method called ``list``)."""
    return annotate.python(t, module="_m", list_name=LIST_NAME)


def runtime_type(t: TypeRef) -> str:
    """An expression that evaluates to the type at run time: the annotation, ``|`` and all
    (``_m.Message | None``; see :class:`generator.ir.annotate.Runtime`)."""
    return annotate.runtime(t, module="_m", list_name=LIST_NAME)


# --- the context -----------------------------------------------------------------------------

# the generated package's runtime module: ``_runtime.Stream`` is ``from ._runtime import Stream``
RUNTIME = "_runtime"
NOT_GIVEN = f"{RUNTIME}.NotGiven"
STREAMS = frozenset({f"{RUNTIME}.Stream", f"{RUNTIME}.AsyncStream"})
PAGES = frozenset({f"{RUNTIME}.SyncPage", f"{RUNTIME}.AsyncPage", f"{RUNTIME}.Paging"})


def annotation_imports(t: TypeRef) -> frozenset[str]:
    """What ``annotation(t)`` needs imported, as ``module.name`` (``typing.Any``)."""
    return frozenset(t.imports())


def runtime_type_imports(t: TypeRef) -> frozenset[str]:
    """What ``runtime_type(t)`` needs imported: the annotation's names (it is spelled as
    the annotation is, ``|`` and all)."""
    return frozenset(annotate.runtime_imports(t))


@dataclass
class Param:
    name: str  # Python name
    wire: str
    location: str  # path, query, header, body, file, whole
    annotation: str
    required: bool
    doc: str = ""
    imports: frozenset[str] = frozenset()  # what the annotation needs (``module.name``)
    default: str = ""  # code: the one value a required parameter can take (see _constant)

    @property
    def hint(self) -> str:
        """The annotation as a method signature writes it (parenthesized when a long union
        needs it, so that black and ruff format agree)."""
        default = self.default or (None if self.required else "NOT_GIVEN")
        return parameter_annotation(self.name, self.annotation, default, indent=8)


@dataclass
class Signature:
    params: list[Param]
    returns: str  # the sync client's return annotation
    returns_async: str  # the async client's (``AsyncStream``, ``AsyncPage``)


@dataclass
class Method:
    name: str
    op: Operation
    summary: str
    description: str
    path: list[tuple[str, str]]  # ("text", piece) | ("param", python name)
    params: list[Param]  # the implementation's parameters
    overloads: list[Signature]
    returns: str
    returns_async: str
    kind: str  # runtime expression of the response type (or chunk type)
    stream: str | None
    page: str | None  # code: the runtime Paging of a paged answer, else None
    files: list[str] | None
    form: bool  # the body is an urlencoded form (its fields sent as such)
    errors: str | None
    deprecated: bool
    stream_flag: Param | None = None  # the body field that switches streaming on
    model_body: bool = False  # the body may also be passed whole, as `body: Model`
    # what its annotations, return types, runtime type and path need (``module.name``)
    imports: frozenset[str] = frozenset()

    @property
    def query(self) -> list[Param]:
        return [p for p in self.params if p.location == "query"]

    @property
    def headers(self) -> list[Param]:
        return [p for p in self.params if p.location == "header"]

    @property
    def body_fields(self) -> list[Param]:
        return [p for p in self.params if p.location in ("body", "file")]

    @property
    def whole_body(self) -> Param | None:
        return next((p for p in self.params if p.location == "whole"), None)

    @property
    def path_expr(self) -> str:
        """The request path as a Python expression (``"/v1/files/" + path_param(file_id,
        "file_id")``: the name is the one an empty value's error gives)."""
        parts = [
            repr(value) if kind == "text" else f"path_param({value}, {value!r})"
            for kind, value in self.path
        ]
        return " + ".join(parts) or '""'


def _constant(p: Parameter) -> str:
    """A required header or query parameter whose one value is also its default (the
    ``fragments`` pass's ``X-Amz-Target``): that value as code, the signature's default, so
    the call sends it without being told; else ""."""
    t = p.schema
    if not (p.required and p.location in ("header", "query") and p.has_default):
        return ""
    if t.kind != "literal" or t.literals != (p.default,) or not isinstance(p.default, str):
        return ""
    return repr(p.default)


def _params(
    api: Api, op: Operation, cfg: ApiSettings
) -> tuple[list[Param], list[Param], TypeRef | None, str | None]:
    """(non-body params, body params, whole-body type, the annotation of a body that may
    also be passed whole as ``body=``: an object model, or a union of object models)."""
    taken = set(RESERVED)
    params: list[Param] = []
    for p in op.parameters:
        if p.location == "cookie":
            continue
        name = client_snake_case(p.python_name)
        while name in taken:
            name += "_"
        taken.add(name)
        required = p.required
        ann, imports = _input(api, p.schema)
        if not required:
            ann, imports = f"{ann} | NotGiven", imports | {NOT_GIVEN}
        doc = p.description or ""
        params.append(Param(name, p.name, p.location, ann, required, doc, imports, _constant(p)))
    body = op.request_body
    if body is None:
        return params, [], None, None
    schema = body.schema
    model = api.model(schema.name) if schema.kind == "model" and schema.name else None
    multipart = body.content_type.startswith("multipart/")
    members = None if multipart else union_fields(api, schema)
    if members is not None:
        fields = _body_params(api, members, taken, multipart, set())
        return params, fields, None, annotation(schema)
    if model is None or model.kind != "object" or (not model.fields and not multipart):
        return params, [], schema, None
    files = set(cfg.uploads.get(op.python_name, ()))
    fields = _body_params(api, model.fields, taken, multipart, files)
    return params, fields, None, f"_m.{model.name}"


def _input(api: Api, t: TypeRef) -> tuple[str, frozenset[str]]:
    """A parameter's annotation, taking plain dicts where ``t`` has objects (``_params``)."""
    names = names_of(api)
    return input_annotation(api, t, names), input_imports(api, t, names)


def _body_params(
    api: Api, model_fields: Iterable[Field], taken: set[str], multipart: bool, files: set[str]
) -> list[Param]:
    """The keyword parameters of a body's fields (``files``: fields the config says are
    files, besides ``format: binary``)."""
    fields: list[Param] = []
    for f in model_fields:
        is_file = multipart and (
            f.name in files
            or (f.type.kind == "primitive" and f.type.format == "binary")
            or (
                f.type.kind == "array"
                and f.type.items is not None
                and f.type.items.format == "binary"
            )
        )
        name = (
            client_snake_case(f.python_name) if not f.python_name.isidentifier() else f.python_name
        )
        if keyword.iskeyword(name):
            name += "_"
        while name in taken:
            name += "_"
        taken.add(name)
        if is_file:
            ann = f"{LIST_NAME}[FileInput]" if f.type.kind == "array" else "FileInput"
            imports = frozenset({f"{RUNTIME}.FileInput"})
        else:
            ann, imports = _input(api, f.type)
        if not f.required:
            ann, imports = f"{ann} | NotGiven", imports | {NOT_GIVEN}
        location, doc = "file" if is_file else "body", f.description or ""
        fields.append(Param(name, f.name, location, ann, f.required, doc, imports))
    return fields


def _in_path_order(op: Operation, params: list[Param]) -> list[Param]:
    """Path parameters in the order the path has them (they are positional)."""
    where = {p.wire: op.path.find("{" + p.wire + "}") for p in params}
    return sorted(params, key=lambda p: (where[p.wire] < 0, where[p.wire]))


def _ordered(params: list[Param]) -> list[Param]:
    return [p for p in params if p.required] + [p for p in params if not p.required]


def _optional(p: Param) -> Param:
    if p.required:
        ann, imports = f"{p.annotation} | NotGiven", p.imports | {NOT_GIVEN}
        return Param(p.name, p.wire, p.location, ann, False, p.doc, imports)
    return p


# Page-selecting query parameters and the answer fields that carry the next value, by
# style (see ``Paging`` in the runtime); the first match wins, in this order.
CURSOR_PARAMS = (
    *("cursor", "page_token", "pageToken", "next_token", "nextToken", "after"),
    *("starting_after", "continuation_token", "continuationToken", "page_cursor"),
)
NEXT_FIELDS = (
    *("next_cursor", "nextCursor", "next_page_token", "nextPageToken", "next_token"),
    *("nextToken", "continuation_token", "continuationToken", "cursor", "next"),
)
ITEM_FIELDS = ("items", "data", "results", "records", "entries", "values", "elements", "nodes")


@dataclass(frozen=True)
class Paging:
    """How a list operation pages: the runtime ``Paging(...)`` call (code built from
    ``repr`` of wire names) and the item annotation (with what it needs imported); the
    same as data (the mock pages as the client walks): ``style``, the answer's ``items``
    field ("": the answer), the query ``param`` and the answer's ``next`` field."""

    code: str
    item: str
    imports: frozenset[str]
    style: str = "link"
    items: str = ""
    param: str = ""
    next: str = ""


def _items(t: TypeRef) -> tuple[str, frozenset[str]]:
    if t.kind == "array" and t.items is not None:
        return annotation(t.items), annotation_imports(t.items)
    return "Any", frozenset({"typing.Any"})


def _paging_of(api: Api, op: Operation, wires: set[str], t: TypeRef) -> Paging | None:
    """The paging of a GET answering ``t`` with query parameters ``wires``, or None: page
    numbers (``page`` with ``items``, ``current_page``, ``total_item_count``), a cursor or
    token (a ``CURSOR_PARAMS`` parameter and a ``NEXT_FIELDS`` string field beside an array
    of items), or a ``Link`` header on an answer that is a list."""
    ok = op.success_response
    if t.kind == "array" and ok is not None and "link" in ok.headers:
        return Paging("Paging('link', items='')", *_items(t))
    if t.kind != "model" or not t.name:
        return None
    fields = {f.name: f for f in api.model(t.name).fields}
    arrays = [n for n, f in fields.items() if f.type.kind == "array"]
    items = next((n for n in ITEM_FIELDS if n in arrays), arrays[0] if len(arrays) == 1 else None)
    if items is None:
        return None
    item, imports = _items(fields[items].type)
    if "page" in wires and {"current_page", "total_item_count"} <= set(fields):
        code = f"Paging('page', items={items!r}, param='page')"
        return Paging(code, item, imports, "page", items, "page")
    param = next((p for p in CURSOR_PARAMS if p in wires), None)
    strings = {n for n, f in fields.items() if f.type.primitive == "string" and n != items}
    field = next((n for n in NEXT_FIELDS if n in strings), None)
    if param is None or field is None:
        return None
    code = f"Paging('cursor', items={items!r}, param={param!r}, next={field!r})"
    return Paging(code, item, imports, "cursor", items, param, field)


def paging_of(api: Api, op: Operation) -> Paging | None:
    """How the client pages ``op``'s answer (None: it does not), from its query
    parameters' wire names."""
    ok = op.success_response
    if op.method != "get" or ok is None or ok.schema is None:
        return None
    return _paging_of(api, op, {p.name for p in op.parameters_in("query")}, ok.schema)


def _paging(api: Api, op: Operation, params: list[Param], t: TypeRef | None) -> Paging | None:
    if op.method != "get" or t is None:
        return None
    return _paging_of(api, op, {p.wire for p in params if p.location == "query"}, t)


def _files(op: Operation, fields: list[Param]) -> list[str] | None:
    """The wire names of a multipart body's file fields (None for any other body)."""
    if op.request_body and op.request_body.content_type.startswith("multipart/"):
        return [p.wire for p in fields if p.location == "file"]
    return None


def _whole_param(op: Operation, whole: TypeRef | None, name: str, used: set[str]) -> Param | None:
    """The ``body`` parameter of a body that is not an object model's fields (an array's
    is ``name``, ``[client] array_body``, scale-gp's ``items``, unless a parameter has it)."""
    body = op.request_body
    if whole is None or body is None:
        return None
    name = name if whole.kind == "array" and name not in used else "body"
    ann = annotation(whole) if body.required else f"{annotation(whole)} | NotGiven"
    imports = annotation_imports(whole) | (set() if body.required else {NOT_GIVEN})
    return Param(name, "", "whole", ann, body.required, body.description or "", imports)


@dataclass
class _Answer:
    """What a method returns: its annotations (sync, async), the answer's runtime type
    (``kind``), a stream's chunk type, their imports; ``plain``: without a body flag."""

    returns: str
    returns_async: str
    kind: str
    page: str | None  # code: the runtime Paging of a page, or None
    imports: frozenset[str]
    chunk: str | None = None
    plain: str = ""
    plain_async: str = ""


def _answer(api: Api, op: Operation, params: list[Param], stream: StreamTable | None) -> _Answer:
    ok = op.success_response
    schema = ok.schema if ok is not None else None
    returns, kind = "None", "None"
    returns_imports: frozenset[str] = frozenset()
    kind_imports: frozenset[str] = frozenset()
    if schema is not None:
        returns, kind = annotation(schema), runtime_type(schema)
        returns_imports, kind_imports = annotation_imports(schema), runtime_type_imports(schema)
    paging = _paging(api, op, params, schema)
    returns_async = returns
    if paging is not None:
        item = paging.item
        returns, returns_async = f"SyncPage[{returns}, {item}]", f"AsyncPage[{returns}, {item}]"
        returns_imports |= PAGES | paging.imports
    page = paging.code if paging is not None else None
    if stream is None:
        return _Answer(returns, returns_async, kind, page, returns_imports | kind_imports)
    chunk = f"_m.{stream.chunk}"
    if stream.flag is None:
        sync, asynchronous = f"Stream[{chunk}]", f"AsyncStream[{chunk}]"
        return _Answer(sync, asynchronous, kind, page, kind_imports | STREAMS, chunk)
    if stream.response:
        returns = returns_async = kind = f"_m.{stream.response}"
        returns_imports = kind_imports = frozenset()
    return _Answer(
        f"{returns} | Stream[{chunk}]",
        f"{returns_async} | AsyncStream[{chunk}]",
        kind,
        page,
        returns_imports | kind_imports | STREAMS,
        chunk,
        returns,
        returns_async,
    )


def _flag_overloads(
    impl: list[Param], flag: Param, answer: _Answer
) -> tuple[list[Param], list[Signature], Param]:
    """A body flag switches streaming on: the overloads by the flag's literal type, and the
    implementation's parameters with the flag as ``bool | NotGiven``."""
    others = [p for p in impl if p is not flag]
    req = [p for p in others if p.required]
    opt = [p for p in others if not p.required]
    literal = frozenset({"typing.Literal"})
    f_false = Param(
        flag.name, flag.wire, "body", "Literal[False] | NotGiven", False, "", literal | {NOT_GIVEN}
    )
    f_true = Param(flag.name, flag.wire, "body", "Literal[True]", True, "", literal)
    f_bool = Param(flag.name, flag.wire, "body", "bool", True)
    chunk = answer.chunk
    overloads = [
        Signature(req + [f_false] + opt, answer.plain, answer.plain_async),
        Signature(req + [f_true] + opt, f"Stream[{chunk}]", f"AsyncStream[{chunk}]"),
        Signature(req + [f_bool] + opt, answer.returns, answer.returns_async),
    ]
    flag_ann = "bool | NotGiven"
    stream_flag = Param(flag.name, flag.wire, "body", flag_ann, False, "", frozenset({NOT_GIVEN}))
    return req + [stream_flag] + opt, overloads, stream_flag


def _model_body_overloads(
    impl: list[Param], overloads: list[Signature], answer: _Answer, body_model: str
) -> tuple[list[Param], list[Signature]]:
    """The body as a model instance: an overload with ``body: Model`` (``body_model``: its
    annotation) instead of its fields, and the implementation's body fields made optional."""
    non_body = [p for p in impl if p.location not in ("body", "file")]
    returns = (answer.returns, answer.returns_async)
    if not overloads:
        overloads = [Signature(impl, *returns)]
    whole = Param("body", "", "whole", body_model, True)
    overloads.append(Signature(_ordered(non_body + [whole]), *returns))
    impl = [_optional(p) if p.location in ("body", "file") else p for p in impl]
    impl.append(
        Param("body", "", "model", f"{body_model} | NotGiven", False, "", frozenset({NOT_GIVEN}))
    )
    return impl, overloads


def _path_segments(op: Operation, params: list[Param]) -> list[tuple[str, str]]:
    """``Method.path``: the path's text pieces and its parameters' Python names."""
    segs = []
    for piece in re.split(r"(\{[^{}/]+\})", op.path):
        if piece.startswith("{") and piece.endswith("}"):
            wire = piece[1:-1]
            match = next((p for p in params if p.location == "path" and p.wire == wire), None)
            if match is not None:
                segs.append(("param", match.name))
                continue
        if piece:
            segs.append(("text", piece))
    return segs


def build_method(
    api: Api, op: Operation, name: str, cfg: ApiSettings, errors: str | None
) -> Method:
    params, fields, whole, body_model = _params(api, op, cfg)
    stream = cfg.streaming.get(op.python_name)
    answer = _answer(api, op, params, stream)
    whole_param = _whole_param(op, whole, cfg.array_body, {p.name for p in params + fields})
    tail = [p for p in params if p.location != "path"] + fields
    tail += [whole_param] if whole_param else []
    impl = _in_path_order(op, [p for p in params if p.location == "path"]) + _ordered(tail)
    overloads: list[Signature] = []
    stream_flag = None
    if stream is not None and stream.flag is not None:
        flag = next(p for p in fields if p.wire == stream.flag)
        impl, overloads, stream_flag = _flag_overloads(impl, flag, answer)
    model_body = (
        body_model is not None and bool(fields) and not any(p.location == "file" for p in fields)
    )
    if model_body and body_model is not None:
        impl, overloads = _model_body_overloads(impl, overloads, answer, body_model)
    segs = _path_segments(op, params)
    imports = set(answer.imports)
    for p in [*impl, *(p for s in overloads for p in s.params)]:
        imports |= p.imports
    if any(kind == "param" for kind, _ in segs):
        imports.add(f"{RUNTIME}.path_param")
    return Method(
        name=name,
        op=op,
        summary=op.summary or "",
        description=op.description or "",
        path=segs,
        params=impl,
        overloads=overloads,
        returns=answer.returns,
        returns_async=answer.returns_async,
        kind=answer.kind,
        stream=answer.chunk,
        page=answer.page,
        files=_files(op, fields),
        form=bool(fields) and urlencoded(op),
        errors=errors,
        deprecated=op.deprecated,
        stream_flag=stream_flag,
        model_body=model_body,
        imports=frozenset(imports),
    )
