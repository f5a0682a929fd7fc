"""The `fragments` pass: a ``paths`` key with a ``#fragment`` (AWS) keeps its key, and each
operation under it carries the real path and the constants the fragment names."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from generator.ir import build_ir
from generator.normalize import fragments, normalize
from tests.conftest import describe, run_cli, write_json

SPEC = Path(__file__).resolve().parents[1] / "golden" / "fragment-paths" / "spec.json"
TARGET = "/#X-Amz-Target=DynamoDB_20120810.ListTables"
QUERY = "/#Action=ListUsers&Version=2010-05-08"


def spec() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(SPEC.read_text(encoding="utf-8"))
    return doc


def test_the_operation_carries_the_real_path_and_the_constants() -> None:
    doc = spec()
    original = copy.deepcopy(doc)
    out = fragments.run(doc, {}).spec
    assert doc == original  # the input is not mutated
    assert list(out["paths"]) == list(original["paths"])  # the keys stay unique
    op = out["paths"][TARGET]["post"]
    assert op["x-apismith-path"] == "/"
    assert op["x-apismith-fragment"] == [
        {"in": "header", "name": "X-Amz-Target", "value": "DynamoDB_20120810.ListTables"}
    ]
    assert op["parameters"] == [
        {
            "name": "X-Amz-Target",
            "in": "header",
            "required": True,
            "description": "Always 'DynamoDB_20120810.ListTables': names the operation "
            "(the path's fragment).",
            "schema": {
                "type": "string",
                "const": "DynamoDB_20120810.ListTables",
                "default": "DynamoDB_20120810.ListTables",
            },
        }
    ]
    query = out["paths"][QUERY]["get"]
    assert [(c["in"], c["name"], c["value"]) for c in query["x-apismith-fragment"]] == [
        ("query", "Action", "ListUsers"),
        ("query", "Version", "2010-05-08"),
    ]


def test_a_declared_parameter_is_kept_and_gets_its_value_as_default() -> None:
    op = fragments.run(spec(), {}).spec["paths"]["/#X-Amz-Target=DynamoDB_20120810.DescribeTable"][
        "post"
    ]
    assert len(op["parameters"]) == 1
    assert op["parameters"][0]["schema"]["default"] == "DynamoDB_20120810.DescribeTable"


def test_a_raw_x_apismith_path_is_never_taken() -> None:
    doc = spec()
    doc["paths"]["/other"] = {
        "get": {"x-apismith-path": "https://evil.example/", "responses": {"204": {}}}
    }
    doc["paths"][TARGET]["post"]["x-apismith-path"] = "/elsewhere"
    out = fragments.run(doc, {}).spec
    assert "x-apismith-path" not in out["paths"]["/other"]["get"]
    assert out["paths"][TARGET]["post"]["x-apismith-path"] == "/"


def test_the_ir_has_the_fragment_free_path() -> None:
    api = build_ir(normalize(spec()).spec)
    assert {op.operation_id: op.path for op in api.operations} == {
        "ListTables": "/",
        "DescribeTable": "/",
        "ListUsers": "/",
    }


def test_a_fragment_is_no_part_of_the_path_check(tmp_path: Path) -> None:
    """The load stage's check of a path (no parameter twice) reads the key before ``#``."""
    doc = spec()
    path_id = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
    doc["paths"]["/items/{id}#Action={id}{id}"] = {
        "get": {"parameters": [path_id], "responses": {"204": {"description": "None."}}}
    }
    write_json(tmp_path / "spec.json", doc)
    proc = run_cli("generate", "--spec", "spec.json", "--out", "out/pkg", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    doc["paths"] = {"/items/{id}/{id}#x": {"get": {"responses": {"204": {}}}}}
    write_json(tmp_path / "spec.json", doc)
    proc = run_cli("generate", "--spec", "spec.json", "--out", "out/pkg", cwd=tmp_path)
    assert proc.returncode == 2 and "twice" in proc.stderr, describe(proc)


def test_a_query_in_the_key_is_sent_as_query_parameters(tmp_path: Path) -> None:
    """ClickSend's ``/email/history/export?filename={filename}`` (``filename`` declared
    ``in: path``): the real path is the key before ``?``, the templated pair moves that
    parameter to the query, a constant pair is a query parameter with its one value; the
    generated client reaches the mock (the import check calls every operation)."""
    key = "/export?filename={filename}&format=csv"
    param = {"name": "filename", "in": "path", "required": True, "schema": {"type": "string"}}
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "Query keys", "version": "1"},
        "paths": {
            key: {
                "get": {
                    "operationId": "export",
                    "parameters": [param],
                    "responses": {"200": {"description": "ok"}},
                }
            },
            "/other/{id}?view=full": {
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "get": {"operationId": "other", "responses": {"204": {"description": "ok"}}},
                "delete": {"operationId": "drop", "responses": {"204": {"description": "ok"}}},
            },
        },
    }
    out = fragments.run(doc, {}).spec
    op = out["paths"][key]["get"]
    assert op["x-apismith-path"] == "/export"
    assert {(p["in"], p["name"]) for p in op["parameters"]} == {
        ("query", "filename"),
        ("query", "format"),
    }
    assert [p["schema"].get("const") for p in op["parameters"] if p["name"] == "format"] == ["csv"]
    other = out["paths"]["/other/{id}?view=full"]
    assert other["get"]["x-apismith-path"] == other["delete"]["x-apismith-path"] == "/other/{id}"
    api = build_ir(normalize(doc).spec)
    assert sorted(o.path for o in api.operations) == ["/export", "/other/{id}", "/other/{id}"]
    for o in api.operations:
        assert o.path == "/export" or [p.name for p in o.parameters if p.location == "path"] == [
            "id"
        ]
    spec_file = write_json(tmp_path / "spec.json", doc)
    proc = run_cli("generate", "--spec", spec_file, "--out", tmp_path / "pkg", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)


def test_a_question_mark_inside_a_parameter_name_is_no_query() -> None:
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {"/items/{?}": {"get": {"responses": {"200": {"description": "ok"}}}}},
    }
    out = fragments.run(doc, {}).spec
    assert "x-apismith-path" not in out["paths"]["/items/{?}"]["get"]
    assert fragments.requested_path("/items/{?}", out["paths"]["/items/{?}"]["get"]) == "/items/{?}"


def test_an_empty_path_segment_is_requested_without_it() -> None:
    """Clever Cloud's ``//openapi`` and ``/vendor//apps``: no server routes an empty
    segment; a key whose collapsed form is another key keeps its own."""
    ok = {"responses": {"200": {"description": "ok"}}}
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "//openapi": {"get": ok},
            "/vendor//apps": {"post": ok},
            "/a//b": {"get": ok},
            "/a/b": {"get": ok},
        },
    }
    result = fragments.run(doc, {})
    paths = result.spec["paths"]
    assert paths["//openapi"]["get"][fragments.PATH] == "/openapi"
    assert paths["/vendor//apps"]["post"][fragments.PATH] == "/vendor/apps"
    assert fragments.PATH not in paths["/a//b"]["get"]
    api = build_ir(result.spec)
    assert sorted(op.path for op in api.operations) == ["/a//b", "/a/b", "/openapi", "/vendor/apps"]
    assert [d.message for d in result.diagnostics] == [
        "path '//openapi' is requested as '/openapi'",
        "path '/vendor//apps' is requested as '/vendor/apps'",
    ]
