"""Schema -> :class:`TypeRef`: how a (normalized) schema reads as a type.

Reads the canonical null forms (``type: [T, "null"]``; ``anyOf: [X, {type: null}]``),
and, leniently, the forms normalization removes (3.0 ``nullable: true``, ``allOf: [X]``
wrappers, ``null`` inside ``enum``, tuple-style ``items: [...]``), so an un-normalized
spec still builds.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from typing import Any, TypeGuard

from generator.ir.model import CONSTRAINT_KEYS, Discriminator, TypeRef
from generator.load import resolve_pointer, unescape_token

SCHEMA_PREFIX = "#/components/schemas/"
_CONSTRAINTS = frozenset(CONSTRAINT_KEYS)
_ANY = TypeRef("any")
_NULL = TypeRef("null")


@lru_cache(maxsize=8192)
def schema_ref_name(ref: str) -> str | None:
    """``#/components/schemas/Foo`` -> ``Foo``; None for any other pointer."""
    if not ref.startswith(SCHEMA_PREFIX):
        return None
    rest = ref[len(SCHEMA_PREFIX) :]
    return None if "/" in rest else unescape_token(rest)


def constraints_of(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The constraint keywords of ``schema``, in the schema's own order."""
    return {k: v for k, v in schema.items() if k in _CONSTRAINTS}


def is_map(value: Any) -> TypeGuard[Mapping[str, Any]]:
    # A dict first (the common case), and None without an ABC check.
    return isinstance(value, dict) or (value is not None and isinstance(value, Mapping))


class TypeReader:
    """Reads schemas of one spec; ``$ref``s to other places than component schemas are
    followed (with a guard against cycles)."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.spec = spec
        self._following: list[str] = []
        # TypeRefs are immutable, so the common simple ones are shared (and built once).
        self._shared: dict[tuple[str, str | None, str | None, bool], TypeRef] = {}
        self._bases: dict[str, TypeRef | None] = {}  # see ``_variants``

    def read(self, schema: Any) -> TypeRef:
        if not is_map(schema):
            return _ANY  # ``true``, ``false`` or garbage
        t = self._read(schema)
        if schema.get("nullable") is True and t.kind != "null":  # OpenAPI 3.0, lenient
            t = self.with_nullable(t, True)
        return t

    def with_nullable(self, t: TypeRef, nullable: bool) -> TypeRef:
        if t.nullable == nullable or t.kind == "null":
            return t
        if t.kind == "model" or (t.kind == "primitive" and not t.constraints):
            return self._simple(t.kind, t.name, t.primitive, t.format, nullable)
        return replace(t, nullable=nullable)

    def _simple(
        self, kind: str, name: str | None, primitive: str | None, fmt: str | None, nullable: bool
    ) -> TypeRef:
        key = (name or "", primitive, fmt, nullable)
        found = self._shared.get(key)
        if found is None:
            if kind == "model":
                found = TypeRef("model", name=name, nullable=nullable)
            else:
                found = TypeRef("primitive", primitive=primitive, format=fmt, nullable=nullable)
            self._shared[key] = found
        return found

    def discriminator(self, schema: Mapping[str, Any]) -> Discriminator | None:
        raw = schema.get("discriminator")
        if not is_map(raw) or not isinstance(raw.get("propertyName"), str):
            return None
        mapping: dict[str, str] = {}
        for value, target in (raw.get("mapping") or {}).items():
            if isinstance(target, str):
                # A bare name is allowed by OpenAPI as a shorthand for a component.
                mapping[str(value)] = schema_ref_name(target) or target.rsplit("/", 1)[-1]
        return Discriminator(raw["propertyName"], mapping)

    def _read(self, schema: Mapping[str, Any]) -> TypeRef:
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self._ref(ref)
        if "const" in schema:
            return self._literal(schema, [schema["const"]])
        if isinstance(schema.get("enum"), list):
            return self._literal(schema, schema["enum"])
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                return self._union(schema, schema[key], one_of=key == "oneOf")
        if isinstance(schema.get("allOf"), list):
            return self._all_of(schema, schema["allOf"])
        return self._typed(schema)

    def _ref(self, ref: str) -> TypeRef:
        name = schema_ref_name(ref)
        if name is not None:
            return self._variants(name) or self._simple("model", name, None, None, False)
        if ref in self._following or not ref.startswith("#"):
            return _ANY
        try:
            target = resolve_pointer(self.spec, ref)
        except KeyError:
            return _ANY
        self._following.append(ref)
        try:
            return self.read(target)
        finally:
            self._following.pop()

    def _variants(self, name: str) -> TypeRef | None:
        """A reference to a base object with a discriminator (``allOf`` inheritance) reads
        as the union of the variants its mapping names, tagged, as ``models.py`` types it
        (datamodel-code-generator's reading); None for any other schema."""
        if name in self._bases:
            return self._bases[name]
        found: TypeRef | None = None
        schemas = (self.spec.get("components") or {}).get("schemas") or {}
        schema = schemas.get(name) if is_map(schemas) else None
        if is_map(schema) and is_map(schema.get("properties")) and "anyOf" not in schema:
            tag = self.discriminator(schema)
            targets = [t for t in dict.fromkeys(tag.mapping.values()) if t != name] if tag else []
            if tag is not None and targets and all(t in schemas for t in targets):
                members = tuple(self._simple("model", t, None, None, False) for t in targets)
                # (a union even of one member: the tag is what the mock must send)
                found = TypeRef("union", members=members, discriminator=tag)
        self._bases[name] = found
        return found

    def _literal(self, schema: Mapping[str, Any], values: list[Any]) -> TypeRef:
        kept = tuple(own(v) for v in values if v is not None)
        nullable = len(kept) < len(values) or _type_list(schema)[1]
        if not kept:
            return _NULL
        types = _type_list(schema)[0]
        primitive = types[0] if len(types) == 1 else _infer_primitive(kept)
        return TypeRef("literal", literals=kept, primitive=primitive, nullable=nullable)

    def _union(self, schema: Mapping[str, Any], subs: list[Any], *, one_of: bool) -> TypeRef:
        """An ``anyOf``/``oneOf`` (``one_of``). A nested union without a discriminator is
        flattened into it, and the result is ``one_of`` when either was: a value that
        matches exactly one of the flat members is valid under any nesting of the two
        keywords, so the flat check never takes what the schema refuses."""
        members: list[TypeRef] = []
        nullable = _type_list(schema)[1]
        for sub in subs:
            t = self.read(sub)
            if t.kind == "any":
                return _ANY  # ``X | Any`` says no more than ``Any``
            nullable = nullable or t.nullable or t.kind == "null"
            if t.kind == "null":
                continue
            t = self.with_nullable(t, False)
            flat = t.kind == "union" and t.discriminator is None
            one_of = one_of or (flat and t.one_of)
            nested = t.members if flat else (t,)
            for m in nested:
                if m not in members:
                    members.append(m)
        outer = constraints_of(schema)
        if not members:
            return _NULL
        if len(members) == 1:
            only = members[0]
            if outer:
                only = replace(only, constraints={**outer, **only.constraints})
            return self.with_nullable(only, nullable)
        return TypeRef(
            "union",
            members=tuple(members),
            nullable=nullable,
            constraints=outer,
            discriminator=self.discriminator(schema),
            one_of=one_of,
        )

    def _all_of(self, schema: Mapping[str, Any], subs: list[Any]) -> TypeRef:
        # ``allOf: [X]`` (plus metadata) is X; metadata-only members do not count.
        typed = [t for t in (self.read(s) for s in subs) if t != _ANY]
        nullable = _type_list(schema)[1]
        if len(typed) == 1:
            return self.with_nullable(typed[0], typed[0].nullable or nullable)
        # parts that are all one primitive (``allOf: [{$ref: ResourceId}, {type: string}]``,
        # the ATO's ids): that primitive, named by its model part when it has one
        kinds = {self._primitive_of(t) for t in typed}
        if len(kinds) == 1 and None not in kinds:
            first = next((t for t in typed if t.kind == "model"), typed[0])
            return self.with_nullable(first, first.nullable or nullable)
        return _ANY  # an intersection has no simple reading

    def _primitive_of(self, t: TypeRef) -> str | None:
        """The primitive a part of an ``allOf`` is: its own, or its model's when that model
        is a plain primitive schema (a component with a ``type`` and no fields)."""
        if t.kind == "primitive":
            return t.primitive
        if t.kind != "model" or t.name is None:
            return None
        schemas = (self.spec.get("components") or {}).get("schemas") or {}
        target = schemas.get(t.name)
        if not is_map(target) or set(target) & {"properties", "allOf", "anyOf", "oneOf", "$ref"}:
            return None
        kind = target.get("type")
        return kind if kind in ("string", "integer", "number", "boolean") else None

    def _typed(self, schema: Mapping[str, Any]) -> TypeRef:
        types, nullable = _type_list(schema)
        if not types:
            if "properties" in schema or "additionalProperties" in schema:
                types = ["object"]
            elif "items" in schema or "prefixItems" in schema:
                types = ["array"]
            else:  # ``type: null`` is null; a 3.0 ``nullable: true`` alone is any
                return _NULL if nullable and "type" in schema else _ANY
        if len(types) == 1:
            return self._single(schema, types[0], nullable)
        members = tuple(self._single(schema, t, False) for t in types)
        return TypeRef("union", members=members, nullable=nullable)

    def _positional(
        self,
        schema: Mapping[str, Any],
        prefix: list[Any],
        tail: Any,
        nullable: bool,
        constraints: Mapping[str, Any],
    ) -> TypeRef:
        """``prefixItems`` (then ``items`` for the rest): a tuple when the length is fixed,
        else a list of any of the positions' types, as the models read it."""
        positions = _positions(schema, prefix, tail)
        if positions is not None:
            return TypeRef(
                "array",
                prefix_items=tuple(self.read(s) for s in positions),
                nullable=nullable,
                constraints=constraints,
            )
        members = [s for s in prefix if s is not False]
        if tail is False and "maxItems" not in constraints:  # no items past the prefix
            constraints = {**constraints, "maxItems": len(prefix)}
        if tail is None or tail is True:
            members.append({})
        elif tail is not False:
            members.append(tail)
        item_type = self.read({"anyOf": members} if len(members) > 1 else (members or [{}])[0])
        return TypeRef("array", items=item_type, nullable=nullable, constraints=constraints)

    def _single(self, schema: Mapping[str, Any], type_: str, nullable: bool) -> TypeRef:
        constraints = constraints_of(schema)
        if type_ in ("string", "integer", "number", "boolean"):
            fmt = schema.get("format")
            fmt = fmt if isinstance(fmt, str) else None
            if fmt is None and type_ == "string" and is_binary_media(schema):
                fmt = "binary"  # OpenAPI 3.1's spelling of format: binary
            if not constraints:
                return self._simple("primitive", None, type_, fmt, nullable)
            return TypeRef(
                "primitive", primitive=type_, format=fmt, nullable=nullable, constraints=constraints
            )
        if type_ == "array":
            items = schema.get("items")
            prefix = schema.get("prefixItems")
            if isinstance(items, list) and not isinstance(prefix, list):
                prefix, items = items, None  # OpenAPI 3.0 / draft-04 tuple form
            if isinstance(prefix, list) and prefix:
                return self._positional(schema, prefix, items, nullable, constraints)
            item_type = self.read(items) if items is not None else None
            return TypeRef("array", items=item_type, nullable=nullable, constraints=constraints)
        if type_ == "object":
            extra = schema.get("additionalProperties")
            values = self.read(extra) if is_map(extra) else None
            return TypeRef("map", values=values, nullable=nullable, constraints=constraints)
        return _ANY


def _positions(schema: Mapping[str, Any], prefix: list[Any], tail: Any) -> list[Any] | None:
    """The schema of every position of a fixed-length array, or None when its length is
    not fixed: ``minItems == maxItems`` given, and no position past the end of ``prefix``
    that ``items: false`` forbids (datamodel-code-generator's rule for a tuple)."""
    length = schema.get("minItems")
    if not isinstance(length, int) or length != schema.get("maxItems") or length <= 0:
        return None
    rest = {} if tail is None or tail is True else tail
    positions = [*prefix[:length], *(rest for _ in range(length - len(prefix)))]
    return None if any(p is False for p in positions) else positions


def _type_list(schema: Mapping[str, Any]) -> tuple[list[str], bool]:
    """The non-null ``type`` names of a schema, and whether ``null`` is allowed."""
    raw = schema.get("type")
    if raw is None:
        return [], schema.get("nullable") is True
    names = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    names = [t for t in names if isinstance(t, str)]
    nullable = "null" in names or schema.get("nullable") is True
    return [t for t in names if t != "null"], nullable


def own(value: Any) -> Any:
    """Scalars as they are; containers copied, so the IR never aliases the spec."""
    return copy.deepcopy(value) if isinstance(value, (list, dict)) else value


def _infer_primitive(values: tuple[Any, ...]) -> str | None:
    kinds = {
        "boolean"
        if isinstance(v, bool)
        else "string"
        if isinstance(v, str)
        else "integer"
        if isinstance(v, int)
        else "number"
        if isinstance(v, float)
        else "other"
        for v in values
    }
    if kinds == {"integer", "number"}:
        return "number"
    return next(iter(kinds)) if len(kinds) == 1 and "other" not in kinds else None


def is_binary_media(schema: Mapping[str, Any]) -> bool:
    """A string with a non-text ``contentMediaType`` and no ``contentEncoding`` is raw bytes
    (with ``contentEncoding: base64`` it is text that encodes them)."""
    media = schema.get("contentMediaType")
    if not isinstance(media, str) or "contentEncoding" in schema:
        return False
    return not (media.startswith("text/") or media.endswith(("json", "xml")))
