"""The `array_items` pass: tagged-union and tuple array items become named components."""

from __future__ import annotations

from typing import Any

from generator.normalize import PASS_NAMES, array_items

A = {"$ref": "#/components/schemas/A"}
B = {"$ref": "#/components/schemas/B"}
UNION = {"oneOf": [A, B], "discriminator": {"propertyName": "kind"}}
TUPLE = {"prefixItems": [{"type": "string"}, {"type": "number"}], "items": False}


def doc(**schemas: Any) -> dict[str, Any]:
    base = {"A": {"type": "object"}, "B": {"type": "object"}}
    return {"openapi": "3.1.0", "info": {}, "paths": {}, "components": {"schemas": base | schemas}}


def test_union_and_tuple_items_are_hoisted_in_model_order() -> None:
    spec = doc(
        Zoo={"type": "object", "properties": {"animals": {"type": "array", "items": UNION}}},
        Pair={
            "type": "object",
            "properties": {
                "pair_list": {"anyOf": [{"type": "array", "items": TUPLE}, {"type": "null"}]}
            },
        },
    )
    out = array_items.run(spec, {}).spec
    schemas = out["components"]["schemas"]
    assert list(schemas)[-2:] == ["PairPairListItem", "ZooAnimalsItem"]
    assert schemas["ZooAnimalsItem"] == UNION
    assert schemas["PairPairListItem"] == TUPLE
    zoo = schemas["Zoo"]["properties"]["animals"]
    assert zoo["items"] == {"$ref": "#/components/schemas/ZooAnimalsItem"}
    nullable = schemas["Pair"]["properties"]["pair_list"]["anyOf"][0]
    assert nullable["items"] == {"$ref": "#/components/schemas/PairPairListItem"}
    assert "ZooAnimalsItem" not in spec["components"]["schemas"]  # the input is untouched


def test_names_never_clash_and_plain_items_stay_inline() -> None:
    spec = doc(
        Zoo={
            "type": "object",
            "properties": {
                "animals": {"type": "array", "items": UNION},
                "names": {"type": "array", "items": {"type": "string"}},
                "maybe": {
                    "type": "array",
                    "items": {"anyOf": [UNION, {"type": "null"}]},
                },
            },
        },
        ZooAnimalsItem={"type": "string"},
    )
    schemas = array_items.run(spec, {}).spec["components"]["schemas"]
    assert schemas["ZooAnimalsItem"] == {"type": "string"}
    assert schemas["ZooAnimalsItem2"] == UNION
    assert schemas["ZooMaybeItem"] == {"anyOf": [UNION, {"type": "null"}]}
    assert schemas["Zoo"]["properties"]["names"]["items"] == {"type": "string"}


def test_runs_after_names_and_can_be_switched_off() -> None:
    assert PASS_NAMES.index("array_items") > PASS_NAMES.index("names")
