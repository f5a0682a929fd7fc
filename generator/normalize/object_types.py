"""Normalization pass `object_types`: a schema written with ``properties`` but no ``type``
is read as ``type: object``.

By JSON Schema's rules ``properties``, ``required`` and ``additionalProperties`` constrain
objects only: ``{"properties": {"q": {"type": "string"}}}`` also accepts ``true``,
``[1, 2]`` and ``"text"``. Its generated pydantic model (or ``dict[str, X]`` for
``additionalProperties``) takes objects only, so the server stub answered 422 to values
the spec allowed: schemathesis's positive mode found it on the search operations of CORE
(core.ac.uk), whose request bodies are written this way. With ``"type": "object"`` set,
the normalized spec (which the generated package ships as ``openapi.json``, and which its
server, mock and client share) says what the models enforce. The IR already reads such a
schema as an object (:mod:`generator.ir.types`): the Python types do not change.

A schema qualifies when it has ``properties`` or ``additionalProperties``, no ``type``, and
none of ``$ref``, ``allOf``, ``anyOf``, ``oneOf``, ``enum``, ``const`` and ``not`` (whose
meaning the keyword would change: the IR reads those first). Every schema of the document
is looked at (components, parameters, bodies, responses, headers, at any depth), except
those under ``not``, ``if``, ``contains`` and ``propertyNames``: a negation or a
condition is no value a model validates, and narrowing it would widen what the spec
accepts. ``"type"`` is put first among the schema's keywords.

The rewrite is routine: one ``note`` per spec says how many schemas it changed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.walk import (
    SCHEMA_KEYS,
    SCHEMA_LIST_KEYS,
    SCHEMA_MAP_KEYS,
    Schema,
    json_copy,
    spec_roots,
)

NAME = "object_types"

_OBJECT_KEYS = ("properties", "additionalProperties")
_OTHER_READINGS = frozenset({"type", "$ref", "allOf", "anyOf", "oneOf", "enum", "const", "not"})
# Sub-schemas that describe no value a model validates: a negation, a condition, what one
# item must match, the names of properties. They and all below them are left as they are.
NOT_VALUES = frozenset({"not", "if", "contains", "propertyNames"})
_VALUE_KEYS = tuple(k for k in SCHEMA_KEYS if k not in NOT_VALUES)


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(doc: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``doc`` is the caller's to give (see :mod:`generator.normalize`)."""
    count = 0
    for schema in value_schemas(doc):
        if _untyped_object(schema):
            rest = list(schema.items())
            schema.clear()
            schema["type"] = "object"
            schema.update(rest)
            count += 1
    if not count:
        return PassResult(spec=doc)
    what = "schema" if count == 1 else "schemas"
    message = (
        f"{count} {what} with properties or additionalProperties but no type read as"
        " type: object (what their models accept)"
    )
    return PassResult(spec=doc, diagnostics=(Diagnostic(NAME, "note", "#", message),))


def _untyped_object(schema: Schema) -> bool:
    return any(k in schema for k in _OBJECT_KEYS) and _OTHER_READINGS.isdisjoint(schema)


def value_schemas(doc: dict[str, Any]) -> Iterator[Schema]:
    """Every schema of ``doc`` that describes a value (parents before children), as
    :func:`generator.normalize.walk.walk_schemas` finds them, but none under ``not``,
    ``if``, ``contains`` or ``propertyNames`` (:data:`NOT_VALUES`)."""
    stack = [schema for _pointer, schema in spec_roots(doc)]
    stack.reverse()
    while stack:
        schema = stack.pop()
        yield schema
        stack.extend(reversed(_value_children(schema)))


def _value_children(schema: Schema) -> list[Schema]:
    found: list[Schema] = []
    for key in _VALUE_KEYS:
        sub = schema.get(key)
        if isinstance(sub, dict):
            found.append(sub)
        elif key == "items" and isinstance(sub, list):
            found.extend(item for item in sub if isinstance(item, dict))
    for key in SCHEMA_LIST_KEYS:
        subs = schema.get(key)
        if isinstance(subs, list):
            found.extend(s for s in subs if isinstance(s, dict))
    for key in SCHEMA_MAP_KEYS:
        subs = schema.get(key)
        if isinstance(subs, dict):
            found.extend(s for s in subs.values() if isinstance(s, dict))
    return found
