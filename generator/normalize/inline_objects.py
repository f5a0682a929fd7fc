"""Normalization pass `inline_objects`: inline object properties get a name.

A component schema's property written as an inline object (``properties``, or an
``allOf`` composition) becomes a nested class in ``models.py`` that datamodel-code-generator
names by itself, while the IR, the client, the mock and the docs would see an anonymous
``dict``: the mock would answer ``{}`` where the model requires fields. Such a property
schema (of the model, or of an inline part of its ``allOf``) becomes a component of its
own, ``<Model><Property>`` (``2``, ``3``, ... on a clash),
and the property a ``$ref`` to it; an inline object array item becomes
``<Model><Property>Item``. A nullable property (``anyOf: [{...}, {"type": "null"}]``) keeps
its null member. Hoisted schemas are looked at in turn, so nested inline objects get
``<Model><Property><Property>``.

Inline objects that are the same schema (equal JSON, key order aside) get one component,
named where the first of them is met: GitHub's webhook payloads repeat the same dozens of
nested objects (``{"title": "Link", ...}`` 187 times), 1,000 schemas in all, which would
otherwise be as many identical classes for datamodel-codegen to render and pydantic to
build.

It runs after ``names`` and ``array_items`` (the names it builds on are final), and before
the ``identifiers`` check, which every new name passes. New components are appended in
model-name order, nested ones after their parent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from generator.normalize.diagnostics import PassResult
from generator.normalize.naming import is_valid_class_name, pascal_case
from generator.normalize.walk import json_copy

NAME = "inline_objects"


def is_inline_object(schema: Any) -> bool:
    """An inline object with declared fields, or a composition of objects (what this pass
    and ``inline_bodies`` name)."""
    if not isinstance(schema, dict) or "$ref" in schema:
        return False
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        return True
    return isinstance(schema.get("properties"), dict) and bool(schema["properties"])


def _holders(sub: dict[str, Any]) -> list[dict[str, Any]]:
    """The property schema and, for a union, its members (where an inline object sits)."""
    members = sub.get("anyOf")
    if isinstance(members, list):
        return [m for m in members if isinstance(m, dict)]
    return [sub]


class Hoisted:
    """The components this pass made: ``schemas`` (the spec's, which it adds to), the names
    ``taken``, and each made schema's JSON (as it was when hoisted) for reuse."""

    def __init__(self, schemas: dict[str, Any]) -> None:
        self.schemas = schemas
        self.taken = set(schemas)
        self._by_json: dict[str, str] = {}

    def name(self, base: str, schema: dict[str, Any]) -> tuple[str | None, bool]:
        """The component for ``schema`` (hoisted from where ``base`` names), and whether it
        is new: the one made earlier for an equal schema, if any."""
        if not is_valid_class_name(base):
            return None, False
        key = json.dumps(schema, sort_keys=True, ensure_ascii=False, default=str)
        if key in self._by_json:
            return self._by_json[key], False
        name, n = base, 2
        while name in self.taken:
            name, n = f"{base}{n}", n + 1
        self.taken.add(name)
        self.schemas[name] = schema
        self._by_json[key] = name
        return name, True


def _base(model: str, prop: object) -> str:
    """The name of the schema hoisted from ``model``'s property ``prop`` (made only for the
    few properties that need one)."""
    return f"{model}{pascal_case(str(prop))}"


def _root_members(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The inline object members of a schema that is a union (``anyOf``/``oneOf``)."""
    members = [m for key in ("anyOf", "oneOf") for m in schema.get(key) or ()]
    return [m for m in members if is_inline_object(m)]


def _name_properties(hoisted: Hoisted, model: str, schema: Any) -> list[str]:
    """Hoist the inline objects of ``model``'s properties, and of its own union members
    (stream-io's ``Response``: ``anyOf: [{object}, {type: null}]`` as
    ``ResponseUnionMember1 | None``); the names of the new schemas."""
    if not isinstance(schema, dict):
        return []
    made: list[str] = []
    for i, member in enumerate(_root_members(schema), 1):
        name, new = hoisted.name(f"{model}UnionMember{i}", dict(member))
        if name is not None:
            member.clear()
            member["$ref"] = f"#/components/schemas/{name}"
            made += [name] if new else []
    for part in schema.get("allOf") or ():  # an allOf's own inline parts: the model's fields
        if isinstance(part, dict) and "$ref" not in part:
            made += _name_properties(hoisted, model, part)
    props = schema.get("properties")
    if not isinstance(props, dict):
        return made
    for prop, sub in props.items():
        if not isinstance(sub, dict):
            continue
        if is_inline_object(sub):
            name, new = hoisted.name(_base(model, prop), sub)
            if name is not None:
                props[prop] = {"$ref": f"#/components/schemas/{name}"}
                made += [name] if new else []
            continue
        for holder in _holders(sub):
            if is_inline_object(holder) and holder is not sub:
                name, new = hoisted.name(_base(model, prop), dict(holder))
                if name is not None:
                    holder.clear()
                    holder["$ref"] = f"#/components/schemas/{name}"
                    made += [name] if new else []
            elif is_inline_object(holder.get("items")):
                name, new = hoisted.name(_base(model, prop) + "Item", holder["items"])
                if name is not None:
                    holder["items"] = {"$ref": f"#/components/schemas/{name}"}
                    made += [name] if new else []
    return made


def _has_inline(schema: Any) -> bool:
    if isinstance(schema, dict) and _root_members(schema):
        return True
    parts = schema.get("allOf") if isinstance(schema, dict) else None
    if isinstance(parts, list) and any(_has_inline(p) for p in parts):
        return True
    props = schema.get("properties") if isinstance(schema, dict) else None
    return isinstance(props, dict) and any(
        is_inline_object(s)
        or any(is_inline_object(h) or is_inline_object(h.get("items")) for h in _holders(s))
        for s in props.values()
        if isinstance(s, dict)
    )


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(doc: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``doc`` is the caller's to give (see :mod:`generator.normalize`)."""
    components = doc.get("components")
    schemas = components.get("schemas") if isinstance(components, Mapping) else None
    if not isinstance(schemas, Mapping) or not any(map(_has_inline, schemas.values())):
        return PassResult(spec=doc)
    out = doc["components"]["schemas"]
    hoisted = Hoisted(out)
    queue = sorted(out)
    while queue:
        model = queue.pop(0)
        made = _name_properties(hoisted, model, out[model])
        queue[:0] = made  # nested ones next, in the order they were made
    return PassResult(spec=doc)
