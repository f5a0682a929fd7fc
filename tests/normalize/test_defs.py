"""The `defs` pass: standalone JSON Schema wrapping and nested definitions hoisting."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from generator.load import resolve_pointer
from generator.normalize import defs

SPECS = Path(__file__).resolve().parents[2] / "specs"
C = "#/components/schemas/"


def doc(**schemas: Any) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {}, "paths": {}, "components": {"schemas": schemas}}


def refs(spec: Any) -> list[str]:
    return sorted(set(re.findall(r'"\$ref": "([^"]*)"', json.dumps(spec))))


def assert_refs_resolve(spec: dict[str, Any]) -> None:
    for ref in refs(spec):
        resolve_pointer(spec, ref)  # raises KeyError when dangling


def kinds(result: Any) -> list[tuple[str, str, str]]:
    return [(d.kind, d.old, d.new) for d in result.diagnostics]


# --- standalone JSON Schema ----------------------------------------------------------------


STANDALONE: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://example.com/chat.json",
    "title": "Chat Request",
    "x-source": "somewhere",
    "type": "object",
    "properties": {
        "messages": {"type": "array", "items": {"$ref": "#/$defs/Message"}},
        "parent": {"$ref": "#"},
        "first": {"$ref": "#/properties/messages/items"},
    },
    "$defs": {
        "Message": {
            "$id": "message",
            "type": "object",
            "properties": {"part": {"$ref": "#/$defs/Part"}, "reply": {"$ref": "#/$defs/Message"}},
        },
        "Part": {"type": "string"},
    },
}


def test_standalone_schema_is_wrapped() -> None:
    original = copy.deepcopy(STANDALONE)
    result = defs.run(STANDALONE, {})
    assert STANDALONE == original  # the input is not mutated
    spec = result.spec
    assert spec["openapi"] == "3.1.0"
    assert spec["info"] == {"title": "Chat Request", "version": "0"}
    assert spec["paths"] == {}
    assert list(spec["components"]["schemas"]) == ["ChatRequest", "Message", "Part"]
    root = spec["components"]["schemas"]["ChatRequest"]
    assert "$schema" not in root and "$id" not in root and "$defs" not in root
    assert root["x-source"] == "somewhere"
    assert root["properties"]["messages"]["items"] == {"$ref": C + "Message"}
    assert root["properties"]["parent"] == {"$ref": C + "ChatRequest"}  # "#": the root
    assert root["properties"]["first"] == {"$ref": C + "ChatRequest/properties/messages/items"}
    message = spec["components"]["schemas"]["Message"]
    assert "$id" not in message
    assert message["properties"] == {"part": {"$ref": C + "Part"}, "reply": {"$ref": C + "Message"}}
    assert result.diagnostics == ()
    assert_refs_resolve(spec)


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("CreateChatCompletionRequest", "CreateChatCompletionRequest"),
        ("chat completion request", "ChatCompletionRequest"),
        ("Chat-Completion (v2)", "ChatCompletionV2"),
        ("snake_case_name", "Snake_case_name"),
        ("2020 model", "Model2020Model"),
        ("???", "Model"),
        ("", "Model"),
        (None, "Model"),
    ],
)
def test_component_name(title: Any, name: str) -> None:
    assert defs.component_name(title) == name


def test_standalone_without_title() -> None:
    spec = defs.run({"type": "object", "definitions": {"A": {"type": "integer"}}}, {}).spec
    assert spec["info"]["title"] == "Schema"
    assert list(spec["components"]["schemas"]) == ["Model", "A"]


def test_standalone_def_named_like_the_root() -> None:
    schema = {"title": "Node", "type": "object", "$defs": {"Node": {"type": "string"}}}
    result = defs.run(schema, {})
    assert list(result.spec["components"]["schemas"]) == ["Node", "Node2"]
    assert kinds(result) == [("rename", "Node", "Node2")]
    assert result.diagnostics[0].pointer == "#/$defs/Node"  # a pointer of the input


def test_real_standalone_schema() -> None:
    source = json.loads((SPECS / "sgp/create-chat-completion-request.schema.json").read_text())
    result = defs.run(source, {})
    schemas = result.spec["components"]["schemas"]
    assert next(iter(schemas)) == "CreateChatCompletionRequest"
    assert set(schemas) == {"CreateChatCompletionRequest", *source["$defs"]}
    assert all("$defs" not in s and "$schema" not in s for s in schemas.values())
    assert all(r.startswith(C) for r in refs(result.spec))
    assert_refs_resolve(result.spec)
    assert result.diagnostics == ()


# --- nested definitions in OpenAPI documents ---------------------------------------------------


def test_nested_defs_are_hoisted_and_refs_rewritten() -> None:
    spec = doc(
        Foo={
            "type": "object",
            "properties": {
                "a": {"$ref": C + "Foo/$defs/A"},
                "b": {"$ref": C + "Foo/$defs/A/properties/x"},
                "c": {
                    "type": "object",
                    "definitions": {"C": {"type": "boolean"}},
                    "properties": {"c": {"$ref": C + "Foo/properties/c/definitions/C"}},
                },
            },
            "$defs": {
                "A": {
                    "type": "object",
                    "properties": {"x": {"$ref": C + "Foo/$defs/A/$defs/B"}},
                    "$defs": {"B": {"type": "integer"}},
                }
            },
        },
        Bar={"type": "array", "items": {"$ref": C + "Foo/$defs/A/$defs/B"}},
    )
    result = defs.run(spec, {})
    schemas = result.spec["components"]["schemas"]
    assert list(schemas) == ["Foo", "Bar", "A", "B", "C"]
    foo = schemas["Foo"]
    assert "$defs" not in foo
    assert foo["properties"]["a"] == {"$ref": C + "A"}
    assert foo["properties"]["b"] == {"$ref": C + "A/properties/x"}
    assert foo["properties"]["c"] == {
        "type": "object",
        "properties": {"c": {"$ref": C + "C"}},
    }
    assert schemas["A"] == {"type": "object", "properties": {"x": {"$ref": C + "B"}}}
    assert schemas["Bar"]["items"] == {"$ref": C + "B"}
    assert result.diagnostics == ()
    assert_refs_resolve(result.spec)


def test_refs_outside_component_schemas_are_rewritten() -> None:
    spec = doc(Foo={"$defs": {"X": {"type": "string"}}, "type": "object"})
    spec["paths"] = {
        "/x": {
            "get": {
                "parameters": [{"name": "q", "in": "query", "schema": {"$ref": C + "Foo/$defs/X"}}],
                "responses": {},
            }
        }
    }
    out = defs.run(spec, {}).spec
    assert out["paths"]["/x"]["get"]["parameters"][0]["schema"] == {"$ref": C + "X"}


def test_root_level_defs_of_an_openapi_document() -> None:
    spec = doc(Foo={"$ref": "#/definitions/Old"})
    spec["definitions"] = {"Old": {"type": "string"}}
    out = defs.run(spec, {}).spec
    assert "definitions" not in out
    assert out["components"]["schemas"] == {"Foo": {"$ref": C + "Old"}, "Old": {"type": "string"}}


def test_property_named_definitions_is_not_hoisted() -> None:
    schema = {"type": "object", "properties": {"definitions": {"type": "object"}}}
    result = defs.run(doc(Foo=schema), {})
    assert result.spec["components"]["schemas"] == {"Foo": schema}


def test_identical_defs_are_merged() -> None:
    address = {"type": "object", "properties": {"city": {"type": "string"}}}
    spec = doc(
        Person={"properties": {"home": {"$ref": C + "Person/$defs/Address"}}},
        Shop={"properties": {"site": {"$ref": C + "Shop/$defs/Address"}}},
    )
    for owner in ("Person", "Shop"):
        spec["components"]["schemas"][owner]["$defs"] = {"Address": address}
    result = defs.run(spec, {})
    schemas = result.spec["components"]["schemas"]
    assert list(schemas) == ["Person", "Shop", "Address"]
    assert schemas["Shop"]["properties"]["site"] == {"$ref": C + "Address"}
    assert kinds(result) == [("merge", C + "Shop/$defs/Address", C + "Address")]


def test_def_identical_to_a_component_is_merged_into_it() -> None:
    person = {
        "properties": {"a": {"$ref": C + "Person/$defs/Address"}},
        "$defs": {"Address": {"type": "string"}},
    }
    spec = doc(Address={"type": "string"}, Person=person)
    result = defs.run(spec, {})
    assert list(result.spec["components"]["schemas"]) == ["Address", "Person"]
    assert result.spec["components"]["schemas"]["Person"]["properties"]["a"] == {
        "$ref": C + "Address"
    }
    assert kinds(result) == [("merge", C + "Person/$defs/Address", C + "Address")]


def test_different_defs_with_one_name_get_suffixes() -> None:
    spec = doc(
        Item={"type": "integer"},
        Item2={"type": "boolean"},
        A={"items": {"$ref": C + "A/$defs/Item"}, "$defs": {"Item": {"type": "string"}}},
        B={"items": {"$ref": C + "B/$defs/Item"}, "$defs": {"Item": {"type": "number"}}},
        D={"items": {"$ref": C + "D/$defs/Item"}, "$defs": {"Item": {"type": "string"}}},
    )
    result = defs.run(spec, {})
    schemas = result.spec["components"]["schemas"]
    assert list(schemas) == ["Item", "Item2", "A", "B", "D", "Item3", "Item4"]
    assert schemas["Item3"] == {"type": "string"} and schemas["Item4"] == {"type": "number"}
    assert [schemas[n]["items"]["$ref"] for n in "ABD"] == [C + "Item3", C + "Item4", C + "Item3"]
    assert kinds(result) == [
        ("rename", "Item", "Item3"),
        ("rename", "Item", "Item4"),
        ("merge", C + "D/$defs/Item", C + "Item3"),
    ]


def test_identical_defs_with_refs_between_them_are_merged() -> None:
    """Two copies of a pair of mutually recursive models become one pair."""

    def model(owner: str) -> dict[str, Any]:
        base = f"{C}{owner}/$defs/"
        return {
            "properties": {"tree": {"$ref": base + "Tree"}},
            "$defs": {
                "Tree": {"properties": {"leaf": {"$ref": base + "Leaf"}}},
                "Leaf": {"properties": {"up": {"$ref": base + "Tree"}}},
            },
        }

    result = defs.run(doc(One=model("One"), Two=model("Two")), {})
    schemas = result.spec["components"]["schemas"]
    assert list(schemas) == ["One", "Two", "Tree", "Leaf"]
    assert schemas["Leaf"] == {"properties": {"up": {"$ref": C + "Tree"}}}
    assert schemas["Two"]["properties"]["tree"] == {"$ref": C + "Tree"}
    assert [k for k, _, _ in kinds(result)] == ["merge", "merge"]


def test_copies_that_differ_deep_down_are_kept_apart() -> None:
    def model(owner: str, leaf: str) -> dict[str, Any]:
        base = f"{C}{owner}/$defs/"
        return {
            "properties": {"tree": {"$ref": base + "Tree"}},
            "$defs": {
                "Tree": {"properties": {"leaf": {"$ref": base + "Leaf"}}},
                "Leaf": {"type": leaf},
            },
        }

    result = defs.run(doc(One=model("One", "string"), Two=model("Two", "integer")), {})
    schemas = result.spec["components"]["schemas"]
    assert list(schemas) == ["One", "Two", "Tree", "Leaf", "Tree2", "Leaf2"]
    assert schemas["Tree2"] == {"properties": {"leaf": {"$ref": C + "Leaf2"}}}
    assert [k for k, _, _ in kinds(result)] == ["rename", "rename"]


def test_deterministic_and_pure() -> None:
    spec = doc(
        A={"$defs": {"X": {"type": "string"}, "Y": {"$ref": C + "A/$defs/X"}}},
        B={"$defs": {"X": {"type": "integer"}}, "$schema": "x"},
    )
    original = copy.deepcopy(spec)
    first, second = defs.run(spec, {}), defs.run(spec, {})
    assert spec == original
    assert first == second
    assert "$schema" not in first.spec["components"]["schemas"]["B"]


@pytest.mark.parametrize("name", ["sgp/openapi.json", "llm-engine/openapi.json"])
def test_real_openapi_specs_are_unchanged(name: str) -> None:
    source = json.loads((SPECS / name).read_text())
    result = defs.run(source, {})
    assert result.spec == source and result.spec is not source
    assert result.diagnostics == ()
