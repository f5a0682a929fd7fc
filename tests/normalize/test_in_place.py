"""The passes' two forms: ``run`` (pure) and ``apply`` (in place, on a document the caller
gives up), and :func:`normalize`, which copies its input once and applies every pass to
that copy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.load import load_spec
from generator.normalize import ALWAYS, PASSES, normalize
from generator.normalize.walk import (
    SCHEMA_KEYS,
    SCHEMA_LIST_KEYS,
    SCHEMA_MAP_KEYS,
    child_schemas,
    iter_schemas,
    json_copy,
    pointer_join,
    spec_roots,
    walk_schemas,
)

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = sorted(p for p in (ROOT / "tests" / "golden").glob("*/spec.*"))


def _shared(doc: Any) -> list[str]:
    """Pointers of containers reachable at a second place of ``doc``."""
    seen: dict[int, str] = {}
    found: list[str] = []
    stack: list[tuple[str, Any]] = [("#", doc)]
    while stack:
        pointer, node = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        if id(node) in seen:
            found.append(pointer)
            continue
        seen[id(node)] = pointer
        items = node.items() if isinstance(node, dict) else enumerate(node)
        stack.extend((f"{pointer}/{k}", v) for k, v in items)
    return found


@pytest.mark.parametrize("spec", GOLDEN, ids=lambda p: p.parent.name)
def test_run_is_apply_on_a_copy_and_shares_nothing(spec: Path) -> None:
    current: dict[str, Any] = json_copy(load_spec(spec).doc)
    for p in (*PASSES, *ALWAYS):
        before = json.dumps(current)
        ran = p.run(current, {})
        assert json.dumps(current) == before, f"{p.name}: run changed its input"
        applied = p.apply(json_copy(current), {})
        assert json.dumps(ran.spec) == json.dumps(applied.spec), p.name
        assert ran.diagnostics == applied.diagnostics, p.name
        # what the next pass changes in place must show at one place only
        assert _shared(applied.spec) == [], p.name
        current = applied.spec


@pytest.mark.parametrize("spec", GOLDEN, ids=lambda p: p.parent.name)
def test_normalize_leaves_its_input_alone(spec: Path) -> None:
    doc = load_spec(spec).doc
    before = json.dumps(doc)
    result = normalize(doc)
    assert json.dumps(doc) == before
    assert _shared(result.spec) == []
    assert [name for name, _ in result.timings] == [
        "copy",
        *(p.name for p in (*PASSES, *ALWAYS)),
    ]


def test_normalize_unshares_aliased_input() -> None:
    shared = {"type": ["string", "null"]}
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": {},
        "components": {
            "schemas": {"A": {"properties": {"x": shared}}, "B": {"properties": {"y": shared}}}
        },
    }
    result = normalize(doc)
    schemas = result.spec["components"]["schemas"]
    assert schemas["A"]["properties"]["x"] is not schemas["B"]["properties"]["y"]
    assert shared == {"type": ["string", "null"]}


def test_the_fast_walks_match_child_schemas() -> None:
    doc = json_copy(load_spec(ROOT / "specs" / "sgp" / "openapi.json").doc)
    pointers = [p for p, _ in iter_schemas(doc)]
    assert [id(s) for s in walk_schemas(doc)] == [id(s) for _, s in iter_schemas(doc)]
    # the reference: parents before children, children in keyword order, pointer_join's text
    expected: list[str] = []
    stack = list(reversed(list(spec_roots(doc))))
    while stack:
        pointer, schema = stack.pop()
        expected.append(pointer)
        children = list(child_schemas(schema, pointer))
        assert children == _reference_children(schema, pointer)
        stack.extend(reversed(children))
    assert pointers == expected
    roots = list(spec_roots(doc))
    assert [p for p, _ in roots] == [pointer_join(*_tokens(p)) for p, _ in roots]


def _tokens(pointer: str) -> list[str]:
    from generator.load import unescape_token

    head, *rest = pointer.split("/")
    return [head, *(unescape_token(t) for t in rest)]


def _reference_children(schema: dict[str, Any], pointer: str) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for key in SCHEMA_KEYS:
        sub = schema.get(key)
        if isinstance(sub, dict):
            found.append((pointer_join(pointer, key), sub))
        elif key == "items" and isinstance(sub, list):
            found += [
                (pointer_join(pointer, key, i), s) for i, s in enumerate(sub) if isinstance(s, dict)
            ]
    for key in SCHEMA_LIST_KEYS:
        subs = schema.get(key)
        if isinstance(subs, list):
            found += [
                (pointer_join(pointer, key, i), s)
                for i, s in enumerate(subs)
                if isinstance(s, dict)
            ]
    for key in SCHEMA_MAP_KEYS:
        subs = schema.get(key)
        if isinstance(subs, dict):
            found += [
                (pointer_join(pointer, key, n), s) for n, s in subs.items() if isinstance(s, dict)
            ]
    return found


@pytest.mark.parametrize("key", ["pattern", "type", "description", "$ref"])
def test_iter_schemas_with_is_iter_schemas_filtered(key: str) -> None:
    from generator.normalize.walk import iter_schemas_with

    for spec in [ROOT / "specs" / "sgp" / "openapi.json", *GOLDEN]:
        doc = normalize(load_spec(spec).doc).spec
        doc["components"]["schemas"]["a/b~c"] = {"properties": {"x/y": {"pattern": "p"}}}
        expected = [(p, id(s)) for p, s in iter_schemas(doc) if key in s]
        assert [(p, id(s)) for p, s in iter_schemas_with(doc, key)] == expected


@pytest.mark.parametrize("spec", GOLDEN, ids=lambda p: p.parent.name)
def test_an_owned_spec_is_normalized_in_place_the_same(spec: Path) -> None:
    copied = normalize(load_spec(spec).doc)
    doc = load_spec(spec).doc
    owned = normalize(doc, owned=True)
    assert json.dumps(owned.spec) == json.dumps(copied.spec)
    assert owned.diagnostics == copied.diagnostics


def test_an_owned_spec_that_shares_objects_is_copied() -> None:
    shared = {"type": ["string", "null"]}
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": {},
        "components": {
            "schemas": {"A": {"properties": {"x": shared}}, "B": {"properties": {"y": shared}}}
        },
    }
    before = json.dumps(doc)
    result = normalize(doc, owned=True)
    assert json.dumps(doc) == before
    assert _shared(result.spec) == []
