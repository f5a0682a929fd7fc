"""The context of the server templates, computed from the IR (templates only present it).

Everything that is spec text (paths, names, descriptions, defaults) is passed as raw
values and quoted in the templates with ``pyrepr``/``docstring``/``comment``. Values that
are *code* here (annotations, argument lists) are built only from identifiers the IR has
already made valid (model names, ``python_name``) and from ``repr`` of spec values.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from generator.config import ApiConfig
from generator.errors import ApismithError
from generator.format import fits, parameter_annotation
from generator.ir import Api, Operation, Parameter, SecurityScheme, TypeRef
from generator.normalize.naming import RESERVED_PARAMETER_NAMES
from generator.render.annotations import annotation as qualified
from generator.render.mock_values import MockError, Synthesizer

# OpenAPI constraint -> FastAPI Query/Path/Header/Form keyword
_CONSTRAINTS = {
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "multipleOf": "multiple_of",
    "minItems": "min_length",
    "maxItems": "max_length",
}
_PARAM_CLASS = {"path": "Path", "query": "Query", "header": "Header", "cookie": "Cookie"}
# names the generated method bodies use: a parameter or form field must not shadow them
_RESERVED = {"self", "body", "service", "request", "credentials", *RESERVED_PARAMETER_NAMES}


def annotation(t: TypeRef) -> str:
    """``t.python_type`` with model names qualified as ``models.X``."""
    return qualified(t, "models")


def imports_of(types: list[TypeRef]) -> list[str]:
    """``from X import Y`` lines that the annotations of ``types`` need."""
    needed: set[str] = set()
    for t in types:
        needed.update(t.imports())
    lines: dict[str, set[str]] = {}
    for item in needed:
        module, _, name = item.rpartition(".")
        lines.setdefault(module, set()).add(name)
    lines.get("typing", set()).discard("Any")  # always imported by the templates
    return [
        f"from {module} import {', '.join(sorted(names))}"
        for module, names in sorted(lines.items())
        if names
    ]


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

    def __post_init__(self) -> None:
        self.route_annotation = self.route_annotation or self.annotation

    @property
    def hint(self) -> str:
        """The service-side annotation as a method signature writes it (parenthesized when a
        long union needs it, so that black and ruff format agree)."""
        return parameter_annotation(self.name, self.annotation, None, indent=8)


@dataclass
class Route:
    name: str
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
    mock_chunk: Any = None
    method_kind: str = "async"  # "async" or "asyncgen"
    event_schema: Any = None  # JSON schema of one server-sent event's data

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


@dataclass
class Scheme:
    name: str
    var: str  # module-level variable of the FastAPI security object
    param: str  # parameter name in the presence dependency
    source: str  # constructor call
    value_type: str  # what the security object returns (without None)


@dataclass
class SecuritySet:
    name: str  # dependency function name
    alternatives: list[list[Scheme]]
    www_authenticate: str

    @property
    def checks(self) -> list[tuple[str, str]]:
        """Per alternative: (the presence condition, the credentials dict literal)."""
        return [
            (
                " and ".join(f"{s.param} is not None" for s in alt),
                "{" + ", ".join(f"{s.name!r}: {s.param}" for s in alt) + "}",
            )
            for alt in self.alternatives
        ]

    @property
    def schemes(self) -> list[Scheme]:
        """Every scheme of the alternatives, once, in first-use order."""
        found: dict[str, Scheme] = {}
        for alt in self.alternatives:
            for s in alt:
                found.setdefault(s.name, s)
        return list(found.values())


def _scheme(s: SecurityScheme, index: int) -> Scheme:
    var = f"_scheme_{index}"
    param = f"scheme_{index}"
    name = repr(s.name)
    if s.kind == "http-basic":
        return Scheme(
            s.name,
            var,
            param,
            f"HTTPBasic(scheme_name={name}, auto_error=False)",
            "HTTPBasicCredentials",
        )
    if s.kind in ("http-bearer", "http"):
        return Scheme(
            s.name,
            var,
            param,
            f"HTTPBearer(scheme_name={name}, bearerFormat={s.bearer_format!r}, auto_error=False)",
            "HTTPAuthorizationCredentials",
        )
    if s.kind == "api-key":
        cls = {"header": "APIKeyHeader", "query": "APIKeyQuery", "cookie": "APIKeyCookie"}[
            s.location or "header"
        ]
        return Scheme(
            s.name,
            var,
            param,
            f"{cls}(name={s.parameter_name!r}, scheme_name={name}, auto_error=False)",
            "str",
        )
    if s.kind == "oauth2":
        password = next((f for f in s.flows if f.flow == "password"), None)
        if password is not None:
            return Scheme(
                s.name,
                var,
                param,
                f"OAuth2PasswordBearer(tokenUrl={password.token_url!r}, scheme_name={name},"
                f" scopes={dict.fromkeys(password.scopes, '')!r}, auto_error=False)",
                "str",
            )
        return Scheme(s.name, var, param, f"OAuth2(scheme_name={name}, auto_error=False)", "str")
    if s.kind == "openid":
        return Scheme(
            s.name,
            var,
            param,
            f"OpenIdConnect(openIdConnectUrl={s.openid_connect_url!r}, scheme_name={name},"
            " auto_error=False)",
            "str",
        )
    raise ApismithError(f"server: unsupported security scheme kind {s.kind!r} ({s.name})")


def _challenge(s: Scheme) -> str:
    if s.value_type == "HTTPBasicCredentials":
        return "Basic"
    if s.value_type == "HTTPAuthorizationCredentials" or s.source.startswith("OAuth2"):
        return "Bearer"
    return "APIKey"


@dataclass
class ServerContext:
    title: str
    version: str
    package: str
    routes: list[Route]
    schemes: list[Scheme]
    security_sets: list[SecuritySet]
    imports: list[str]
    mock_imports: list[str]
    has_streaming: bool
    has_uploads: bool
    fastapi_imports: list[str]
    security_imports: list[str]
    defaults: list[tuple[str, Any]]  # (constant name, JSON value) of list/dict defaults

    @property
    def needs_call(self) -> bool:
        """Whether a route calls its service method through ``_call`` (see ``direct_call``)."""
        return any(
            not r.direct_call and r.stream != "always" and r.returns != "None" for r in self.routes
        )


def sse_event_schema(chunk: str) -> dict[str, Any]:
    """The schema of one event of a streaming operation's ``text/event-stream`` answer
    (an event object, as OpenAPI 3.2 describes SSE): its ``data`` is a JSON chunk, or the
    final ``[DONE]``."""
    return {
        "type": "object",
        "required": ["data"],
        "properties": {
            "data": {
                "anyOf": [
                    {
                        "type": "string",
                        "contentMediaType": "application/json",
                        "contentSchema": {"$ref": f"#/components/schemas/{chunk}"},
                    },
                    {"const": "[DONE]"},
                ],
                "description": "A JSON chunk; the last event's data is [DONE].",
            }
        },
    }


def _status(status: str) -> int | str:
    return int(status) if status.isdigit() else status


def _streaming(config: ApiConfig, api: Api) -> dict[str, Mapping[str, Any]]:
    """The config's ``[streaming]`` table (shared with the client) keyed by operationId;
    an entry may name its operation by operationId or by Python name."""
    by_name = {op.python_name: op.operation_id or "" for op in api.operations}
    table: dict[str, Mapping[str, Any]] = {}
    for key, entry in config.streaming.items():
        if not isinstance(entry, Mapping):
            raise ApismithError(f"config: [streaming.{key}] must be a table")
        table[by_name.get(key, key)] = entry
    return table


def build_context(api: Api, config: ApiConfig) -> ServerContext:
    synth = Synthesizer(api)
    uploads = set(config.server.get("upload_fields", ()))
    streaming = _streaming(config, api)
    schemes = {s.name: _scheme(s, i) for i, s in enumerate(api.security_schemes, 1)}
    sets: dict[tuple[tuple[str, ...], ...], SecuritySet] = {}
    types: list[TypeRef] = []
    mock_types: list[TypeRef] = []
    routes: list[Route] = []
    has_uploads = False
    defaults: list[tuple[str, Any]] = []
    for op in api.operations:
        security = None
        required = tuple(r for r in op.security)
        if required and () not in required:
            if required not in sets:
                alternatives = [[schemes[n] for n in req] for req in required]
                challenges = dict.fromkeys(_challenge(s) for alt in alternatives for s in alt)
                sets[required] = SecuritySet(
                    f"require_credentials_{len(sets) + 1}", alternatives, ", ".join(challenges)
                )
            security = sets[required].name
        route, used, uploaded = _route(
            api, op, defaults, synth, uploads, streaming.get(op.operation_id or "")
        )
        has_uploads = has_uploads or uploaded
        route.security = security
        types.extend(used)
        routes.append(route)
        mock_types.extend(used)
    unused = set(streaming) - {op.operation_id for op in api.operations}
    if unused:
        raise ApismithError(f"config: [streaming] names unknown operations {sorted(unused)}")
    used_schemes = [s for s in schemes.values() if any(s in ss.schemes for ss in sets.values())]
    fastapi_names = {"APIRouter", "Depends", "FastAPI", "HTTPException", "Request", "Response"}
    for r in routes:
        fastapi_names.update(a.marker.split("(")[0] for a in r.args)
        fastapi_names.update(
            name for a in r.args for name in ("UploadFile",) if name in a.annotation
        )
    security_names = {s.source.split("(")[0] for s in used_schemes}
    security_names.update(s.value_type for s in used_schemes if s.value_type != "str")
    return ServerContext(
        title=config.title or api.title or config.package,
        version=api.version,
        package=config.package,
        routes=routes,
        schemes=used_schemes,
        security_sets=list(sets.values()),
        imports=imports_of(types),
        mock_imports=imports_of(mock_types),
        has_streaming=any(r.stream for r in routes),
        has_uploads=has_uploads,
        defaults=defaults,
        fastapi_imports=sorted(fastapi_names),
        security_imports=sorted(security_names),
    )


def _marker(p: Parameter, alias: str) -> str:
    cls = _PARAM_CLASS[p.location]
    kwargs = [f"alias={alias!r}"]
    if p.description:
        kwargs.append(f"description={p.description!r}")
    if p.deprecated:
        kwargs.append("deprecated=True")
    for key, value in p.schema.constraints.items():
        if key in _CONSTRAINTS and not isinstance(value, bool):
            kwargs.append(f"{_CONSTRAINTS[key]}={value!r}")
    return f"{cls}({', '.join(kwargs)})"


def _default(value: Any, defaults: list[tuple[str, Any]]) -> str:
    """Source of a default: its repr, or a module-level constant for lists and dicts
    (a mutable literal default is a lint error, and FastAPI copies defaults anyway)."""
    if isinstance(value, (list, dict)):
        name = f"_DEFAULT_{len(defaults) + 1}"
        defaults.append((name, value))
        return name
    return repr(value)


def _route(
    api: Api,
    op: Operation,
    defaults: list[tuple[str, Any]],
    synth: Synthesizer,
    uploads: set[str],
    stream_conf: Mapping[str, Any] | None,
) -> tuple[Route, list[TypeRef], bool]:
    taken: set[str] = set()
    args: list[Arg] = []
    used: list[TypeRef] = []
    uploaded = False
    body_arg = "body"
    for p in op.parameters:
        name = _safe(p.python_name, taken)
        used.append(p.schema)
        default = None
        ann = route_ann = annotation(p.schema)
        if p.has_default:
            default = _default(p.default, defaults)
        elif not p.required:
            default = "None"
            if not p.schema.nullable and p.schema.kind not in ("any", "null"):
                # absent is None for the service; the route keeps the spec's (non-null)
                # schema, with a default typed Any so that mypy accepts it
                ann = f"{ann} | None"
                default = "_ABSENT"
        args.append(Arg(name, ann, _marker(p, p.name), default, route_ann))
    body = op.request_body
    if body is not None:
        used.append(body.schema)
        media = body.content_type.split(";")[0].strip().lower()
        if (
            media in ("multipart/form-data", "application/x-www-form-urlencoded")
            and body.schema.kind == "model"
        ):
            model = api.model(body.schema.name or "")
            for f in model.fields:
                name = _safe(f.python_name, taken)
                is_file = f"{model.name}.{f.name}" in uploads or any(
                    t.format == "binary" for t in f.type.walk()
                )
                if is_file:
                    uploaded = True
                    ann = "list[UploadFile]" if f.type.kind == "array" else "UploadFile"
                    marker = f"File(alias={f.name!r})"
                else:
                    ann = annotation(f.type)
                    used.append(f.type)
                    marker = f"Form(alias={f.name!r})"
                default = None
                if not f.required:
                    default = _default(f.default, defaults) if f.has_default else "None"
                    if default == "None" and not ann.endswith("| None"):
                        ann = f"{ann} | None"
                args.append(Arg(name, ann, marker, default))
        else:
            ann = annotation(body.schema)
            default = None
            if not body.required:
                default = "None"
                ann = ann if ann.endswith("| None") else f"{ann} | None"
            body_arg = _safe("body", taken, set())
            args.append(Arg(body_arg, ann, "Body()", default))
    success = op.success_response
    extra: list[tuple[int | str, str | None, str]] = []
    has_422 = False
    for r in op.responses:
        if r is success:
            continue
        if r.status == "422" and r.schema is not None and r.schema.name == "HTTPValidationError":
            has_422 = True
        error_model = annotation(r.schema) if r.schema is not None else None
        if r.schema is not None:
            used.append(r.schema)
        extra.append((_status(r.status), error_model, r.description or ""))
    if success is not None and success.schema is not None:
        response_model = annotation(success.schema)
        returns = response_model
        used.append(success.schema)
        # the spec's own example when it has one, else a synthesized minimal instance
        examples = success.examples
        mock_value = examples[0] if examples else _mock(synth, success.schema, op)
    else:
        response_model = "None"
        returns = "None"
        mock_value = None
    status_code = _status(success.status) if success is not None else 200
    if not isinstance(status_code, int):
        status_code = 200
    stream = None
    stream_field = None
    chunk = None
    mock_chunk = None
    method_kind = "async"
    event_schema = None
    if stream_conf is not None:
        chunk_name = str(stream_conf.get("chunk", ""))
        if chunk_name not in {m.name for m in api.models}:
            raise ApismithError(
                f"config: [streaming.{op.operation_id}] chunk {chunk_name!r} is not a schema"
            )
        chunk_type = TypeRef("model", name=chunk_name)
        event_schema = sse_event_schema(chunk_name)
        chunk = annotation(chunk_type)
        mock_chunk = _mock(synth, chunk_type, op)
        stream_field = stream_conf.get("flag")
        if stream_field:
            stream = "when"
            returns = f"{returns} | AsyncIterator[{chunk}]"
        else:
            stream = "always"
            returns = f"AsyncIterator[{chunk}]"
            method_kind = "asyncgen"
    route = Route(
        name=op.python_name,
        operation_id=op.operation_id,
        method=op.method,
        path=op.path,
        summary=op.summary,
        description=op.description,
        tags=list(op.tags),
        deprecated=op.deprecated,
        args=[a for a in args if a.default is None] + [a for a in args if a.default is not None],
        returns=returns,
        response_model=response_model,
        status_code=status_code,
        response_description=(success.description if success is not None else None)
        or "Successful Response",
        responses=extra,
        security=None,
        stream=stream,
        stream_field=str(stream_field) if stream_field else None,
        chunk=chunk,
        body_arg=body_arg,
        has_422=has_422,
        mock_value=mock_value,
        mock_chunk=mock_chunk,
        method_kind=method_kind,
        event_schema=event_schema,
    )
    return route, used, uploaded


def _mock(synth: Synthesizer, t: TypeRef, op: Operation) -> Any:
    try:
        return synth.value(t)
    except MockError as exc:
        raise ApismithError(
            f"server: no mock response for {op.operation_id or op.python_name}: {exc}",
            pointer="#/paths/" + op.path.replace("~", "~0").replace("/", "~1") + f"/{op.method}",
        ) from None
