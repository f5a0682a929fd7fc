"""The client runtime's pages: page numbers, cursors and ``Link`` headers, sync and async."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from typing import Any, Generic, cast
from urllib.parse import urljoin

import httpx

from ._response import APIResponse
from ._types import P, Paging, RequestOptions, Send, T

_NEXT_LINK = re.compile(r'<([^>]*)>\s*;[^,]*\brel="?next"?', re.IGNORECASE)
_URL = re.compile(r"https?://", re.IGNORECASE)  # a cursor that is the next page's URL


class _Page(Generic[P, T]):
    """One page (``.page``: the typed answer, ``.items``: its items). Iterating it yields
    every page's items; ``iter_pages()``, every page (this one first)."""

    def __init__(self, page: P, fetch: Send, o: RequestOptions,
                 response: httpx.Response, seen: int = 0) -> None:  # fmt: skip
        self.page, self._fetch, self._options = page, fetch, o
        self._link, self._url = response.headers.get("link", ""), str(response.url)
        self._paging = paging = o.page or Paging("page")
        found = getattr(page, paging.items) if paging.items else page
        self.items: list[T] = list(cast(Any, found))
        self._seen = seen + len(self.items)

    def _next_options(self) -> RequestOptions | None:
        """The next page's call: this one with the next page number or cursor, or the URL
        of the ``Link`` (or of a cursor that is a URL), resolved against this page's URL
        (RFC 3986). The client refuses a URL to another origin (``APIOriginError``)."""
        o, paging, page, value = self._options, self._paging, self.page, None
        if paging.style == "link":
            found = _NEXT_LINK.search(self._link)
            value = found.group(1).strip() if found else None
        elif paging.style == "cursor":
            value = getattr(page, paging.next, None)
        elif self._seen < (getattr(page, paging.total, None) or 0):
            value = getattr(page, paging.current) + 1
        if not value or not self.items:
            return None
        if paging.style == "link" or _URL.match(str(value)):
            return replace(o, url=urljoin(self._url, str(value)), query=None)
        return replace(o, query={**(o.query or {}), paging.param: value})

    def has_next_page(self) -> bool:
        return self._next_options() is not None

    def _turn(self, raw: APIResponse[Any], o: RequestOptions) -> Any:
        return type(self)(
            raw._parse_once(), self._fetch, o, raw.http_response, self._seen
        )

    def _call(
        self,
    ) -> tuple[Any, RequestOptions]:  # the next page's call (awaitable if async)
        if (o := self._next_options()) is None:
            raise RuntimeError("no next page: check has_next_page() first")
        return self._fetch(replace(o, raw=True, page=None)), o


class SyncPage(_Page[P, T]):
    def get_next_page(self) -> SyncPage[P, T]:
        return cast("SyncPage[P, T]", self._turn(*self._call()))

    def iter_pages(self) -> Iterator[SyncPage[P, T]]:
        page = self
        yield page
        while page.has_next_page():
            yield (page := page.get_next_page())

    def __iter__(self) -> Iterator[T]:
        for page in self.iter_pages():
            yield from page.items


class AsyncPage(_Page[P, T]):
    """The async :class:`SyncPage`: ``async for item in await client.x.list()``."""

    async def get_next_page(self) -> AsyncPage[P, T]:
        call, o = self._call()
        return cast("AsyncPage[P, T]", self._turn(await call, o))

    async def iter_pages(self) -> AsyncIterator[AsyncPage[P, T]]:
        page = self
        yield page
        while page.has_next_page():
            yield (page := await page.get_next_page())

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.iter_pages():
            for item in page.items:
                yield item
