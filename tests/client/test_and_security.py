"""AND security requirements (``{AppKey: [], AppToken: []}``: VTEX, APISetu): the generated
client sends both credentials together, over real HTTP to uvicorn on 127.0.0.1; an OR of
requirements still sends the first alternative the client has every credential of, and
the generated mock accepts the pair and refuses half of it."""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from tests.client.support import Server
from tests.conftest import REPO_ROOT, describe, import_package, run_cli

SPEC = REPO_ROOT / "tests" / "golden" / "and-security" / "spec.json"
PACKAGE = "h4_and_security"
ORDERS = (200, {"content-type": "application/json"}, json.dumps([{"id": "o1"}]).encode())


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    out = tmp_path_factory.mktemp("and") / PACKAGE
    proc = run_cli("generate", "--spec", SPEC, "--out", out, cwd=out.parent)
    assert proc.returncode == 0, describe(proc)
    return import_package(out, PACKAGE)


def auth_of(seen: Any) -> dict[str, str]:
    keep = ("x-app-key", "x-app-token", "authorization")
    return {k: v for k, v in seen.headers.items() if k in keep}


def test_both_keys_of_one_requirement_are_sent(pkg: ModuleType, server: Server) -> None:
    script = server.reset(lambda seen: ORDERS)
    client = pkg.H4AndSecurityClient(
        app_key="k", app_token="t", bearer_token="b", base_url=server.url
    )
    assert [o.id for o in client.orders.list()] == ["o1"]
    assert auth_of(script.seen[-1]) == {"x-app-key": "k", "x-app-token": "t"}


def test_the_async_client_sends_both_keys(pkg: ModuleType, server: Server) -> None:
    script = server.reset(lambda seen: ORDERS)

    async def call() -> None:
        client = pkg.AsyncH4AndSecurityClient(app_key="k", app_token="t", base_url=server.url)
        async with client:
            await client.orders.list()

    asyncio.run(call())
    assert auth_of(script.seen[-1]) == {"x-app-key": "k", "x-app-token": "t"}


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        ({"bearer_token": "b"}, {"authorization": "Bearer b"}),
        ({"app_key": "k", "bearer_token": "b"}, {"x-app-key": "k"}),  # {AppKey} comes first
        ({"app_token": "t", "bearer_token": "b"}, {"authorization": "Bearer b"}),
    ],
)
def test_or_requirements_send_the_first_alternative_given(
    pkg: ModuleType, server: Server, given: dict[str, str], sent: dict[str, str]
) -> None:
    script = server.reset(lambda seen: ORDERS)
    pkg.H4AndSecurityClient(base_url=server.url, **given).orders.list()
    assert auth_of(script.seen[-1]) == sent


def test_the_keys_fall_back_to_the_environment(
    pkg: ModuleType, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("H4_AND_SECURITY_APP_KEY", "ek")
    monkeypatch.setenv("H4_AND_SECURITY_APP_TOKEN", "et")
    script = server.reset(lambda seen: ORDERS)
    pkg.H4AndSecurityClient(base_url=server.url).orders.list()
    assert auth_of(script.seen[-1]) == {"x-app-key": "ek", "x-app-token": "et"}


@pytest.fixture(scope="module")
def mock_url(pkg: ModuleType) -> Iterator[str]:
    """The package's own mock app, served by uvicorn on 127.0.0.1."""
    mock = importlib.import_module(f"{PACKAGE}.mock")
    server = Server(mock.create_mock_app())
    yield server.url
    server.stop()


def test_the_mock_takes_the_pair_and_refuses_half_of_it(pkg: ModuleType, mock_url: str) -> None:
    client = pkg.H4AndSecurityClient(app_key="k", app_token="t", base_url=mock_url)
    orders = client.orders.list()
    assert orders and all(isinstance(o, pkg.models.Order) for o in orders)
    with pytest.raises(pkg.AuthenticationError):
        pkg.H4AndSecurityClient(app_token="t", base_url=mock_url, max_retries=0).orders.list()
