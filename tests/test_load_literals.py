"""What the loader does not read as spec (issue 11, corpus findings): a ``$ref`` inside
example data or an ``x-`` extension (GitHub's component examples, Azure's
``x-ms-examples``) is data and never followed; a callback that is a Reference Object is
no path item; a ``pattern`` that is no string is the patterns pass's to drop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator.config import adhoc_config
from generator.pipeline import generate

MISSING = {"$ref": "examples/not-there.json"}


def _generate(tmp_path: Path, doc: dict[str, Any]) -> Any:
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(doc))
    return generate(adhoc_config(spec, tmp_path / "out", package="lit"))


def test_refs_in_data_are_not_followed(tmp_path: Path) -> None:
    op = {
        "operationId": "getX",
        "x-ms-examples": {"one": MISSING},
        "callbacks": {"done": {"$ref": "#/components/callbacks/Done"}},
        "responses": {
            "200": {
                "description": "ok",
                "content": {
                    "application/json": {
                        "schema": {"$ref": "#/components/schemas/X"},
                        "examples": {"a": {"value": MISSING}},
                    }
                },
            }
        },
    }
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {"/x": {"get": op}},
        "components": {
            "callbacks": {"Done": {"{$request.body#/url}": {"post": {"responses": {}}}}},
            "schemas": {
                "X": {
                    "type": "object",
                    "example": MISSING,
                    "properties": {"a": {"type": "string", "pattern": 5, "default": MISSING}},
                }
            },
        },
    }
    result = _generate(tmp_path, doc)
    assert "models.py" in result.files
    drops = [d for d in result.diagnostics if d.pass_name == "patterns"]
    assert [d.kind for d in drops] == ["drop"]
    assert drops[0].pointer.endswith("/properties/a/pattern")
