"""Normalization pass `tuples`: tuple-style ``items: [A, B]`` into ``prefixItems``.

A list-valued ``items`` (JSON Schema draft 4-2019-09) is invalid in OpenAPI 3.1 /
JSON Schema 2020-12, where positional schemas live in ``prefixItems`` and ``items``
describes the rest. ``additionalItems`` (gone in 2020-12) decides the rest:

- ``false``, or absent with ``minItems == maxItems == len(items)``: ``items: false``
  (a closed tuple);
- a schema: ``items: <that schema>``;
- ``true``, or absent otherwise: no ``items`` (any further items allowed).

Each conversion is reported as a ``warning`` at the schema that held the list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.walk import Schema, json_copy, transform_schemas

NAME = "tuples"


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(doc: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``doc`` is the caller's to give (see :mod:`generator.normalize`)."""
    diagnostics: list[Diagnostic] = []

    def convert(schema: Schema, pointer: str) -> Schema:
        items = schema.get("items")
        if not isinstance(items, list):
            return schema
        if "prefixItems" in schema:
            message = "both prefixItems and a list-valued items; items dropped"
            diagnostics.append(Diagnostic(NAME, "warning", pointer, message))
            return {k: v for k, v in schema.items() if k not in ("items", "additionalItems")}
        rest = _rest(schema, len(items))
        converted: Schema = {}
        for key, value in schema.items():
            if key == "items":
                converted["prefixItems"] = value
                if rest is not None:
                    converted["items"] = rest
            elif key != "additionalItems":
                converted[key] = value
        message = (
            f"items given as a list of {len(items)} schemas (invalid in OpenAPI 3.1)"
            " rewritten as prefixItems"
        )
        diagnostics.append(Diagnostic(NAME, "warning", pointer, message))
        return converted

    transform_schemas(doc, convert)
    return PassResult(spec=doc, diagnostics=tuple(diagnostics))


def _rest(schema: Schema, size: int) -> Any:
    """The 2020-12 ``items`` for the elements after the tuple, or None for no keyword."""
    extra = schema.get("additionalItems")
    if extra is False:
        return False
    if isinstance(extra, dict):
        return extra
    if extra is None and schema.get("minItems") == schema.get("maxItems") == size:
        return False
    return None
