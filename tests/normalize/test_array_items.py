"""The `array_items` pass: tagged-union, tuple and constrained array items become named
components."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator.normalize import PASS_NAMES, array_items
from tests.conftest import describe, run_cli, write_json

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


def test_constrained_primitive_items_get_the_model_s_name_not_an_invented_one() -> None:
    """NetBox: ``tags`` items ``{type: string, minLength: 1}`` were named ``Tag`` by
    datamodel-code-generator, which then renamed the component ``Tag`` to ``Tag24``."""
    tag = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
    strings = {"type": "array", "items": {"type": "string", "minLength": 1}}
    nullable = {"type": "array", "items": {"type": ["integer", "null"], "maximum": 5}}
    plain = {"type": "array", "items": {"type": "string", "format": "uuid"}}
    enum = {"type": "array", "items": {"type": "string", "enum": ["a"], "maxLength": 1}}
    agg = {"type": "object", "properties": {"tags": strings, "n": nullable, "p": plain, "e": enum}}
    out = array_items.run(doc(Aggregate=agg, Tag=tag), {}).spec
    schemas = out["components"]["schemas"]
    assert schemas["AggregateTagsItem"] == {"type": "string", "minLength": 1}
    assert schemas["AggregateNItem"] == {"type": ["integer", "null"], "maximum": 5}
    props = schemas["Aggregate"]["properties"]
    assert props["tags"]["items"] == {"$ref": "#/components/schemas/AggregateTagsItem"}
    assert props["p"] == plain and props["e"] == enum  # no constraint, or an enum: inline
    assert schemas["Tag"] == tag


def test_models_py_defines_every_schema_under_its_own_name(tmp_path: Path) -> None:
    """The generated package's ``models.Tag`` is the ``Tag`` schema, and a collision the
    pass does not prevent (items nested two arrays deep) fails generation loudly."""
    tag = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
    tags = {"type": "array", "items": {"type": "string", "minLength": 1}}
    agg = {"type": "object", "properties": {"tags": tags}}
    spec = doc(Aggregate=agg, Tag=tag)
    proc = run_cli(
        "generate", "--spec", write_json(tmp_path / "s.json", spec), "--out", "o", cwd=tmp_path
    )
    assert proc.returncode == 0, describe(proc)
    source = (tmp_path / "o" / "models.py").read_text(encoding="utf-8")
    assert "class Tag(BaseModel)" in source and "Tag1" not in source
    nested = {"type": "array", "items": tags}  # invented by dcg: not named by the pass
    spec = doc(Aggregate={"type": "object", "properties": {"tags": nested}}, Tag=tag)
    proc = run_cli(
        "generate", "--spec", write_json(tmp_path / "n.json", spec), "--out", "n", cwd=tmp_path
    )
    assert proc.returncode == 1, describe(proc)
    assert "model rendering renamed schema 'Tag'" in proc.stderr
    assert "Traceback" not in proc.stderr
