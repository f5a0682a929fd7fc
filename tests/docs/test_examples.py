"""The docs' response examples show every field down to three object levels: an alias
(such as a hoisted array item naming a union) is not a level."""

from __future__ import annotations

import json
from typing import Any

from generator.ir import build_ir
from generator.normalize import normalize
from generator.render.docs.samples import Examples
from tests.docs.support import rendered, response_examples


def _walk(value: Any, level: int = 0) -> list[tuple[int, dict[str, Any]]]:
    """(object level, object) of every object in a JSON value."""
    if isinstance(value, dict):
        return [(level, value), *(d for v in value.values() for d in _walk(v, level + 1))]
    if isinstance(value, list):
        return [d for v in value for d in _walk(v, level)]
    return []


def test_an_alias_is_not_a_level_of_the_example() -> None:
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {},
        "components": {
            "schemas": {
                "Outer": {
                    "type": "object",
                    "required": ["items"],
                    "properties": {
                        "items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}
                    },
                },
                "Item": {
                    "anyOf": [
                        {"$ref": "#/components/schemas/A"},
                        {"$ref": "#/components/schemas/B"},
                    ]
                },
                "A": {"type": "object", "properties": {"score": {"type": "number"}}},
                "B": {"type": "object", "properties": {"name": {"type": "string"}}},
            }
        },
    }
    api = build_ir(normalize(spec).spec)
    assert api.model("Item").kind == "alias"
    assert Examples(api, depth=2)._model("Outer") == {"items": [{"score": 0}]}
    assert Examples(api, depth=1)._model("Outer") == {"items": [{}]}  # the limit holds


def test_sgp_metric_scores_keep_their_score() -> None:
    """Three SGP examples lost a nested ``"score": 0``: ``...MetricScoresItem`` (a hoisted
    array item, an alias of a union) counted as a level."""
    found = 0
    for text in rendered("sgp").pages.values():
        for op in text.split('\n<a id="op-')[1:]:
            for code in response_examples(op).values():
                for level, d in _walk(json.loads(code)):
                    for item in d.get("metric_scores") or ():
                        if level + 1 < 3:  # above the depth limit of the examples
                            assert "score" in item, item
                            found += 1
    assert found >= 3


def test_an_alias_that_holds_itself_renders(tmp_path: Any) -> None:
    """``Tree = list[Tree]``: the docs' body tables read through aliases without looping."""
    from generator.config import adhoc_config
    from generator.pipeline import generate

    spec = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/tree": {
                "get": {
                    "operationId": "getTree",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Tree"}
                                }
                            },
                        }
                    },
                }
            }
        },
        "components": {
            "schemas": {"Tree": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}}
        },
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    files = generate(adhoc_config(path, tmp_path / "out", package="tree")).files
    assert any(name.startswith("docs/") for name in files)
