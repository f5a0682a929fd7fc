"""Structured query and header parameters (objects, lists of objects) are read by their
``style`` and ``explode`` and validated with their models, over real HTTP: a generated
package, a service of the user's, uvicorn on 127.0.0.1."""

from __future__ import annotations

import sys
from typing import Any

import httpx
import pytest

from tests.conftest import describe, run_cli, write_json
from tests.server.conftest import running

POINT = {"$ref": "#/components/schemas/Point"}
SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Styles", "version": "1"},
    "paths": {
        "/items": {
            "get": {
                "operationId": "listItems",
                "parameters": [
                    {
                        "name": "filter",
                        "in": "query",
                        "style": "deepObject",
                        "explode": True,
                        "schema": {"$ref": "#/components/schemas/Filter"},
                    },
                    {"name": "point", "in": "query", "schema": POINT},
                    {"name": "box", "in": "query", "explode": False, "schema": POINT},
                    {
                        "name": "pipe",
                        "in": "query",
                        "style": "pipeDelimited",
                        "explode": False,
                        "schema": POINT,
                    },
                    {"name": "points", "in": "query", "schema": {"type": "array", "items": POINT}},
                    {
                        "name": "tags",
                        "in": "query",
                        "schema": {"type": "object", "additionalProperties": {"type": "string"}},
                    },
                    {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                    {"name": "X-Meta", "in": "header", "schema": POINT},
                    {"name": "X-Flat", "in": "header", "explode": True, "schema": POINT},
                ],
                "responses": {
                    "200": {
                        "description": "what the service received",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        },
        "/required": {
            "get": {
                "operationId": "needsFilter",
                "parameters": [
                    {
                        "name": "filter",
                        "in": "query",
                        "required": True,
                        "style": "deepObject",
                        "schema": {"$ref": "#/components/schemas/Filter"},
                    },
                ],
                "responses": {"204": {"description": "ok"}},
            }
        },
    },
    "components": {
        "schemas": {
            "Filter": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
            },
            "Point": {
                "type": "object",
                "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
            },
        }
    },
}

SERVICE = """
from typing import Any

from pydantic import BaseModel

from pkg.server import BaseService, create_app


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(exclude_none=True)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class Echo(BaseService):
    async def items_retrieve(self, **kwargs: Any) -> Any:
        return {k: _plain(v) for k, v in kwargs.items() if v is not None}

    async def required_list(self, **kwargs: Any) -> None:
        return None


app = create_app(Echo())
"""


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("styles")
    spec = write_json(root / "spec.json", SPEC)
    proc = run_cli("generate", "--spec", spec, "--out", root / "pkg", cwd=root)
    assert proc.returncode == 0, describe(proc)
    (root / "echo_app.py").write_text(SERVICE, encoding="utf-8")
    command = [sys.executable, "-m", "uvicorn", "echo_app:app"]
    with running(command, cwd=root, log=root / "log") as base:
        yield base


def _get(url: str, query: str, **headers: str) -> httpx.Response:
    return httpx.get(f"{url}/items?{query}", headers=headers, timeout=30)


def test_deep_object(url: str) -> None:
    assert _get(url, "filter[a]=1&filter[b]=x").json() == {"filter": {"a": 1, "b": "x"}}


def test_form_exploded_object_is_its_properties(url: str) -> None:
    assert _get(url, "x=1&y=2&limit=5").json() == {"point": {"x": 1, "y": 2}, "limit": 5}


def test_form_and_pipe_delimited_objects(url: str) -> None:
    got = _get(url, "box=x,3,y,4&pipe=x|5|y|6").json()
    assert got == {"box": {"x": 3, "y": 4}, "pipe": {"x": 5, "y": 6}}


def test_list_of_objects_one_json_object_a_value(url: str) -> None:
    got = _get(url, 'points={"x":1}&points={"x":2,"y":3}').json()
    assert got == {"points": [{"x": 1}, {"x": 2, "y": 3}]}


def test_open_exploded_object_takes_the_other_keys(url: str) -> None:
    """A map's properties are the query keys no other parameter claims."""
    got = _get(url, "colour=red&limit=2").json()
    assert got == {"tags": {"colour": "red"}, "limit": 2}


def test_header_objects(url: str) -> None:
    got = _get(url, "", **{"X-Meta": "x,1,y,2", "X-Flat": "x=3,y=4"}).json()
    assert got == {"x_meta": {"x": 1, "y": 2}, "x_flat": {"x": 3, "y": 4}}


def test_invalid_values_are_a_422_naming_the_parameter(url: str) -> None:
    answer = _get(url, "filter[a]=many")
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["query", "filter", "a"]
    odd = _get(url, "box=x,1,y")  # not pairs
    assert odd.status_code == 422 and odd.json()["detail"][0]["loc"][:2] == ["query", "box"]


def test_a_required_structured_parameter(url: str) -> None:
    missing = httpx.get(f"{url}/required", timeout=30)
    assert missing.status_code == 422
    assert missing.json()["detail"] == [
        {"type": "missing", "loc": ["query", "filter"], "msg": "Field required", "input": None}
    ]
    assert httpx.get(f"{url}/required?filter[a]=1", timeout=30).status_code == 204


def test_the_parameters_are_documented(url: str) -> None:
    doc = httpx.get(f"{url}/openapi.json", timeout=30).json()
    params = {p["name"]: p for p in doc["paths"]["/items"]["get"]["parameters"]}
    assert set(params) == {p["name"] for p in SPEC["paths"]["/items"]["get"]["parameters"]}
    assert params["filter"]["style"] == "deepObject" and params["box"]["explode"] is False
    assert params["X-Meta"]["in"] == "header"
