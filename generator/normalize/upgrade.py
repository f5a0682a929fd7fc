"""Normalization pass `upgrade`: OpenAPI 3.0 schema constructs into their 3.1 form.

On a 3.0 document (``openapi: 3.0.x``, then set to ``3.1.0``), in every schema:

- ``example: v`` -> ``examples: [v]``;
- ``format: binary`` -> ``contentMediaType: application/octet-stream``, ``format: byte``
  -> ``contentEncoding: base64`` (the string type kept);
- a one-value ``enum`` (a tag such as ``{"type": "string", "enum": ["user"]}``) ->
  ``const``, except on a named ``#/components/schemas/X`` (an enum type of its own).

On any document (harmless on 3.1, where these are invalid or unknown anyway):

- ``nullable: true`` -> the canonical null form of the ``nullable`` pass (``nullable:
  false`` is removed); on a 3.1 document one ``warning`` says how many were found;
- boolean ``exclusiveMinimum: true`` + ``minimum: m`` -> ``exclusiveMinimum: m``
  (same for the maximum); ``false`` is removed; ``true`` without a bound is removed
  with a ``drop`` diagnostic.

Numeric ``exclusiveMinimum``/``exclusiveMaximum`` and an existing ``contentMediaType`` or
``contentEncoding`` are kept as they are (some broken 3.0 conversions carry them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.nullable import convert_nullable_keyword, map_schemas
from generator.normalize.walk import json_copy

NAME = "upgrade"

Schema = dict[str, Any]
_COMPONENT = "#/components/schemas/"
_BOUNDS = (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum"))
_FORMATS = {
    "binary": ("contentMediaType", "application/octet-stream"),
    "byte": ("contentEncoding", "base64"),
}


def _is_named_component(pointer: str) -> bool:
    return pointer.startswith(_COMPONENT) and "/" not in pointer[len(_COMPONENT) :]


def _rename(schema: Schema, old: str, new: str, value: Any) -> Schema:
    """``schema`` with key ``old`` replaced by ``new: value``, in the same position."""
    return {(new if k == old else k): (value if k == old else v) for k, v in schema.items()}


def _upgrade_30(schema: Schema, pointer: str) -> Schema:
    """The 3.0-only conversions of one schema."""
    if "example" in schema:
        if "examples" in schema:
            schema = {k: v for k, v in schema.items() if k != "example"}
        else:
            schema = _rename(schema, "example", "examples", [schema["example"]])
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in _FORMATS and schema.get("type", "string") == "string":
        key, value = _FORMATS[fmt]
        if key in schema:
            schema = {k: v for k, v in schema.items() if k != "format"}
        else:
            schema = _rename(schema, "format", key, value)
    enum = schema.get("enum")
    if (
        isinstance(enum, list)
        and len(enum) == 1
        and enum[0] is not None
        and not _is_named_component(pointer)
        and schema.get("const", enum[0]) == enum[0]
    ):
        schema = {k: v for k, v in schema.items() if k != "const"}
        schema = _rename(schema, "enum", "const", enum[0])
    return schema


def _fix_bounds(schema: Schema, pointer: str, found: list[Diagnostic]) -> Schema:
    """Boolean ``exclusiveMinimum``/``exclusiveMaximum`` (3.0) into numeric bounds (3.1)."""
    for flag, bound in _BOUNDS:
        value = schema.get(flag)
        if not isinstance(value, bool):
            continue
        schema = dict(schema)
        del schema[flag]
        if value and bound in schema:
            schema = _rename(schema, bound, flag, schema[bound])
        elif value:
            found.append(
                Diagnostic(NAME, "drop", pointer, f"{flag}: true without {bound}; removed")
            )
    return schema


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(out: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``out`` is the caller's to give (see :mod:`generator.normalize`)."""
    is_30 = str(out.get("openapi", "")).startswith("3.0")
    if is_30:
        out["openapi"] = "3.1.0"
    found: list[Diagnostic] = []
    nullables = 0

    def fix(schema: Schema, pointer: str) -> Schema:
        nonlocal nullables
        if is_30:
            schema = _upgrade_30(schema, pointer)
        if "exclusiveMinimum" in schema or "exclusiveMaximum" in schema:
            schema = _fix_bounds(schema, pointer, found)
        if "nullable" in schema:
            nullables += 1
            schema = convert_nullable_keyword(schema)
        return schema

    map_schemas(out, fix)
    if nullables and not is_30:
        found.append(
            Diagnostic(
                NAME,
                "warning",
                "#",
                f"OpenAPI 3.0 keyword `nullable` used {nullables} times in a "
                f"{out.get('openapi') or 'non-3.0'} document; converted to null unions",
            )
        )
    return PassResult(spec=out, diagnostics=tuple(found))
