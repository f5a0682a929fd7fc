"""The always-on `security` pass: requirements that name undeclared schemes are dropped."""

from __future__ import annotations

from typing import Any

from generator.normalize import security


def _spec(root: Any, op: Any = None) -> dict[str, Any]:
    get: dict[str, Any] = {"responses": {"204": {"description": "ok"}}}
    if op is not None:
        get["security"] = op
    return {
        "openapi": "3.1.0",
        "security": root,
        "paths": {"/a/{b}": {"get": get}},
        "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "k"}}},
    }


def test_declared_names_leave_the_spec_as_it_is() -> None:
    spec = _spec([{"key": []}, {}], [{"key": []}])
    result = security.run(spec, {})
    assert result.spec == spec
    assert result.diagnostics == ()


def test_an_undeclared_scheme_drops_its_alternative_with_a_pointer() -> None:
    spec = _spec([{"key": []}, {"key": [], "api_key": []}], [{"nope": []}])
    result = security.run(spec, {})
    assert result.spec["security"] == [{"key": []}]
    assert result.spec["paths"]["/a/{b}"]["get"]["security"] == []
    assert [(d.kind, d.pointer) for d in result.diagnostics] == [
        ("drop", "#/security/1"),
        ("drop", "#/paths/~1a~1{b}/get/security/0"),
    ]
    assert '"api_key"' in result.diagnostics[0].message
    assert spec["security"][1] == {"key": [], "api_key": []}  # the input is not modified


def test_no_components_at_all() -> None:
    spec = {"openapi": "3.0.0", "security": [{"api_key": []}], "paths": {}}
    result = security.run(spec, {})
    assert result.spec["security"] == []
    assert len(result.diagnostics) == 1
