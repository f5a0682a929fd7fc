"""The `upgrade` pass (OpenAPI 3.0 -> 3.1), and the LLM Engine 3.0/3.1 equivalence check."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from generator.normalize import normalize, upgrade
from generator.normalize.diagnostics import Diagnostic

NULL = {"type": "null"}
SPECS = Path(__file__).resolve().parents[2] / "specs"


def doc(version: str = "3.0.3", **schemas: Any) -> dict[str, Any]:
    return {"openapi": version, "info": {}, "paths": {}, "components": {"schemas": schemas}}


def prop(schema: dict[str, Any], version: str = "3.0.3") -> dict[str, Any]:
    """``schema`` upgraded as the property of a component."""
    spec = doc(version, Model={"type": "object", "properties": {"x": schema}})
    out = upgrade.run(spec, {}).spec
    result: dict[str, Any] = out["components"]["schemas"]["Model"]["properties"]["x"]
    return result


def test_version_becomes_31_only_for_30() -> None:
    assert upgrade.run(doc("3.0.0"), {}).spec["openapi"] == "3.1.0"
    assert upgrade.run(doc("3.1.1"), {}).spec["openapi"] == "3.1.1"
    assert "openapi" not in upgrade.run({"type": "object"}, {}).spec


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            {"type": "string", "nullable": True, "maxLength": 3, "title": "T"},
            {"type": ["string", "null"], "maxLength": 3, "title": "T"},
        ),
        ({"type": "string", "nullable": False}, {"type": "string"}),
        (
            {"$ref": "#/components/schemas/B", "nullable": True, "description": "d"},
            {"anyOf": [{"$ref": "#/components/schemas/B"}, NULL], "description": "d"},
        ),
        (
            {"allOf": [{"$ref": "#/components/schemas/B"}], "nullable": True, "default": None},
            {"anyOf": [{"$ref": "#/components/schemas/B"}, NULL], "default": None},
        ),
        (
            {"anyOf": [{"type": "string"}, {"$ref": "#/c"}], "nullable": True, "title": "U"},
            {"anyOf": [{"type": "string"}, {"$ref": "#/c"}, NULL], "title": "U"},
        ),
        (
            {"type": "string", "enum": ["a", "b"], "nullable": True, "default": "a"},
            {"anyOf": [{"type": "string", "enum": ["a", "b"]}, NULL], "default": "a"},
        ),
        (
            {"type": "string", "enum": ["a", "b", None], "nullable": True},
            {"anyOf": [{"type": "string", "enum": ["a", "b"]}, NULL]},
        ),
        ({"title": "Any", "nullable": True}, {"anyOf": [{}, NULL], "title": "Any"}),
        (
            {"type": "object", "additionalProperties": {"type": "string"}, "nullable": True},
            {"anyOf": [{"type": "object", "additionalProperties": {"type": "string"}}, NULL]},
        ),
        (
            {"type": "string", "enum": ["tag"], "nullable": True},
            {"anyOf": [{"type": "string", "const": "tag"}, NULL]},
        ),
    ],
)
def test_nullable_to_canonical_form(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    assert prop(schema) == expected


def test_exclusive_bounds() -> None:
    assert prop({"type": "number", "minimum": 0, "exclusiveMinimum": True}) == {
        "type": "number",
        "exclusiveMinimum": 0,
    }
    assert prop({"type": "number", "maximum": 9, "exclusiveMaximum": True, "minimum": 1}) == {
        "type": "number",
        "exclusiveMaximum": 9,
        "minimum": 1,
    }
    assert prop({"type": "number", "minimum": 0, "exclusiveMinimum": False}) == {
        "type": "number",
        "minimum": 0,
    }
    # the broken conversion's numeric form is kept
    assert prop({"type": "number", "exclusiveMinimum": 0.0}) == {
        "type": "number",
        "exclusiveMinimum": 0.0,
    }


def test_exclusive_without_bound_is_dropped_and_reported() -> None:
    spec = doc(Model={"type": "integer", "exclusiveMaximum": True})
    result = upgrade.run(spec, {})
    assert result.spec["components"]["schemas"]["Model"] == {"type": "integer"}
    assert result.diagnostics == (
        Diagnostic(
            "upgrade",
            "drop",
            "#/components/schemas/Model",
            "exclusiveMaximum: true without maximum; removed",
        ),
    )


def test_binary_and_byte_formats() -> None:
    assert prop({"type": "string", "format": "binary"}) == {
        "type": "string",
        "contentMediaType": "application/octet-stream",
    }
    assert prop({"type": "string", "format": "byte"}) == {
        "type": "string",
        "contentEncoding": "base64",
    }
    already = {"type": "string", "contentMediaType": "image/png", "format": "binary"}
    assert prop(already) == {"type": "string", "contentMediaType": "image/png"}
    assert prop({"type": "string", "contentMediaType": "image/png"}) == {
        "type": "string",
        "contentMediaType": "image/png",
    }
    assert prop({"type": "string", "format": "date-time"}) == {
        "type": "string",
        "format": "date-time",
    }


def test_one_value_enum_becomes_const_except_on_a_named_component() -> None:
    assert prop({"type": "string", "enum": ["user"], "title": "Role"}) == {
        "type": "string",
        "const": "user",
        "title": "Role",
    }
    spec = doc(Source={"type": "string", "enum": ["hugging_face"]})
    out = upgrade.run(spec, {}).spec["components"]["schemas"]["Source"]
    assert out == {"type": "string", "enum": ["hugging_face"]}
    assert prop({"type": "string", "enum": ["a", "b"]}) == {"type": "string", "enum": ["a", "b"]}


def test_example_becomes_examples() -> None:
    assert prop({"type": "integer", "example": 3, "default": 1}) == {
        "type": "integer",
        "examples": [3],
        "default": 1,
    }
    assert prop({"type": "integer", "example": 3, "examples": [4]}) == {
        "type": "integer",
        "examples": [4],
    }


def test_31_document_keeps_its_31_keywords_but_loses_nullable() -> None:
    schema = {"type": "string", "format": "binary", "enum": ["x"], "example": "x"}
    assert prop(schema, "3.1.0") == schema
    spec = doc("3.1.0", A={"type": "string", "nullable": True}, B={"$ref": "#/c", "nullable": True})
    result = upgrade.run(spec, {})
    schemas = result.spec["components"]["schemas"]
    assert schemas == {"A": {"type": ["string", "null"]}, "B": {"anyOf": [{"$ref": "#/c"}, NULL]}}
    assert [(d.kind, d.pointer) for d in result.diagnostics] == [("warning", "#")]
    assert "2 times" in result.diagnostics[0].message


def test_parameters_and_nested_schemas_are_upgraded() -> None:
    spec = doc(Model={"type": "array", "items": {"type": "integer", "nullable": True}})
    spec["paths"] = {
        "/x": {
            "parameters": [
                {"name": "q", "in": "query", "schema": {"type": "string", "example": "a"}}
            ]
        }
    }
    out = upgrade.run(spec, {}).spec
    assert out["components"]["schemas"]["Model"]["items"] == {"type": ["integer", "null"]}
    assert out["paths"]["/x"]["parameters"][0]["schema"] == {"type": "string", "examples": ["a"]}


def test_input_is_not_mutated_and_routine_work_is_silent() -> None:
    spec = doc(
        A={"type": "string", "nullable": True, "example": "a"},
        B={"properties": {"t": {"type": "string", "enum": ["b"]}}},
    )
    before = copy.deepcopy(spec)
    result = upgrade.run(spec, {})
    assert spec == before
    assert result.diagnostics == ()
    assert upgrade.run(result.spec, {}).spec == result.spec


# ------------------------------------------------ LLM Engine: 3.0 conversion vs 3.1 original

# Keys ignored when comparing the two normalized specs. None is needed today: after the
# whole normalization the broken 3.0 conversion and the 3.1 original are equal. Add here
# only keys that are documented and harmless for the generated models (e.g. "description"
# if the converter ever rewrote prose), never keys that shape a type.
IGNORED_KEYS: frozenset[str] = frozenset()


@cache
def _normalized(name: str) -> dict[str, Any]:
    spec = json.loads((SPECS / "llm-engine" / name).read_text(encoding="utf-8"))
    return normalize(spec).spec


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in IGNORED_KEYS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _differences(a: Any, b: Any, pointer: str, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                out.append(f"{pointer}/{key}: only in {'3.1' if key in a else '3.0'}")
            else:
                _differences(a[key], b[key], f"{pointer}/{key}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _differences(x, y, f"{pointer}/{i}", out)
    elif a != b:
        out.append(f"{pointer}: {json.dumps(a)[:80]} (3.1) != {json.dumps(b)[:80]} (3.0)")


def test_llm_engine_30_and_31_normalize_to_the_same_schemas() -> None:
    original, converted = _normalized("openapi.json"), _normalized("openapi-3.0.json")
    a = _strip(original["components"]["schemas"])
    b = _strip(converted["components"]["schemas"])
    assert sorted(a) == sorted(b)
    differing = sorted(name for name in a if a[name] != b[name])
    found: list[str] = []
    _differences(a, b, "#/components/schemas", found)
    # closeness, shown with -rA / on failure: "0 of 222 schemas differ"
    print(f"{len(differing)} of {len(a)} schemas differ; {len(found)} differences")
    assert found == [], "\n".join(found[:40])


def test_llm_engine_30_and_31_normalize_to_the_same_paths() -> None:
    original, converted = _normalized("openapi.json"), _normalized("openapi-3.0.json")
    found: list[str] = []
    _differences(_strip(original["paths"]), _strip(converted["paths"]), "#/paths", found)
    assert found == [], "\n".join(found[:40])


def test_llm_engine_30_and_31_render_the_same_models() -> None:
    from generator.render.models import render_models

    original, converted = _normalized("openapi.json"), _normalized("openapi-3.0.json")
    assert render_models(converted, "# x\n") == render_models(original, "# x\n")
