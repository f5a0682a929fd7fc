"""The `allof` pass: single-member allOf wrappers into a $ref with siblings."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from generator.normalize import allof
from generator.normalize.walk import iter_schemas

SPECS = Path(__file__).resolve().parents[2] / "specs"
REF = {"$ref": "#/components/schemas/Role"}


def doc(**schemas: Any) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {}, "paths": {}, "components": {"schemas": schemas}}


def run(schema: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The normalized ``Model.properties.x`` and the diagnostics' messages."""
    spec = doc(Role={"type": "string"}, Model={"type": "object", "properties": {"x": schema}})
    result = allof.run(spec, {})
    out = result.spec["components"]["schemas"]["Model"]["properties"]["x"]
    return out, [d.message for d in result.diagnostics]


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            {"allOf": [REF], "title": "Role", "description": "The role.", "default": "user"},
            {"$ref": REF["$ref"], "title": "Role", "description": "The role.", "default": "user"},
        ),
        ({"allOf": [REF]}, REF),
        (
            {"description": "d", "allOf": [REF], "deprecated": True, "readOnly": True},
            {"description": "d", "$ref": REF["$ref"], "deprecated": True, "readOnly": True},
        ),
        (  # extensions and unknown keywords are annotations too (SGP's can_patch)
            {"allOf": [REF], "x-order": 3, "can_patch": False, "examples": ["a"]},
            {"$ref": REF["$ref"], "x-order": 3, "can_patch": False, "examples": ["a"]},
        ),
        (
            {"allOf": [REF], "nullable": True, "example": "a"},
            {"$ref": REF["$ref"], "nullable": True, "example": "a"},
        ),
    ],
)
def test_ref_wrappers_are_unwrapped(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    out, messages = run(schema)
    assert out == expected
    assert list(out) == list(expected)  # the ref takes the place of the allOf
    assert messages == []


@pytest.mark.parametrize(
    "schema",
    [
        {"allOf": [REF, {"properties": {"a": {"type": "string"}}}]},  # composition
        {"allOf": [REF], "properties": {"a": {"type": "string"}}},  # extends the ref
        {"allOf": [REF], "type": "object", "required": ["a"]},
        {"allOf": [REF], "maxLength": 3},
        {"allOf": [{"$ref": REF["$ref"], "description": "x"}], "minLength": 1},
        {"allOf": []},
    ],
)
def test_other_allofs_are_kept(schema: dict[str, Any]) -> None:
    assert run(schema) == (schema, [])


def test_inline_member_is_merged() -> None:
    schema = {
        "title": "X",
        "allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "title": "X"}],
        "description": "d",
    }
    out, messages = run(schema)
    assert out == {
        "title": "X",
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "description": "d",
    }
    assert messages == []


def test_inline_member_with_a_ref_and_annotations_is_merged() -> None:
    schema = {"allOf": [{"$ref": REF["$ref"], "description": "inner"}], "default": "a"}
    assert run(schema) == ({"$ref": REF["$ref"], "description": "inner", "default": "a"}, [])


def test_conflicting_inline_member_is_kept_with_a_warning() -> None:
    schema = {"allOf": [{"type": "string", "maxLength": 3}], "maxLength": 5}
    out, messages = run(schema)
    assert out == schema
    assert messages == [
        "single-member allOf kept: it and its parent give different values to maxLength"
    ]


def test_nested_wrappers_unwrap_bottom_up() -> None:
    schema = {"allOf": [{"allOf": [REF], "description": "inner"}], "title": "outer"}
    assert run(schema) == ({"$ref": REF["$ref"], "description": "inner", "title": "outer"}, [])


def test_wrappers_everywhere() -> None:
    wrapper = {"allOf": [REF], "description": "d"}
    spec = doc(
        Role={"type": "string"},
        List={"type": "array", "items": wrapper},
        Map={"type": "object", "additionalProperties": wrapper},
        Union={"anyOf": [wrapper, {"type": "null"}]},
        Top=wrapper,
    )
    spec["paths"] = {
        "/a": {"get": {"parameters": [{"name": "r", "in": "query", "schema": wrapper}]}}
    }
    original = copy.deepcopy(spec)
    out = allof.run(spec, {}).spec
    assert spec == original  # the input is not mutated
    unwrapped = {"$ref": REF["$ref"], "description": "d"}
    schemas = out["components"]["schemas"]
    assert schemas["List"]["items"] == unwrapped
    assert schemas["Map"]["additionalProperties"] == unwrapped
    assert schemas["Union"]["anyOf"][0] == unwrapped
    assert schemas["Top"] == unwrapped
    assert out["paths"]["/a"]["get"]["parameters"][0]["schema"] == unwrapped


def test_sgp_wrappers() -> None:
    source = json.loads((SPECS / "sgp/openapi.json").read_text())
    wrappers = [p for p, s in iter_schemas(source) if "allOf" in s]
    assert len(wrappers) == 107
    result = allof.run(source, {})
    assert result.diagnostics == ()
    assert not [p for p, s in iter_schemas(result.spec) if "allOf" in s]
    prop = result.spec["components"]["schemas"]["AccessProfile"]["properties"]["account"]
    assert prop == {
        "$ref": "#/components/schemas/Account",
        "title": "Account",
        "description": "The account in the access profile.",
    }


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (  # AWS's way: the ref, then what describes it
            {"allOf": [REF, {"description": "The role."}]},
            {"$ref": REF["$ref"], "description": "The role."},
        ),
        (  # xml naming annotates; several annotating members, in order
            {"allOf": [{"xml": {"name": "item"}}, REF, {"title": "T"}], "default": "user"},
            {"$ref": REF["$ref"], "default": "user", "xml": {"name": "item"}, "title": "T"},
        ),
        (  # the same value twice is no conflict
            {"allOf": [REF, {"description": "d"}], "description": "d"},
            {"$ref": REF["$ref"], "description": "d"},
        ),
    ],
)
def test_a_ref_with_annotating_members_is_unwrapped(
    schema: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert run(schema) == (expected, [])


@pytest.mark.parametrize(
    "schema",
    [
        {"allOf": [REF, {"description": "a"}], "description": "b"},  # two values
        {"allOf": [REF, {"description": "a"}, {"description": "b"}]},
        {"allOf": [REF, {"properties": {"a": {"type": "string"}}}]},  # composition
        {"allOf": [REF, {"$ref": "#/components/schemas/Role"}]},  # two refs
        {"allOf": [{"$ref": REF["$ref"], "description": "d"}, {"title": "T"}]},  # no pure ref
    ],
)
def test_other_multi_member_allofs_are_kept(schema: dict[str, Any]) -> None:
    assert run(copy.deepcopy(schema)) == (schema, [])
