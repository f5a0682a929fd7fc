"""Tests of the always-on `identifiers` pass and the one identifier validator
(``naming.identifier_problem``): spec-supplied names are checked, never trusted."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from generator.errors import ApismithError
from generator.ir import build_ir
from generator.normalize import ALWAYS, PASS_NAMES, identifiers, normalize
from generator.normalize.diagnostics import Diagnostic
from generator.normalize.naming import (
    field_python_names,
    identifier_problem,
    is_safe_field_name,
    is_valid_class_name,
    is_valid_method_name,
    take_name,
)
from generator.render.models.dcg import field_aliases

ROOT = Path(__file__).resolve().parents[2]
INJECT = "x=__import__('os').system('touch PWNED'), y='''"


def openapi(
    schemas: dict[str, Any] | None = None, paths: dict[str, Any] | None = None
) -> dict[str, Any]:
    doc: dict[str, Any] = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}}
    doc["paths"] = paths or {}
    if schemas is not None:
        doc["components"] = {"schemas": schemas}
    return doc


def run(spec: dict[str, Any]) -> tuple[dict[str, Any], list[Diagnostic]]:
    before = copy.deepcopy(spec)
    result = identifiers.run(spec, {})
    assert spec == before, "the pass mutated its input"
    assert identifiers.run(spec, {}) == result, "the pass is not deterministic"
    return result.spec, list(result.diagnostics)


def param(name: str, where: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "in": where, "required": where == "path", "schema": {"type": "string"}}


# --- the validator ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "scope", "ok"),
    [
        ("user_id", "parameter", True),
        ("userId", "parameter", True),
        ("UserId", "parameter", False),  # would shadow an imported class
        ("_private", "parameter", False),
        ("class", "parameter", False),
        ("match", "parameter", True),  # soft keywords are valid names
        ("cast", "parameter", False),  # the client's body calls cast()
        ("path_param", "parameter", False),
        ("models", "parameter", False),
        ("ñame", "parameter", False),  # PEP 3131, but NFKC-normalized: ASCII only
        ("ｆｏｏ", "parameter", False),
        ("a b", "parameter", False),
        ("a # b", "parameter", False),
        (INJECT, "parameter", False),
        ("", "parameter", False),
        (5, "parameter", False),
        (None, "field", False),
        ("model_config", "field", False),
        ("model_dump_x", "field", False),
        ("type", "field", True),
        ("Type", "field", True),
        ("router", "method", False),  # routes are nested functions of create_router
        ("require_credentials_1", "method", False),
        ("list_items", "method", True),
        ("Pet", "class", True),
        ("pet", "class", False),
        ("BaseModel", "class", False),
        ("None", "class", False),
    ],
)
def test_identifier_problem(name: Any, scope: Any, ok: bool) -> None:
    assert (identifier_problem(name, scope) is None) is ok


def test_naming_rules_use_the_validator() -> None:
    assert not is_safe_field_name("model_config") and is_safe_field_name("ok")
    assert not is_valid_method_name("service") and is_valid_method_name("get_pet")
    assert not is_valid_class_name("Field") and is_valid_class_name("Pet")


def test_take_name() -> None:
    taken: set[str] = set()
    assert take_name("ok", "derived", "parameter", taken) == ("ok", None)
    assert take_name("ok", "ok", "parameter", taken) == ("ok_2", "already used")
    assert take_name(INJECT, "x", "parameter", taken)[0] == "x"
    assert take_name(None, "cast", "parameter", taken) == ("cast_", None)
    assert taken == {"ok", "ok_2", "x", "cast_"}


def test_field_python_names() -> None:
    props = {
        "a": {"x-python-name": "same"},
        "b": {"x-python-name": "same"},
        "c": {"x-python-name": "d"},  # another field's wire name
        "d": {},
        "class": {},
        "e": {"x-python-name": INJECT},
        "f": {"x-python-name": 5},
    }
    names = field_python_names(props)
    assert {w: n for w, (n, _) in names.items()} == {
        "a": "same",
        "b": "b",
        "c": "c",
        "d": "d",
        "class": "class_",
        "e": "e",
        "f": "f",
    }
    assert names["b"][1] == "already used by another field"
    assert names["e"][1] == "not an ASCII Python identifier"
    assert names["f"][1] == "not a string but int"


# --- the pass --------------------------------------------------------------------------------


def test_injected_parameter_names_are_removed() -> None:
    p = {**param("p", "path"), "x-python-name": INJECT}
    q = {**param("q", "query"), "x-python-name": "w=''', **z"}
    ok = {**param("r", "query"), "x-python-name": "rr"}
    spec = openapi(paths={"/a/{p}": {"get": {"parameters": [p, q, ok], "responses": {}}}})
    out, diags = run(spec)
    params = out["paths"]["/a/{p}"]["get"]["parameters"]
    assert ["x-python-name" in x for x in params] == [False, False, True]
    assert [d.pointer for d in diags] == [
        "#/paths/~1a~1{p}/get/parameters/0",
        "#/paths/~1a~1{p}/get/parameters/1",
    ]
    assert all(d.kind == "warning" and "not usable" in d.message for d in diags)
    assert '"x=__import__' in diags[0].message, "spec text is quoted in the message"
    api = build_ir(out)
    assert [p.python_name for p in api.operations[0].parameters] == ["p", "q", "rr"]


def test_shared_parameter_checked_once() -> None:
    shared = {**param("p", "query"), "x-python-name": "a b"}
    spec = openapi(paths={"/a": {"parameters": [shared], "get": {}, "post": {}}})
    out, diags = run(spec)
    assert len(diags) == 1
    assert "x-python-name" not in out["paths"]["/a"]["parameters"][0]


def test_duplicate_parameter_names_are_reported() -> None:
    a = {**param("a", "query"), "x-python-name": "same"}
    b = {**param("b", "query"), "x-python-name": "same"}
    spec = openapi(paths={"/a": {"get": {"parameters": [a, b]}}})
    out, diags = run(spec)
    assert [d.new for d in diags] == ["b"]
    assert [p.python_name for p in build_ir(out).operations[0].parameters] == ["same", "b"]


def test_injected_field_names_are_replaced() -> None:
    props = {
        "a": {"type": "string", "x-python-name": INJECT},
        "b": {"type": "string", "x-python-name": "a # comment"},
        "c": {"type": "string", "x-python-name": "ok"},
    }
    out, diags = run(openapi({"M": {"type": "object", "properties": props}}))
    got = out["components"]["schemas"]["M"]["properties"]
    assert [got[w]["x-python-name"] for w in "abc"] == ["a", "b", "ok"]
    assert [d.kind for d in diags] == ["warning", "warning"]
    assert field_aliases(out) == {"M.a": "a", "M.b": "b", "M.c": "ok"}


def test_unsafe_wire_names_get_an_alias_when_names_is_off() -> None:
    spec = openapi({"M": {"type": "object", "properties": {"class": {"type": "string"}}}})
    out, diags = run(spec)
    assert out["components"]["schemas"]["M"]["properties"]["class"]["x-python-name"] == "class_"
    assert [d.kind for d in diags] == ["alias"]


def test_operation_names() -> None:
    spec = openapi(
        paths={
            "/a": {
                "get": {"operationId": "getA", "x-apismith-name": f"f(): {INJECT}"},
                "post": {"x-apismith-name": "class"},
                "put": {"x-apismith-name": "router"},
                "delete": {"x-apismith-name": "ok"},
                "patch": {"x-apismith-name": "ok"},
            }
        }
    )
    out, diags = run(spec)
    item = out["paths"]["/a"]
    assert [item[m]["x-apismith-name"] for m in ("get", "put", "post", "delete", "patch")] == [
        "get_a",
        "put_a",
        "post_a",
        "ok",
        "patch_a",
    ]
    assert len(diags) == 4
    assert [o.python_name for o in build_ir(out).operations] == [
        "get_a",
        "put_a",
        "post_a",
        "ok",
        "patch_a",
    ]


def test_undeclared_path_parameters_are_declared() -> None:
    spec = openapi(
        paths={
            "/users/{id}/{x}": {
                "parameters": [param("x", "path")],
                "get": {"responses": {}},
                "post": {"parameters": [param("id", "path")]},
            }
        }
    )
    out, diags = run(spec)
    get = out["paths"]["/users/{id}/{x}"]["get"]
    assert get["parameters"] == [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
    ]
    assert "parameters" not in spec["paths"]["/users/{id}/{x}"]["get"]
    assert len(out["paths"]["/users/{id}/{x}"]["post"]["parameters"]) == 1
    assert [d.pointer for d in diags] == ["#/paths/~1users~1{id}~1{x}/get"]
    assert "not declared" in diags[0].message
    op = build_ir(out).operations[0]
    assert [(p.name, p.location, p.required) for p in op.parameters] == [
        ("x", "path", True),
        ("id", "path", True),
    ]


def test_invalid_schema_names_are_an_error_without_the_names_pass() -> None:
    spec = openapi({"Foo-Bar": {"type": "object"}})
    with pytest.raises(ApismithError) as info:
        run(spec)
    assert info.value.pointer == "#/components/schemas/Foo-Bar"
    assert info.value.exit_code == 2
    # with the names pass, the same spec is fine
    assert list(normalize(spec).spec["components"]["schemas"]) == ["FooBar"]


def test_errors_name_the_spec_file(tmp_path: Path) -> None:
    spec = openapi({"Foo-Bar": {"type": "object"}})
    with pytest.raises(ApismithError) as info:
        normalize(spec, {"names": False}, source=tmp_path / "spec.json")
    assert info.value.file and info.value.file.endswith("spec.json")


def test_always_on() -> None:
    assert identifiers.NAME in {p.name for p in ALWAYS}
    assert identifiers.NAME not in PASS_NAMES
    spec = openapi({"M": {"type": "object", "properties": {"a": {"x-python-name": INJECT}}}})
    out = normalize(spec, {name: False for name in PASS_NAMES}).spec
    assert out["components"]["schemas"]["M"]["properties"]["a"]["x-python-name"] == "a"


def test_nothing_to_fix_returns_the_spec_unchanged() -> None:
    for rel in ("llm-engine/openapi.json", "sgp/openapi.json"):
        normalized = normalize(json.loads((ROOT / "specs" / rel).read_text())).spec
        result = identifiers.run(normalized, {})
        assert result.diagnostics == ()
        assert result.spec == normalized


def test_ir_refuses_unvalidated_names_of_a_raw_spec() -> None:
    """The IR applies the same validator to a spec that skipped normalization."""
    spec = openapi(
        {"M": {"type": "object", "properties": {"a": {"x-python-name": INJECT}, "class": {}}}},
        {
            "/a/{p}": {
                "get": {
                    "x-apismith-name": INJECT,
                    "operationId": "getA",
                    "parameters": [{**param("p", "path"), "x-python-name": INJECT}],
                }
            }
        },
    )
    api = build_ir(spec)
    assert [f.python_name for f in api.models[0].fields] == ["a", "class_"]
    assert api.operations[0].python_name == "get_a"
    assert api.operations[0].parameters[0].python_name == "p"
