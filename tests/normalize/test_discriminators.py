"""The `discriminators` pass: const-tagged unions into usable discriminated unions."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from generator.normalize import discriminators
from generator.normalize.walk import iter_schemas

SPECS = Path(__file__).resolve().parents[2] / "specs"
C = "#/components/schemas/"
NULL = {"type": "null"}


def obj(tag: dict[str, Any] | None, required: bool = True, **props: Any) -> dict[str, Any]:
    """An object schema whose ``kind`` property is ``tag``."""
    schema: dict[str, Any] = {"type": "object", "properties": {**props}}
    if tag is not None:
        schema["properties"]["kind"] = tag
        if required:
            schema["required"] = ["kind"]
    return schema


def ref(name: str) -> dict[str, str]:
    return {"$ref": C + name}


def run(
    union: dict[str, Any], options: dict[str, Any] | None = None, **members: Any
) -> tuple[dict[str, Any], list[str]]:
    """The normalized ``Model.properties.x`` (``union``), beside components ``members``."""
    spec = {
        "openapi": "3.1.0",
        "info": {},
        "paths": {},
        "components": {
            "schemas": {**members, "Model": {"type": "object", "properties": {"x": union}}}
        },
    }
    original = copy.deepcopy(spec)
    result = discriminators.run(spec, options or {})
    assert spec == original  # the input is not mutated
    out = result.spec["components"]["schemas"]["Model"]["properties"]["x"]
    return out, [d.message for d in result.diagnostics]


CAT = obj({"type": "string", "const": "cat"}, meow={"type": "boolean"})
DOG = obj({"type": "string", "const": "dog"}, bark={"type": "boolean"})
PETS = {"Cat": CAT, "Dog": DOG}
PET_MAPPING = {"cat": C + "Cat", "dog": C + "Dog"}
PET_DISC: dict[str, Any] = {"propertyName": "kind", "mapping": PET_MAPPING}
NO_TAG = (
    "discriminator 'kind' dropped: member Cat has no const/enum property 'kind' "
    "(pydantic needs a Literal)"
)


# --- inferred discriminators -------------------------------------------------------------------


@pytest.mark.parametrize("key", ["oneOf", "anyOf"])
def test_const_tagged_refs_get_a_discriminator(key: str) -> None:
    out, messages = run({key: [ref("Cat"), ref("Dog")], "title": "Pet"}, **PETS)
    assert out == {"oneOf": [ref("Cat"), ref("Dog")], "discriminator": PET_DISC, "title": "Pet"}
    assert messages == []


def test_nullable_union_gets_an_inner_tagged_union() -> None:
    union = {"anyOf": [ref("Cat"), ref("Dog"), NULL], "title": "Pet", "default": None}
    out, messages = run(union, **PETS)
    assert out == {
        "anyOf": [{"oneOf": [ref("Cat"), ref("Dog")], "discriminator": PET_DISC}, NULL],
        "title": "Pet",
        "default": None,
    }
    assert messages == []


@pytest.mark.parametrize(
    ("cat_tag", "extra"),
    [
        ({"type": "string", "enum": ["cat"]}, {}),  # a one-value enum
        (ref("CatKind"), {"CatKind": {"type": "string", "enum": ["cat"]}}),  # an enum ref
        ({"$ref": C + "CatKind", "description": "d"}, {"CatKind": {"const": "cat"}}),
        ({"allOf": [ref("CatKind")]}, {"CatKind": {"const": "cat"}}),
    ],
)
def test_tag_shapes(cat_tag: dict[str, Any], extra: dict[str, Any]) -> None:
    out, _ = run({"oneOf": [ref("Cat"), ref("Dog")]}, Cat=obj(cat_tag), Dog=DOG, **extra)
    assert out["discriminator"] == PET_DISC


def test_tag_through_allof_inheritance() -> None:
    base = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    cat = {"allOf": [ref("Base"), obj({"const": "cat"})]}
    out, _ = run({"oneOf": [ref("Cat"), ref("Dog")]}, Base=base, Cat=cat, Dog=DOG)
    assert out["discriminator"] == PET_DISC


def test_inline_members_get_no_mapping() -> None:
    out, _ = run({"oneOf": [CAT, DOG]})
    assert out == {"oneOf": [CAT, DOG], "discriminator": {"propertyName": "kind"}}


def test_the_distinct_shared_property_is_chosen() -> None:
    def metric(name: str) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "category": {"type": "string", "enum": ["accuracy"]},
                "metric_type": {"type": "string", "enum": [name]},
            },
            "required": ["metric_type", "category"],
        }

    out, _ = run({"anyOf": [ref("A"), ref("B")]}, A=metric("a"), B=metric("b"))
    assert out["discriminator"] == {
        "propertyName": "metric_type",
        "mapping": {"a": C + "A", "b": C + "B"},
    }


@pytest.mark.parametrize(
    "members",
    [
        {"Cat": obj({"const": "cat"}, required=False), "Dog": DOG},  # not required
        {"Cat": obj({"const": "dog"}), "Dog": DOG},  # not distinct
        {"Cat": obj({"enum": ["cat", "kitten"]}), "Dog": DOG},  # several values
        {"Cat": obj({"type": "string"}), "Dog": DOG},  # a plain string
        {"Cat": obj({"const": 1}), "Dog": obj({"const": 2})},  # not strings
        {"Cat": obj({"type": ["string", "null"], "const": "cat"}), "Dog": DOG},  # nullable tag
        {"Cat": obj(None, name={"type": "string"}), "Dog": DOG},  # no tag
        {"Cat": {"type": "string"}, "Dog": DOG},  # not an object
        {"Cat": {"oneOf": [CAT, DOG]}, "Dog": DOG},  # a union
    ],
)
def test_no_inferred_discriminator(members: dict[str, Any]) -> None:
    union = {"oneOf": [ref("Cat"), ref("Dog")]}
    assert run(union, **members) == (union, [])


def test_single_member_is_left_alone() -> None:
    union = {"anyOf": [ref("Cat"), NULL]}
    assert run(union, **PETS) == (union, [])


def test_ref_member_with_annotations() -> None:
    cat = {"$ref": C + "Cat", "description": "d"}
    out, _ = run({"oneOf": [cat, ref("Dog")]}, **PETS)
    assert out == {"oneOf": [cat, ref("Dog")], "discriminator": PET_DISC}


def test_defaulted_tags_need_the_option() -> None:
    cat = obj({"type": "string", "const": "cat", "default": "cat"}, required=False)
    union = {"oneOf": [ref("Cat"), ref("Dog")]}
    assert run(union, Cat=cat, Dog=DOG) == (union, [])
    out, _ = run(union, {"defaulted_tags": True}, Cat=cat, Dog=DOG)
    assert out["discriminator"] == PET_DISC


# --- discriminators of the spec ----------------------------------------------------------------


def test_given_discriminator_is_kept() -> None:
    union = {"oneOf": [ref("Cat"), ref("Dog")], "discriminator": PET_DISC}
    assert run(union, **PETS) == (union, [])


def test_given_discriminator_mapping_is_completed() -> None:
    out, messages = run(
        {"oneOf": [ref("Cat"), ref("Dog")], "discriminator": {"propertyName": "kind"}}, **PETS
    )
    assert out["discriminator"] == PET_DISC
    out, _ = run(
        {
            "oneOf": [ref("Cat"), ref("Dog")],
            "discriminator": {"propertyName": "kind", "mapping": {"cat": "Cat"}},  # a bare name
        },
        **PETS,
    )
    assert out["discriminator"] == PET_DISC
    assert messages == []


def test_given_discriminator_may_use_non_required_and_boolean_tags() -> None:
    """FastAPI writes the mapping keys of boolean tags as ``False``/``True``."""
    partial = obj({"type": "boolean", "enum": [False], "default": False}, required=False)
    restore = obj({"type": "boolean", "enum": [True]})
    disc = {"propertyName": "kind", "mapping": {"False": C + "Partial", "True": C + "Restore"}}
    union = {"oneOf": [ref("Partial"), ref("Restore")], "discriminator": disc}
    assert run(union, Partial=partial, Restore=restore) == (union, [])


def test_missing_property_name_is_inferred() -> None:
    out, messages = run({"oneOf": [ref("Cat"), ref("Dog")], "discriminator": {}}, **PETS)
    assert out["discriminator"] == PET_DISC
    assert messages == ["discriminator without propertyName; inferred 'kind'"]


def test_mapping_to_a_non_member() -> None:
    disc = {"propertyName": "kind", "mapping": {**PET_MAPPING, "cow": C + "Cow"}}
    out, messages = run(
        {"oneOf": [ref("Cat"), ref("Dog")], "discriminator": disc},
        Cow=obj({"const": "cow"}),
        **PETS,
    )
    assert out["discriminator"] == PET_DISC
    assert messages == ["mapping 'cow' -> '#/components/schemas/Cow': not a member; entry dropped"]


def test_mapping_key_that_is_not_the_tag() -> None:
    disc = {"propertyName": "kind", "mapping": {"kitty": C + "Cat", "dog": C + "Dog"}}
    out, messages = run({"oneOf": [ref("Cat"), ref("Dog")], "discriminator": disc}, **PETS)
    assert out["discriminator"] == disc
    assert messages == ["mapping key 'kitty' is not a tag value of #/components/schemas/Cat"]


@pytest.mark.parametrize(
    ("cat", "message"),
    [
        (obj({"type": "string"}), NO_TAG),
        (obj(None), NO_TAG),
        (obj({"enum": ["cat", "dog"]}), "discriminator 'kind' dropped: members share a tag value"),
    ],
)
def test_unusable_discriminator_is_dropped(cat: dict[str, Any], message: str) -> None:
    union = {"oneOf": [ref("Cat"), ref("Dog")], "discriminator": PET_DISC, "title": "Pet"}
    out, messages = run(union, Cat=cat, Dog=DOG)
    assert out == {"oneOf": [ref("Cat"), ref("Dog")], "title": "Pet"}
    assert messages == [message]


@pytest.mark.parametrize(
    "union", [{"oneOf": [NULL], "discriminator": PET_DISC}, {"oneOf": [CAT], "discriminator": 1}]
)
def test_broken_discriminator_is_dropped(union: dict[str, Any]) -> None:
    out, messages = run(union, **PETS)
    assert out == {"oneOf": union["oneOf"]}
    assert messages == ["discriminator dropped: not an object, or no non-null member"]


def test_given_discriminator_with_a_null_member() -> None:
    union = {"oneOf": [ref("Cat"), ref("Dog"), NULL], "discriminator": PET_DISC, "title": "Pet"}
    out, messages = run(union, **PETS)
    assert out == {
        "anyOf": [{"oneOf": [ref("Cat"), ref("Dog")], "discriminator": PET_DISC}, NULL],
        "title": "Pet",
    }
    assert messages == []


# --- real specs --------------------------------------------------------------------------------


def tagged(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p: s["discriminator"] for p, s in iter_schemas(spec) if "discriminator" in s}


def test_llm_engine_chat_message_is_tagged_on_role() -> None:
    source = json.loads((SPECS / "llm-engine/openapi.json").read_text())
    result = discriminators.run(source, {})
    assert result.diagnostics == ()
    schemas = result.spec["components"]["schemas"]
    message = schemas["ChatCompletionRequestMessage"]
    assert message["discriminator"]["propertyName"] == "role"
    assert message["discriminator"]["mapping"]["tool"] == C + "ChatCompletionRequestToolMessage"
    assert (
        message["oneOf"] == source["components"]["schemas"]["ChatCompletionRequestMessage"]["anyOf"]
    )
    response_format = schemas["ChatCompletionV2Request"]["properties"]["response_format"]
    assert response_format["anyOf"][1] == NULL
    assert response_format["anyOf"][0]["discriminator"]["propertyName"] == "type"
    assert len(tagged(source)) == 5
    assert len(tagged(result.spec)) == 12


def test_sgp_discriminators() -> None:
    source = json.loads((SPECS / "sgp/openapi.json").read_text())
    result = discriminators.run(source, {})
    assert result.diagnostics == ()
    before, after = tagged(source), tagged(result.spec)
    assert len(before) == 28
    assert len(after) == 37
    assert all(after[p] == disc for p, disc in before.items())  # all complete and usable
