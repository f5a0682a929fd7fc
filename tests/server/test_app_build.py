"""The import check builds the mock app and sends it one request per operation: a package
whose app does not build, or whose mock crashes or answers 500, is never reported as
generated. And the three FastAPI refusals that used to stop the app from building
(a path parameter's default, a structured query parameter, a body on 204/304) are gone:
those packages generate, warn, and their mock serves over real HTTP."""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from generator.tree import builtin_templates
from tests.conftest import describe, run_cli, write_json
from tests.server.conftest import running

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def _generate(tmp_path: Path, spec: dict[str, Any] | Path, *extra: str | Path) -> Any:
    path = spec if isinstance(spec, Path) else write_json(tmp_path / "spec.json", spec)
    return run_cli("generate", "--spec", path, "--out", tmp_path / "pkg", *extra, cwd=tmp_path)


def _item_spec() -> dict[str, Any]:
    item = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
    return {
        "openapi": "3.0.3",
        "components": {"schemas": {"Item": item}},
        "info": {"title": "Items", "version": "1"},
        "paths": {
            "/items/{item_id}": {
                "get": {
                    "operationId": "getItem",
                    "parameters": [
                        {
                            "name": "item_id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        }
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Item"}
                                }
                            },
                        }
                    },
                }
            }
        },
    }


@pytest.mark.parametrize("case", ["path-param-default", "complex-query", "no-body-204"])
def test_refused_by_fastapi_before_now_generates_and_serves(tmp_path: Path, case: str) -> None:
    spec = GOLDEN / case / "spec.json"
    proc = _generate(tmp_path, spec)
    assert proc.returncode == 0, describe(proc)
    with running([sys.executable, "-m", "pkg.server"], cwd=tmp_path, log=tmp_path / "log") as url:
        paths = httpx.get(f"{url}/openapi.json").json()["paths"]
        assert sorted(paths) == sorted(json.loads(spec.read_text())["paths"])
        if case == "path-param-default":
            answer = httpx.get(f"{url}/items/xyz")
            assert answer.status_code == 200 and answer.json()["item_id"] == "xyz"
            assert "'item_id' has a default ('abc')" in proc.stderr
            assert "#/paths/~1items~1{item_id}/get" in proc.stderr
        elif case == "complex-query":
            query = "filter[a]=1&filter[b]=x&x=1&y=2&box=x,3,y,4&points=%7B%22x%22%3A1%7D"
            assert httpx.get(f"{url}/items?{query}").status_code == 200
            bad = httpx.get(f"{url}/items?filter[a]=not-a-number")
            assert bad.status_code == 422, bad.text
            assert bad.json()["detail"][0]["loc"] == ["query", "filter", "a"]
        else:
            deleted = httpx.delete(f"{url}/items/a")
            assert deleted.status_code == 204 and deleted.content == b""
            assert "/delete/responses/204" in proc.stderr and "/get/responses/304" in proc.stderr
            documented = paths["/items/{id}"]["delete"]["responses"]["204"]
            assert "content" not in documented


def _override(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A template folder overriding ``server/<name>`` with ``old`` replaced by ``new``."""
    folder = tmp_path / "templates"
    (folder / "server").mkdir(parents=True)
    text = (builtin_templates() / "server" / name).read_text(encoding="utf-8")
    assert old in text
    (folder / "server" / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def test_a_mock_answering_500_fails_generation_naming_the_operation(tmp_path: Path) -> None:
    # the mock answers a body its response model refuses (FastAPI: a 500)
    templates = _override(
        tmp_path,
        "mock.py.jinja",
        '    """Answers every operation from the mock tables, through a :class:`MockEngine`."""',
        '    """Answers every operation from the mock tables, through a :class:`MockEngine`."""\n\n'
        "    async def items_retrieve(self, **kwargs: Any) -> Any:\n"
        '        return {"id": 5}',
    )
    proc = _generate(tmp_path, _item_spec(), "--templates", templates)
    assert proc.returncode == 1, describe(proc)
    assert "generated mock fails: get_item (GET /items/" in proc.stderr, proc.stderr
    assert "ResponseValidationError" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "pkg").exists()


def test_a_mock_that_crashes_fails_generation(tmp_path: Path) -> None:
    templates = _override(
        tmp_path,
        "mock.py.jinja",
        '    """Answers every operation from the mock tables, through a :class:`MockEngine`."""',
        '    """Answers every operation from the mock tables, through a :class:`MockEngine`."""\n\n'
        "    async def items_retrieve(self, **kwargs: Any) -> Any:\n"
        '        raise RuntimeError("boom")',
    )
    proc = _generate(tmp_path, _item_spec(), "--templates", templates)
    assert proc.returncode == 1, describe(proc)
    assert "get_item (GET /items/" in proc.stderr and "RuntimeError: boom" in proc.stderr


def test_an_app_that_does_not_build_fails_generation(tmp_path: Path) -> None:
    templates = _override(
        tmp_path,
        "server_resource.py.jinja",
        "        status_code={{ r.status_code }},",
        "        status_code=204,",
    )
    proc = _generate(tmp_path, _item_spec(), "--templates", templates)
    assert proc.returncode == 1, describe(proc)
    assert "generated server app does not build" in proc.stderr
    assert "Status code 204 must not have a response body" in proc.stderr


def test_an_unrouted_operation_fails_generation(tmp_path: Path) -> None:
    templates = _override(
        tmp_path,
        "server_resource.py.jinja",
        "        {{ r.path | pyrepr }},",
        '        "/elsewhere",',
    )
    proc = _generate(tmp_path, _item_spec(), "--templates", templates)
    assert proc.returncode == 1, describe(proc)
    assert "get_item (GET /items/" in proc.stderr and "reaches no route (404)" in proc.stderr


def test_every_operation_of_a_real_spec_is_probed(tmp_path: Path) -> None:
    """The probes reach the operations: on llm-engine, every one but the upload (a
    multipart body, not sent) answers 2xx."""
    from generator.config import adhoc_config
    from generator.import_check import verify_import
    from generator.pipeline import generate

    spec = Path(__file__).resolve().parents[2] / "specs" / "llm-engine" / "openapi.json"
    result = generate(adhoc_config(spec, tmp_path / "pkg", package="pkg"))
    statuses: list[int] = []
    original = httpx.AsyncClient.request

    async def request(self: httpx.AsyncClient, *args: Any, **kwargs: Any) -> httpx.Response:
        response = await original(self, *args, **kwargs)
        statuses.append(response.status_code)
        return response

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(httpx.AsyncClient, "request", request)
        verify_import(tmp_path / "pkg", result.files, probes=result.probes)
    operations = json.loads(result.files["openapi.json"])["paths"]
    count = sum(len([m for m in item if m != "parameters"]) for item in operations.values())
    assert len(result.probes) == len(statuses) == count
    assert sum(200 <= s < 300 for s in statuses) >= count - 1, statuses
    shutil.rmtree(tmp_path / "pkg", ignore_errors=True)


def test_an_empty_title_and_version_still_build_the_apps(tmp_path: Path) -> None:
    """FastAPI refuses an app without a title or a version (Facebook's Graph spec, as
    api-spec-converter writes it, has ``info: {title: "", version: ""}``)."""
    spec = _item_spec()
    spec["info"] = {"title": "", "version": ""}
    proc = _generate(tmp_path, spec)
    assert proc.returncode == 0, describe(proc)
    text = (tmp_path / "pkg" / "server.py").read_text(encoding="utf-8")
    assert 'API_VERSION = "unversioned"' in text and 'API_TITLE = "pkg"' in text


def test_a_literal_path_is_reached_before_a_parameter_takes_it(tmp_path: Path) -> None:
    """``/items/{item_id}`` first in the spec would take ``/items/search``: the route with
    the literal segment is registered first (Instagram's ``/media/{media_id}`` and
    ``/media/search``), and both answer."""
    spec = _item_spec()
    ok = {
        "200": {
            "description": "ok",
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    }
    spec["paths"]["/items/search"] = {"get": {"operationId": "searchItems", "responses": ok}}
    proc = _generate(tmp_path, spec)
    assert proc.returncode == 0, describe(proc)
    from tests.server.test_mock_promises import serve

    sys.path.insert(0, str(tmp_path))
    try:
        mock = importlib.import_module("pkg.mock")
        with serve(mock.create_mock_app()) as url:
            assert httpx.get(f"{url}/items/search").status_code == 200
            assert httpx.get(f"{url}/items/i1").status_code == 200
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[name]
