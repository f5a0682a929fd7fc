"""The `form_bodies` pass: inline form request bodies become named component schemas."""

from __future__ import annotations

import copy
from typing import Any

from generator.normalize import form_bodies

FORM = {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}}}


def _spec(content: dict[str, Any], schemas: dict[str, Any] | None = None) -> dict[str, Any]:
    op = {"x-apismith-name": "upload_file", "requestBody": {"content": content}}
    spec: dict[str, Any] = {"openapi": "3.1.0", "paths": {"/f": {"post": op}}}
    if schemas is not None:
        spec["components"] = {"schemas": schemas}
    return spec


def test_inline_multipart_body_becomes_a_component() -> None:
    spec = _spec({"multipart/form-data": {"schema": FORM}})
    before = copy.deepcopy(spec)
    out = form_bodies.run(spec, {}).spec
    assert spec == before
    assert out["components"]["schemas"] == {"UploadFileBody": FORM}
    body = out["paths"]["/f"]["post"]["requestBody"]["content"]["multipart/form-data"]
    assert body["schema"] == {"$ref": "#/components/schemas/UploadFileBody"}


def test_both_form_types_share_a_name_and_clashes_are_numbered() -> None:
    content = {
        "multipart/form-data": {"schema": FORM},
        "application/x-www-form-urlencoded": {"schema": FORM},
    }
    out = form_bodies.run(_spec(content, {"UploadFileBody": {"type": "string"}}), {}).spec
    assert sorted(out["components"]["schemas"]) == ["UploadFileBody", "UploadFileBody2"]
    refs = {
        c["schema"]["$ref"] for c in out["paths"]["/f"]["post"]["requestBody"]["content"].values()
    }
    assert refs == {"#/components/schemas/UploadFileBody2"}


def test_json_bodies_and_refs_are_left_alone() -> None:
    for content in (
        {"application/json": {"schema": FORM}},
        {"multipart/form-data": {"schema": {"$ref": "#/components/schemas/X"}}},
    ):
        spec = _spec(content)
        assert form_bodies.run(spec, {}).spec == spec
