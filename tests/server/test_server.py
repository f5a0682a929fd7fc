"""The generated FastAPI server: fidelity with the spec, security, streaming, uploads, the
mock service, user code surviving regeneration, and the render context."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from fastapi import Request

from tests.conftest import GENERATED, SPECS, describe, run_cli, run_python
from tests.server.conftest import AUTH_HEADERS, SERVED, server_modules
from tests.server.fidelity import mismatches

PACKAGES = sorted(SERVED.values())


def app_of(package: str) -> Any:
    server, mock = server_modules(package)
    return server.create_app(mock.MockService())


def client_of(package: str) -> Any:
    from fastapi.testclient import TestClient

    return TestClient(app_of(package))


# --- fidelity ---------------------------------------------------------------------------------


@pytest.mark.parametrize("package", PACKAGES)
def test_app_openapi_matches_the_spec(package: str) -> None:
    """paths, methods, operationIds, parameters, bodies, responses per status, security:
    every mismatch is listed (allowed differences: see fidelity.py and docs/server.md)."""
    spec = json.loads((GENERATED / package / "openapi.json").read_text(encoding="utf-8"))
    found = mismatches(spec, app_of(package).openapi())
    assert not found, "\n".join(found[:50])


def test_fidelity_reports_mismatches() -> None:
    """Negative control: the comparison does see differences."""
    spec = json.loads((GENERATED / "llm_engine" / "openapi.json").read_text(encoding="utf-8"))
    app = json.loads(json.dumps(app_of("llm_engine").openapi()))
    op = app["paths"]["/v1/llm/completions-sync"]["post"]
    op["parameters"][0]["required"] = False
    op["responses"]["200"]["content"]["application/json"]["schema"] = {"type": "string"}
    del app["paths"]["/healthz"]
    app["paths"]["/v2/chat/completions"]["post"]["security"] = [
        {"HTTPBasic": [], "OAuth2PasswordBearer": []}
    ]
    found = "\n".join(mismatches(spec, app))
    assert "GET /healthz: missing from the app" in found
    where = "POST /v1/llm/completions-sync"
    assert f"{where}: parameter ('model_endpoint_name', 'query') required" in found
    assert "POST /v1/llm/completions-sync: response 200" in found
    assert "POST /v2/chat/completions: security" in found


# --- behaviour --------------------------------------------------------------------------------


def test_llm_engine_security_alternatives() -> None:
    """Basic OR bearer: either one alone is enough; none is 401."""
    client = client_of("llm_engine")
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    assert client.post("/v2/chat/completions", json=body).status_code == 401
    assert client.post("/v2/chat/completions", json=body, auth=("u", "p")).status_code == 200
    bearer = {"Authorization": "Bearer t"}
    assert client.post("/v2/chat/completions", json=body, headers=bearer).status_code == 200
    assert client.get("/healthcheck").status_code == 200  # anonymous operation


def test_sgp_api_key_and_overridable_verification() -> None:
    from fastapi import HTTPException

    server, _mock = server_modules("sgp")
    app = app_of("sgp")
    from fastapi.testclient import TestClient

    client = TestClient(app)
    assert client.get("/v4/knowledge-bases").status_code == 401
    assert client.get("/v4/knowledge-bases", headers={"x-api-key": "k"}).status_code == 200

    async def only_secret(request: Request) -> None:
        credentials = server.current_credentials(request)
        if credentials.schemes.get("APIKeyHeader") != "secret":
            raise HTTPException(status_code=403, detail="bad key")

    app.dependency_overrides[server.verify_credentials] = only_secret
    assert client.get("/v4/knowledge-bases", headers={"x-api-key": "k"}).status_code == 403
    assert client.get("/v4/knowledge-bases", headers={"x-api-key": "secret"}).status_code == 200


def test_chat_completions_json_and_sse() -> None:
    """The acceptance check: a valid body, and SSE with ``stream: true``."""
    _server, _mock = server_modules("llm_engine")
    from llm_engine import models  # type: ignore[import-not-found]

    client = client_of("llm_engine")
    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    headers = AUTH_HEADERS["llm_engine"]
    answer = client.post("/v2/chat/completions", json=body, headers=headers)
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    models.CreateChatCompletionResponse.model_validate(answer.json())
    streamed = client.post("/v2/chat/completions", json={**body, "stream": True}, headers=headers)
    assert streamed.status_code == 200
    assert streamed.headers["content-type"].startswith("text/event-stream")
    events = [line.removeprefix("data: ") for line in streamed.text.splitlines() if line]
    assert events[-1] == "[DONE]" and len(events) >= 3
    for event in events[:-1]:
        models.CreateChatCompletionStreamResponse.model_validate_json(event)


def test_always_streaming_operation() -> None:
    _server, _mock = server_modules("llm_engine")
    from llm_engine import models  # type: ignore[import-not-found]

    client = client_of("llm_engine")
    answer = client.post(
        "/v1/llm/completions-stream",
        params={"model_endpoint_name": "e"},
        json={"prompt": "hi", "max_new_tokens": 1, "temperature": 0.5},
        headers=AUTH_HEADERS["llm_engine"],
    )
    # LLM Engine's v1 stream has no terminator (terminator = "none" in its config)
    assert answer.status_code == 200, answer.text
    events = [line[6:] for line in answer.text.splitlines() if line.startswith("data: ")]
    assert len(events) == 3 and "[DONE]" not in answer.text
    chunks = [models.CompletionStreamV1Response.model_validate_json(e) for e in events]
    assert all(c.output is not None and c.output.text for c in chunks)
    assert len(set(events)) == 3  # distinct chunks


@pytest.mark.parametrize(
    ("package", "path", "files", "data"),
    [
        ("llm_engine", "/v1/files", [("file", ("a.txt", b"hello"))], {}),
        (
            "sgp",
            "/v4/applications/upload-files",
            [("files", ("a.txt", b"x")), ("files", ("b.txt", b"y"))],
            {},
        ),
    ],
)
def test_uploads(package: str, path: str, files: list[Any], data: dict[str, str]) -> None:
    answer = client_of(package).post(path, files=files, data=data, headers=AUTH_HEADERS[package])
    assert answer.status_code == 200, answer.text


def test_parameters_are_validated() -> None:
    """Constraints from the spec reach FastAPI (SGP's limit has a minimum)."""
    client = client_of("sgp")
    headers = AUTH_HEADERS["sgp"]
    assert (
        client.get("/v4/knowledge-bases", params={"limit": 0}, headers=headers).status_code == 422
    )
    assert (
        client.get("/v4/knowledge-bases", params={"limit": 1}, headers=headers).status_code == 200
    )


def test_base_service_answers_501() -> None:
    from fastapi.testclient import TestClient

    server, _mock = server_modules("llm_engine")
    client = TestClient(server.create_app(server.BaseService()))
    answer = client.get("/v1/files", headers=AUTH_HEADERS["llm_engine"])
    assert answer.status_code == 501


def test_no_server_without_operations() -> None:
    assert not (GENERATED / "sgp_chat_request" / "server.py").exists()


def test_package_init_does_not_import_the_server() -> None:
    for package in PACKAGES:
        text = (GENERATED / package / "__init__.py").read_text(encoding="utf-8")
        assert "server" not in text.split('"""')[-1] and "fastapi" not in text


# --- user code survives regeneration ------------------------------------------------------------

USER_MODULE = '''
"""A user's service: two operations overridden, the rest from the mock."""
from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from llm_engine import models
from llm_engine.mock import MockService


class MyService(MockService):
    async def health_check(self) -> Any:
        return {"status": "mine"}

    async def files_retrieve(self, *, file_id: str) -> models.GetFileResponse:
        return models.GetFileResponse(id=file_id, filename="mine.txt", size=7)
'''

USER_CHECK = """
import sys
sys.path.insert(0, sys.argv[1])
from fastapi.testclient import TestClient
from llm_engine.server import create_app
from my_service import MyService
client = TestClient(create_app(MyService()))
assert client.get("/healthcheck").json() == {"status": "mine"}
answer = client.get("/v1/files/abc", auth=("u", "p")).json()
assert answer == {"id": "abc", "filename": "mine.txt", "size": 7}, answer
assert client.get("/v1/files", auth=("u", "p")).status_code == 200  # still the mock
print("ok")
"""


@pytest.mark.slow
def test_user_code_survives_regeneration(tmp_path: Path) -> None:
    out = tmp_path / "llm_engine"
    user = tmp_path / "my_service.py"
    user.write_text(textwrap.dedent(USER_MODULE), encoding="utf-8")
    before = user.read_bytes()
    for _round in range(2):
        proc = run_cli("generate", "llm-engine", "--out", out, cwd=SPECS.parent)
        assert proc.returncode == 0, describe(proc)
        assert user.read_bytes() == before
        check = run_python(USER_CHECK, str(tmp_path), cwd=tmp_path)
        assert check.returncode == 0 and check.stdout == "ok\n", describe(check)


# --- the CLI ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_apismith_serve(tmp_path: Path) -> None:
    import sys

    import httpx

    from tests.server.conftest import running

    command = [sys.executable, "-m", "generator", "serve", "llm-engine"]
    with running(command, cwd=SPECS.parent, log=tmp_path / "log") as url:
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
        answer = httpx.post(f"{url}/v2/chat/completions", json=body, auth=("u", "p"), timeout=30)
        assert answer.status_code == 200 and answer.text.endswith("data: [DONE]\n\n")


def test_render_server_files() -> None:
    from generator.config import load_config
    from generator.ir import build_ir
    from generator.render.server import render_server
    from generator.render.settings import bind_settings

    config = load_config(SPECS / "sgp.toml")
    api = build_ir(json.loads((GENERATED / "sgp" / "openapi.json").read_text(encoding="utf-8")))
    files, _ = render_server(api, config, bind_settings(config, api), "# header", None)
    shared = sorted(f for f in files if "/" not in f or f.endswith("/__init__.py"))
    assert shared == [
        "_mock/__init__.py",
        "_mock_engine.py",
        "_mock_faults.py",
        "_mock_pages.py",
        "_mock_records.py",
        "_server/__init__.py",
        "mock.py",
        "server.py",
    ]
    # one server module and one mock module per top-level resource of the client
    client = sorted(p.stem for p in (GENERATED / "sgp" / "resources").glob("*.py"))
    client.remove("__init__")
    for folder in ("_server", "_mock"):
        modules = sorted(f.split("/")[1][:-3] for f in files if f.startswith(f"{folder}/"))
        assert modules == sorted([*client, "__init__"]), folder


def test_each_operation_is_in_its_resource_module() -> None:
    """Every operation's route, base method and mock method are in the module of its
    top-level client resource (``client.<attr>.<...>``), once; server.py registers the
    routes in the spec's order."""
    import importlib

    from generator.config import load_config
    from generator.ir import build_ir
    from generator.render.server.modules import service_names
    from generator.render.settings import bind_settings
    from generator.render.surface.resources import resource_map

    server, _mock = server_modules("sgp")
    config = load_config(SPECS / "sgp.toml")
    api = build_ir(json.loads((GENERATED / "sgp" / "openapi.json").read_text(encoding="utf-8")))
    named = resource_map(api, bind_settings(config, api))
    service = service_names(api, bind_settings(config, api))
    for n in named:
        attr, name = n.resource[0], service[n.op.python_name]
        assert name == "_".join((*n.resource, n.method)), name  # the client's name, joined
        routes = importlib.import_module(f"sgp._server.{attr}")
        mocks = importlib.import_module(f"sgp._mock.{attr}")
        assert callable(getattr(routes, f"add_{name}")), name
        own = [c for c in vars(routes).values() if getattr(c, "__module__", "") == routes.__name__]
        classes = [c for c in own if isinstance(c, type) and name in vars(c)]
        protocol, base = sorted(classes, key=lambda c: c.__name__.startswith("Base"))
        assert protocol in server.Service.__mro__ and base in server.BaseService.__mro__
        assert any(name in vars(c) for c in vars(mocks).values() if isinstance(c, type))
    added = [f"add_{service[n.op.python_name]}" for n in named]
    assert [f.__name__ for f in server._ROUTES] == added


def test_service_names_are_the_client_names_joined_and_unique() -> None:
    """``client.a.b_c`` and ``client.a_b.c`` (named so by ``[client.methods]``) join alike:
    the second gets a number."""
    from generator.ir import build_ir
    from generator.render.server.modules import service_names
    from generator.render.settings import ApiSettings

    def op(operation_id: str) -> dict[str, Any]:
        return {"operationId": operation_id, "responses": {"204": {"description": "ok"}}}

    spec = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/one": {"post": op("one")},
            "/two": {"post": op("two")},
            "/three": {"post": op("three")},
            "/engine": {"post": op("engine")},
        },
    }
    methods = {"one": "a.b_c", "two": "a_b.c", "three": "tasks.list", "engine": "engine.x"}
    names = service_names(build_ir(spec), ApiSettings("T", "T", methods=methods))
    assert list(names.values()) == ["a_b_c", "a_b_c_2", "tasks_list", "engine_x"]
