"""The `tuples` pass: list-valued items into prefixItems."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from generator.normalize import tuples

SPECS = Path(__file__).resolve().parents[2] / "specs"
A, B = {"type": "string"}, {"type": "integer"}
POINTER = "#/components/schemas/Model/properties/x"


def doc(**schemas: Any) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {}, "paths": {}, "components": {"schemas": schemas}}


def run(schema: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    spec = doc(Model={"type": "object", "properties": {"x": schema}})
    result = tuples.run(spec, {})
    out = result.spec["components"]["schemas"]["Model"]["properties"]["x"]
    return out, [(d.kind, d.pointer) for d in result.diagnostics]


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (  # a fixed length: a closed tuple
            {"type": "array", "items": [A, B], "minItems": 2, "maxItems": 2},
            {"type": "array", "prefixItems": [A, B], "items": False, "minItems": 2, "maxItems": 2},
        ),
        (
            {"type": "array", "items": [A, B], "additionalItems": False},
            {"type": "array", "prefixItems": [A, B], "items": False},
        ),
        (
            {"type": "array", "items": [A], "additionalItems": B, "minItems": 1},
            {"type": "array", "prefixItems": [A], "items": B, "minItems": 1},
        ),
        (
            {"type": "array", "items": [A, B], "additionalItems": True},
            {"type": "array", "prefixItems": [A, B]},
        ),
        (  # open: any further items
            {"type": "array", "items": [A, B], "minItems": 1, "maxItems": 2},
            {"type": "array", "prefixItems": [A, B], "minItems": 1, "maxItems": 2},
        ),
        ({"type": "array", "items": [A, B]}, {"type": "array", "prefixItems": [A, B]}),
    ],
)
def test_tuples(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    out, found = run(schema)
    assert out == expected
    assert list(out) == list(expected)
    assert found == [("warning", POINTER)]


def test_single_schema_items_are_kept() -> None:
    schema = {"type": "array", "items": A, "additionalItems": False}
    assert run(schema) == (schema, [])


def test_nested_tuples() -> None:
    inner = {"type": "array", "items": [A, A], "minItems": 2, "maxItems": 2}
    out, found = run({"type": "array", "items": [inner, B], "additionalItems": False})
    assert out == {
        "type": "array",
        "prefixItems": [
            {"type": "array", "prefixItems": [A, A], "items": False, "minItems": 2, "maxItems": 2},
            B,
        ],
        "items": False,
    }
    assert found == [("warning", POINTER + "/items/0"), ("warning", POINTER)]


def test_prefix_items_already_there() -> None:
    out, found = run({"type": "array", "prefixItems": [A], "items": [B]})
    assert out == {"type": "array", "prefixItems": [A]}
    assert found == [("warning", POINTER)]


def test_sgp_tuples() -> None:
    source = json.loads((SPECS / "sgp/openapi.json").read_text())
    original = copy.deepcopy(source)
    result = tuples.run(source, {})
    assert source == original
    assert [d.pointer for d in result.diagnostics] == [
        "#/components/schemas/CompletionResponse/properties/completions/items",
        "#/components/schemas/EmbeddingResponse/properties/embeddings/items",
    ]
    items = result.spec["components"]["schemas"]["CompletionResponse"]["properties"]
    assert items["completions"]["items"] == {
        "prefixItems": [{"type": "string"}, {"items": {"type": "string"}, "type": "array"}],
        "items": False,
        "type": "array",
        "maxItems": 2,
        "minItems": 2,
    }
