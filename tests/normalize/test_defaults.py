"""The `defaults` pass: a default that violates its own schema is dropped."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from generator.normalize import defaults

NULL = {"type": "null"}
SPECS = Path(__file__).resolve().parents[2] / "specs"

COMPONENTS: dict[str, Any] = {
    "Color": {"type": "string", "enum": ["red", "green"]},
    "Alias": {"$ref": "#/components/schemas/Color"},
    "Point": {
        "type": "object",
        "required": ["x"],
        "properties": {
            "x": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "deep": {"$ref": "#/components/schemas/Deep"},
            "c": {"$ref": "#/components/schemas/Color"},
        },
    },
    "Deep": {"type": "object", "properties": {"n": {"type": "integer"}}},
}


def check(schema: dict[str, Any], value: Any) -> list[str]:
    """The drop messages for ``value`` as the default of ``schema`` (a property)."""
    spec = {
        "openapi": "3.1.0",
        "components": {
            "schemas": {
                **COMPONENTS,
                "Model": {"properties": {"x": {**schema, "default": value}}},
            }
        },
    }
    result = defaults.run(spec, {})
    kept = result.spec["components"]["schemas"]["Model"]["properties"]["x"]
    assert ("default" in kept) == (not result.diagnostics)
    if result.diagnostics:
        assert kept == schema
    return [d.message for d in result.diagnostics]


VALID = [
    ({"type": "integer"}, 3),
    ({"type": "integer"}, 3.0),
    ({"type": "number"}, 3),
    ({"type": "number", "minimum": 0, "maximum": 1}, 0.5),
    ({"type": "boolean"}, False),
    ({"type": ["integer", "null"]}, None),
    ({"type": ["integer", "null"], "minimum": 1}, 1),
    ({"anyOf": [{"$ref": "#/components/schemas/Color"}, NULL]}, None),
    ({"anyOf": [{"$ref": "#/components/schemas/Color"}, NULL]}, "red"),
    ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, 5),
    ({"type": "string", "enum": ["a", "b"]}, "b"),
    ({"type": "string", "const": "a"}, "a"),
    ({"type": "integer", "enum": [1, 2]}, 1.0),
    ({"type": "number", "exclusiveMinimum": 0}, 0.1),
    ({"type": "number", "minimum": 0, "exclusiveMinimum": False}, 0),
    ({"type": "string", "minLength": 1, "maxLength": 3}, "abc"),
    ({"type": "string", "pattern": "b"}, "abc"),
    ({"type": "array", "minItems": 1, "items": {"type": "integer"}}, [1, 2]),
    (
        {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}},
        ["a", 1],
    ),
    ({"$ref": "#/components/schemas/Alias"}, "green"),
    ({"$ref": "#/components/schemas/Point"}, {"x": 1, "tags": ["a"], "deep": {"n": "not checked"}}),
    ({"type": "object", "additionalProperties": {"type": "string"}}, {"a": "b"}),
    ({"type": "object"}, {}),
    # unsure: kept
    ({"type": "string", "format": "email"}, "not-an-email"),
    ({"type": "string", "x-unknown": 1, "not": {"type": "string"}}, "x"),
    ({"$ref": "other.json#/Foo"}, 1),
    ({"$ref": "#/components/schemas/Missing"}, 1),
    ({"type": "string", "pattern": "("}, "x"),
    ({"type": "decimal"}, "1.5"),
    ({}, [1, {"a": None}]),
]


@pytest.mark.parametrize(("schema", "value"), VALID)
def test_valid_or_unsure_defaults_are_kept(schema: dict[str, Any], value: Any) -> None:
    assert check(schema, value) == []


INVALID = [
    ({"type": "integer"}, True, "expected integer, got boolean"),
    ({"type": "number"}, False, "expected number, got boolean"),
    ({"type": "integer"}, 1.5, "expected integer, got number"),
    ({"type": "string"}, None, "expected string, got null"),
    ({"type": ["integer", "null"]}, "1", "expected integer or null, got string"),
    ({"type": "boolean", "enum": [True]}, 1, "expected boolean, got integer"),
    ({"type": "integer", "enum": [1, 2]}, 3, "not one of the enum values [1, 2]"),
    ({"enum": [1]}, True, "not one of the enum values [1]"),
    ({"const": "a"}, "b", 'not the const value "a"'),
    ({"type": "integer", "minimum": 1}, 0, "below minimum 1"),
    ({"type": "integer", "maximum": 1}, 2, "above maximum 1"),
    ({"type": "number", "exclusiveMinimum": 0}, 0, "below exclusiveMinimum 0"),
    ({"type": "number", "exclusiveMaximum": 1.0}, 1.0, "above exclusiveMaximum 1.0"),
    ({"type": "number", "minimum": 0, "exclusiveMinimum": True}, 0, "below exclusiveMinimum 0"),
    ({"type": "string", "minLength": 2}, "a", "shorter than minLength 2"),
    ({"type": "string", "maxLength": 2}, "abc", "longer than maxLength 2"),
    ({"type": "string", "pattern": "^[0-9]+$"}, "12a", "does not match pattern '^[0-9]+$'"),
    ({"type": "array", "minItems": 1}, [], "fewer than minItems 1 items"),
    ({"type": "array", "maxItems": 1}, [1, 2], "more than maxItems 1 items"),
    ({"type": "array", "items": {"type": "integer"}}, [1, "x"], "item 1: expected integer"),
    (
        {"type": "array", "items": {"$ref": "#/components/schemas/Color"}},
        ["blue"],
        "item 0: not one",
    ),
    ({"$ref": "#/components/schemas/Color"}, "blue", "not one of the enum values"),
    ({"$ref": "#/components/schemas/Alias"}, "blue", "not one of the enum values"),
    ({"$ref": "#/components/schemas/Point"}, {}, "missing required x"),
    ({"$ref": "#/components/schemas/Point"}, {"x": "1"}, "property 'x': expected integer"),
    (
        {"$ref": "#/components/schemas/Point"},
        {"x": 1, "deep": 3},
        "property 'deep': expected object",
    ),
    ({"type": "object", "additionalProperties": {"type": "string"}}, {"a": 1}, "property 'a'"),
    (
        {"anyOf": [{"type": "array", "items": {"type": "integer"}, "minItems": 1}, NULL]},
        "<|endoftext|>",
        "matches no anyOf member (expected array, got string; expected null, got string)",
    ),
    ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, 1.5, "matches no oneOf member"),
    ({"allOf": [{"type": "integer"}, {"minimum": 3}]}, 2, "below minimum 3"),
]


@pytest.mark.parametrize(("schema", "value", "reason"), INVALID)
def test_invalid_defaults_are_dropped(schema: dict[str, Any], value: Any, reason: str) -> None:
    found = check(schema, value)
    assert len(found) == 1
    assert found[0].startswith(f"default {json.dumps(value)} dropped: ")
    assert reason in found[0]


def test_property_values_are_only_checked_shallowly() -> None:
    # "c" is a Color ref: its type is checked, not its enum
    assert check({"$ref": "#/components/schemas/Point"}, {"x": 1, "c": "blue"}) == []
    assert check({"$ref": "#/components/schemas/Point"}, {"x": 1, "c": 3}) != []


def test_diagnostic_shape_and_purity() -> None:
    spec = {
        "openapi": "3.1.0",
        "paths": {
            "/x": {
                "get": {
                    "parameters": [
                        {"name": "n", "in": "query", "schema": {"type": "integer", "default": "10"}}
                    ]
                }
            }
        },
        "components": {"schemas": {"P": {"type": "string", "maxLength": 1, "default": "long"}}},
    }
    before = copy.deepcopy(spec)
    result = defaults.run(spec, {})
    assert spec == before
    assert [(d.pass_name, d.kind, d.pointer) for d in result.diagnostics] == [
        ("defaults", "drop", "#/components/schemas/P"),
        ("defaults", "drop", "#/paths/~1x/get/parameters/0/schema"),
    ]
    assert result.diagnostics[0].message == 'default "long" dropped: longer than maxLength 1'
    assert result.spec["components"]["schemas"]["P"] == {"type": "string", "maxLength": 1}


def test_long_values_are_shortened_in_the_message() -> None:
    found = check({"type": "integer"}, "x" * 200)
    assert len(found[0]) < 150 and '..."' not in found[0] and "..." in found[0]


@pytest.mark.parametrize(
    ("name", "drops"),
    [
        (
            "llm-engine/openapi.json",
            ["#/components/schemas/Prompt", "#/components/schemas/Prompt1"],
        ),
        ("llm-engine/openapi-3.0.json", []),
        ("sgp/openapi.json", []),
    ],
)
def test_real_specs(name: str, drops: list[str]) -> None:
    spec = json.loads((SPECS / name).read_text(encoding="utf-8"))
    result = defaults.run(spec, {})
    assert [d.pointer for d in result.diagnostics] == drops
    for d in result.diagnostics:
        assert d.message.startswith('default "<|endoftext|>" dropped: matches no anyOf member')


def test_pathological_recursion_is_not_judged() -> None:
    spec = {
        "openapi": "3.1.0",
        "components": {
            "schemas": {
                "Node": {"anyOf": [{"$ref": "#/components/schemas/Node"}] * 3},
                "Model": {"$ref": "#/components/schemas/Node", "default": 1},
            }
        },
    }
    result = defaults.run(spec, {})
    assert result.diagnostics == ()
    assert result.spec["components"]["schemas"]["Model"]["default"] == 1


def test_openapi_30_nullable_left_over_accepts_none() -> None:
    assert check({"type": "string", "nullable": True}, None) == []
