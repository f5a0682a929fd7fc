"""Normalization pass `array_items`: inline tagged-union, tuple and constrained array items
get a name.

A model property whose array items are a discriminated union, a tuple (``prefixItems``)
or a constrained primitive (``{"type": "string", "minLength": 1}``) would otherwise leave
the item type nameless, and datamodel-code-generator would invent an alias for it that
nothing else knows, named after the property: NetBox's ``tags`` items became ``Tag``, and
the component ``Tag`` was renamed ``Tag24`` (the client's ``models.Tag`` was a string).
Such items become a component schema of their own, ``<Model><Property>Item`` (``2``,
``3``, ... on a clash), and the property's ``items`` a ``$ref`` to it. The name is then in
the normalized spec, so ``openapi.json``, the IR, the client, the server, the docs and
``models.py`` all use it.

Only the properties of component schemas are looked at, each directly or through its
nullable ``anyOf``; new components are appended in model-name order. It runs after
``names``, so the model names it builds on are final, and before the ``identifiers``
check, which every new name passes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.normalize.diagnostics import PassResult
from generator.normalize.naming import is_valid_class_name, pascal_case
from generator.normalize.walk import json_copy

NAME = "array_items"


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(doc: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``doc`` is the caller's to give (see :mod:`generator.normalize`)."""
    components = doc.get("components")
    schemas = components.get("schemas") if isinstance(components, dict) else None
    if isinstance(schemas, dict) and schemas:
        name_array_items(schemas)
    return PassResult(spec=doc)


def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null" and len(schema) == 1


# keywords that make datamodel-code-generator spell an item type as an alias of its own
CONSTRAINTS = frozenset(
    {"minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum",
     "exclusiveMaximum", "multipleOf"}
)  # fmt: skip
PRIMITIVES = frozenset({"string", "integer", "number"})


def _constrained(items: dict[str, Any]) -> bool:
    """A primitive (nullable or not) with a constraint, and no other shape."""
    kind = items.get("type")
    kinds = set(kind) - {"null"} if isinstance(kind, list) else {kind}
    shaped = any(k in items for k in ("$ref", "anyOf", "oneOf", "allOf", "enum", "const"))
    return len(kinds) == 1 and kinds <= PRIMITIVES and not shaped and bool(CONSTRAINTS & set(items))


def needs_name(items: Any) -> bool:
    """Array items that would otherwise get an invented name: a tagged union (nullable or
    not), a tuple, or a constrained primitive."""
    if not isinstance(items, dict):
        return False
    if "discriminator" in items or isinstance(items.get("prefixItems"), list):
        return True
    if _constrained(items):
        return True
    members = items.get("anyOf")
    return (
        isinstance(members, list)
        and len(members) == 2
        and _is_null(members[1])
        and isinstance(members[0], dict)
        and "discriminator" in members[0]
    )


def name_array_items(schemas: dict[str, Any]) -> None:
    """Hoist every such item schema into ``schemas`` (in place), in model-name order."""
    taken = set(schemas)
    for model in sorted(schemas):
        schema = schemas[model]
        props = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(props, dict):
            continue
        for prop, sub in props.items():
            if not isinstance(sub, dict):
                continue
            members = sub.get("anyOf")
            holders = (
                [sub, *(m for m in members if isinstance(m, dict))]
                if isinstance(members, list)
                else [sub]
            )
            for holder in holders:
                if holder.get("type") not in ("array", ["array", "null"]):
                    continue
                if not needs_name(holder.get("items")):
                    continue
                base = f"{model}{pascal_case(str(prop))}Item"
                if not is_valid_class_name(base):
                    continue
                name, n = base, 2
                while name in taken:
                    name, n = f"{base}{n}", n + 1
                taken.add(name)
                schemas[name] = holder["items"]
                holder["items"] = {"$ref": f"#/components/schemas/{name}"}
