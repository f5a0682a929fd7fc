"""Normalized spec dict -> :class:`Api`, a pure function of the spec."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from generator.ir.model import (
    Api,
    Field,
    MediaType,
    Model,
    OAuthFlow,
    Operation,
    Parameter,
    ParameterLocation,
    RequestBody,
    Requirement,
    Response,
    SecurityKind,
    SecurityScheme,
    Server,
    Tag,
)
from generator.ir.types import TypeReader, is_map, own
from generator.ir.webhooks import build_webhooks
from generator.load import resolve_pointer
from generator.methods import HTTP_METHODS
from generator.normalize import naming
from generator.normalize.fragments import requested_path

LOCATIONS: tuple[ParameterLocation, ...] = ("path", "query", "header", "cookie")
PREFERRED_CONTENT = ("application/json", "multipart/form-data", "application/x-www-form-urlencoded")
_HTTP_KINDS: dict[str, SecurityKind] = {"basic": "http-basic", "bearer": "http-bearer"}
_OBJECT_KEYS = ("allOf", "anyOf", "oneOf", "enum", "const", "$ref")


def build_ir(spec: Mapping[str, Any]) -> Api:
    """Build the IR of a normalized OpenAPI 3.1 spec. Pure: ``spec`` is only read."""
    return _Builder(spec).api()


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _requirements(raw: Any) -> tuple[Requirement, ...]:
    if not isinstance(raw, list):
        return ()
    return tuple(tuple(str(k) for k in r) for r in raw if is_map(r))


def _status_key(item: tuple[str, Any]) -> tuple[int, str]:
    """Exact codes in numeric order, a range (``4XX``) after its exact codes, default last."""
    status = item[0].upper()
    if status[:1].isdigit():
        rank = int(status) * 10 if status.isdigit() else int(status[0]) * 1000 + 999
        return rank, status
    return 10**6, status


def _preferred(content_types: Iterable[str]) -> str | None:
    types = list(content_types)
    bases = [t.split(";", 1)[0].strip().lower() for t in types]
    for wanted in PREFERRED_CONTENT:
        if wanted in bases:
            return types[bases.index(wanted)]
    return types[0] if types else None


class _Builder:
    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.spec = spec
        self.types = TypeReader(spec)
        self._compositions: dict[str, tuple[dict[str, Any], set[str]] | None] = {}
        self._cycles = 0  # compositions cut short by a cycle (their results depend on the path)

    def deref(self, obj: Any) -> Any:
        """Follow ``$ref`` chains of parameters, request bodies, responses."""
        seen: list[str] = []
        while is_map(obj) and isinstance(obj.get("$ref"), str):
            ref = obj["$ref"]
            if ref in seen:
                return {}
            seen.append(ref)
            try:
                obj = resolve_pointer(self.spec, ref)
            except KeyError:
                return {}
        return obj if is_map(obj) else {}

    def api(self) -> Api:
        info = self.spec.get("info") or {}
        components = self.spec.get("components") or {}
        schemas = components.get("schemas") or {}
        models = tuple(self.model(name, schemas[name]) for name in sorted(schemas))
        objects = {m.name for m in models if m.kind == "object"}
        return Api(
            title=str(info.get("title") or self.spec.get("title") or ""),
            version=str(info.get("version") or ""),
            description=_text(info.get("description")),
            servers=tuple(self.server(s) for s in self.spec.get("servers") or () if is_map(s)),
            security_schemes=tuple(
                self.security_scheme(name, raw)
                for name, raw in (components.get("securitySchemes") or {}).items()
                if is_map(raw)
            ),
            security=_requirements(self.spec.get("security")),
            operations=self.operations(),
            models=models,
            tags=self.tags(),
            webhooks=build_webhooks(self.spec, self.deref, self.request_body, objects),
        )

    def server(self, raw: Mapping[str, Any]) -> Server:
        variables = {
            str(k): str(v.get("default", ""))
            for k, v in (raw.get("variables") or {}).items()
            if is_map(v)
        }
        return Server(str(raw.get("url", "")), _text(raw.get("description")), variables)

    def security_scheme(self, name: str, raw: Mapping[str, Any]) -> SecurityScheme:
        type_ = raw.get("type")
        scheme = str(raw["scheme"]).lower() if isinstance(raw.get("scheme"), str) else None
        kind: SecurityKind
        if type_ == "apiKey":
            kind = "api-key"
        elif type_ == "oauth2":
            kind = "oauth2"
        elif type_ == "openIdConnect":
            kind = "openid"
        else:
            kind = _HTTP_KINDS.get(scheme or "", "http")
        flows = tuple(
            OAuthFlow(
                flow=str(flow),
                token_url=_text(body.get("tokenUrl")),
                authorization_url=_text(body.get("authorizationUrl")),
                refresh_url=_text(body.get("refreshUrl")),
                scopes=tuple(str(s) for s in body.get("scopes") or {}),
            )
            for flow, body in (raw.get("flows") or {}).items()
            if is_map(body)
        )
        return SecurityScheme(
            name=name,
            kind=kind,
            location=_text(raw.get("in")) if kind == "api-key" else None,
            parameter_name=_text(raw.get("name")) if kind == "api-key" else None,
            scheme=scheme,
            bearer_format=_text(raw.get("bearerFormat")),
            description=_text(raw.get("description")),
            flows=flows,
            openid_connect_url=_text(raw.get("openIdConnectUrl")),
        )

    def tags(self) -> tuple[Tag, ...]:
        found: dict[str, Tag] = {}
        for raw in self.spec.get("tags") or ():
            if is_map(raw) and isinstance(raw.get("name"), str):
                found.setdefault(
                    raw["name"],
                    Tag(
                        raw["name"],
                        _text(raw.get("description")),
                        _text(raw.get("summary")),
                        _text(raw.get("parent")),
                        _text(raw.get("kind")),
                    ),
                )
        for _, _, op in self._raw_operations():
            for name in op.get("tags") or ():
                found.setdefault(str(name), Tag(str(name)))
        return tuple(found.values())

    def _raw_operations(self) -> Iterable[tuple[str, str, Mapping[str, Any]]]:
        for path, item in (self.spec.get("paths") or {}).items():
            item = self.deref(item)
            for method in HTTP_METHODS:
                op = item.get(method)
                if is_map(op):
                    yield str(path), method, op

    def operations(self) -> tuple[Operation, ...]:
        taken: set[str] = set()
        found = []
        paths = self.spec.get("paths") or {}
        for path, method, op in self._raw_operations():
            shared = self.deref(paths[path]).get("parameters") or ()
            found.append(self.operation(path, method, op, shared, taken))
        return tuple(found)

    def operation(
        self,
        path: str,
        method: str,
        op: Mapping[str, Any],
        shared: Iterable[Any],
        taken: set[str],
    ) -> Operation:
        op_id = _text(op.get("operationId"))
        # the names pass (or the identifiers pass) set a valid x-apismith-name; a raw spec's
        # is taken only when it passes the same validator
        name, _ = naming.take_name(
            op.get("x-apismith-name"),
            naming.python_snake_case(op_id or f"{method}_{path}"),
            "method",
            taken,
        )
        security = op["security"] if "security" in op else self.spec.get("security")
        responses = self.responses(op.get("responses") or {})
        streaming = bool(op.get("x-apismith-stream")) or any(
            r.is_success
            and any(m.content_type.split(";")[0].strip() == "text/event-stream" for m in r.content)
            for r in responses
        )
        return Operation(
            operation_id=op_id,
            python_name=name,
            method=method,
            path=requested_path(path, op),
            tags=tuple(str(t) for t in op.get("tags") or ()),
            summary=_text(op.get("summary")),
            description=_text(op.get("description")),
            deprecated=op.get("deprecated") is True,
            parameters=self.parameters(shared, op.get("parameters") or ()),
            request_body=self.request_body(op.get("requestBody")),
            responses=responses,
            security=_requirements(security),
            streaming=streaming,
        )

    def parameters(self, shared: Iterable[Any], own: Iterable[Any]) -> tuple[Parameter, ...]:
        """Path-item parameters, overridden in place by operation ones of the same
        ``(name, in)``, then the operation's others, in spec order."""
        merged: dict[tuple[str, str], Mapping[str, Any]] = {}
        for raw in (*shared, *own):
            param = self.deref(raw)
            if isinstance(param.get("name"), str) and param.get("in") in LOCATIONS:
                merged[(param["name"], param["in"])] = param
        taken: set[str] = set()
        return tuple(self.parameter(p, taken) for p in merged.values())

    def parameter(self, raw: Mapping[str, Any], taken: set[str]) -> Parameter:
        location = cast(ParameterLocation, raw["in"])
        schema = raw.get("schema")
        as_json = False
        if not is_map(schema):
            found = raw.get("content")
            content: Mapping[str, Any] = found if is_map(found) else {}
            media = [m for m in content.values() if is_map(m)]
            schema = media[0].get("schema") if media else None
            as_json = any("json" in str(key).lower() for key in content)
        schema = schema if is_map(schema) else {}
        style = _text(raw.get("style")) or ("form" if location in ("query", "cookie") else "simple")
        explode = raw.get("explode")
        name = str(raw["name"])
        python_name, _ = naming.take_name(
            raw.get("x-python-name"), naming.python_snake_case(name), "parameter", taken
        )
        return Parameter(
            name=name,
            python_name=python_name,
            location=location,
            required=location == "path" or raw.get("required") is True,
            schema=self.types.read(schema),
            description=_text(raw.get("description")) or _text(schema.get("description")),
            default=own(schema.get("default")),
            has_default="default" in schema,
            style=style,
            explode=explode if isinstance(explode, bool) else style == "form",
            deprecated=raw.get("deprecated") is True,
            as_json=as_json,
        )

    def content(self, raw: Any) -> tuple[MediaType, ...]:
        if not is_map(raw):
            return ()
        return tuple(
            MediaType(
                str(ct),
                self.types.read(media.get("schema", {})),
                self.examples(media),
                _text(media.get("x-apismith-sequence")),
                _text(media.get("x-apismith-terminator")),
            )
            for ct, media in raw.items()
            if is_map(media)
        )

    def examples(self, media: Mapping[str, Any]) -> tuple[Any, ...]:
        """A media type's examples: its own ``example``/``examples``, else its schema's."""
        if "example" in media:
            return (media["example"],)
        named = media.get("examples")
        if is_map(named):
            return tuple(e["value"] for e in named.values() if is_map(e) and "value" in e)
        schema = self.deref(media.get("schema")) if is_map(media.get("schema")) else {}
        listed = schema.get("examples")
        if isinstance(listed, list) and listed:
            return tuple(listed)
        return (schema["example"],) if "example" in schema else ()

    def request_body(self, raw: Any) -> RequestBody | None:
        body = self.deref(raw)
        content = self.content(body.get("content"))
        chosen = _preferred(m.content_type for m in content)
        if chosen is None:
            return None
        return RequestBody(
            required=body.get("required") is True,
            content_type=chosen,
            schema=next(m.schema for m in content if m.content_type == chosen),
            description=_text(body.get("description")),
            content=content,
        )

    def responses(self, raw: Mapping[str, Any]) -> tuple[Response, ...]:
        found = []
        for status, value in sorted(((str(k), v) for k, v in raw.items()), key=_status_key):
            resp = self.deref(value)
            content = self.content(resp.get("content"))
            chosen = _preferred(m.content_type for m in content)
            schema = next((m.schema for m in content if m.content_type == chosen), None)
            headers = resp.get("headers")
            names = tuple(sorted(str(h).lower() for h in headers)) if is_map(headers) else ()
            description = _text(resp.get("description"))
            found.append(Response(status, description, chosen, schema, content, names))
        return tuple(found)

    def model(self, name: str, schema: Any) -> Model:
        if not is_map(schema):
            return Model(name, "alias", root=self.types.read(schema))
        description = _text(schema.get("description"))
        deprecated = schema.get("deprecated") is True
        examples = _schema_examples(schema)
        composed = self._composed(schema, [])
        if composed is not None or _is_object(schema):
            props, required = composed if composed is not None else _own_fields(schema)
            python_names = naming.field_python_names(props)
            fields = tuple(
                self.field(wire, prop, wire in required, python_names[wire][0])
                for wire, prop in props.items()
            )
            return Model(
                name, "object", description, fields, deprecated=deprecated, examples=examples
            )
        root = self.types.read(schema)
        discriminator = self.types.discriminator(schema) or root.discriminator
        if root.kind == "literal" and "const" not in schema:
            return Model(
                name,
                "enum",
                description,
                enum_values=root.literals,
                root=root,
                deprecated=deprecated,
                examples=examples,
            )
        return Model(
            name,
            "alias",
            description,
            root=root,
            discriminator=discriminator,
            deprecated=deprecated,
            examples=examples,
        )

    def _composed(
        self, schema: Mapping[str, Any], seen: list[str]
    ) -> tuple[dict[str, Any], set[str]] | None:
        """The fields of an ``allOf`` of objects (a subclass in the models: the members'
        fields, then its own), or None when ``schema`` is no such composition."""
        members = schema.get("allOf")
        if not isinstance(members, list) or not members or "anyOf" in schema or "oneOf" in schema:
            return None
        if len(members) == 1 and "properties" not in schema:
            return None  # ``allOf: [X]`` with metadata: X itself
        props: dict[str, Any] = {}
        required: set[str] = set()
        for member in members:
            ref = member.get("$ref") if is_map(member) else None
            if isinstance(ref, str):
                if ref in seen:
                    self._cycles += 1
                    return None
                target = self.deref(member)
                found = self._composed_ref(ref, target, seen)
                if found is None and not _is_object(target):
                    return None
            elif is_map(member):
                found = self._composed(member, seen)
                if found is None and not _is_object(member):
                    return None
                target = member
            else:
                return None
            sub_props, sub_required = found if found is not None else _own_fields(target)
            props.update(sub_props)
            required |= sub_required
        own_props, own_required = _own_fields(schema)
        props.update(own_props)
        return props, required | own_required

    def _composed_ref(
        self, ref: str, target: Mapping[str, Any], seen: list[str]
    ) -> tuple[dict[str, Any], set[str]] | None:
        """``_composed`` of ``ref``'s target, memoized where no cycle cut it short (an
        ``allOf`` diamond names the same member along many paths)."""
        if ref in self._compositions:
            return self._compositions[ref]
        cycles = self._cycles
        found = self._composed(target, [*seen, ref])
        if self._cycles == cycles:
            self._compositions[ref] = found
        return found

    def field(self, wire: str, prop: Any, required: bool, python_name: str) -> Field:
        prop = prop if is_map(prop) else {}
        type_ = self.types.read(prop)
        return Field(
            name=str(wire),
            python_name=python_name,
            type=type_,
            required=required,
            nullable=type_.nullable,
            default=own(prop.get("default")),
            has_default="default" in prop,
            description=_text(prop.get("description")),
            constraints=type_.constraints,
            deprecated=prop.get("deprecated") is True,
            read_only=prop.get("readOnly") is True,
            write_only=prop.get("writeOnly") is True,
            examples=_schema_examples(prop),
        )


def _schema_examples(schema: Mapping[str, Any]) -> tuple[Any, ...]:
    """A schema's own examples: its ``examples`` list (OpenAPI 3.1), else its ``example``."""
    listed = schema.get("examples")
    if isinstance(listed, list) and listed:
        return tuple(own(e) for e in listed)
    return (own(schema["example"]),) if "example" in schema else ()


def _own_fields(schema: Mapping[str, Any]) -> tuple[dict[str, Any], set[str]]:
    props = schema.get("properties")
    required = schema.get("required")
    names = {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
    return (dict(props) if is_map(props) else {}), names


def _is_object(schema: Mapping[str, Any]) -> bool:
    """An object model: has properties, or is ``type: object`` with no value schema for
    extra keys (a pure ``additionalProperties: X`` map is an alias of ``dict[str, X]``)."""
    if any(k in schema for k in _OBJECT_KEYS):
        return "properties" in schema and not any(k in schema for k in ("anyOf", "oneOf"))
    if "properties" in schema:
        return True
    type_ = schema.get("type")
    is_object = type_ == "object" or (isinstance(type_, list) and "object" in type_)
    return is_object and not is_map(schema.get("additionalProperties"))
