"""Tests of the always-on `patterns` pass: patterns are judged by pydantic's regex engine
(Rust's ``regex``), never by Python's ``re``."""

from __future__ import annotations

import copy
from typing import Annotated, Any

import pydantic
import pytest

from generator.errors import ApismithError
from generator.normalize import ALWAYS, PASS_NAMES, defaults, normalize, patterns


def spec_with(pattern: Any, *, default: Any = None, in_param: bool = False) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "pattern": pattern}
    if default is not None:
        schema["default"] = default
    doc: dict[str, Any] = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}}
    if in_param:
        doc["paths"] = {
            "/a": {"get": {"parameters": [{"name": "q", "in": "query", "schema": schema}]}}
        }
        return doc
    doc["paths"] = {}
    doc["components"] = {"schemas": {"M": {"type": "object", "properties": {"a": schema}}}}
    return doc


def run(spec: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    before = copy.deepcopy(spec)
    result = patterns.run(spec, {})
    assert spec == before, "the pass mutated its input"
    return result.spec, list(result.diagnostics)


def compiles_in_pydantic(pattern: str) -> bool:
    try:
        pydantic.TypeAdapter(Annotated[str, pydantic.Field(pattern=pattern)])
    except Exception:
        return False
    return True


@pytest.mark.parametrize(
    "pattern", ["^\\p{L}+$", "[[:alpha:]]", "\\p{Greek}", "^[a-z]{1,3}$", "(?P<x>a)", "\\z"]
)
def test_patterns_pydantic_compiles_are_kept(pattern: str) -> None:
    """Including the ones Python's re refuses: pydantic is the judge."""
    assert compiles_in_pydantic(pattern)
    out, diags = run(spec_with(pattern))
    assert out == spec_with(pattern) and diags == []
    assert patterns.pattern_error(pattern) is None


@pytest.mark.parametrize("pattern", ["^(?=.*\\d).+$", "(?<=a)b", "(a)\\1", "\\Z"])
def test_patterns_only_python_compiles_are_dropped(pattern: str) -> None:
    assert not compiles_in_pydantic(pattern)
    out, diags = run(spec_with(pattern))
    assert "pattern" not in out["components"]["schemas"]["M"]["properties"]["a"]
    assert [d.kind for d in diags] == ["drop"]
    assert diags[0].pointer == "#/components/schemas/M/properties/a/pattern"


@pytest.mark.parametrize("pattern", ["(", "[", "a{2,1}", "\\", "(?P<a>x)(?P<a>y)"])
def test_invalid_patterns_are_an_error(pattern: str) -> None:
    with pytest.raises(ApismithError) as info:
        run(spec_with(pattern))
    assert info.value.exit_code == 2
    assert info.value.pointer == "#/components/schemas/M/properties/a/pattern"
    assert "\n" not in str(info.value)


def test_invalid_pattern_in_a_parameter() -> None:
    with pytest.raises(ApismithError) as info:
        run(spec_with("(", in_param=True))
    assert info.value.pointer == "#/paths/~1a/get/parameters/0/schema/pattern"


def test_a_pattern_that_is_no_string_is_dropped() -> None:
    out, diags = run(spec_with(5))
    assert "pattern" not in out["components"]["schemas"]["M"]["properties"]["a"]
    assert [d.kind for d in diags] == ["drop"]


def test_matches_is_a_search_with_pydantic_semantics() -> None:
    assert patterns.matches("b", "abc")
    assert not patterns.matches("^b", "abc")
    assert patterns.matches("^\\p{L}+$", "héllo")
    assert not patterns.matches("^\\p{L}+$", "h1")
    assert not patterns.matches("(", "(")  # refused patterns match nothing


def test_defaults_are_judged_by_the_same_engine() -> None:
    ok = defaults.run(spec_with("^\\p{L}+$", default="abc"), {})
    assert ok.diagnostics == ()
    bad = defaults.run(spec_with("^\\p{L}+$", default="a1"), {})
    assert [d.kind for d in bad.diagnostics] == ["drop"]
    # a pattern pydantic refuses is not the defaults pass's business
    assert defaults.run(spec_with("^(?=a)", default="b"), {}).diagnostics == ()


def test_always_on() -> None:
    assert patterns.NAME in {p.name for p in ALWAYS} and patterns.NAME not in PASS_NAMES
    with pytest.raises(ApismithError):
        normalize(spec_with("["), {name: False for name in PASS_NAMES})


@pytest.mark.parametrize(
    ("pattern", "rewritten"),
    [
        ("^[\\w\\d-_]+$", "^[\\w\\d\\-_]+$"),
        ("[\\w-.]", "[\\w\\-.]"),
        ("a[^]b", "a[\\s\\S]b"),
        ("^\\0$", "^\\x00$"),
    ],
)
def test_ecma_syntax_rust_spells_otherwise_is_rewritten(pattern: str, rewritten: str) -> None:
    """Valid ECMA-262 (JSON Schema's dialect), refused by both Rust's engine and ``re``."""
    assert not compiles_in_pydantic(pattern)
    out, diags = run(spec_with(pattern))
    assert out["components"]["schemas"]["M"]["properties"]["a"]["pattern"] == rewritten
    assert compiles_in_pydantic(rewritten)
    assert [d.kind for d in diags] == ["warning"]
    assert "rewritten as" in diags[0].message
