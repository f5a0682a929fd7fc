"""The `read_write` pass: a readOnly or writeOnly property is not required (one model serves
requests and responses)."""

from __future__ import annotations

import copy
from typing import Any

from generator.normalize import PASS_NAMES, normalize, read_write


def spec_with(schemas: dict[str, Any], paths: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": paths or {},
        "components": {"schemas": schemas},
    }


USER = {
    "type": "object",
    "required": ["id", "name", "password", "created"],
    "properties": {
        "id": {"type": "string", "readOnly": True},
        "name": {"type": "string"},
        "password": {"type": "string", "writeOnly": True},
        "created": {"$ref": "#/components/schemas/Stamp"},
    },
}
STAMP = {"type": "string", "format": "date-time", "readOnly": True}


def test_one_way_properties_leave_required() -> None:
    spec = spec_with({"User": USER, "Stamp": STAMP})
    before = copy.deepcopy(spec)
    result = read_write.run(spec, {})
    assert spec == before  # pure
    assert result.spec["components"]["schemas"]["User"]["required"] == ["name"]
    assert result.diagnostics == ()


def test_inline_schemas_too_and_an_empty_required_goes() -> None:
    inline = {
        "type": "object",
        "required": ["token"],
        "properties": {"token": {"type": "string", "writeOnly": True}},
    }
    paths = {
        "/login": {
            "post": {
                "requestBody": {"content": {"application/json": {"schema": inline}}},
                "responses": {"204": {"description": "ok"}},
            }
        }
    }
    out = read_write.run(spec_with({}, paths), {}).spec
    schema = out["paths"]["/login"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert "required" not in schema and "token" in schema["properties"]


def test_other_required_properties_stay() -> None:
    plain = {
        "type": "object",
        "required": ["a", "b"],
        "properties": {"a": {}, "b": {"readOnly": False}},
    }
    out = read_write.run(spec_with({"P": plain}), {}).spec
    assert out["components"]["schemas"]["P"]["required"] == ["a", "b"]


def test_it_runs_in_the_pipeline_and_can_be_switched_off() -> None:
    assert "read_write" in PASS_NAMES
    spec = spec_with({"User": USER, "Stamp": STAMP})
    on = normalize(spec).spec["components"]["schemas"]["User"]
    off = normalize(spec, {"read_write": False}).spec["components"]["schemas"]["User"]
    assert on["required"] == ["name"]
    assert off["required"] == ["id", "name", "password", "created"]
