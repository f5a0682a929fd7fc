"""Paging styles (issue 11): cursor, page token and RFC 8288 ``Link`` headers, detected from
the spec (golden case ``pagination-styles``), walked over real HTTP by the generated client,
sync and async: iterating a page yields every page's items; ``iter_pages()``,
``has_next_page()`` and ``get_next_page()`` walk the pages."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.client.support import Seen, Server
from tests.conftest import import_package

EXPECTED = Path(__file__).resolve().parents[1] / "golden" / "pagination-styles" / "expected"
PAGES = [[1, 2], [3], [4, 5]]  # the items of pages 0, 1 and 2


@pytest.fixture(scope="module")
def paging() -> Any:
    return import_package(EXPECTED, "golden_pagination_styles")


def _reply(server: Server, seen: Seen) -> tuple[int, dict[str, str], bytes]:
    query = dict(seen.query)
    if seen.path == "/cursor":
        at = int(query.get("cursor", "0"))
        nxt = str(at + 1) if at + 1 < len(PAGES) else None
        body: Any = {"data": [{"id": i} for i in PAGES[at]], "next_cursor": nxt}
        return 200, {}, json.dumps(body).encode()
    if seen.path == "/token":
        at = int(query.get("pageToken", "0"))
        body = {"items": [{"id": i} for i in PAGES[at]]}
        if at + 1 < len(PAGES):
            body["nextPageToken"] = str(at + 1)
        return 200, {}, json.dumps(body).encode()
    at = int(query.get("page", "0"))
    headers = {}
    if at + 1 < len(PAGES):
        link = f"{server.url}/linked?page={at + 1}&per_page=2"
        headers["link"] = f'<{link}>; rel="next", <{server.url}/linked?page=0>; rel="first"'
    return 200, headers, json.dumps([{"id": i} for i in PAGES[at]]).encode()


@pytest.mark.parametrize("resource", ["cursor", "token", "linked"])
def test_sync_pages(paging: Any, server: Server, resource: str) -> None:
    script = server.reset(lambda seen: _reply(server, seen))
    client = paging.GoldenPaginationStylesClient(base_url=server.url, max_retries=0)
    first = getattr(client, resource).list()
    assert [t.id for t in first.items] == [1, 2]
    assert first.has_next_page()
    assert [t.id for t in first] == [1, 2, 3, 4, 5]
    pages = list(first.iter_pages())
    assert [[t.id for t in p.items] for p in pages] == PAGES
    assert not pages[-1].has_next_page()
    with pytest.raises(RuntimeError):
        pages[-1].get_next_page()
    assert [t.id for t in first.get_next_page().items] == [3]
    assert all(s.path.startswith("/") for s in script.seen)


def test_link_pages_keep_the_links_query(paging: Any, server: Server) -> None:
    script = server.reset(lambda seen: _reply(server, seen))
    client = paging.GoldenPaginationStylesClient(base_url=server.url, max_retries=0)
    list(client.linked.list(per_page=2))
    assert [dict(s.query) for s in script.seen] == [
        {"per_page": "2"},
        {"page": "1", "per_page": "2"},
        {"page": "2", "per_page": "2"},
    ]


@pytest.mark.parametrize("resource", ["cursor", "token", "linked"])
def test_async_pages(paging: Any, server: Server, resource: str) -> None:
    server.reset(lambda seen: _reply(server, seen))

    async def walk() -> tuple[list[int], list[list[int]]]:
        client = paging.AsyncGoldenPaginationStylesClient(base_url=server.url, max_retries=0)
        first = await getattr(client, resource).list()
        items = [t.id async for t in first]
        pages = [[t.id for t in p.items] async for p in first.iter_pages()]
        await client.close()
        return items, pages

    items, pages = asyncio.run(walk())
    assert items == [1, 2, 3, 4, 5]
    assert pages == PAGES
