"""The `nullable` pass: every null union into the one canonical form."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from generator.normalize import nullable

NULL = {"type": "null"}
SPECS = Path(__file__).resolve().parents[2] / "specs"


def doc(**schemas: Any) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {}, "paths": {}, "components": {"schemas": schemas}}


def run(schema: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The normalized ``Model.properties.x`` and the diagnostics' messages."""
    result = nullable.run(doc(Model={"type": "object", "properties": {"x": schema}}), {})
    out = result.spec["components"]["schemas"]["Model"]["properties"]["x"]
    return out, [d.message for d in result.diagnostics]


@pytest.mark.parametrize(
    "schema",
    [
        {"anyOf": [{"type": "string", "maxLength": 3}, NULL], "title": "X"},
        {"anyOf": [NULL, {"type": "string", "maxLength": 3}], "title": "X"},
        {"oneOf": [{"type": "string", "maxLength": 3}, NULL], "title": "X"},
        {"type": ["string", "null"], "maxLength": 3, "title": "X"},
        {"type": ["null", "string"], "maxLength": 3, "title": "X"},
        {
            "anyOf": [{"type": "string", "maxLength": 3}, {"type": "null", "title": "n"}],
            "title": "X",
        },
    ],
)
def test_inline_single_type_collapses_to_type_list(schema: dict[str, Any]) -> None:
    out, found = run(schema)
    assert out == {"type": ["string", "null"], "maxLength": 3, "title": "X"}
    assert found == []


def test_inner_title_and_description_do_not_override_outer_ones() -> None:
    inner = {"type": "integer", "title": "Inner", "description": "inner", "minimum": 0}
    out, _ = run({"anyOf": [inner, NULL], "title": "Outer", "description": "outer"})
    assert out == {
        "type": ["integer", "null"],
        "minimum": 0,
        "title": "Outer",
        "description": "outer",
    }
    out, _ = run({"anyOf": [inner, NULL], "title": "Outer"})
    assert out["title"] == "Outer" and out["description"] == "inner"


def test_conflicting_constraints_keep_the_anyof_form() -> None:
    out, _ = run({"anyOf": [{"type": "string", "maxLength": 3}, NULL], "maxLength": 5})
    assert out == {"anyOf": [{"type": "string", "maxLength": 3}, NULL], "maxLength": 5}


@pytest.mark.parametrize(
    "member",
    [
        {"$ref": "#/components/schemas/Other"},
        {"type": "string", "enum": ["a", "b"]},
        {"type": "string", "const": "a"},
        {"type": "object", "additionalProperties": {"type": "string"}},
        {},
    ],
)
def test_ref_enum_const_object_and_any_keep_the_anyof_form(member: dict[str, Any]) -> None:
    schema = {"anyOf": [NULL, member], "title": "T", "default": None, "deprecated": True}
    out, found = run(schema)
    assert out == {"anyOf": [member, NULL], "title": "T", "default": None, "deprecated": True}
    assert next(iter(out)) == "anyOf"
    assert found == []


def test_metadata_moves_out_of_the_member() -> None:
    member = {"$ref": "#/components/schemas/Other", "description": "inner", "title": "Inner"}
    out, _ = run({"anyOf": [member, NULL], "title": "Outer"})
    assert out == {
        "anyOf": [{"$ref": "#/components/schemas/Other"}, NULL],
        "description": "inner",
        "title": "Outer",
    }


def test_type_list_with_enum_or_const_becomes_anyof() -> None:
    out, _ = run({"type": ["string", "null"], "enum": ["a", "b", None], "description": "d"})
    assert out == {"anyOf": [{"type": "string", "enum": ["a", "b"]}, NULL], "description": "d"}
    out, _ = run({"type": ["string", "null"], "const": "a"})
    assert out == {"anyOf": [{"type": "string", "const": "a"}, NULL]}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            {"enum": ["a", None], "title": "E"},
            {"anyOf": [{"enum": ["a"]}, NULL], "title": "E"},
        ),
        (
            {"type": "string", "enum": [None, "a", "b"], "default": "a"},
            {"anyOf": [{"type": "string", "enum": ["a", "b"]}, NULL], "default": "a"},
        ),
        ({"enum": [None], "description": "d"}, {"type": "null", "description": "d"}),
    ],
)
def test_enum_with_none(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    assert run(schema)[0] == expected


def test_larger_union_keeps_its_keyword_with_null_last() -> None:
    a, b = {"type": "string"}, {"$ref": "#/components/schemas/B"}
    assert run({"anyOf": [a, NULL, b], "title": "U"})[0] == {"anyOf": [a, b, NULL], "title": "U"}
    assert run({"oneOf": [NULL, a, b]})[0] == {"oneOf": [a, b, NULL]}


def test_union_without_null_is_left_alone() -> None:
    schema = {"anyOf": [{"anyOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "boolean"}]}
    assert run(schema) == (schema, [])


@pytest.mark.parametrize(
    "schema",
    [
        {"anyOf": [{"anyOf": [{"type": "string"}, {"$ref": "#/c"}]}, NULL]},
        {"anyOf": [{"anyOf": [{"type": "string"}, NULL]}, {"$ref": "#/c"}]},
        {"anyOf": [{"anyOf": [{"type": "string"}, {"$ref": "#/c"}], "title": "t"}, NULL]},
        {"anyOf": [{"type": ["string", "null"]}, {"$ref": "#/c"}]},
        {"anyOf": [{"type": "string"}, {"anyOf": [{"$ref": "#/c"}, NULL]}]},
    ],
)
def test_nested_anyof_with_null_flattens(schema: dict[str, Any]) -> None:
    out, found = run(schema)
    assert out == {"anyOf": [{"type": "string"}, {"$ref": "#/c"}, NULL]}
    assert found == []


def test_flattened_member_keeps_its_own_title() -> None:
    schema = {"anyOf": [{"anyOf": [{"type": "string"}, NULL], "title": "t"}, {"$ref": "#/c"}]}
    out, _ = run(schema)  # the inner union collapsed first: the title is the string's own
    assert out == {"anyOf": [{"type": "string", "title": "t"}, {"$ref": "#/c"}, NULL]}


def test_null_twice_warns_once_and_keeps_one() -> None:
    out, found = run({"anyOf": [NULL, {"type": "string"}, {"type": "integer"}, {"enum": [None]}]})
    assert out == {"anyOf": [{"type": "string"}, {"type": "integer"}, NULL]}
    assert len(found) == 1 and "null 2 times" in found[0]


def test_two_null_members_around_one_type_still_collapse() -> None:
    out, found = run({"anyOf": [NULL, {"type": "string"}, NULL]})
    assert out == {"type": ["string", "null"]}
    assert len(found) == 1


def test_several_types_with_null_split_into_anyof_with_a_warning() -> None:
    schema = {
        "type": ["string", "integer", "null"],
        "maxLength": 5,
        "minimum": 0,
        "description": "d",
    }
    out, found = run(schema)
    assert out == {
        "anyOf": [{"type": "string", "maxLength": 5}, {"type": "integer", "minimum": 0}, NULL],
        "description": "d",
    }
    assert len(found) == 1 and "non-null types" in found[0]


def test_several_types_without_null_are_left_alone() -> None:
    schema = {"type": ["string", "integer"]}
    assert run(schema) == (schema, [])
    assert run({"type": ["string"]})[0] == {"type": "string"}


def test_openapi_30_nullable_left_over_is_converted() -> None:
    out, _ = run({"type": "string", "nullable": True, "title": "T"})
    assert out == {"type": ["string", "null"], "title": "T"}
    out, _ = run({"$ref": "#/c", "nullable": True})
    assert out == {"anyOf": [{"$ref": "#/c"}, NULL]}
    assert run({"type": "string", "nullable": False})[0] == {"type": "string"}


def test_required_and_defaults_are_untouched() -> None:
    model = {
        "type": "object",
        "required": ["a"],
        "properties": {
            "a": {"anyOf": [{"type": "integer"}, NULL]},
            "b": {"anyOf": [{"type": "integer"}, NULL], "default": 3},
            "c": {"anyOf": [{"type": "integer"}, NULL]},
        },
    }
    out = nullable.run(doc(Model=model), {}).spec["components"]["schemas"]["Model"]
    assert out["required"] == ["a"]
    assert out["properties"]["b"] == {"type": ["integer", "null"], "default": 3}
    assert "default" not in out["properties"]["c"]


def test_schemas_in_paths_and_nested_positions() -> None:
    spec = doc(
        Model={
            "type": "array",
            "items": {"anyOf": [{"type": "integer"}, NULL]},
            "additionalProperties": {"type": ["boolean", "null"]},
        }
    )
    spec["paths"] = {
        "/x": {
            "get": {
                "parameters": [
                    {"name": "q", "in": "query", "schema": {"anyOf": [NULL, {"type": "string"}]}}
                ],
                "responses": {
                    "200": {
                        "content": {
                            "application/json": {"schema": {"oneOf": [{"$ref": "#/c"}, NULL]}}
                        }
                    }
                },
            }
        }
    }
    out = nullable.run(spec, {}).spec
    assert out["components"]["schemas"]["Model"]["items"] == {"type": ["integer", "null"]}
    op = out["paths"]["/x"]["get"]
    assert op["parameters"][0]["schema"] == {"type": ["string", "null"]}
    content = op["responses"]["200"]["content"]["application/json"]
    assert content["schema"] == {"anyOf": [{"$ref": "#/c"}, NULL]}


def test_warning_pointer() -> None:
    result = nullable.run(
        doc(M={"properties": {"a/b": {"anyOf": [NULL, NULL, {"$ref": "#/c"}]}}}), {}
    )
    assert [d.pointer for d in result.diagnostics] == ["#/components/schemas/M/properties/a~1b"]
    assert result.diagnostics[0].kind == "warning"


def test_pure_idempotent_and_deterministic() -> None:
    spec = doc(
        A={"anyOf": [NULL, {"type": "string"}], "title": "A"},
        B={"type": ["null", "integer", "string"]},
        C={
            "properties": {
                "x": {"enum": ["a", None]},
                "y": {"anyOf": [{"anyOf": [NULL]}, {"$ref": "#/c"}]},
            }
        },
    )
    before = copy.deepcopy(spec)
    first = nullable.run(spec, {})
    assert spec == before
    second = nullable.run(first.spec, {})
    assert second.spec == first.spec
    assert json.dumps(nullable.run(spec, {}).spec) == json.dumps(first.spec)


def test_llm_engine_has_no_null_left_outside_the_canonical_form() -> None:
    spec = json.loads((SPECS / "llm-engine" / "openapi.json").read_text())
    result = nullable.run(spec, {})
    assert result.diagnostics == ()
    text = json.dumps(result.spec)
    assert '"nullable"' not in text
    for pointer, schema in _all_schemas(result.spec):
        for key in ("anyOf", "oneOf"):
            members = schema.get(key) or []
            nulls = [i for i, m in enumerate(members) if m == NULL]
            assert nulls in ([], [len(members) - 1]), pointer
            if len(members) == 2 and nulls:
                assert members[0].get("type") in (None, "object") or {"enum", "const"} & set(
                    members[0]
                ), pointer


def _all_schemas(spec: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    from generator.normalize.walk import iter_schemas

    return list(iter_schemas(spec))


def test_nullable_union_whose_member_is_already_nullable_is_not_a_duplicate() -> None:
    out, found = run({"anyOf": [{"type": ["string", "null"]}, {"$ref": "#/c"}], "nullable": True})
    assert out == {"anyOf": [{"type": "string"}, {"$ref": "#/c"}, NULL]}
    assert found == []
    out, found = run({"oneOf": [NULL, {"$ref": "#/c"}, {"type": "integer"}], "nullable": True})
    assert out == {"oneOf": [{"$ref": "#/c"}, {"type": "integer"}, NULL]}
    assert found == []
