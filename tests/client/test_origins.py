"""Credentials go only to ``base_url``'s origin (issue 22, findings 2 and 8), over real HTTP.

Two uvicorn servers on 127.0.0.1: ``server`` (A, the API) and ``other`` (B, another port, so
another origin) that records every request. A pages with a ``Link`` header or a body
``next`` field pointing at B, or redirects to B: the generated client (an API key and a
bearer scheme) raises ``APIOriginError`` before sending anything there, sync and async, and
B sees no request at all. Same-origin Links (relative ones resolved per RFC 3986) and
same-origin cursor URLs still page. A password in ``base_url``'s userinfo never shows in
an error's ``str`` or ``repr``.

The package is generated with the current templates into a temporary directory.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import httpx
import pydantic
import pytest

from tests.client.support import Reply, Seen, Server
from tests.conftest import REPO_ROOT, describe, import_package, run_cli, write_json

ITEMS = "/v1/items"
CURSOR = "/v1/cursor"
SECRET = "hunter2"
SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "Origins", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:1"}],
    "security": [{"apiKey": []}, {"bearer": []}],
    "paths": {
        ITEMS: {
            "get": {
                "operationId": "listItems",
                "tags": ["items"],
                "responses": {
                    "200": {
                        "description": "ok",
                        "headers": {"Link": {"schema": {"type": "string"}}},
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "array",
                                    "items": {"$ref": "#/components/schemas/Item"},
                                }
                            }
                        },
                    }
                },
            }
        },
        CURSOR: {
            "get": {
                "operationId": "listCursor",
                "tags": ["cursor"],
                "parameters": [{"name": "cursor", "in": "query", "schema": {"type": "string"}}],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/CursorPage"}
                            }
                        },
                    }
                },
            }
        },
    },
    "components": {
        "securitySchemes": {
            "apiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"},
            "bearer": {"type": "http", "scheme": "bearer"},
        },
        "schemas": {
            "Item": {
                "type": "object",
                "required": ["id"],
                "properties": {"id": {"type": "integer"}},
            },
            "CursorPage": {
                "type": "object",
                "required": ["items"],
                "properties": {
                    "items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}},
                    "next": {"type": ["string", "null"]},
                },
            },
        },
    },
}
# Each kind of credential a client can carry; none may reach another origin.
CREDENTIALS: dict[str, dict[str, Any]] = {
    "api-key": {"api_key": "sk-secret"},
    "bearer": {"bearer_token": "tok-secret"},
    "cookie-and-custom-header": {
        "api_key": "sk-secret",
        "default_headers": {"cookie": "session=s3cret", "x-account-id": "acc-secret"},
    },
}


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    root = tmp_path_factory.mktemp("origins")
    spec = write_json(root / "spec.json", SPEC)
    out = root / "out" / "origins"
    proc = run_cli("generate", "--spec", spec, "--out", out, cwd=REPO_ROOT)
    assert proc.returncode == 0, describe(proc)
    return import_package(out, "origins_runtime_origins")


@pytest.fixture(scope="module")
def _other() -> Iterator[Server]:
    other = Server()
    yield other
    other.stop()


@pytest.fixture
def other(_other: Server) -> Server:
    """B: answers every request with a page (so that a request sent there would succeed)."""
    _other.reset(lambda seen: (200, {}, b'[{"id": 9}]'))
    return _other


def answer(body: Any, headers: dict[str, str] | None = None, status: int = 200) -> Reply:
    return status, headers or {}, json.dumps(body).encode()


def linking(*links: str) -> Callable[[Seen], Reply]:
    """A's list: page ``n`` (``?page=n``, 0 without) has item ``n`` and ``links[n]`` as its
    ``rel="next"`` (the last page has none)."""

    def handler(seen: Seen) -> Reply:
        at = int(dict(seen.query).get("page", "0"))
        link = f'<{links[at]}>; rel="next"' if at < len(links) else ""
        headers = {"link": link.encode().decode("latin-1")} if link else {}  # (as UTF-8)
        return answer([{"id": at}], headers)

    return handler


def cursors(*nexts: str) -> Callable[[Seen], Reply]:
    """A's cursor list: the first page's ``next`` is ``nexts[0]``, a page fetched with
    ``?cursor=n`` (n a number) has ``nexts[n]`` (past the end: none)."""

    def handler(seen: Seen) -> Reply:
        cursor = dict(seen.query).get("cursor", "0")
        at = int(cursor) if cursor.isdigit() else len(nexts)
        return answer({"items": [{"id": at}], "next": nexts[at] if at < len(nexts) else None})

    return handler


def walk(pkg: ModuleType, resource: str, asynchronous: bool, **kwargs: Any) -> list[int]:
    """Every item of ``client.<resource>.list()``, sync or async (raises what it raises)."""
    if not asynchronous:
        with pkg.OriginsClient(max_retries=0, **kwargs) as client:
            return [item.id for item in getattr(client, resource).list()]

    async def run() -> list[int]:
        async with pkg.AsyncOriginsClient(max_retries=0, **kwargs) as client:
            return [item.id async for item in await getattr(client, resource).list()]

    return asyncio.run(run())


def credentials_in(seen: Seen) -> set[str]:
    names = {"x-api-key", "authorization", "cookie", "x-account-id"}
    return {name for name in names if name in seen.headers}


# --- the next page on another origin: refused, nothing sent ------------------------------------


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("credentials", sorted(CREDENTIALS))
@pytest.mark.parametrize("where", ["link", "body-next"])
def test_a_next_page_on_another_origin_is_refused(
    pkg: ModuleType,
    server: Server,
    other: Server,
    where: str,
    credentials: str,
    asynchronous: bool,
) -> None:
    target = f"{other.url}/v1/steal?page=1"
    if where == "link":
        script, resource = server.reset(linking(target)), "items"
    else:
        script, resource = server.reset(cursors(target)), "cursor"
    with pytest.raises(pkg._runtime.APIOriginError) as info:
        walk(pkg, resource, asynchronous, base_url=server.url, **CREDENTIALS[credentials])
    assert other.script.seen == []  # refused before sending: nothing can be in flight
    assert len(script.seen) == 1 and credentials_in(script.seen[0])  # A got them
    assert isinstance(info.value, pkg._runtime.APIError)
    assert f"127.0.0.1:{other.port}" in str(info.value)
    assert info.value.request is not None and info.value.request.url.port == other.port


def odd_links(server: Server, other: Server) -> dict[str, str]:
    """Link targets that leave A's origin, or try to."""
    a, b = server.port, other.port
    return {
        "scheme-relative": f"//127.0.0.1:{b}/x",
        "upper-case-scheme": f"HTTP://127.0.0.1:{b}/x",
        "userinfo-looks-like-base": f"http://127.0.0.1:{a}@127.0.0.1:{b}/x",
        "backslash-userinfo": f"http://127.0.0.1:{a}\\@127.0.0.1:{b}/x",
        "another-port": f"http://127.0.0.1:{b}/v1/items?page=1",
        "another-host-name-same-server": f"http://localhost:{a}/v1/items?page=1",
        "another-scheme": f"https://127.0.0.1:{a}/v1/items?page=1",
        "idna-lookalike": f"http://lоcalhost:{a}/x",  # a Cyrillic "о"
        "padded-with-whitespace": f"  \t http://127.0.0.1:{b}/x  ",
        "space-inside": f"http://127.0.0.1:{b}/a b",
    }


@pytest.mark.parametrize(
    "form",
    [
        "scheme-relative",
        "upper-case-scheme",
        "userinfo-looks-like-base",
        "backslash-userinfo",
        "another-port",
        "another-host-name-same-server",
        "another-scheme",
        "idna-lookalike",
        "padded-with-whitespace",
        "space-inside",
    ],
)
def test_odd_link_forms_are_refused(
    pkg: ModuleType, server: Server, other: Server, form: str
) -> None:
    script = server.reset(linking(odd_links(server, other)[form]))
    with pytest.raises(pkg._runtime.APIOriginError):
        walk(pkg, "items", False, base_url=server.url, api_key="sk-secret")
    assert other.script.seen == []
    assert len(script.seen) == 1


def test_a_cursor_url_with_a_control_character_is_refused(
    pkg: ModuleType, server: Server, other: Server
) -> None:
    script = server.reset(cursors(f"{server.url}{CURSOR}?cursor=1\x00"))
    with pytest.raises(pkg._runtime.APIOriginError, match="invalid URL"):
        walk(pkg, "cursor", False, base_url=server.url, api_key="sk-secret")
    assert other.script.seen == [] and len(script.seen) == 1


@pytest.mark.parametrize(
    ("base", "url", "allowed"),
    [
        ("https://api.example.com/v1", "http://api.example.com/v1/x", False),  # downgrade
        ("https://api.example.com/v1", "https://api.example.com:8443/v1/x", False),
        ("https://api.example.com/v1", "https://api.example.com./v1/x", False),
        ("https://api.example.com/v1", "https://аpi.example.com/v1/x", False),  # Cyrillic а
        ("https://api.example.com/v1", "https://api.example.com@evil.com/", False),
        ("https://api.example.com/v1", "HTTPS://API.EXAMPLE.COM:443/v1/x", True),
        ("https://api.example.com/v1", "https://other@api.example.com/elsewhere", True),
        ("http://[::1]:8080", "http://[::1]:8080/x", True),
        ("http://[::1]:8080", "http://[::2]:8080/x", False),
    ],
)
def test_origins_compare_scheme_host_and_port(
    pkg: ModuleType, base: str, url: str, allowed: bool
) -> None:
    """The check itself, without a network: a next page's URL against ``base_url``."""
    client = pkg.OriginsClient(base_url=base, api_key="k")
    options = pkg._runtime.RequestOptions("GET", ITEMS, object, url=url)
    if allowed:
        assert client._build(options).headers["x-api-key"] == "k"
    else:
        with pytest.raises(pkg._runtime.APIOriginError):
            client._build(options)


@pytest.mark.parametrize(
    "path",
    ["http://127.0.0.1:{b}/steal", "@127.0.0.1:{b}/steal", ":{b}/steal", "\\@127.0.0.1:{b}/x"],
)
def test_a_path_never_leaves_base_url(
    pkg: ModuleType, server: Server, other: Server, path: str
) -> None:
    """Defense in depth for a spec path key that is a URL (the generator refuses those): what
    a generated method would send, even with the user's own base_url."""
    server.reset(lambda seen: answer([]))
    with pkg.OriginsClient(base_url=server.url, api_key="sk-secret", max_retries=0) as client:
        with pytest.raises(pkg._runtime.APIOriginError):
            client._request("GET", path.format(b=other.port), list[Any])
    assert other.script.seen == [] and server.script.seen == []


# --- same origin: still pages, with the credentials ----------------------------------------


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_same_origin_links_page(
    pkg: ModuleType, server: Server, other: Server, asynchronous: bool
) -> None:
    """Relative Links resolve against the page's URL (RFC 3986): ``/v1/items?page=1``
    (path-absolute), ``?page=2`` (query only), ``items?page=3`` (path-relative), then an
    absolute same-origin URL (its scheme in upper case)."""
    links = (
        f"{ITEMS}?page=1",
        "?page=2",
        "items?page=3",
        f"HTTP://127.0.0.1:{server.port}{ITEMS}?page=4",
    )
    script = server.reset(linking(*links))
    ids = walk(pkg, "items", asynchronous, base_url=server.url, bearer_token="tok")
    assert ids == [0, 1, 2, 3, 4]
    assert [s.path for s in script.seen] == [ITEMS] * 5
    assert [dict(s.query).get("page") for s in script.seen] == [None, "1", "2", "3", "4"]
    assert all(s.headers["authorization"] == "Bearer tok" for s in script.seen)
    assert other.script.seen == []


def test_same_origin_links_below_a_base_path(pkg: ModuleType, server: Server) -> None:
    script = server.reset(
        lambda seen: answer(
            [{"id": 1}], {"link": '<items?page=1>; rel="next"'} if not seen.query else {}
        )
    )
    ids = walk(pkg, "items", False, base_url=f"{server.url}/api/", api_key="k")
    assert ids == [1, 1]
    assert [s.path for s in script.seen] == [f"/api{ITEMS}"] * 2


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_cursors_page_and_a_same_origin_cursor_url_is_followed(
    pkg: ModuleType, server: Server, other: Server, asynchronous: bool
) -> None:
    """A cursor is a query value; one that is an http(s) URL on A's origin (Django REST
    framework's ``next``) is the next page's URL. Values that only look like URLs stay
    values."""
    nexts = ("1", f"{server.url}{CURSOR}?cursor=2", f"//127.0.0.1:{other.port}/x")
    script = server.reset(cursors(*nexts))
    ids = walk(pkg, "cursor", asynchronous, base_url=server.url, api_key="k")
    assert ids == [0, 1, 2, 3]
    queries = [s.query for s in script.seen]
    assert queries == [[], [("cursor", "1")], [("cursor", "2")], [("cursor", nexts[2])]]
    assert all(s.headers["x-api-key"] == "k" for s in script.seen)
    assert other.script.seen == []


# --- redirects, with an http_client that follows them --------------------------------------


def redirecting(to: str) -> Callable[[Seen], Reply]:
    return lambda seen: (302, {"location": to}, b"") if seen.path == ITEMS else answer([])


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("credentials", sorted(CREDENTIALS))
def test_a_redirect_to_another_origin_is_refused(
    pkg: ModuleType, server: Server, other: Server, credentials: str, asynchronous: bool
) -> None:
    """httpx strips ``Authorization`` on a cross-origin redirect, not ``x-api-key``: the
    client's request hook refuses the redirected request instead."""
    script = server.reset(redirecting(f"{other.url}/v1/steal"))
    kwargs = {"base_url": server.url, **CREDENTIALS[credentials]}
    with pytest.raises(pkg._runtime.APIOriginError):
        if asynchronous:
            walk(pkg, "items", True, http_client=httpx.AsyncClient(follow_redirects=True), **kwargs)
        else:
            walk(pkg, "items", False, http_client=httpx.Client(follow_redirects=True), **kwargs)
    assert other.script.seen == []
    assert len(script.seen) == 1 and credentials_in(script.seen[0])


def test_a_same_origin_redirect_is_followed(pkg: ModuleType, server: Server) -> None:
    script = server.reset(
        lambda seen: (
            (302, {"location": "/v1/moved"}, b"") if seen.path == ITEMS else answer([{"id": 7}])
        )
    )
    http = httpx.Client(follow_redirects=True)
    assert walk(pkg, "items", False, base_url=server.url, api_key="k", http_client=http) == [7]
    assert [s.path for s in script.seen] == [ITEMS, "/v1/moved"]
    assert script.seen[1].headers["x-api-key"] == "k"


def test_a_shared_http_client_serves_clients_of_two_origins(
    pkg: ModuleType, server: Server, other: Server
) -> None:
    """The hook is installed once, and checks each request against its own client's base."""
    server.reset(lambda seen: answer([{"id": 1}]))
    with httpx.Client() as http:
        for base in (server.url, other.url, server.url):
            client = pkg.OriginsClient(base_url=base, api_key="k", http_client=http)
            assert [item.id for item in client.items.list()] in ([1], [9])
        assert len(http.event_hooks["request"]) == 1
        assert http.get(f"{other.url}/plain").status_code == 200  # not ours: not checked
    assert len(server.script.seen) == 2 and len(other.script.seen) == 2


# --- userinfo: never in a message ----------------------------------------------------------


def userinfo_url(server: Server) -> str:
    return f"http://user:{SECRET}@127.0.0.1:{server.port}"


def assert_redacted(error: BaseException) -> None:
    for text in (str(error), repr(error), getattr(error, "message", "")):
        assert SECRET not in text and "user:" not in text, text


@pytest.mark.parametrize(
    ("name", "reply"),
    [
        ("NotFoundError", lambda seen: (404, {}, b'{"detail": "no"}')),
        ("InternalServerError", lambda seen: (500, {}, b"boom")),
        ("APIResponseValidationError", lambda seen: (200, {}, b'[{"id": "x"}]')),
        ("APIOriginError", lambda seen: answer([{"id": 1}], {"link": "<//localhost/x>; rel=next"})),
    ],
)
def test_userinfo_is_redacted_from_errors_over_http(
    pkg: ModuleType, server: Server, name: str, reply: Callable[[Seen], Reply]
) -> None:
    server.reset(reply)
    with pytest.raises(getattr(pkg._runtime, name)) as info:
        walk(pkg, "items", False, base_url=userinfo_url(server), api_key="k")
    assert_redacted(info.value)
    assert "***@" in str(info.value) or name == "APIOriginError"


def test_userinfo_is_redacted_from_connection_errors(pkg: ModuleType) -> None:
    with pytest.raises(pkg._runtime.APIConnectionError) as info:
        walk(pkg, "items", False, base_url=f"http://user:{SECRET}@127.0.0.1:1/", api_key="k")
    assert_redacted(info.value)


def test_userinfo_is_redacted_from_timeouts(pkg: ModuleType, server: Server) -> None:
    server.reset(lambda seen: (200, {"x-sleep": "5"}, b"[]"))
    with pytest.raises(pkg._runtime.APITimeoutError) as info:
        walk(pkg, "items", False, base_url=userinfo_url(server), api_key="k", timeout=0.2)
    assert_redacted(info.value)


def test_userinfo_is_redacted_from_every_error_class(pkg: ModuleType) -> None:
    """Every APIError the runtime defines, built with a message naming such a URL."""
    rt = pkg._runtime
    url = f"https://user:{SECRET}@api.example.com/v1/x"
    request = httpx.Request("GET", url)
    response = httpx.Response(500, text="boom", request=request)
    with pytest.raises(pydantic.ValidationError) as invalid:
        pydantic.TypeAdapter(int).validate_python("x")
    classes = [getattr(rt, n) for n in rt.__all__ if n.endswith("Error")]
    classes = [c for c in classes if isinstance(c, type) and issubclass(c, rt.APIError)]
    assert {"APIOriginError", "APIStreamError", "RateLimitError"} <= {c.__name__ for c in classes}
    for cls in classes:
        if issubclass(cls, rt.APIStatusError):
            error = cls(f"HTTP 500 from {url}: boom", response, None)
        elif cls is rt.APIResponseValidationError:
            error = cls(response, "boom", invalid.value)
        else:
            error = cls(f"failed: {url} and {url}", request)
        assert_redacted(error)
        assert "https://***@api.example.com/v1/x" in str(error), cls


def test_the_origin_error_is_exported(pkg: ModuleType) -> None:
    assert "APIOriginError" in pkg.__all__
    assert pkg.APIOriginError is pkg._runtime.APIOriginError
