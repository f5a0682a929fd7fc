"""The IR's dataclasses: a frozen, typed view of a normalized spec.

Everything is immutable in practice: sequences are tuples, and the few mappings
(``constraints``, discriminator ``mapping``, server ``variables``) are fresh dicts owned
by the IR, typed as read-only ``Mapping``. Objects compare by value; they are not all
hashable (a default value may be a list).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from generator.ir import annotate
from generator.ir.annotate import Reading

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
    "uniqueItems",
    "minProperties",
    "maxProperties",
)


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
    - ``union``: ``members`` (never null, never nullable: null lives in ``nullable``),
      an optional ``discriminator``, and ``one_of``: a union read from ``oneOf`` (or with
      one flattened into it), where a value must match exactly one member (JSON Schema's
      rule; a discriminated union is exclusive by its tag, whatever the flag says);
    - ``literal``: ``literals`` (and ``primitive`` when known);
    - ``any`` and ``null``: nothing.

    ``python_type``, ``model_type`` and ``display`` are derived (once, on first use) by
    :mod:`generator.ir.annotate`, which also spells the other targets.
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
    one_of: bool = False

    @cached_property
    def python_type(self) -> str:
        """The type as client and server signatures annotate it: ``list[Message] | None``,
        ``dict[str, Any]``. A format whose model type callers should not have to build
        (``AnyUrl``, ``IPv4Address``) is its primitive here; see ``model_type``."""
        return annotate.python(self, "argument")

    @cached_property
    def model_type(self) -> str:
        """The type as ``models.py`` declares it (datamodel-code-generator's reading of
        the format): ``AnyUrl`` where ``python_type`` says ``str``."""
        return annotate.python(self, "model")

    @cached_property
    def display(self) -> str:
        """The type for docs: ``integer | null``, ``array of Message``."""
        return annotate.display(self)

    def imports(self, reading: Reading = "argument") -> tuple[str, ...]:
        """What ``python_type`` (``model_type`` with ``reading="model"``) needs, as sorted
        ``module.name`` strings (model names, which live in the models module, excepted)."""
        return annotate.imports(self, reading)

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
    examples: tuple[Any, ...] = ()  # the property's ``examples`` (a list), else ``example``


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
    examples: tuple[Any, ...] = ()  # the schema's ``examples`` (a list), else ``example``


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
    as_json: bool = False  # declared with ``content: {application/json: ...}``: JSON text


@dataclass(frozen=True)
class MediaType:
    """One entry of a ``content`` map, with the spec's examples of it (the media type's
    ``example``/``examples``, else its schema's, through one ``$ref``)."""

    content_type: str
    schema: TypeRef
    examples: tuple[Any, ...] = ()
    sequence: str | None = None  # OpenAPI 3.2 ``itemSchema``: "sse", "jsonl" or "json-seq"
    terminator: str | None = None  # the data of a 3.2 event stream's end event, if any


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
    headers: tuple[str, ...] = ()  # the declared response headers' names, lower case, sorted

    @property
    def is_success(self) -> bool:
        return self.status.startswith("2")

    @property
    def media(self) -> MediaType | None:
        """The chosen media type's entry of ``content`` (None without a body)."""
        return next((m for m in self.content if m.content_type == self.content_type), None)

    @property
    def examples(self) -> tuple[Any, ...]:
        """The spec's examples of the chosen media type's body."""
        media = self.media
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
class Webhook:
    """A request the API sends its users (OpenAPI 3.1 ``webhooks``): one method of one
    entry, whose JSON request body is an object model (the event's payload). ``name`` is
    the entry's key; ``python_name`` the receiver's method (snake case, unique among the
    webhooks; ``<key>_<method>`` when the entry has several methods)."""

    name: str
    python_name: str
    method: str
    payload: str  # the payload's model name
    content_type: str = "application/json"
    operation_id: str | None = None
    summary: str | None = None
    description: str | None = None
    deprecated: bool = False
    examples: tuple[Any, ...] = ()  # the body's examples (the media type's, else its schema's)


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
    summary: str | None = None  # OpenAPI 3.2: a short title
    parent: str | None = None  # OpenAPI 3.2: the tag this one is nested under
    kind: str | None = None  # OpenAPI 3.2: "nav", "badge", "audience", ...


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
    webhooks: tuple[Webhook, ...] = ()  # spec order; those whose payload is no object skipped

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
