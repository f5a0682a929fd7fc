"""``oneOf`` without a discriminator: a value must match exactly one member.

Found by schemathesis on scideas.net's regression API: the mock answered the spec's own
example of a ``oneOf: [Result, Error]`` response, valid under both members (``Error``
requires nothing and neither closes ``additionalProperties``), so against the schema. The
IR keeps the keyword (``TypeRef.one_of``); :func:`conforms` counts the members a value
matches; the synthesizers try the members in order for a value of one alone. An
``anyOf`` stays permissive. ``jsonschema_rs`` (schemathesis's validator) is the judge.
"""

from __future__ import annotations

from typing import Any

import pytest

from generator.ir import Api, TypeRef, build_ir
from generator.render.examples import Synthesizer, conforms

jsonschema_rs = pytest.importorskip("jsonschema_rs")

RESULT = {
    "type": "object",
    "required": ["id", "score"],
    "properties": {"id": {"type": "string"}, "score": {"type": "integer"}},
}
ERROR = {  # no required field, open: every object is an Error
    "type": "object",
    "properties": {"message": {"type": "string"}, "code": {"type": "integer"}},
}
EXAMPLE = {"id": "r1", "score": 3}  # a Result, and so an Error too


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def document(body: dict[str, Any], **schemas: Any) -> dict[str, Any]:
    """A spec whose ``GET /run`` answers ``body`` (with ``EXAMPLE`` as its example)."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": {
            "/run": {
                "get": {
                    "operationId": "run",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": body, "example": EXAMPLE}},
                        }
                    },
                }
            }
        },
        "components": {"schemas": {"Result": RESULT, "Error": ERROR, **schemas}},
    }


def valid(doc: dict[str, Any], schema: dict[str, Any], value: Any) -> bool:
    """The outside judge: ``value`` against ``schema``, its ``$ref``s into ``doc``."""
    return bool(jsonschema_rs.is_valid({**schema, "components": doc["components"]}, value))


def response(doc: dict[str, Any]) -> tuple[Api, TypeRef, tuple[Any, ...]]:
    api = build_ir(doc)
    success = api.operation("run").success_response
    assert success is not None and success.schema is not None
    return api, success.schema, success.examples


ONE_OF = {"oneOf": [ref("Result"), ref("Error")]}
ANY_OF = {"anyOf": [ref("Result"), ref("Error")]}


def test_the_ir_keeps_the_keyword() -> None:
    _api, one_of, _ = response(document(ONE_OF))
    _api, any_of, _ = response(document(ANY_OF))
    assert one_of.kind == any_of.kind == "union"
    assert one_of.one_of and not any_of.one_of
    assert one_of.members == any_of.members and one_of != any_of


@pytest.mark.parametrize(
    ("schema", "one_of", "nullable"),
    [
        ({"oneOf": [ref("Result"), {"type": "null"}]}, False, True),  # collapsed: Result
        ({"oneOf": [ref("Result"), ref("Error"), {"type": "null"}]}, True, True),
        ({"anyOf": [{"oneOf": [ref("Result"), ref("Error")]}, {"type": "null"}]}, True, True),
        ({"oneOf": [{"anyOf": [ref("Result"), ref("Error")]}, {"type": "integer"}]}, True, False),
        # flattened: one of the flat members alone is valid under any nesting, so the
        # flat union is exclusive when any part of it was
        ({"anyOf": [{"oneOf": [ref("Result"), ref("Error")]}, {"type": "integer"}]}, True, False),
        ({"anyOf": [{"anyOf": [ref("Result"), ref("Error")]}, {"type": "integer"}]}, False, False),
    ],
)
def test_the_flag_through_null_and_nesting(
    schema: dict[str, Any], one_of: bool, nullable: bool
) -> None:
    _api, t, _ = response(document(schema))
    assert t.one_of is one_of
    assert t.nullable is nullable


def test_a_discriminated_union_is_told_apart_by_its_tag() -> None:
    tagged = {
        "oneOf": [ref("Cat"), ref("Dog")],
        "discriminator": {"propertyName": "kind"},
    }
    animal = {
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"type": "string"}},
    }
    doc = document(tagged, Cat=animal, Dog=animal)
    api, t, _ = response(doc)
    synth = Synthesizer(api)
    assert t.discriminator is not None
    value = synth.value(t)
    assert conforms(value, t, synth.models, answer=True)


@pytest.mark.parametrize("answer", [True, False])
def test_an_example_valid_under_both_members_does_not_conform(answer: bool) -> None:
    doc = document(ONE_OF)
    api, t, examples = response(doc)
    assert examples == (EXAMPLE,)
    assert not valid(doc, ONE_OF, EXAMPLE)  # the judge agrees
    models = {m.name: m for m in api.models}
    assert not conforms(EXAMPLE, t, models, answer=answer)
    assert conforms({"message": "no"}, t, models, answer=answer)  # an Error alone


def test_the_mock_does_not_answer_it() -> None:
    doc = document(ONE_OF)
    api, t, examples = response(doc)
    assert Synthesizer(api).answers(examples, t) == []


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_the_synthesized_answer_matches_one_member(full: bool, seed: int) -> None:
    doc = document(ONE_OF)
    api, t, _ = response(doc)
    synth = Synthesizer(api, full=full, seed=seed)
    value = synth.value(t)
    assert valid(doc, ONE_OF, value), value
    assert synth.conforms(value, t, answer=True)
    assert synth.answers((value,), t) == [value]
    for chunk in synth.variants(t, 3):
        assert valid(doc, ONE_OF, chunk), chunk


def test_a_member_of_one_alone_is_found_inside_a_model() -> None:
    """A field typed ``oneOf``: the model's value holds the exclusive member too."""
    outer = {"type": "object", "required": ["out"], "properties": {"out": ONE_OF}}
    doc = document(ref("Outer"), Outer=outer)
    api, t, _ = response(doc)
    for synth in (Synthesizer(api), Synthesizer(api, full=True)):
        value = synth.value(t)
        assert valid(doc, outer, value), value


def test_any_of_stays_permissive() -> None:
    doc = document(ANY_OF)
    api, t, examples = response(doc)
    assert valid(doc, ANY_OF, EXAMPLE)
    synth = Synthesizer(api)
    assert synth.answers(examples, t) == [EXAMPLE]
    assert synth.value(t) == {"id": "a", "score": 0}  # the first member, as before


def test_no_member_alone_falls_back_to_the_first() -> None:
    """Where every value of one member is also the other's, there is no valid answer to
    build: the first member's, as before (no new error)."""
    both = {"oneOf": [ref("Error"), ref("Other")]}
    doc = document(both, Other={"type": "object"})
    api, t, _ = response(doc)
    assert t.one_of
    assert Synthesizer(api).value(t) == {}
    assert isinstance(Synthesizer(api, full=True).value(t), dict)


def test_members_that_require_nothing_are_set_apart_by_a_wrong_kind_of_field() -> None:
    """scideas.net: ``oneOf: [Result, Error]``, neither requiring a field: every object is
    an instance of both, so the mock's answer gets a field of Result's with the wrong
    kind, which Error takes as an extra and Result refuses (jsonschema_rs agrees)."""
    import jsonschema_rs

    from generator.ir import build_ir
    from generator.render.examples.conform import conforms, set_apart

    result = {"type": "object", "properties": {"footer": {"type": "string"}}}
    error = {"type": "object", "properties": {"error": {"type": "string"}}}
    union = {
        "oneOf": [{"$ref": "#/components/schemas/Error"}, {"$ref": "#/components/schemas/Result"}]
    }
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {},
        "components": {"schemas": {"Result": result, "Error": error, "Answer": union}},
    }
    api = build_ir(spec)
    models = {m.name: m for m in api.models}
    t = models["Answer"].root
    assert t is not None and t.one_of
    apart = set_apart({"error": "invalid key"}, t, models)
    assert apart == {"error": "invalid key", "footer": 0}
    assert conforms(apart, t, models)
    validator = jsonschema_rs.validator_for({**union, "components": spec["components"]})
    assert validator.is_valid(apart) and not validator.is_valid({"error": "invalid key"})
