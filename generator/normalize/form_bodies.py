"""Normalization pass `form_bodies`: inline form request bodies get a name.

A ``multipart/form-data`` or ``application/x-www-form-urlencoded`` request body whose
schema is written inline would otherwise reach the IR nameless: the client would take it
as ``body: dict[str, Any]`` and could tell neither its file fields nor its encoding. Such a
schema becomes a component schema of its own, ``<Operation>Body`` (``2``, ``3``, ... on a
clash), and the body a ``$ref`` to it, exactly as if the spec had written it that way
(FastAPI's ``Body_<operation>`` components are the common case). Both form media types of
one operation share the name when their schemas are equal.

It runs after ``names``, so operations already carry their final Python name
(``x-apismith-name``), and before the ``identifiers`` check, which every new name passes.
New components are appended in path order, then method order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.normalize.diagnostics import PassResult
from generator.normalize.naming import pascal_case
from generator.normalize.walk import json_copy, operations

NAME = "form_bodies"
FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")


def _inline_object(schema: Any) -> bool:
    if not isinstance(schema, dict) or "$ref" in schema:
        return False
    return schema.get("type") == "object" or isinstance(schema.get("properties"), dict)


def _bodies(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(base name, requestBody) of every operation with an inline form body schema."""
    found: list[tuple[str, dict[str, Any]]] = []
    for _pointer, path, method, op in operations(doc):
        body = op.get("requestBody")
        content = body.get("content") if isinstance(body, dict) else None
        if not isinstance(content, dict) or not any(
            isinstance(content.get(t), dict) and _inline_object(content[t].get("schema"))
            for t in FORM_TYPES
        ):
            continue
        assert isinstance(body, dict)
        base = str(op.get("x-apismith-name") or op.get("operationId") or f"{method} {path}")
        found.append((f"{pascal_case(base) or 'Operation'}Body", body))
    return found


def _free(base: str, taken: Mapping[str, Any]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    return name


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(doc: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``doc`` is the caller's to give (see :mod:`generator.normalize`)."""
    if not _bodies(doc):
        return PassResult(spec=doc)
    components = doc.setdefault("components", {})
    if not isinstance(components, dict):
        return PassResult(spec=doc)  # (setdefault changed nothing)
    schemas = components.setdefault("schemas", {})
    if not isinstance(schemas, dict):
        return PassResult(spec=doc)
    for base, body in _bodies(doc):
        named: list[tuple[Any, str]] = []  # (schema, component name) of this body
        for media in FORM_TYPES:
            entry = body["content"].get(media)
            if not isinstance(entry, dict) or not _inline_object(entry.get("schema")):
                continue
            schema = entry["schema"]
            name = next((n for s, n in named if s == schema), None)
            if name is None:
                name = _free(base, schemas)
                schemas[name] = schema
                named.append((schema, name))
            entry["schema"] = {"$ref": f"#/components/schemas/{name}"}
    return PassResult(spec=doc)
