"""Normalization pass `decimal_strings`: a ``format: decimal`` string gets the ``pattern``
its model enforces.

The models read ``{"type": "string", "format": "decimal"}`` as ``decimal.Decimal``
(:data:`generator.ir.annotate.FORMATS`, as datamodel-code-generator does), which refuses
arbitrary text (``"abc"``, ``""``). The format alone does not constrain a JSON Schema
validator, so the server answered 422 to strings the spec allowed: schemathesis found it
on NetBox's ``longitude`` (netboxdemo.com). With :data:`PATTERN` set, the normalized spec
(the package's ``openapi.json``, shared by its server, mock and client) says what the
model enforces.

:data:`PATTERN` is ``^-?[0-9]+(\\.[0-9]+)?$``: every string it matches is one Python's
``decimal.Decimal`` and pydantic's ``Decimal`` accept (``"10"``, ``"-0"``, ``"1.50"``,
digits of any length). Its digits are ASCII ``[0-9]``, not ``\\d``: in pydantic's regex
engine (Rust's) and in Python's ``re``, ``\\d`` is every Unicode decimal digit, and the
engine knows digits (Kawi's, Unicode 15) the running Python's ``Decimal`` refuses. The
model also accepts a few spellings the pattern does not (``"1e5"``, ``"+1"``, ``".5"``):
the spec says less than the model takes, never more.

Only a schema the IR reads as that primitive gets the pattern: ``type`` ``"string"`` (or
a list holding it), ``format: decimal``, and no ``pattern``, ``$ref``, ``allOf``,
``anyOf``, ``oneOf``, ``enum`` or ``const``. The Python type is unchanged:
datamodel-code-generator drops a ``pattern`` beside ``Decimal``, a parameter stays a
``str`` (now checked against the pattern), and the mock's values (``"12.5"``, ``"0"``)
match it. Schemas under ``not``, ``if``, ``contains`` and ``propertyNames`` are left alone,
as in the ``object_types`` pass. One ``note`` per spec says how many schemas changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.object_types import value_schemas
from generator.normalize.walk import Schema, json_copy

NAME = "decimal_strings"

PATTERN = r"^-?[0-9]+(\.[0-9]+)?$"
_OTHER_READINGS = frozenset({"pattern", "$ref", "allOf", "anyOf", "oneOf", "enum", "const"})


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(doc: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``doc`` is the caller's to give (see :mod:`generator.normalize`)."""
    count = 0
    for schema in value_schemas(doc):
        if _decimal_string(schema):
            schema["pattern"] = PATTERN
            count += 1
    if not count:
        return PassResult(spec=doc)
    what = "string" if count == 1 else "strings"
    message = f"{count} format: decimal {what} given pattern {PATTERN} (what their Decimal accepts)"
    return PassResult(spec=doc, diagnostics=(Diagnostic(NAME, "note", "#", message),))


def _decimal_string(schema: Schema) -> bool:
    if schema.get("format") != "decimal" or not _OTHER_READINGS.isdisjoint(schema):
        return False
    kind = schema.get("type")
    return kind == "string" or (isinstance(kind, list) and "string" in kind)
