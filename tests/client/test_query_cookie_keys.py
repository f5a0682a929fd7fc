"""API keys declared ``in: query`` and ``in: cookie`` (BBC, Go-UPC, IBANAPI, CORE: six of
the corpus's public specs): the generated client takes them as constructor parameters and
sends them on every call, the query key as a query parameter and the cookie key in the
``Cookie`` header, over real HTTP to uvicorn on 127.0.0.1; the package's own mock accepts
them and answers 401 without them."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.client.support import Server
from tests.conftest import REPO_ROOT, describe, import_package, run_cli

SPEC = REPO_ROOT / "tests" / "golden" / "query-cookie-keys" / "spec.json"
PACKAGE = "h4_query_cookie_keys"
ITEMS = (200, {"content-type": "application/json"}, b'[{"id": "i1"}]')
ITEM = (200, {"content-type": "application/json"}, b'{"id": "a1"}')


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    out = tmp_path_factory.mktemp("keys") / PACKAGE
    proc = run_cli("generate", "--spec", SPEC, "--out", out, cwd=out.parent)
    assert proc.returncode == 0, describe(proc)
    return import_package(out, PACKAGE)


def test_the_query_key_is_a_query_parameter_beside_the_call_s_own(
    pkg: ModuleType, server: Server
) -> None:
    script = server.reset(lambda seen: ITEMS)
    client = pkg.H4QueryCookieKeysClient(query_key="q1", base_url=server.url)
    assert [i.id for i in client.items.list(limit=2)] == ["i1"]
    seen = script.seen[-1]
    assert sorted(seen.query) == [("apikey", "q1"), ("limit", "2")]
    assert "cookie" not in seen.headers and "authorization" not in seen.headers


def test_the_cookie_and_query_keys_go_together(pkg: ModuleType, server: Server) -> None:
    script = server.reset(lambda seen: ITEM)
    client = pkg.H4QueryCookieKeysClient(query_key="q1", session="s 1", base_url=server.url)
    assert client.account.retrieve().id == "a1"
    seen = script.seen[-1]
    assert seen.query == [("apikey", "q1")]
    assert seen.headers["cookie"] == "session=s 1"


def test_a_per_call_extra_query_overrides_the_key(pkg: ModuleType, server: Server) -> None:
    script = server.reset(lambda seen: ITEMS)
    client = pkg.H4QueryCookieKeysClient(query_key="q1", base_url=server.url)
    client.items.list(extra_query={"apikey": "q2"})
    assert script.seen[-1].query == [("apikey", "q2")]


def test_copies_keep_the_key_and_the_environment_gives_it(
    pkg: ModuleType, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("H4_QUERY_COOKIE_KEYS_QUERY_KEY", "from-env")
    script = server.reset(lambda seen: ITEMS)
    client = pkg.H4QueryCookieKeysClient(base_url=server.url).with_options(max_retries=0)
    client.items.list()
    assert script.seen[-1].query == [("apikey", "from-env")]


@pytest.fixture(scope="module")
def mock_url(pkg: ModuleType) -> Iterator[str]:
    """The package's own mock app, served by uvicorn on 127.0.0.1."""
    server = Server(importlib.import_module(f"{PACKAGE}.mock").create_mock_app())
    yield server.url
    server.stop()


def test_the_mock_takes_the_keys_and_refuses_calls_without(pkg: ModuleType, mock_url: str) -> None:
    client = pkg.H4QueryCookieKeysClient(query_key="q", session="s", base_url=mock_url)
    assert all(isinstance(i, pkg.models.Item) for i in client.items.list())
    assert isinstance(client.account.retrieve(), pkg.models.Item)
    without = pkg.H4QueryCookieKeysClient(query_key="q", base_url=mock_url, max_retries=0)
    with pytest.raises(pkg.AuthenticationError):
        without.account.retrieve()
