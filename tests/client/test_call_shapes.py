"""Call shapes and names of the official SDKs (issue 13), over real HTTP to 127.0.0.1:
the path's last parameter is positional (the id of what the call acts on), everything
else keyword-only, as in the Stainless SDKs; the env
var names are the official SDKs' (``[client.env]``); every method documents its
documented parameters under ``Args:``.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from tests.client.support import Seen, Server, methods, package


def _ok(seen: Seen) -> tuple[int, dict[str, str], bytes]:
    return 200, {}, b'{"id": "e1", "items": []}'


def test_path_parameters_are_positional(server: Server) -> None:
    script = server.reset(_ok)
    sgp = package("sgp")
    client = sgp.SgpClient(
        api_key="k", base_url=server.url, max_retries=0, strict_response_validation=False
    )
    signature = inspect.signature(client.evaluations.retrieve)
    kinds = [(name, p.kind) for name, p in signature.parameters.items()]
    assert kinds[0] == ("evaluation_id", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    assert all(kind == inspect.Parameter.KEYWORD_ONLY for _, kind in kinds[1:])
    client.evaluations.retrieve("e1")
    client.evaluations.retrieve(evaluation_id="e2")  # by keyword, as before
    assert [s.path for s in script.seen] == ["/v4/evaluations/e1", "/v4/evaluations/e2"]
    with pytest.raises(TypeError):
        client.evaluations.list("positional")  # query parameters stay keyword-only


@pytest.mark.parametrize("api", ["llm-engine", "sgp"])
def test_the_last_path_parameter_is_positional(api: str) -> None:
    cls = getattr(package(api), "SgpClient" if api == "sgp" else "LlmEngineClient")
    client = cls(api_key="k", base_url="http://127.0.0.1:9")
    for path, method in methods(api):
        ordered = [value for kind, value in method.path if kind == "param"]
        assert [p.name for p in method.params if p.location == "path"] == ordered, path
        target: Any = client
        for attr in (*path, method.name):
            target = getattr(target, attr)
        positional = [
            name
            for name, p in inspect.signature(target).parameters.items()
            if p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD
        ]
        assert positional == ordered[-1:], (path, method.name)


def test_parent_ids_are_keyword_only(server: Server) -> None:
    script = server.reset(_ok)
    client = package("sgp").SgpClient(
        api_key="k", base_url=server.url, max_retries=0, strict_response_validation=False
    )
    client.knowledge_bases.uploads.retrieve("up1", knowledge_base_id="kb1")
    assert [s.path for s in script.seen] == ["/v4/knowledge-bases/kb1/uploads/up1"]


@pytest.mark.parametrize(
    ("api", "client_name", "env", "sent"),
    [
        (
            "llm-engine",
            "LlmEngineClient",
            {"SCALE_API_KEY": "secret", "LLM_ENGINE_BASE_PATH": "{url}"},
            ("authorization", "Basic c2VjcmV0Og=="),
        ),
        (
            "sgp",
            "SgpClient",
            {"SGP_API_KEY": "k", "SGP_ACCOUNT_ID": "acct", "SGP_CLIENT_BASE_URL": "{url}"},
            ("x-selected-account-id", "acct"),
        ),
    ],
)
def test_official_env_names(
    api: str,
    client_name: str,
    env: dict[str, str],
    sent: tuple[str, str],
    server: Server,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    script = server.reset(_ok)
    for name, value in env.items():
        monkeypatch.setenv(name, value.format(url=server.url))
    client: Any = getattr(package(api), client_name)(
        max_retries=0, strict_response_validation=False
    )
    if api == "sgp":
        client.evaluations.retrieve("e1")
    else:
        client.files.list()
    (seen,) = script.seen
    assert seen.headers.get(sent[0]) == sent[1]


@pytest.mark.parametrize("api", ["llm-engine", "sgp"])
def test_documented_parameters_are_in_args(api: str) -> None:
    cls = getattr(package(api), "SgpClient" if api == "sgp" else "LlmEngineClient")
    client = cls(api_key="k", base_url="http://127.0.0.1:9")
    documented = 0
    for path, method in methods(api):
        docs = [p for p in method.params if p.doc.strip()]
        if not docs:
            continue
        target: Any = client
        for attr in (*path, method.name):
            target = getattr(target, attr)
        text = inspect.getdoc(target) or ""
        assert "Args:" in text, path
        for p in docs:
            assert f"    {p.name}: " in text or f"\n{p.name}: " in text, (path, p.name)
        documented += 1
    assert documented >= 5
