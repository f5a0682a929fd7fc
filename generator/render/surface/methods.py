"""The client's methods, computed from the IR: parameters (Python name, wire name,
location, annotation), overloads, return annotations and the runtime type of the answer.
The resource tree that holds them is in :mod:`generator.render.surface.resources`.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass

from generator.format import parameter_annotation
from generator.ir import Api, Operation, TypeRef
from generator.normalize.naming import RESERVED_PARAMETER_NAMES
from generator.render.annotations import annotation as qualified
from generator.render.surface.config import ClientConfig

# the method's own keywords, and the names its body uses (``cast``, ``path_param``...)
RESERVED = {"self", "extra_headers", "extra_query", "extra_body", "timeout", "body"}
RESERVED |= RESERVED_PARAMETER_NAMES
VERSION = re.compile(r"^v\d+(beta\d*|alpha\d*)?$")


def snake(text: str) -> str:
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    name = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower() or "x"
    if name[0].isdigit():
        name = f"n{name}"
    return f"{name}_" if keyword.iskeyword(name) else name


def pascal(text: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in snake(text).split("_") if p)


# --- types -----------------------------------------------------------------------------------


def annotation(t: TypeRef) -> str:
    """``t.python_type`` with models qualified by the models module (``_m.Message``)."""
    return qualified(t, "_m", "builtins.list")


def runtime_type(t: TypeRef) -> str:
    """An expression that evaluates to the type at run time (``Union``/``Optional``, since
    ``|`` does not work on every alias)."""
    if t.kind == "model":
        inner = f"_m.{t.name}"
    elif t.kind == "array" and t.prefix_items:
        inner = f"tuple[{', '.join(runtime_type(i) for i in t.prefix_items)}]"
    elif t.kind == "array":
        inner = f"builtins.list[{runtime_type(t.items) if t.items else 'Any'}]"
    elif t.kind == "map":
        inner = f"dict[str, {runtime_type(t.values) if t.values else 'Any'}]"
    elif t.kind == "union":
        inner = f"Union[{', '.join(runtime_type(m) for m in t.members)}]"
    elif t.kind in ("any", "null"):
        return t.python_type
    else:
        inner = (
            TypeRef(**{**t.__dict__, "nullable": False}).python_type
            if t.nullable
            else t.python_type
        )
    return f"Optional[{inner}]" if t.nullable else inner


# --- the context -----------------------------------------------------------------------------


@dataclass
class Param:
    name: str  # Python name
    wire: str
    location: str  # path, query, header, body, file, whole
    annotation: str
    required: bool
    doc: str = ""

    @property
    def hint(self) -> str:
        """The annotation as a method signature writes it (parenthesized when a long union
        needs it, so that black and ruff format agree)."""
        default = None if self.required else "NOT_GIVEN"
        return parameter_annotation(self.name, self.annotation, default, indent=8)


@dataclass
class Signature:
    params: list[Param]
    returns: str  # sync return annotation (the async one is the same)


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
    page: bool
    files: list[str] | None
    errors: str | None
    deprecated: bool
    stream_flag: Param | None = None  # the body field that switches streaming on
    model_body: bool = False  # the body may also be passed whole, as `body: Model`

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
        """The request path as a Python expression (``"/v1/files/" + path_param(file_id)``)."""
        parts = [
            repr(value) if kind == "text" else f"path_param({value})" for kind, value in self.path
        ]
        return " + ".join(parts) or '""'


def _params(
    api: Api, op: Operation, cfg: ClientConfig
) -> tuple[list[Param], list[Param], TypeRef | None, str | None]:
    """(non-body params, body params, whole-body type, body model name)."""
    taken = set(RESERVED)
    params: list[Param] = []
    for p in op.parameters:
        if p.location == "cookie":
            continue
        name = snake(p.python_name)
        while name in taken:
            name += "_"
        taken.add(name)
        required = p.required
        ann = annotation(p.schema) if required else f"{annotation(p.schema)} | NotGiven"
        params.append(Param(name, p.name, p.location, ann, required, p.description or ""))
    body = op.request_body
    if body is None:
        return params, [], None, None
    schema = body.schema
    model = api.model(schema.name) if schema.kind == "model" and schema.name else None
    multipart = body.content_type.startswith("multipart/")
    if model is None or model.kind != "object" or (not model.fields and not multipart):
        return params, [], schema, None
    files = set(cfg.uploads.get(op.python_name, ()))
    fields: list[Param] = []
    for f in model.fields:
        is_file = multipart and (
            f.name in files
            or (f.type.kind == "primitive" and f.type.format == "binary")
            or (
                f.type.kind == "array"
                and f.type.items is not None
                and f.type.items.format == "binary"
            )
        )
        name = snake(f.python_name) if not f.python_name.isidentifier() else f.python_name
        if keyword.iskeyword(name):
            name += "_"
        while name in taken:
            name += "_"
        taken.add(name)
        if is_file:
            ann = "builtins.list[FileInput]" if f.type.kind == "array" else "FileInput"
        else:
            ann = annotation(f.type)
        if not f.required:
            ann += " | NotGiven"
        fields.append(
            Param(name, f.name, "file" if is_file else "body", ann, f.required, f.description or "")
        )
    return params, fields, None, model.name


def _ordered(params: list[Param]) -> list[Param]:
    return [p for p in params if p.required] + [p for p in params if not p.required]


def _optional(p: Param) -> Param:
    if p.required:
        return Param(p.name, p.wire, p.location, f"{p.annotation} | NotGiven", False, p.doc)
    return p


def _page_item(api: Api, t: TypeRef | None) -> str | None:
    if t is None or t.kind != "model" or not t.name:
        return None
    model = api.model(t.name)
    fields = {f.name: f for f in model.fields}
    if not {"items", "current_page", "total_item_count"} <= set(fields):
        return None
    items = fields["items"].type
    return annotation(items.items) if items.kind == "array" and items.items else "Any"


def _paged(op: Operation, params: list[Param]) -> bool:
    return op.method == "get" and "page" in {p.wire for p in params}


def _files(op: Operation, fields: list[Param]) -> list[str] | None:
    """The wire names of a multipart body's file fields (None for any other body)."""
    if op.request_body and op.request_body.content_type.startswith("multipart/"):
        return [p.wire for p in fields if p.location == "file"]
    return None


def _whole_param(op: Operation, whole: TypeRef | None) -> Param | None:
    """The ``body`` parameter of a body that is not an object model's fields."""
    if whole is None:
        return None
    required = bool(op.request_body and op.request_body.required)
    ann = annotation(whole) if required else f"{annotation(whole)} | NotGiven"
    return Param(
        "body",
        "",
        "whole",
        ann,
        required,
        op.request_body.description or "" if op.request_body else "",
    )


def _flag_overloads(
    impl: list[Param], flag: Param, plain: str, chunk: str
) -> tuple[list[Param], list[Signature], Param]:
    """A body flag switches streaming on: the overloads by the flag's literal type, and the
    implementation's parameters with the flag as ``bool | NotGiven``."""
    others = [p for p in impl if p is not flag]
    req = [p for p in others if p.required]
    opt = [p for p in others if not p.required]
    f_false = Param(flag.name, flag.wire, "body", "Literal[False] | NotGiven", False)
    f_true = Param(flag.name, flag.wire, "body", "Literal[True]", True)
    f_bool = Param(flag.name, flag.wire, "body", "bool", True)
    overloads = [
        Signature(req + [f_false] + opt, plain),
        Signature(req + [f_true] + opt, f"Stream[{chunk}]"),
        Signature(req + [f_bool] + opt, f"{plain} | Stream[{chunk}]"),
    ]
    stream_flag = Param(flag.name, flag.wire, "body", "bool | NotGiven", False)
    return req + [stream_flag] + opt, overloads, stream_flag


def _model_body_overloads(
    impl: list[Param], overloads: list[Signature], returns: str, body_model: str
) -> tuple[list[Param], list[Signature]]:
    """The body as a model instance: an overload with ``body: Model`` instead of its fields,
    and the implementation's body fields made optional."""
    non_body = [p for p in impl if p.location not in ("body", "file")]
    if not overloads:
        overloads = [Signature(impl, returns)]
    overloads.append(
        Signature(
            _ordered(non_body + [Param("body", "", "whole", f"_m.{body_model}", True)]),
            returns,
        )
    )
    impl = [_optional(p) if p.location in ("body", "file") else p for p in impl]
    impl.append(Param("body", "", "model", f"_m.{body_model} | NotGiven", False))
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
    api: Api, op: Operation, name: str, cfg: ClientConfig, errors: str | None
) -> Method:
    params, fields, whole, body_model = _params(api, op, cfg)
    ok = op.success_response
    schema = ok.schema if ok is not None else None
    returns = annotation(schema) if schema is not None else "None"
    kind = runtime_type(schema) if schema is not None else "None"
    stream = cfg.streaming.get(op.python_name)
    page_item = _page_item(api, schema) if _paged(op, params) else None
    stream_kind = None
    if page_item is not None:
        returns = f"SyncPage[{returns}, {page_item}]"
    returns_async = returns.replace("SyncPage[", "AsyncPage[", 1)
    whole_param = _whole_param(op, whole)
    tail = [p for p in params if p.location != "path"] + fields
    tail += [whole_param] if whole_param else []
    impl = [p for p in params if p.location == "path"] + _ordered(tail)
    overloads: list[Signature] = []
    stream_flag = None
    if stream is not None:
        chunk = f"_m.{stream.chunk}"
        stream_kind = chunk
        if stream.flag is None:
            returns = f"Stream[{chunk}]"
            returns_async = f"AsyncStream[{chunk}]"
        else:
            plain = f"_m.{stream.response}" if stream.response else returns
            kind = plain.replace("_m.", "_m.", 1) if stream.response else kind
            flag = next(p for p in fields if p.wire == stream.flag)
            impl, overloads, stream_flag = _flag_overloads(impl, flag, plain, chunk)
            returns = f"{plain} | Stream[{chunk}]"
            returns_async = f"{plain} | AsyncStream[{chunk}]"
    model_body = (
        body_model is not None and bool(fields) and not any(p.location == "file" for p in fields)
    )
    if model_body and body_model is not None:
        impl, overloads = _model_body_overloads(impl, overloads, returns, body_model)
    segs = _path_segments(op, params)
    files = _files(op, fields)
    return Method(
        name=name,
        op=op,
        summary=op.summary or "",
        description=op.description or "",
        path=segs,
        params=impl,
        overloads=overloads,
        returns=returns,
        returns_async=returns_async,
        kind=kind,
        stream=stream_kind,
        page=page_item is not None,
        files=files,
        errors=errors,
        deprecated=op.deprecated,
        stream_flag=stream_flag,
        model_body=model_body,
    )
