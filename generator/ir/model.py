"""The IR's dataclasses: a frozen, typed view of a normalized spec.

Everything is immutable in practice: sequences are tuples, and the few mappings
(``constraints``, discriminator ``mapping``, server ``variables``) are fresh dicts owned
by the IR, typed as read-only ``Mapping``. Objects compare by value; they are not all
hashable (a default value may be a list).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

TypeKind = Literal["model", "primitive", "array", "map", "union", "literal", "any", "null"]
ModelKind = Literal["object", "enum", "alias"]
ParameterLocation = Literal["path", "query", "header", "cookie"]
SecurityKind = Literal["http-basic", "http-bearer", "http", "api-key", "oauth2", "openid"]

# Constraint keywords kept on a TypeRef (which keeps them in the schema's own order).
CONSTRAINT_KEYS = (
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "multipleOf",
)

_PRIMITIVES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
# (primitive, format) -> (model type, argument type), each a builtin name or the
# ``module.Name`` it is imported as. The model type is what ``models.py`` declares: the
# choices of datamodel-code-generator 0.89 under ``generator.render.models.dcg.DCG_OPTIONS``
# (plain ``datetime``; email, password, ulid and ``number`` time-delta stay the primitive;
# ``tests/test_ir_models.py`` checks every entry against DCG). The argument type is what
# client and server signatures take for it: the stdlib types they convert themselves, else
# None (the primitive), so a caller never has to construct a pydantic ``AnyUrl`` or an
# ``IPv4Address`` for a parameter the wire carries as text. Formats not listed (and every
# ``boolean`` format) are the primitive in both readings.
_FORMATS: dict[tuple[str, str], tuple[str, str | None]] = {
    ("string", "date-time"): ("datetime.datetime", "datetime.datetime"),
    ("string", "timestamp with time zone"): ("datetime.datetime", None),
    ("string", "date-time-local"): ("pydantic.NaiveDatetime", None),
    ("string", "date"): ("datetime.date", "datetime.date"),
    ("string", "time"): ("datetime.time", "datetime.time"),
    ("string", "time-local"): ("datetime.time", None),
    ("string", "duration"): ("datetime.timedelta", "datetime.timedelta"),
    ("string", "uuid"): ("uuid.UUID", "uuid.UUID"),
    ("string", "uuid1"): ("pydantic.UUID1", "uuid.UUID"),
    ("string", "uuid2"): ("uuid.UUID", "uuid.UUID"),
    ("string", "uuid3"): ("pydantic.UUID3", "uuid.UUID"),
    ("string", "uuid4"): ("pydantic.UUID4", "uuid.UUID"),
    ("string", "uuid5"): ("pydantic.UUID5", "uuid.UUID"),
    ("string", "uri"): ("pydantic.AnyUrl", None),
    ("string", "byte"): ("pydantic.Base64Str", None),
    ("string", "binary"): ("bytes", "bytes"),
    ("string", "path"): ("pathlib.Path", None),
    ("string", "ipv4"): ("ipaddress.IPv4Address", None),
    ("string", "ipv4-network"): ("ipaddress.IPv4Network", None),
    ("string", "ipv6"): ("ipaddress.IPv6Address", None),
    ("string", "ipv6-network"): ("ipaddress.IPv6Network", None),
    ("string", "decimal"): ("decimal.Decimal", None),
    ("string", "integer"): ("int", None),
    ("string", "unixtime"): ("int", None),
    ("integer", "date-time"): ("datetime.datetime", None),
    ("number", "date-time"): ("datetime.datetime", None),
    ("number", "time"): ("datetime.time", None),
    ("number", "unixtime"): ("int", None),
    ("number", "decimal"): ("decimal.Decimal", "decimal.Decimal"),
}
# Which reading a rendering asks for: ``argument`` (``python_type``), ``model`` (``model_type``).
Reading = Literal["argument", "model"]


@dataclass(frozen=True)
class Discriminator:
    """A union's tag: ``property_name`` and tag value -> model name (spec order)."""

    property_name: str
    mapping: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TypeRef:
    """A schema as users read it. Build one with the fields that apply to its ``kind``:

    - ``model``: ``name`` (a component schema name);
    - ``primitive``: ``primitive`` (string/integer/number/boolean) and ``format``;
    - ``array``: ``items``, or ``prefix_items`` for a fixed-length tuple;
    - ``map``: ``values`` (None: any value);
    - ``union``: ``members`` (never null, never nullable: null lives in ``nullable``)
      and an optional ``discriminator``;
    - ``literal``: ``literals`` (and ``primitive`` when known);
    - ``any`` and ``null``: nothing.

    ``python_type``, ``model_type`` and ``display`` are derived (once, on first use).
    """

    kind: TypeKind
    name: str | None = None
    primitive: str | None = None
    format: str | None = None
    items: TypeRef | None = None
    prefix_items: tuple[TypeRef, ...] = ()
    values: TypeRef | None = None
    members: tuple[TypeRef, ...] = ()
    literals: tuple[Any, ...] = ()
    nullable: bool = False
    constraints: Mapping[str, Any] = field(default_factory=dict)
    discriminator: Discriminator | None = None

    @cached_property
    def python_type(self) -> str:
        """The type as client and server signatures annotate it: ``list[Message] | None``,
        ``dict[str, Any]``. A format whose model type callers should not have to build
        (``AnyUrl``, ``IPv4Address``) is its primitive here; see ``model_type``."""
        return _annotation(self, "argument")

    @cached_property
    def model_type(self) -> str:
        """The type as ``models.py`` declares it (datamodel-code-generator's reading of
        the format): ``AnyUrl`` where ``python_type`` says ``str``."""
        return _annotation(self, "model")

    @cached_property
    def display(self) -> str:
        """The type for docs: ``integer | null``, ``array of Message``."""
        shown = _display(self)
        shows_null = self.nullable and self.kind not in ("any", "null")
        return f"{shown} | null" if shows_null else shown

    def imports(self, reading: Reading = "argument") -> tuple[str, ...]:
        """What ``python_type`` (``model_type`` with ``reading="model"``) needs, as sorted
        ``module.name`` strings (model names, which live in the models module, excepted)."""
        found: set[str] = set()
        for t in self.walk():
            _python(t, reading, found)
        return tuple(sorted(found))

    def children(self) -> tuple[TypeRef, ...]:
        """The direct sub-types (items, prefix items, values, members)."""
        found = [t for t in (self.items, self.values) if t is not None]
        return (*found, *self.prefix_items, *self.members)

    def walk(self) -> Iterator[TypeRef]:
        """This type and every sub-type, depth first, parents first."""
        stack: list[TypeRef] = [self]
        while stack:
            t = stack.pop()
            yield t
            stack.extend(reversed(t.children()))

    def model_names(self) -> tuple[str, ...]:
        """Every model this type refers to, in first-use order, without repeats."""
        seen = {t.name: None for t in self.walk() if t.kind == "model" and t.name is not None}
        return tuple(seen)


def _literal_source(value: Any) -> str | None:
    """A value as Python source inside ``Literal[...]``; None when Literal cannot hold it."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        return str(value)
    return None


def _annotation(t: TypeRef, reading: Reading) -> str:
    python = _python(t, reading)
    shows_null = t.nullable and t.kind not in ("any", "null")
    return f"{python} | None" if shows_null else python


def _child(t: TypeRef, reading: Reading) -> str:
    return t.python_type if reading == "argument" else t.model_type


def _python(t: TypeRef, reading: Reading, imports: set[str] | None = None) -> str:
    """``t``'s Python annotation without its nullability; adds what ``t`` itself (not its
    children) needs to ``imports``."""
    needs = imports if imports is not None else set()
    if t.kind == "model":
        return t.name or "Any"
    if t.kind == "primitive":
        return _primitive(t.primitive, t.format, reading, needs)
    if t.kind == "array":
        if t.prefix_items:
            return f"tuple[{', '.join(_child(m, reading) for m in t.prefix_items)}]"
        if t.items is None:
            needs.add("typing.Any")
        return f"list[{_child(t.items, reading) if t.items else 'Any'}]"
    if t.kind == "map":
        if t.values is None:
            needs.add("typing.Any")
        return f"dict[str, {_child(t.values, reading) if t.values else 'Any'}]"
    if t.kind == "union":
        return " | ".join(_child(m, reading) for m in t.members)
    if t.kind == "literal":
        sources = [_literal_source(v) for v in t.literals]
        if sources and all(s is not None for s in sources):
            needs.add("typing.Literal")
            return f"Literal[{', '.join(s for s in sources if s is not None)}]"
        return _primitive(t.primitive, None, reading, needs)
    if t.kind == "null":
        return "None"
    needs.add("typing.Any")
    return "Any"


def _display(t: TypeRef) -> str:
    if t.kind == "model":
        return t.name or "any"
    if t.kind == "primitive":
        known = t.primitive in _PRIMITIVES
        return f"{t.primitive} ({t.format})" if known and t.format else t.primitive or "any"
    if t.kind == "array":
        if t.prefix_items:
            return f"tuple [{', '.join(m.display for m in t.prefix_items)}]"
        return f"array of {_group(t.items.display)}" if t.items else "array"
    if t.kind == "map":
        return f"map of {_group(t.values.display)}" if t.values else "object"
    if t.kind == "union":
        return " | ".join(m.display for m in t.members)
    if t.kind == "literal":
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in t.literals)
    return "null" if t.kind == "null" else "any"


def _primitive(primitive: str | None, fmt: str | None, reading: Reading, imports: set[str]) -> str:
    if primitive is None or primitive not in _PRIMITIVES:
        imports.add("typing.Any")
        return "Any"
    model, argument = _FORMATS.get((primitive, fmt or ""), (None, None))
    special = model if reading == "model" else argument
    if special is None:
        return _PRIMITIVES[primitive]
    if "." in special:
        imports.add(special)
    return special.rpartition(".")[2]


def _group(display: str) -> str:
    return f"({display})" if " | " in display else display


@dataclass(frozen=True)
class Field:
    """One property of an object model, in spec order."""

    name: str  # the wire name
    python_name: str  # ``x-python-name`` from the names pass, else the wire name
    type: TypeRef
    required: bool = False
    nullable: bool = False
    default: Any = None
    has_default: bool = False  # a default may itself be None
    description: str | None = None
    constraints: Mapping[str, Any] = field(default_factory=dict)
    deprecated: bool = False
    read_only: bool = False
    write_only: bool = False


@dataclass(frozen=True)
class Model:
    """A component schema. ``root`` is the schema read as a type, for enums and aliases
    (None for objects); ``fields`` are for objects only."""

    name: str
    kind: ModelKind
    description: str | None = None
    fields: tuple[Field, ...] = ()
    enum_values: tuple[Any, ...] = ()
    root: TypeRef | None = None
    discriminator: Discriminator | None = None
    deprecated: bool = False
    extra: Literal["allow"] = "allow"


@dataclass(frozen=True)
class Parameter:
    """A path, query, header or cookie parameter; ``style``/``explode`` are the effective
    values (OpenAPI's defaults filled in)."""

    name: str
    python_name: str
    location: ParameterLocation
    required: bool
    schema: TypeRef
    description: str | None = None
    default: Any = None
    has_default: bool = False
    style: str = "form"
    explode: bool = True
    deprecated: bool = False


@dataclass(frozen=True)
class MediaType:
    """One entry of a ``content`` map, with the spec's examples of it (the media type's
    ``example``/``examples``, else its schema's, through one ``$ref``)."""

    content_type: str
    schema: TypeRef
    examples: tuple[Any, ...] = ()


@dataclass(frozen=True)
class RequestBody:
    """The preferred media type (JSON, else multipart, else form, else the first) and all."""

    required: bool
    content_type: str
    schema: TypeRef
    description: str | None = None
    content: tuple[MediaType, ...] = ()


@dataclass(frozen=True)
class Response:
    """One response; ``content_type``/``schema`` are None for a response without a body."""

    status: str
    description: str | None = None
    content_type: str | None = None
    schema: TypeRef | None = None
    content: tuple[MediaType, ...] = ()

    @property
    def is_success(self) -> bool:
        return self.status.startswith("2")

    @property
    def examples(self) -> tuple[Any, ...]:
        """The spec's examples of the chosen media type's body."""
        media = next((m for m in self.content if m.content_type == self.content_type), None)
        return media.examples if media is not None else ()


# One security requirement alternative: scheme names that must all be satisfied.
Requirement = tuple[str, ...]


@dataclass(frozen=True)
class Operation:
    operation_id: str | None
    python_name: str
    method: str
    path: str
    tags: tuple[str, ...] = ()
    summary: str | None = None
    description: str | None = None
    deprecated: bool = False
    parameters: tuple[Parameter, ...] = ()
    request_body: RequestBody | None = None
    responses: tuple[Response, ...] = ()
    security: tuple[Requirement, ...] = ()
    streaming: bool = False

    def parameters_in(self, location: ParameterLocation) -> tuple[Parameter, ...]:
        return tuple(p for p in self.parameters if p.location == location)

    @property
    def success_response(self) -> Response | None:
        """The first 2xx response, if any."""
        return next((r for r in self.responses if r.is_success), None)


@dataclass(frozen=True)
class Server:
    url: str
    description: str | None = None
    variables: Mapping[str, str] = field(default_factory=dict)  # name -> default


@dataclass(frozen=True)
class OAuthFlow:
    flow: str  # implicit, password, clientCredentials, authorizationCode
    token_url: str | None = None
    authorization_url: str | None = None
    refresh_url: str | None = None
    scopes: tuple[str, ...] = ()


@dataclass(frozen=True)
class SecurityScheme:
    name: str  # the key in components.securitySchemes
    kind: SecurityKind
    location: str | None = None  # api-key: header, query or cookie
    parameter_name: str | None = None  # api-key: the header/query/cookie name
    scheme: str | None = None  # http: basic, bearer, ...
    bearer_format: str | None = None
    description: str | None = None
    flows: tuple[OAuthFlow, ...] = ()
    openid_connect_url: str | None = None


@dataclass(frozen=True)
class Tag:
    name: str
    description: str | None = None


@dataclass(frozen=True)
class Api:
    title: str
    version: str
    description: str | None = None
    servers: tuple[Server, ...] = ()
    security_schemes: tuple[SecurityScheme, ...] = ()
    security: tuple[Requirement, ...] = ()
    operations: tuple[Operation, ...] = ()
    models: tuple[Model, ...] = ()
    tags: tuple[Tag, ...] = ()

    @cached_property
    def _model_index(self) -> dict[str, Model]:
        return {m.name: m for m in self.models}

    def model(self, name: str) -> Model:
        """The model named ``name``; KeyError when there is none."""
        return self._model_index[name]

    def security_scheme(self, name: str) -> SecurityScheme:
        """The scheme named ``name``; KeyError when there is none."""
        for scheme in self.security_schemes:
            if scheme.name == name:
                return scheme
        raise KeyError(name)

    def operation(self, operation_id: str) -> Operation:
        """The operation with this ``operationId`` (or ``python_name``); KeyError otherwise."""
        for op in self.operations:
            if operation_id in (op.operation_id, op.python_name):
                return op
        raise KeyError(operation_id)
