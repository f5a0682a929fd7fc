"""AWS-style paths: operations that share a method and a path (``/#X-Amz-Target=Foo``,
``/#X-Amz-Target=Bar``: both ``POST /``) are routed by the constant header or query
parameter that tells them apart, over real HTTP to the generated mock."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import describe, run_cli, write_json
from tests.server.conftest import running


def _header(value: str) -> dict[str, Any]:
    schema = {"type": "string", "enum": [value]}
    return {"name": "X-Amz-Target", "in": "header", "required": True, "schema": schema}


def _answer(ref: str) -> dict[str, Any]:
    content = {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}}
    return {"200": {"description": "ok", "content": content}}


def _object(name: str, kind: str) -> dict[str, Any]:
    return {"type": "object", "properties": {name: {"type": kind}}, "required": [name]}


SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Targets", "version": "1"},
    "paths": {
        # the fragment still in the path, the header given by the spec
        "/#X-Amz-Target=Svc.Foo": {
            "post": {
                "operationId": "Foo",
                "parameters": [_header("Svc.Foo")],
                "responses": _answer("FooOut"),
            }
        },
        # as the normalize step leaves it: no fragment, a required constant header
        "/": {
            "post": {
                "operationId": "Bar",
                "parameters": [_header("Svc.Bar")],
                "responses": _answer("BarOut"),
            }
        },
        "/things/{id}#action=rename": {
            "get": {
                "operationId": "RenameThing",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                    {
                        "name": "action",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string", "enum": ["rename"]},
                    },
                ],
                "responses": _answer("FooOut"),
            }
        },
        "/things/{id}#action=count": {
            "get": {
                "operationId": "CountThing",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                    {
                        "name": "action",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string", "enum": ["count"]},
                    },
                ],
                "responses": _answer("BarOut"),
            }
        },
    },
    "components": {
        "schemas": {"FooOut": _object("foo", "string"), "BarOut": _object("bar", "integer")}
    },
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("dispatch")
    spec = write_json(root / "spec.json", SPEC)
    proc = run_cli("generate", "--spec", spec, "--out", root / "pkg", cwd=root)
    assert proc.returncode == 0, describe(proc)  # the import check reached every operation
    return root, proc.stderr


@pytest.fixture(scope="module")
def url(generated: tuple[Path, str]) -> Any:
    root, _ = generated
    with running([sys.executable, "-m", "pkg.server"], cwd=root, log=root / "log") as base:
        yield base


def test_a_header_picks_the_operation(url: str) -> None:
    foo = httpx.post(f"{url}/", headers={"X-Amz-Target": "Svc.Foo"}, timeout=30)
    bar = httpx.post(f"{url}/", headers={"x-amz-target": "Svc.Bar"}, timeout=30)
    assert foo.status_code == 200 and set(foo.json()) == {"foo"}
    assert bar.status_code == 200 and set(bar.json()) == {"bar"}


def test_a_query_parameter_picks_the_operation(url: str) -> None:
    renamed = httpx.get(f"{url}/things/7?action=rename", timeout=30)
    counted = httpx.get(f"{url}/things/7?action=count", timeout=30)
    assert renamed.status_code == 200 and set(renamed.json()) == {"foo"}
    assert counted.status_code == 200 and set(counted.json()) == {"bar"}


def test_no_or_an_unknown_target_reaches_no_operation(url: str) -> None:
    assert httpx.post(f"{url}/", timeout=30).status_code == 404
    unknown = httpx.post(f"{url}/", headers={"X-Amz-Target": "Svc.Baz"}, timeout=30)
    assert unknown.status_code == 404
    assert httpx.get(f"{url}/things/7?action=other", timeout=30).status_code == 404


def test_the_app_documents_each_operation_at_its_spec_key(url: str) -> None:
    paths = httpx.get(f"{url}/openapi.json", timeout=30).json()["paths"]
    assert set(paths) == {
        "/#X-Amz-Target=Svc.Foo",
        "/#X-Amz-Target=Svc.Bar",
        "/things/{id}#action=rename",
        "/things/{id}#action=count",
    }
    assert paths["/#X-Amz-Target=Svc.Bar"]["post"]["operationId"] == "Bar"


def test_operations_nothing_tells_apart_are_warned_about(tmp_path: Path) -> None:
    plain = {"responses": {"204": {"description": "ok"}}}
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "Same", "version": "1"},
        "paths": {
            "/x#one": {"post": {"operationId": "One", **plain}},
            "/x#two": {"post": {"operationId": "Two", **plain}},
        },
    }
    path = write_json(tmp_path / "spec.json", spec)
    proc = run_cli("generate", "--spec", path, "--out", tmp_path / "pkg", cwd=tmp_path)
    assert "One, Two share POST /x and no required constant header" in proc.stderr, describe(proc)
