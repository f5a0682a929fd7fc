"""The server's routes: one per operation, with its FastAPI arguments, its responses, its
streaming mode and the mock's answer. Code strings here are built only from identifiers
the IR has already made valid and from ``repr`` of spec values (see :mod:`.context`).
"""

from __future__ import annotations

import keyword
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from generator.config import StreamTable
from generator.ir import Api, Field, Operation, TypeRef, annotate
from generator.load import escape_token
from generator.media import media_base
from generator.normalize.diagnostics import Diagnostic
from generator.normalize.naming import RESERVED_PARAMETER_NAMES
from generator.render.examples import MockError, Synthesizer
from generator.render.layout import fits, parameter_annotation
from generator.render.server.bodies import (
    FORMS,
    answer_media,
    body_doc,
    form_members,
    raw_body,
    takes_bytes,
)
from generator.render.server.mock_answers import mock_pager
from generator.render.server.params import (
    PARAM_CLASS,
    RouteExtras,
    body_allowed,
    has_body,
    no_body_warning,
    openapi_extra,
    parameter_marker,
    path_default_warning,
    structured,
)
from generator.render.server.paths import ROUTE_NAME, route_path, structured_segment
from generator.render.server.streams import MockGap, RouteStream, route_stream

# names the generated method bodies use: a parameter or form field must not shadow them
_RESERVED = {"self", "body", "service", "request", "credentials", *RESERVED_PARAMETER_NAMES}


def annotation(t: TypeRef) -> str:
    """``t.python_type`` with model names qualified as ``models.X``."""
    return annotate.python(t, module="models")


def _safe(name: str, taken: set[str], reserved: set[str] = _RESERVED) -> str:
    base = f"{name}_" if keyword.iskeyword(name) or name in reserved else name
    result, n = base, 2
    while result in taken:
        result, n = f"{base}_{n}", n + 1
    taken.add(result)
    return result


@dataclass
class Arg:
    """One argument of a route function and of the service method."""

    name: str  # the Python name (route parameter and service keyword)
    annotation: str  # service-side annotation
    marker: str  # FastAPI marker call, e.g. ``Query(alias='limit', ge=1)``
    default: str | None  # source of the default, or None when required
    route_annotation: str = ""  # the route's annotation, when it differs from the service's
    fastapi: tuple[str, ...] = ()  # the ``fastapi`` names its marker and annotations use

    def __post_init__(self) -> None:
        self.route_annotation = self.route_annotation or self.annotation

    @property
    def hint(self) -> str:
        """The service-side annotation as a method signature writes it (parenthesized when a
        long union needs it, so that black and ruff format agree)."""
        return parameter_annotation(self.name, self.annotation, None, indent=8)


# the methods FastAPI's APIRouter has a decorator of
ROUTER_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass
class Route:
    name: str  # the service method's (the client's name, joined: see ``service_names``)
    operation: str  # the operation's ``python_name`` (what the config and the IR know it by)
    operation_id: str | None
    method: str
    path: str
    summary: str | None
    description: str | None
    tags: list[str]
    deprecated: bool
    args: list[Arg]
    returns: str  # service method return annotation
    response_model: str  # FastAPI response_model source ("None" for no body)
    status_code: int
    response_description: str
    responses: list[tuple[int | str, str | None, str]]  # (status, model source, description)
    security: str | None  # name of the presence dependency, or None
    stream: str | None  # None, "always" or "when"
    stream_field: str | None
    chunk: str | None  # chunk annotation
    body_arg: str  # the name of the JSON body argument
    has_422: bool
    mock_value: Any = None
    mock_chunks: Any = None  # the JSON chunks a mock stream sends (a list), or a MockGap
    method_kind: str = "async"  # "async" or "asyncgen"
    stream_content: Any = None  # the stream's ``content`` map: {media type: {"schema": ...}}
    stream_media: str = "text/event-stream"  # the media type the stream is sent in
    terminator: str | None = None  # the data of a stream's last event (None: no end event)
    mock_path: str = "{}"  # code: the path parameters as the mock sees them (wire -> value)
    mock_body: str = "None"  # code: the request body the mock sees (the JSON body, or None)
    mock_gap: str | None = None  # why the mock has no answer (it answers 501), or None
    openapi_extra: dict[str, Any] | None = None  # what the route adds to its operation's doc
    answer_media: str | None = None  # the success answer's media type when it is not JSON
    warnings: list[Diagnostic] = field(default_factory=list)  # what the server changes
    mock_note: tuple[str, str] | None = None  # (pointer, warning): the spec's example not used
    mock_paging: str = ""  # code: the mock engine's paging arguments (", pager=..., query=...")

    @property
    def decorator(self) -> str:
        """The router's decorator: the method's own (``get``), else ``api_route`` with
        :attr:`methods` (an OpenAPI 3.2 ``query`` or additional operation)."""
        return self.method if self.method in ROUTER_METHODS else "api_route"

    @property
    def methods(self) -> list[str] | None:
        """``api_route``'s ``methods`` (``["QUERY"]``), or None for a method's own."""
        return None if self.method in ROUTER_METHODS else [self.method.upper()]

    @property
    def doc_summary(self) -> str:
        """Spec text: the service method's docstring (its summary, else its name)."""
        return self.summary or self.name

    @property
    def call_args(self) -> str:
        """The service call's keyword arguments (``file_id=file_id, body=body``)."""
        return ", ".join(f"{a.name}={a.name}" for a in self.args)

    @property
    def direct_call(self) -> bool:
        """Whether the route writes ``result = await service.<name>(...)``. Not when that
        call has no arguments and its line is too long: black then wraps ``await ...`` in
        parentheses and ruff format does not (nor keeps them), so the route writes
        ``result = await _call(service.<name>)``, which both break alike."""
        return bool(self.args) or fits(f"        result = await service.{self.name}()")

    @property
    def needs_call(self) -> bool:
        """Whether the route calls its service method through ``_call``."""
        return not self.direct_call and self.stream != "always" and self.returns != "None"

    @property
    def adder(self) -> str:
        """The function of its resource module that registers the route on a router."""
        return f"add_{self.name}"

    @property
    def mock_casts(self) -> bool:
        """Whether the mock's method ``cast``s the engine's answer to the response model."""
        answers = self.stream == "when" or (self.stream is None and self.response_model != "None")
        return self.mock_gap is None and answers


def _status(status: str) -> int | str:
    return int(status) if status.isdigit() else status


def _redirect(op: Operation) -> int:
    """The status of an operation without a 2xx answer: its first 3xx (Halo's emblem
    images answer only 302), else the first 4xx it documents (stream-io's WebSocket
    ``/connect`` documents only 400 and 429), else 200 (the mock never answers a 5xx)."""
    statuses = [r.status for r in op.responses if r.status.isdigit() and r.status < "500"]
    found = next((s for s in statuses if s[:1] == "3"), statuses[0] if statuses else "")
    return int(found) if found else 200


def _default(value: Any, defaults: list[tuple[str, Any]]) -> str:
    """Source of a default: its repr, or a module-level constant for lists and dicts
    (a mutable literal default is a lint error, and FastAPI copies defaults anyway)."""
    if isinstance(value, (list, dict)):
        name = f"_DEFAULT_{len(defaults) + 1}"
        defaults.append((name, value))
        return name
    return repr(value)


def _param_args(
    api: Api,
    op: Operation,
    defaults: list[tuple[str, Any]],
    taken: set[str],
    used: list[TypeRef],
    route: RouteExtras,
) -> list[Arg]:
    """The parameters' arguments; a path parameter is always required (its default is
    dropped, with a warning) and a structured query or header value is read by a
    dependency (:mod:`.params`)."""
    args: list[Arg] = []
    for p in op.parameters:
        name = _safe(p.python_name, taken)
        used.append(p.schema)
        default = None
        ann = route_ann = annotation(p.schema)
        if p.as_json and p.location in ("path", "query"):
            route.json_parameters.append([p.location, p.name])
        reader = structured(api, op, p, ann)
        if p.location == "path":
            if structured_segment(api, p.schema):  # FastAPI takes scalars: the text
                ann = route_ann = "str"
            if p.has_default:
                route.warnings.append(path_default_warning(op, p))
        elif reader is not None:
            route.documented.append(reader.doc)
            if not p.required and not ann.endswith("| None"):
                ann = route_ann = f"{ann} | None"
            args.append(Arg(name, ann, reader.marker, None, route_ann, ("Depends",)))
            continue
        elif p.has_default:
            default = _default(p.default, defaults)
        elif not p.required:
            default = "None"
            if not p.schema.nullable and p.schema.kind not in ("any", "null"):
                # absent is None for the service; the route keeps the spec's (non-null)
                # schema, with a default typed Any so that mypy accepts it
                ann = f"{ann} | None"
                default = "_ABSENT"
        fastapi = (PARAM_CLASS[p.location],)
        alias = name if p.location == "path" and not ROUTE_NAME.fullmatch(p.name) else p.name
        args.append(
            Arg(
                name,
                ann,
                parameter_marker(p, alias, route_ann),
                default,
                route_ann,
                fastapi,
            )
        )
    return args


def _is_file(f: Field, uploads: Collection[str]) -> bool:
    """Whether a form field is a file: the config says so, or its type is binary."""
    return f.name in uploads or any(t.format == "binary" for t in f.type.walk())


def _body_args(
    api: Api,
    op: Operation,
    defaults: list[tuple[str, Any]],
    uploads: Collection[str],
    taken: set[str],
    used: list[TypeRef],
) -> tuple[list[Arg], str, bool]:
    """(the body's arguments, the name of the JSON body argument, whether a file is sent);
    ``uploads`` names the body fields the config says are files."""
    args: list[Arg] = []
    uploaded = False
    body_arg = "body"
    body = op.request_body
    if body is None:
        return args, body_arg, uploaded
    used.append(body.schema)
    media = media_base(body.content_type)
    if media in FORMS and body.schema.kind == "model":
        model = api.model(body.schema.name or "")
        uploaded = any(_is_file(f, uploads) for f in model.fields)
        for f in model.fields:
            name = _safe(f.python_name, taken)
            fastapi: tuple[str, ...]
            if _is_file(f, uploads):
                ann = "list[UploadFile]" if f.type.kind == "array" else "UploadFile"
                marker, fastapi = f"File(alias={f.name!r})", ("File", "UploadFile")
            elif uploaded:
                ann = annotation(f.type)
                used.append(f.type)
                marker, fastapi = f"Form(alias={f.name!r})", ("Form",)
            else:  # read as JSON fields by the route class (an empty field stays "")
                ann = annotation(f.type)
                used.append(f.type)
                marker, fastapi = f"Body(alias={f.name!r}, embed=True)", ("Body",)
            default = None
            if not f.required:
                default = _default(f.default, defaults) if f.has_default else "None"
                if default == "None" and not ann.endswith("| None"):
                    ann = f"{ann} | None"
            args.append(Arg(name, ann, marker, default, fastapi=fastapi))
    else:
        ann, marker = raw_body(body.schema, media) or (annotation(body.schema), "Body()")
        for member in form_members(body):  # a form of other fields: either is the body
            used.append(member)
            ann = f"{ann} | {annotation(member)}"
        raw = ann
        if takes_bytes(body):  # also in XML, ...: its bytes (a JSON string is no such body)
            ann, raw = f"{ann} | bytes", f"{ann} | StrictBytes"
        default = None
        if not body.required:
            default = "None"
            ann = ann if ann.endswith("| None") else f"{ann} | None"
            raw = raw if raw.endswith("| None") else f"{raw} | None"
        body_arg = _safe("body", taken, set())
        args.append(Arg(body_arg, ann, marker, default, raw, fastapi=("Body",)))
    return args, body_arg, uploaded


def _error_responses(
    op: Operation, used: list[TypeRef], route: RouteExtras
) -> tuple[list[tuple[int | str, str | None, str]], bool]:
    """(status, model source, description) of every response but the success one, and
    whether FastAPI's own 422 is among them. A status without a body (204, 304) is
    declared without one, with a warning when the spec gives it a schema."""
    success = op.success_response
    extra: list[tuple[int | str, str | None, str]] = []
    has_422 = False
    for r in op.responses:
        if r is success:
            continue
        if r.status == "422" and r.schema is not None and r.schema.name == "HTTPValidationError":
            has_422 = True
        schema = r.schema
        if schema is not None and not body_allowed(r.status):
            route.warnings.append(no_body_warning(op, r.status))
            schema = None
        error_model = annotation(schema) if schema is not None else None
        if schema is not None:
            used.append(schema)
        extra.append((_status(r.status), error_model, r.description or ""))
    return extra, has_422


def _success(
    op: Operation, synth: Synthesizer, used: list[TypeRef]
) -> tuple[str, Any, tuple[str, str] | None]:
    """The success response's model source ("None" without a body), the mock's answer and
    a note: the spec's own example when one conforms to the schema, else a synthesized
    minimal instance (with a note when the spec's examples do not conform)."""
    success = op.success_response
    if success is None or success.schema is None:
        return "None", None, None
    used.append(success.schema)
    fitting = synth.answers(success.examples, success.schema)  # conforming, no writeOnly
    if fitting:
        return annotation(success.schema), fitting[0], None
    note = None
    if success.examples:
        pointer = "#/paths/" + escape_token(op.path) + f"/{op.method}/responses/{success.status}"
        name = op.operation_id or op.python_name
        note = (pointer, f"the example of {name}'s {success.status} response violates its schema")
    return annotation(success.schema), _mock(synth, success.schema, op), note


def build_route(
    api: Api,
    op: Operation,
    defaults: list[tuple[str, Any]],
    synth: Synthesizer,
    uploads: Collection[str],
    streaming: StreamTable | None,
) -> tuple[Route, list[TypeRef], bool]:
    """The route of ``op``, the types its annotations use, and whether it takes files
    (``uploads``: the body fields that are files; ``streaming``: its ``[streaming]``)."""
    taken, used, extras = set[str](), list[TypeRef](), RouteExtras()
    args = _param_args(api, op, defaults, taken, used, extras)
    body_args, body_arg, uploaded = _body_args(api, op, defaults, uploads, taken, used)
    args += body_args
    extra, has_422 = _error_responses(op, used, extras)
    success = op.success_response
    response_model, mock_value, mock_note = (
        _success(op, synth, used) if has_body(op, extras) else ("None", None, None)
    )
    status_code = _status(success.status) if success is not None else _redirect(op)
    stream = route_stream(op, synth, streaming)
    route = Route(
        name=op.python_name,
        operation=op.python_name,
        operation_id=op.operation_id,
        method=op.method,
        path=route_path(op, [a.name for a in args]),
        summary=op.summary,
        description=op.description,
        tags=list(op.tags),
        deprecated=op.deprecated,
        args=[a for a in args if a.default is None] + [a for a in args if a.default is not None],
        returns=_returns(response_model, stream),
        response_model=response_model,
        status_code=status_code if isinstance(status_code, int) else 200,
        response_description=(success.description if success is not None else None)
        or "Successful Response",
        responses=extra,
        security=None,
        body_arg=body_arg,
        has_422=has_422,
        mock_value=mock_value,
        **vars(stream),
    )
    route.answer_media = answer_media(op) if response_model != "None" else None
    route.mock_gap = mock_gap(route)
    route.mock_note = mock_note
    route.mock_path, route.mock_body, route.mock_paging = _mock_inputs(
        api, op, args, body_args, body_arg
    )
    route.warnings = extras.warnings
    body_media = body_doc(op.request_body, uploaded) if op.request_body is not None else None
    route.openapi_extra = openapi_extra(stream.stream is not None, extras, body_media)
    return route, used, uploaded


def _returns(response_model: str, stream: RouteStream) -> str:
    """The service method's return annotation: the response model, or its stream."""
    if stream.stream == "when":
        return f"{response_model} | AsyncIterator[{stream.chunk}]"
    if stream.stream == "always":
        return f"AsyncIterator[{stream.chunk}]"
    return response_model


def _mock_inputs(
    api: Api, op: Operation, args: list[Arg], body_args: list[Arg], body_arg: str
) -> tuple[str, str, str]:
    """Code: the path parameters the mock engine sees (wire name -> argument), the body
    (the JSON body argument, else None: form fields are not merged into resources), and
    a list's paging arguments (:func:`.mock_answers.mock_pager`)."""
    params = list(zip(op.parameters, args[: len(op.parameters)], strict=True))
    path_args = [f"{p.name!r}: {a.name}" for p, a in params if p.location == "path"]
    json_body = op.request_body is not None and any(a.name == body_arg for a in body_args)
    query = {p.name: a.name for p, a in params if p.location == "query"}
    path = "{" + ", ".join(path_args) + "}"
    return path, body_arg if json_body else "None", mock_pager(api, op, query)


def _mock(synth: Synthesizer, t: TypeRef, op: Operation) -> Any:
    try:
        return synth.value(t)
    except MockError as exc:
        return MockGap(str(exc))


def mock_gap(route: Route) -> str | None:
    """Why ``route``'s mock cannot answer, or None."""
    for value in (route.mock_value, route.mock_chunks):
        if isinstance(value, MockGap):
            return value.reason
    return None
