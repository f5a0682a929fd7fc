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
from typing import Any

from generator.ir.model import CONSTRAINT_KEYS, Discriminator, TypeRef
from generator.load import resolve_pointer, unescape_token

SCHEMA_PREFIX = "#/components/schemas/"
_ANY = TypeRef("any")
_NULL = TypeRef("null")


def schema_ref_name(ref: str) -> str | None:
    """``#/components/schemas/Foo`` -> ``Foo``; None for any other pointer."""
    if not ref.startswith(SCHEMA_PREFIX):
        return None
    rest = ref[len(SCHEMA_PREFIX) :]
    return None if "/" in rest else unescape_token(rest)


def constraints_of(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {k: schema[k] for k in CONSTRAINT_KEYS if k in schema}


def with_nullable(t: TypeRef, nullable: bool) -> TypeRef:
    return t if t.nullable == nullable else replace(t, nullable=nullable)


class TypeReader:
    """Reads schemas of one spec; ``$ref``s to other places than component schemas are
    followed (with a guard against cycles)."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.spec = spec
        self._following: list[str] = []

    def read(self, schema: Any) -> TypeRef:
        if not isinstance(schema, Mapping):
            return _ANY  # ``true``, ``false`` or garbage
        t = self._read(schema)
        if schema.get("nullable") is True and t.kind != "null":  # OpenAPI 3.0, lenient
            t = with_nullable(t, True)
        return t

    def discriminator(self, schema: Mapping[str, Any]) -> Discriminator | None:
        raw = schema.get("discriminator")
        if not isinstance(raw, Mapping) or not isinstance(raw.get("propertyName"), str):
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
                return self._union(schema, schema[key])
        if isinstance(schema.get("allOf"), list):
            return self._all_of(schema, schema["allOf"])
        return self._typed(schema)

    def _ref(self, ref: str) -> TypeRef:
        name = schema_ref_name(ref)
        if name is not None:
            return TypeRef("model", name=name)
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

    def _literal(self, schema: Mapping[str, Any], values: list[Any]) -> TypeRef:
        kept = tuple(_own(v) for v in values if v is not None)
        nullable = len(kept) < len(values) or _type_list(schema)[1]
        if not kept:
            return _NULL
        types = _type_list(schema)[0]
        primitive = types[0] if len(types) == 1 else _infer_primitive(kept)
        return TypeRef("literal", literals=kept, primitive=primitive, nullable=nullable)

    def _union(self, schema: Mapping[str, Any], subs: list[Any]) -> TypeRef:
        members: list[TypeRef] = []
        nullable = _type_list(schema)[1]
        for sub in subs:
            t = self.read(sub)
            nullable = nullable or t.nullable or t.kind == "null"
            if t.kind == "null":
                continue
            t = with_nullable(t, False)
            nested = t.members if t.kind == "union" and t.discriminator is None else (t,)
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
            return with_nullable(only, nullable)
        return TypeRef(
            "union",
            members=tuple(members),
            nullable=nullable,
            constraints=outer,
            discriminator=self.discriminator(schema),
        )

    def _all_of(self, schema: Mapping[str, Any], subs: list[Any]) -> TypeRef:
        # ``allOf: [X]`` (plus metadata) is X; metadata-only members do not count.
        typed = [t for t in (self.read(s) for s in subs) if t != _ANY]
        nullable = _type_list(schema)[1]
        if len(typed) == 1:
            return with_nullable(typed[0], typed[0].nullable or nullable)
        return with_nullable(_ANY, nullable)  # an intersection has no simple reading

    def _typed(self, schema: Mapping[str, Any]) -> TypeRef:
        types, nullable = _type_list(schema)
        if not types:
            if "properties" in schema or "additionalProperties" in schema:
                types = ["object"]
            elif "items" in schema or "prefixItems" in schema:
                types = ["array"]
            elif nullable:
                return _NULL
            else:
                return _ANY
        if len(types) == 1:
            return with_nullable(self._single(schema, types[0]), nullable)
        members = tuple(self._single(schema, t) for t in types)
        return TypeRef("union", members=members, nullable=nullable)

    def _single(self, schema: Mapping[str, Any], type_: str) -> TypeRef:
        constraints = constraints_of(schema)
        if type_ in ("string", "integer", "number", "boolean"):
            fmt = schema.get("format")
            fmt = fmt if isinstance(fmt, str) else None
            return TypeRef("primitive", primitive=type_, format=fmt, constraints=constraints)
        if type_ == "array":
            items = schema.get("items")
            prefix = schema.get("prefixItems")
            if isinstance(items, list) and not isinstance(prefix, list):
                prefix, items = items, None  # OpenAPI 3.0 / draft-04 tuple form
            if isinstance(prefix, list) and prefix:
                return TypeRef(
                    "array",
                    prefix_items=tuple(self.read(s) for s in prefix),
                    constraints=constraints,
                )
            item_type = self.read(items) if items is not None else None
            return TypeRef("array", items=item_type, constraints=constraints)
        if type_ == "object":
            extra = schema.get("additionalProperties")
            values = self.read(extra) if isinstance(extra, Mapping) else None
            return TypeRef("map", values=values, constraints=constraints)
        return _ANY


def _type_list(schema: Mapping[str, Any]) -> tuple[list[str], bool]:
    """The non-null ``type`` names of a schema, and whether ``null`` is allowed."""
    raw = schema.get("type")
    names = [raw] if isinstance(raw, str) else [t for t in raw or () if isinstance(t, str)]
    nullable = "null" in names or schema.get("nullable") is True
    return [t for t in names if t != "null"], nullable


def _own(value: Any) -> Any:
    """Scalars as they are; containers copied, so the IR never aliases the spec."""
    return copy.deepcopy(value) if isinstance(value, (list, dict)) else value


def _infer_primitive(values: tuple[Any, ...]) -> str | None:
    kinds = {
        "boolean" if isinstance(v, bool) else
        "string" if isinstance(v, str) else
        "integer" if isinstance(v, int) else
        "number" if isinstance(v, float) else "other"
        for v in values
    }
    if kinds == {"integer", "number"}:
        return "number"
    return next(iter(kinds)) if len(kinds) == 1 and "other" not in kinds else None
