"""The route parameters FastAPI cannot declare as they are: structured query and header
values, and path parameters with a default (see ``docs/server.md``).

FastAPI takes a query or header parameter only when its type is a scalar or a list of
scalars. An object (or a list of objects, or a union holding one) is serialized by its
``style`` and ``explode`` instead, as OpenAPI says (``deepObject``: ``filter[a]=1``;
``form`` exploded: the object's properties as query keys of their own; ``form`` not
exploded: ``filter=a,1,b,2``), and so is a list of scalars that is not exploded
(``ids=1,2``: Swagger 2.0's default). Such a parameter is read by a dependency of the route,
``read_parameter(...)`` of ``_server/__init__.py``, which takes the raw values from the
request, builds the object and validates it with the parameter's type (a 422 when it does
not validate); :func:`parameter_doc` documents it in the app's OpenAPI document, where the
dependency itself leaves no trace.

A path parameter is always required (FastAPI refuses a default there, and a URL without
the segment is another path): a spec default is dropped, with a warning.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generator.ir import Api, Operation, Parameter, TypeRef
from generator.load import escape_token
from generator.normalize.diagnostics import Diagnostic

PARAM_CLASS = {"path": "Path", "query": "Query", "header": "Header", "cookie": "Cookie"}
# OpenAPI constraint -> FastAPI Query/Path/Header/Form keyword
CONSTRAINTS = {
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
# the constraints each kind of argument takes (by its annotation); others take none
_APPLIES = {
    "str": frozenset({"minLength", "maxLength", "pattern"}),
    "int": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}),
    "list": frozenset({"minItems", "maxItems"}),
}
_APPLIES["float"] = _APPLIES["int"]
_DEPTH = 16  # aliases of aliases followed at most (a cycle of aliases ends there)


def shape(api: Api, t: TypeRef, depth: int = 0) -> str | None:
    """How a structured parameter value is built: ``"object"`` (an object, a map, or a
    union holding one), ``"array"`` (a list of such), or None for what FastAPI reads
    itself (scalars, enums, literals, lists of those)."""
    if depth > _DEPTH:
        return None
    if t.kind == "map":
        return "object"
    if t.kind == "model" and t.name is not None:
        try:
            model = api.model(t.name)
        except KeyError:
            return None
        if model.kind == "object":
            return "object"
        return shape(api, model.root, depth + 1) if model.root is not None else None
    if t.kind == "array" and t.items is not None:
        return "array" if shape(api, t.items, depth + 1) is not None else None
    if t.kind == "union" and any(shape(api, m, depth + 1) for m in t.members):
        return "object"
    return None


def delimited(api: Api, p: Parameter) -> bool:
    """Whether ``p`` is a list of scalars sent as one delimited value: a query parameter not
    exploded (``ids=1,2``; ``|`` or `` `` for the delimited styles: Swagger 2.0's ``csv``,
    ``pipes``, ``ssv``), or a header (``a,b``). Its reader also takes the key repeated."""
    t = p.schema
    if t.kind == "model" and t.name is not None:
        try:
            root = api.model(t.name).root
        except KeyError:
            return False
        t = root if root is not None else t
    if t.kind != "array" or p.location not in ("query", "header"):
        return False
    return p.location == "header" or not p.explode


def object_keys(api: Api, t: TypeRef, depth: int = 0) -> tuple[str, ...] | None:
    """The wire names of the properties of an object type (the query keys of an exploded
    ``form`` object); None when they are open (a map, a union, extra properties)."""
    if depth > _DEPTH:
        return None
    if t.kind == "model" and t.name is not None:
        try:
            model = api.model(t.name)
        except KeyError:
            return None
        if model.kind == "object":
            return tuple(f.name for f in model.fields) or None
        return object_keys(api, model.root, depth + 1) if model.root is not None else None
    return None


@dataclass(frozen=True)
class Structured:
    """A structured parameter's reader: the code of its ``Depends(...)`` marker and its
    entry of the route's documented ``parameters``."""

    marker: str
    doc: dict[str, Any]


def structured(api: Api, op: Operation, p: Parameter, kind: str) -> Structured | None:
    """The reader of ``p`` (``kind``: the code of its type) when FastAPI cannot read it
    itself (see :func:`shape`); None otherwise. Cookies and path parameters are left to
    FastAPI."""
    found = shape(api, p.schema) or ("list" if delimited(api, p) else None)
    if found is None or p.location not in ("query", "header"):
        return None
    style = p.style or ("form" if p.location == "query" else "simple")
    keys = object_keys(api, p.schema) if found == "object" else None
    others = _claimed(api, op, p)
    args = [
        repr(p.location),
        repr(p.name),
        repr(style),
        repr(bool(p.explode)),
        repr(found),
        kind,
        f"required={bool(p.required)!r}",
    ]
    if keys is not None:
        args.append(f"keys={keys!r}")
    elif found == "object" and style == "form" and p.explode and others:
        args.append(f"others={others!r}")
    schema: dict[str, Any] = {"type": "object"}
    if found in ("array", "list"):
        schema = {"type": "array", "items": {"type": "object" if found == "array" else "string"}}
    doc: dict[str, Any] = {"name": p.name, "in": p.location, "required": bool(p.required)}
    if p.description:
        doc["description"] = p.description
    doc.update(style=style, explode=bool(p.explode), schema=schema)
    return Structured(f"Depends(read_parameter({', '.join(args)}))", doc)


def _claimed(api: Api, op: Operation, p: Parameter) -> tuple[str, ...]:
    """The query keys ``op``'s other parameters of ``p``'s location take: their names,
    and the properties of exploded form objects (an open object takes the rest)."""
    found: set[str] = set()
    for q in op.parameters:
        if q.location != p.location or q is p:
            continue
        found.add(q.name)
        if (q.style or "form") == "form" and q.explode and shape(api, q.schema) == "object":
            found.update(object_keys(api, q.schema) or ())
    return tuple(sorted(found))


def path_default_warning(op: Operation, p: Parameter) -> Diagnostic:
    """The warning for a path parameter's default, which the server drops."""
    return Diagnostic(
        "server",
        "warning",
        "#/paths/" + escape_token(op.path) + f"/{op.method}",
        f"path parameter {p.name!r} has a default ({p.default!r}), which a path parameter"
        " cannot have (a URL without it is another path): dropped in the server",
    )


NO_BODY_STATUSES = frozenset({204, 205, 304})  # and 1xx: HTTP forbids a body there


def body_allowed(status: int | str) -> bool:
    """Whether a response of ``status`` may have a body (``"4XX"``, ``"default"``: yes)."""
    if isinstance(status, str):
        return not status.isdigit() or body_allowed(int(status))
    return status >= 200 and status not in NO_BODY_STATUSES


def no_body_warning(op: Operation, status: str) -> Diagnostic:
    """The warning for a response schema on a status that has no body."""
    return Diagnostic(
        "server",
        "warning",
        "#/paths/" + escape_token(op.path) + f"/{op.method}/responses/{status}",
        f"a {status} response has no body in HTTP, but the spec gives it one:"
        " the server answers it without a body",
    )


@dataclass
class RouteExtras:
    """What building a route adds beside its arguments: its warnings, and the parameters
    its dependencies read (documented through ``openapi_extra``)."""

    warnings: list[Diagnostic] = field(default_factory=list)
    documented: list[dict[str, Any]] = field(default_factory=list)
    # [location, name] of the path and query parameters declared as JSON text (``content``)
    json_parameters: list[list[str]] = field(default_factory=list)


def has_body(op: Operation, route: RouteExtras) -> bool:
    """Whether the success response may have a body: not for 204 and 304 (with a warning
    when the spec gives them a schema)."""
    success = op.success_response
    if success is None or success.schema is None or body_allowed(success.status):
        return True
    route.warnings.append(no_body_warning(op, success.status))
    return False


def openapi_extra(
    stream: bool, extras: RouteExtras, body: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """What a route adds to its operation in the app's OpenAPI document: the stream mark,
    the parameters its dependencies read, the media types its body is declared in beside
    JSON (FastAPI sees none of those), and the parameters declared as JSON text (the route
    class reads a JSON string's value: stream-io's ``"apn"`` in a path)."""
    extra: dict[str, Any] = {}
    if extras.documented:
        extra["parameters"] = extras.documented
    if extras.json_parameters:
        extra["x-apismith-json-parameters"] = extras.json_parameters
    if body:
        extra["requestBody"] = body
    if stream:
        extra["x-apismith-stream"] = True
    return extra or None


def parameter_marker(p: Parameter, alias: str, annotation: str) -> str:
    """The FastAPI marker of ``p`` (``Query(alias=..., ge=1)``): the constraints its
    argument's kind (``annotation``) takes: Telstra's ``format: uuid`` with ``minLength``
    is read as a ``UUID``, stream-io's array with ``minimum`` as a list, to which pydantic
    cannot apply them (every call raised)."""
    base = annotation.removesuffix(" | None")
    applies = _APPLIES.get("list" if base.startswith("list[") else base, frozenset())
    cls = PARAM_CLASS[p.location]
    kwargs = [f"alias={alias!r}"]
    if p.description:
        kwargs.append(f"description={p.description!r}")
    if p.deprecated:
        kwargs.append("deprecated=True")
    for key, value in p.schema.constraints.items():
        if key in CONSTRAINTS and key in applies and not isinstance(value, bool):
            kwargs.append(f"{CONSTRAINTS[key]}={value!r}")
    return f"{cls}({', '.join(kwargs)})"
