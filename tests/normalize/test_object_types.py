"""The `object_types` pass: a schema with properties (or additionalProperties) but no type
is read as ``type: object``, what its model accepts."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from generator.ir import build_ir
from generator.normalize import PASS_NAMES, PASSES, normalize, object_types

PROPS = {"q": {"type": "string"}}
JSON = "application/json"


def doc(schemas: dict[str, Any], paths: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": paths or {},
        "components": {"schemas": schemas},
    }


def one(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` after the pass, as component ``S``."""
    out: dict[str, Any] = object_types.run(doc({"S": schema}), {}).spec
    return out["components"]["schemas"]["S"]  # type: ignore[no-any-return]


def notes(spec: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [
        (d.pass_name, d.kind, d.pointer, d.message) for d in object_types.run(spec, {}).diagnostics
    ]


@pytest.mark.parametrize(
    "schema",
    [
        {"properties": PROPS},
        {"properties": PROPS, "required": ["q"]},
        {"required": ["q"], "properties": PROPS, "description": "d"},
        {"additionalProperties": {"type": "integer"}},
        {"additionalProperties": False},
        {"properties": {}},
        {"properties": PROPS, "title": "T", "if": {"properties": PROPS}},
    ],
)
def test_untyped_objects_become_type_object(schema: dict[str, Any]) -> None:
    out = one(schema)
    assert out == {"type": "object", **schema}
    assert list(out) == ["type", *schema]  # type first, the rest in their order


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": PROPS},
        {"type": ["object", "null"], "properties": PROPS},
        {"type": "array", "additionalProperties": False},  # what the spec says, kept
        {"$ref": "#/components/schemas/T", "properties": PROPS},
        {"allOf": [{"$ref": "#/components/schemas/T"}], "properties": PROPS},
        {"anyOf": [{"type": "string"}], "properties": PROPS},
        {"oneOf": [{"type": "string"}], "properties": PROPS},
        {"enum": [{"q": "a"}], "properties": PROPS},
        {"const": {"q": "a"}, "properties": PROPS},
        {"not": {"type": "string"}, "properties": PROPS},
        {"required": ["q"]},  # no properties: not known to be an object schema
        {"description": "anything"},
        {},
    ],
)
def test_left_alone(schema: dict[str, Any]) -> None:
    spec = doc({"S": schema, "T": {"type": "object"}})
    result = object_types.run(spec, {})
    assert result.spec == spec
    assert result.diagnostics == ()


def test_nested_schemas_everywhere() -> None:
    untyped = {"properties": PROPS}
    schemas = {
        "S": {
            "type": "object",
            "properties": {
                "inner": {"properties": {"deeper": {"additionalProperties": {"type": "string"}}}},
                "list": {"type": "array", "items": {"properties": PROPS}},
                "tuple": {"type": "array", "prefixItems": [{"properties": PROPS}]},
                "map": {"type": "object", "additionalProperties": {"properties": PROPS}},
            },
        },
        "U": {"anyOf": [{"properties": PROPS}, {"type": "null"}]},
        "A": {"allOf": [{"$ref": "#/components/schemas/S"}, {"properties": PROPS}]},
    }
    operation = {
        "parameters": [{"name": "f", "in": "query", "content": {JSON: {"schema": untyped}}}],
        "requestBody": {"content": {"application/json": {"schema": untyped}}},
        "responses": {
            "200": {
                "description": "ok",
                "headers": {"X-Meta": {"schema": {"additionalProperties": True}}},
                "content": {"application/json": {"schema": {"oneOf": [untyped, untyped]}}},
            }
        },
    }
    result = object_types.run(doc(schemas, {"/search": {"post": operation}}), {})
    out = result.spec["components"]["schemas"]
    props = out["S"]["properties"]
    assert props["inner"]["type"] == "object"
    assert props["inner"]["properties"]["deeper"]["type"] == "object"
    assert props["list"]["items"]["type"] == "object"
    assert props["tuple"]["prefixItems"][0]["type"] == "object"
    assert props["map"]["additionalProperties"]["type"] == "object"
    assert out["U"]["anyOf"][0] == {"type": "object", "properties": PROPS}
    assert "type" not in out["U"] and "type" not in out["A"]
    assert out["A"]["allOf"][1] == {"type": "object", "properties": PROPS}
    op = result.spec["paths"]["/search"]["post"]
    assert op["parameters"][0]["content"]["application/json"]["schema"]["type"] == "object"
    assert op["requestBody"]["content"]["application/json"]["schema"]["type"] == "object"
    answer = op["responses"]["200"]
    assert answer["headers"]["X-Meta"]["schema"]["type"] == "object"
    assert [m["type"] for m in answer["content"]["application/json"]["schema"]["oneOf"]] == [
        "object",
        "object",
    ]
    assert [d.message for d in result.diagnostics] == [
        "12 schemas with properties or additionalProperties but no type read as type: object"
        " (what their models accept)"
    ]


def test_negations_and_conditions_are_left_alone() -> None:
    # narrowing a schema under not/if/contains/propertyNames would widen what the spec takes
    schema = {
        "type": "object",
        "properties": PROPS,
        "not": {"properties": {"x": {"properties": PROPS}}},
        "if": {"properties": {"q": {"const": "a"}}},
        "then": {"properties": {"r": {"properties": PROPS}}},
        "else": {"required": ["q"]},
    }
    array = {"type": "array", "contains": {"properties": PROPS}}
    names = {"type": "object", "propertyNames": {"properties": PROPS}}
    result = object_types.run(doc({"S": schema, "L": array, "N": names}), {})
    out = result.spec["components"]["schemas"]
    assert out["S"]["not"] == schema["not"]
    assert out["S"]["if"] == schema["if"]
    assert out["S"]["then"] == {
        "type": "object",
        "properties": {"r": {"type": "object", "properties": PROPS}},
    }
    assert out["S"]["else"] == schema["else"]
    assert out["L"] == array and out["N"] == names
    assert len(result.diagnostics) == 1 and result.diagnostics[0].message.startswith("2 schemas")


def test_one_note_per_spec_and_run_is_pure() -> None:
    spec = doc({"A": {"properties": PROPS}, "B": {"type": "object"}})
    before = copy.deepcopy(spec)
    assert notes(spec) == [
        (
            "object_types",
            "note",
            "#",
            "1 schema with properties or additionalProperties but no type read as type: object"
            " (what their models accept)",
        )
    ]
    assert spec == before  # run never changes its input
    applied = object_types.apply(copy.deepcopy(spec), {})
    assert applied.spec == object_types.run(spec, {}).spec
    assert notes(doc({"B": {"type": "object"}})) == []


def test_the_python_types_do_not_change() -> None:
    # the IR already read these as objects: the keyword only makes the spec say so
    inner = {"additionalProperties": {"type": "integer"}}
    spec = doc(
        {
            "M": {"type": "object", "properties": {"m": inner}},
            "Body": {"properties": PROPS, "required": ["q"]},
        }
    )
    before, after = build_ir(spec), build_ir(object_types.run(spec, {}).spec)
    assert [(m.name, m.kind, [(f.name, f.type) for f in m.fields]) for m in before.models] == [
        (m.name, m.kind, [(f.name, f.type) for f in m.fields]) for m in after.models
    ]


def test_registered_after_defaults_and_switchable() -> None:
    names = [p.name for p in PASSES]
    assert names[names.index("defaults") + 1 :][:2] == ["object_types", "decimal_strings"]
    assert "object_types" in PASS_NAMES
    spec = doc({"S": {"properties": PROPS}})
    assert normalize(spec).spec["components"]["schemas"]["S"]["type"] == "object"
    off = normalize(spec, {"object_types": False}).spec["components"]["schemas"]["S"]
    assert "type" not in off
