"""The `decimal_strings` pass: a ``format: decimal`` string gets the pattern its ``Decimal``
model enforces, and every string the pattern matches is one that model accepts."""

from __future__ import annotations

import copy
import decimal
import re
import sys
import types
import unicodedata
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from generator.ir import TypeRef, annotate, build_ir
from generator.normalize import PASS_NAMES, decimal_strings, normalize
from generator.normalize.decimal_strings import PATTERN
from generator.normalize.patterns import matches
from generator.render.examples import Synthesizer
from generator.render.models import render_models

DECIMAL = {"type": "string", "format": "decimal"}
WITH = {**DECIMAL, "pattern": PATTERN}
ADAPTER: TypeAdapter[decimal.Decimal] = TypeAdapter(decimal.Decimal)
MATCHING = ("0", "10", "-0", "1.5", "-1.50", "007", "0.000", "-0.0", "12345678901234567890.1")


def doc(schemas: dict[str, Any], paths: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": paths or {},
        "components": {"schemas": schemas},
    }


def prop(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` after the pass, as property ``p`` of model ``M``."""
    spec = doc({"M": {"type": "object", "properties": {"p": schema}}})
    out: dict[str, Any] = decimal_strings.run(spec, {}).spec
    return out["components"]["schemas"]["M"]["properties"]["p"]  # type: ignore[no-any-return]


# --- the pattern --------------------------------------------------------------------------


@pytest.mark.parametrize("text", MATCHING)
def test_pydantic_decimal_accepts_what_the_pattern_matches(text: str) -> None:
    assert matches(PATTERN, text)  # pydantic's own regex engine
    assert re.search(PATTERN, text)  # Python's, as a JSON Schema validator reads it
    assert ADAPTER.validate_python(text) == decimal.Decimal(text)
    assert ADAPTER.validate_json(f'"{text}"') == decimal.Decimal(text)


@pytest.mark.parametrize("text", ["", "abc", "1.", ".5", "+1", "1e5", "1,5", "NaN", "- 1", "١"])
def test_the_pattern_refuses(text: str) -> None:
    assert not matches(PATTERN, text)


@settings(max_examples=200, deadline=None)
@given(st.from_regex(PATTERN, fullmatch=True))
def test_every_generated_match_is_a_decimal(text: str) -> None:
    assert matches(PATTERN, text)
    assert ADAPTER.validate_python(text) == decimal.Decimal(text)


def test_digits_are_ascii_only() -> None:
    # ``\d`` would be every Unicode digit, some of which (Kawi's, U+11F50) the regex engine
    # knows and this Python's Decimal does not
    assert matches(r"^\d$", "\U00011f50")
    with pytest.raises(ValidationError):
        ADAPTER.validate_python("\U00011f50")
    digits = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Nd"]
    assert [d for d in digits if matches(PATTERN, d)] == list("0123456789")


# --- the pass ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "schema",
    [
        DECIMAL,
        {"type": ["string", "null"], "format": "decimal"},
        {"type": ["string", "number"], "format": "decimal"},
        {**DECIMAL, "maxLength": 20, "description": "d"},
    ],
)
def test_decimal_strings_get_the_pattern(schema: dict[str, Any]) -> None:
    out = prop(schema)
    assert out == {**schema, "pattern": PATTERN}
    assert list(out) == [*schema, "pattern"]


@pytest.mark.parametrize(
    "schema",
    [
        {**DECIMAL, "pattern": "^[0-9]+$"},  # the spec's own pattern stays
        {"type": "number", "format": "decimal"},
        {"type": "string", "format": "double"},
        {"type": "string"},
        {"format": "decimal"},  # no type: any value
        {**DECIMAL, "$ref": "#/components/schemas/M"},
        {**DECIMAL, "allOf": [{"minLength": 1}]},
        {**DECIMAL, "anyOf": [{"minLength": 1}]},
        {**DECIMAL, "oneOf": [{"minLength": 1}]},
        {**DECIMAL, "enum": ["1.5", "n/a"]},
        {**DECIMAL, "const": "1.5"},
    ],
)
def test_left_alone(schema: dict[str, Any]) -> None:
    spec = doc({"M": {"type": "object", "properties": {"p": schema}}})
    result = decimal_strings.run(spec, {})
    assert result.spec == spec
    assert result.diagnostics == ()


def test_nested_schemas_everywhere() -> None:
    schemas = {
        "Price": DECIMAL,
        "M": {
            "type": "object",
            "properties": {
                "list": {"type": "array", "items": DECIMAL},
                "map": {"type": "object", "additionalProperties": DECIMAL},
                "maybe": {"anyOf": [DECIMAL, {"type": "null"}]},
                "deep": {"type": "object", "properties": {"x": DECIMAL}},
            },
        },
    }
    operation = {
        "parameters": [{"name": "longitude", "in": "query", "schema": DECIMAL}],
        "requestBody": {"content": {"application/json": {"schema": DECIMAL}}},
        "responses": {"200": {"description": "ok"}},
    }
    result = decimal_strings.run(doc(schemas, {"/sites": {"get": operation}}), {})
    out = result.spec["components"]["schemas"]
    props = out["M"]["properties"]
    assert out["Price"] == WITH
    assert props["list"]["items"] == WITH
    assert props["map"]["additionalProperties"] == WITH
    assert props["maybe"]["anyOf"][0] == WITH
    assert props["deep"]["properties"]["x"] == WITH
    op = result.spec["paths"]["/sites"]["get"]
    assert op["parameters"][0]["schema"] == WITH
    assert op["requestBody"]["content"]["application/json"]["schema"] == WITH
    assert len(result.diagnostics) == 1
    assert result.diagnostics[0].message.startswith("7 format: decimal strings given pattern")


def test_negations_and_conditions_are_left_alone() -> None:
    schema = {
        "type": "object",
        "properties": {"p": DECIMAL},
        "not": {"properties": {"p": DECIMAL}},
        "if": {"properties": {"p": DECIMAL}},
    }
    out = decimal_strings.run(doc({"M": schema}), {}).spec["components"]["schemas"]["M"]
    assert out["properties"]["p"] == WITH
    assert out["not"] == schema["not"] and out["if"] == schema["if"]


def test_one_note_per_spec_and_run_is_pure() -> None:
    spec = doc({"A": DECIMAL, "B": {"type": "object", "properties": {"b": DECIMAL}}})
    before = copy.deepcopy(spec)
    result = decimal_strings.run(spec, {})
    assert spec == before  # run never changes its input
    assert [(d.pass_name, d.kind, d.pointer, d.message) for d in result.diagnostics] == [
        (
            "decimal_strings",
            "note",
            "#",
            r"2 format: decimal strings given pattern ^-?[0-9]+(\.[0-9]+)?$"
            " (what their Decimal accepts)",
        )
    ]
    assert decimal_strings.apply(copy.deepcopy(spec), {}).spec == result.spec
    assert decimal_strings.run(doc({"A": {"type": "string"}}), {}).diagnostics == ()
    one = decimal_strings.run(doc({"A": DECIMAL}), {}).diagnostics
    assert one[0].message.startswith("1 format: decimal string given")


def test_registered_and_switchable() -> None:
    assert PASS_NAMES.index("decimal_strings") == PASS_NAMES.index("object_types") + 1
    spec = doc({"A": DECIMAL})
    assert normalize(spec).spec["components"]["schemas"]["A"] == WITH
    assert normalize(spec, {"decimal_strings": False}).spec["components"]["schemas"]["A"] == DECIMAL


# --- what reads the pattern: the IR, the models, the mock ---------------------------------


def _api_spec() -> dict[str, Any]:
    model = {
        "type": "object",
        "required": ["longitude"],
        "properties": {"longitude": DECIMAL, "maybe": {"type": ["string", "null"], **DECIMAL}},
    }
    operation = {
        "operationId": "list_sites",
        "parameters": [{"name": "longitude", "in": "query", "schema": DECIMAL}],
        "responses": {"200": {"description": "ok"}},
    }
    return decimal_strings.run(doc({"Site": model}, {"/sites": {"get": operation}}), {}).spec


def test_the_python_types_do_not_change() -> None:
    api = build_ir(_api_spec())
    field = next(f for f in api.model("Site").fields if f.name == "longitude")
    assert field.type.constraints == {"pattern": PATTERN}
    assert annotate.python(field.type, "model") == "Decimal"  # the model's type
    assert annotate.python(field.type) == "str"  # a signature's (the route checks the pattern)
    assert annotate.python(api.operations[0].parameters[0].schema) == "str"


def test_the_model_is_decimal_without_a_pattern_constraint() -> None:
    # pydantic refuses to apply ``pattern`` to a Decimal: datamodel-code-generator drops it
    source = render_models(_api_spec(), "# test")
    assert "longitude: Decimal" in source and "pattern" not in source
    module = types.ModuleType("_decimal_strings_models")
    sys.modules[module.__name__] = module
    try:
        exec(compile(source, module.__name__, "exec"), module.__dict__)
        site = module.Site
        for text in MATCHING:
            got = site.model_validate_json(f'{{"longitude": "{text}"}}').longitude
            assert got == decimal.Decimal(text)
        with pytest.raises(ValidationError):
            site.model_validate({"longitude": "abc"})
    finally:
        del sys.modules[module.__name__]


@pytest.mark.parametrize("full", [False, True])
def test_the_mock_values_match_the_pattern(full: bool) -> None:
    api = build_ir(_api_spec())
    for seed in range(5):
        value = Synthesizer(api, full=full, seed=seed).value(TypeRef("model", name="Site"))
        for text in (value["longitude"], value.get("maybe") or "0"):
            assert matches(PATTERN, text), text
            ADAPTER.validate_python(text)
