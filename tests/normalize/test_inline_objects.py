"""The ``inline_objects`` pass: inline object properties become components, and equal
inline objects become one component (named where the first is met)."""

from __future__ import annotations

from typing import Any

from generator.normalize import inline_objects

LINK = {"title": "Link", "type": "object", "properties": {"href": {"type": "string"}}}


def _spec(schemas: dict[str, Any]) -> dict[str, Any]:
    return {"openapi": "3.1.0", "components": {"schemas": schemas}}


def _run(schemas: dict[str, Any]) -> dict[str, Any]:
    result = inline_objects.run(_spec(schemas), {})
    return dict(result.spec["components"]["schemas"])


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def test_an_inline_object_property_becomes_a_component() -> None:
    out = _run({"Pet": {"type": "object", "properties": {"owner": dict(LINK)}}})
    assert out["Pet"]["properties"]["owner"] == _ref("PetOwner")
    assert out["PetOwner"] == LINK


def test_equal_inline_objects_become_one_component() -> None:
    links = {
        "type": "object",
        "properties": {"self": dict(LINK), "html": dict(LINK), "other": {**LINK, "title": "X"}},
    }
    out = _run({"Pull": links, "Issue": {"type": "object", "properties": {"links": links}}})
    # "Issue" comes first (model-name order): its nested objects are named there
    assert out["Issue"]["properties"]["links"] == _ref("IssueLinks")
    assert out["Pull"]["properties"] == {
        "self": _ref("IssueLinksSelf"),
        "html": _ref("IssueLinksSelf"),  # the same schema: the same component
        "other": _ref("IssueLinksOther"),  # a different title: a component of its own
    }
    assert out["IssueLinks"]["properties"] == out["Pull"]["properties"]
    assert "IssueLinksHtml" not in out and "PullSelf" not in out


def test_key_order_does_not_make_objects_different() -> None:
    reordered = {"properties": {"href": {"type": "string"}}, "type": "object", "title": "Link"}
    out = _run({"A": {"type": "object", "properties": {"x": dict(LINK), "y": reordered}}})
    assert out["A"]["properties"]["y"] == _ref("AX")
    assert out["AX"] == LINK  # as first met


def test_the_input_is_left_alone() -> None:
    schemas = {"A": {"type": "object", "properties": {"x": dict(LINK), "y": dict(LINK)}}}
    spec = _spec(schemas)
    inline_objects.run(spec, {})
    assert spec["components"]["schemas"]["A"]["properties"]["y"] == LINK


def test_a_union_component_s_inline_object_members_get_a_name() -> None:
    """stream-io: ``Response`` is ``anyOf: [{object requiring duration}, {type: null}]``;
    the IR read the inline member as a ``dict`` (the mock answered ``{}``) while
    datamodel-code-generator named it ``Response1`` itself."""
    member = {
        "type": "object",
        "required": ["duration"],
        "properties": {"duration": {"type": "string"}},
    }
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {},
        "components": {"schemas": {"Response": {"anyOf": [member, {"type": "null"}]}}},
    }
    out = inline_objects.run(doc, {}).spec["components"]["schemas"]
    assert out["Response"] == {
        "anyOf": [{"$ref": "#/components/schemas/ResponseUnionMember1"}, {"type": "null"}]
    }
    assert out["ResponseUnionMember1"] == member
    assert doc["components"]["schemas"]["Response"]["anyOf"][0] == member  # input untouched
