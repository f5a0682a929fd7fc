"""The `inline_bodies` pass: inline JSON request and response objects become components
named after the client method (``TaskListResponse``), collision-proof."""

from __future__ import annotations

import copy
from typing import Any

from generator.normalize import PASS_NAMES, inline_bodies, normalize

OBJ = {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}


def _json(schema: Any) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def spec_with(paths: dict[str, Any], schemas: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": paths,
        "components": {"schemas": schemas or {}},
    }


def _op(op_id: str, **parts: Any) -> dict[str, Any]:
    return {"operationId": op_id, "x-apismith-name": op_id, **parts}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def test_named_after_the_method() -> None:
    spec = spec_with(
        {
            "/tasks": {
                "get": _op("list_tasks", responses={"200": _json(OBJ | {"type": "object"})}),
                "post": _op(
                    "create_task",
                    requestBody=_json(OBJ),
                    responses={"201": _json(OBJ), "422": _json(OBJ)},
                ),
            },
            "/tasks/{id}/attachments": {
                "post": _op(
                    "upload_attachment",
                    requestBody=_json({"type": "array", "items": OBJ}),
                    responses={"200": _json({"anyOf": [OBJ, {"type": "null"}]})},
                )
            },
        }
    )
    before = copy.deepcopy(spec)
    out = inline_bodies.run(spec, {}).spec
    assert spec == before  # pure
    schemas = out["components"]["schemas"]
    assert list(schemas) == [
        "TaskRetrieveResponse",  # one record: GET of a collection answering one object
        "TaskCreateBody",
        "TaskCreateResponse",
        "TaskCreateResponse422",
        "TaskUploadAttachmentBodyItem",
        "TaskUploadAttachmentResponse",
    ]
    post = out["paths"]["/tasks"]["post"]
    assert post["requestBody"]["content"]["application/json"]["schema"] == _ref("TaskCreateBody")
    upload = out["paths"]["/tasks/{id}/attachments"]["post"]
    body = upload["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"type": "array", "items": _ref("TaskUploadAttachmentBodyItem")}
    answer = upload["responses"]["200"]["content"]["application/json"]["schema"]
    assert answer == {"anyOf": [_ref("TaskUploadAttachmentResponse"), {"type": "null"}]}


def test_a_clash_takes_the_resource_path_then_a_number() -> None:
    spec = spec_with(
        {
            "/a/{id}/uploads": {"get": _op("list_a_uploads", responses={"200": _json(OBJ)})},
            "/b/{id}/uploads": {"get": _op("list_b_uploads", responses={"200": _json(OBJ)})},
        },
        {"UploadRetrieveResponse": {"type": "string"}, "AUploadRetrieveResponse": OBJ},
    )
    schemas = inline_bodies.run(spec, {}).spec["components"]["schemas"]
    assert list(schemas)[2:] == ["AUploadRetrieveResponse2", "BUploadRetrieveResponse"]


def test_union_members_maps_forms_and_streams_are_left_or_numbered() -> None:
    union = {"oneOf": [OBJ, {"type": "object", "properties": {"x": {"type": "integer"}}}]}
    spec = spec_with(
        {
            "/u": {"get": _op("get_u", responses={"200": _json(union)})},
            "/m": {"get": _op("get_m", responses={"200": _json({"additionalProperties": True})})},
            "/f": {
                "post": _op(
                    "post_f",
                    requestBody={"content": {"multipart/form-data": {"schema": OBJ}}},
                    responses={"200": {"content": {"text/event-stream": {"schema": OBJ}}}},
                )
            },
        }
    )
    out = inline_bodies.run(spec, {}).spec
    assert list(out["components"]["schemas"]) == [
        "URetrieveResponseUnionMember0",
        "URetrieveResponseUnionMember1",
    ]
    assert out["paths"]["/m"] == spec["paths"]["/m"]
    assert out["paths"]["/f"] == spec["paths"]["/f"]


def test_the_config_names_the_method() -> None:
    spec = spec_with({"/tasks": {"post": _op("create_task", requestBody=_json(OBJ))}})
    options = {"methods": {"create_task": "jobs.submit"}}
    schemas = inline_bodies.run(spec, options).spec["components"]["schemas"]
    assert list(schemas) == ["JobSubmitBody"]


def test_component_responses_are_named_after_their_key() -> None:
    spec = spec_with({})
    spec["components"]["responses"] = {"not-found": _json(OBJ)}
    spec["components"]["requestBodies"] = {"NewTask": _json(OBJ)}
    schemas = inline_bodies.run(spec, {}).spec["components"]["schemas"]
    assert list(schemas) == ["NewTaskBody", "NotFoundResponse"]


def test_the_pass_can_be_switched_off() -> None:
    spec = spec_with({"/t": {"get": {"operationId": "t", "responses": {"200": _json(OBJ)}}}})
    assert "inline_bodies" in PASS_NAMES
    on = normalize(spec).spec["components"]["schemas"]
    off = normalize(spec, {"inline_bodies": False}).spec["components"]["schemas"]
    assert list(on) == ["TRetrieveResponse"] and off == {}
