"""The client runtime's raw responses: ``with_raw_response`` (the body read) and
``with_streaming_response`` (a context manager; the body read only when asked)."""

from __future__ import annotations

import copy
import datetime
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from functools import partial
from typing import Any, Generic, Literal, cast, overload

import httpx

from ._types import Params, R

_UNSET: Any = object()


class _BaseResponse(Generic[R]):
    def __init__(
        self,
        response: httpx.Response,
        parse: Callable[[], R],
        events: bool,
        retries: int,
    ) -> None:
        self.http_response = response
        self.status_code, self.headers = response.status_code, response.headers
        self.retries_taken = retries  # how many times the call was retried
        self._parse, self._events, self._parsed = parse, events, _UNSET

    @property
    def http_request(self) -> httpx.Request:
        return self.http_response.request

    @property
    def url(self) -> httpx.URL:
        return self.http_response.url

    @property
    def method(self) -> str:
        return self.http_request.method

    @property
    def is_closed(self) -> bool:
        return self.http_response.is_closed

    @property
    def elapsed(self) -> datetime.timedelta:
        """The time from sending the request to the end of the body (once it is read)."""
        return self.http_response.elapsed

    def _parse_once(self) -> R:
        if self._parsed is _UNSET:
            self._parsed = self._parse()
        return cast("R", self._parsed)


class APIResponse(_BaseResponse[R]):
    """The httpx response of a call; ``parse()`` gives what the method would return (the
    same object each time). From ``with_streaming_response``, its body is not read yet:
    ``read()``, ``parse()``, ``iter_bytes()``, ``iter_text()``, ``iter_lines()`` do."""

    def parse(self) -> R:
        if not self._events:  # a stream's events are read as they are iterated
            self.http_response.read()
        return self._parse_once()

    def read(self) -> bytes:
        return self.http_response.read()

    def text(self) -> str:
        self.read()
        return self.http_response.text

    def json(self) -> Any:
        self.read()
        return self.http_response.json()

    def iter_bytes(self, chunk_size: int | None = None) -> Iterator[bytes]:
        return self.http_response.iter_bytes(chunk_size)

    def iter_text(self, chunk_size: int | None = None) -> Iterator[str]:
        return self.http_response.iter_text(chunk_size)

    def iter_lines(self) -> Iterator[str]:
        return self.http_response.iter_lines()

    def close(self) -> None:
        self.http_response.close()


class AsyncAPIResponse(_BaseResponse[R]):
    """The async client's :class:`APIResponse`: ``await`` its ``parse()``, ``read()``,
    ``text()`` and ``json()``; ``async for`` over its ``iter_bytes()``, ``iter_text()``
    and ``iter_lines()``."""

    async def parse(self) -> R:
        if not self._events:
            await self.http_response.aread()
        return self._parse_once()

    async def read(self) -> bytes:
        return await self.http_response.aread()

    async def text(self) -> str:
        await self.read()
        return self.http_response.text

    async def json(self) -> Any:
        await self.read()
        return self.http_response.json()

    def iter_bytes(self, chunk_size: int | None = None) -> AsyncIterator[bytes]:
        return self.http_response.aiter_bytes(chunk_size)

    def iter_text(self, chunk_size: int | None = None) -> AsyncIterator[str]:
        return self.http_response.aiter_text(chunk_size)

    def iter_lines(self) -> AsyncIterator[str]:
        return self.http_response.aiter_lines()

    async def close(self) -> None:
        await self.http_response.aclose()


class ResponseContextManager(Generic[R]):
    """What a ``with_streaming_response`` method returns: ``with ... as response`` sends
    the call (an error status raises there), gives its :class:`APIResponse`, closes it
    on exit."""

    def __init__(self, send: Callable[[], APIResponse[R]]) -> None:
        self._send = send
        self._response: APIResponse[R] | None = None

    def __enter__(self) -> APIResponse[R]:
        self._response = self._send()
        return self._response

    def __exit__(self, *exc: object) -> None:
        if self._response is not None:
            self._response.close()


class AsyncResponseContextManager(Generic[R]):
    """The async :class:`ResponseContextManager`: ``async with ... as response``."""

    def __init__(self, send: Callable[[], Awaitable[AsyncAPIResponse[R]]]) -> None:
        self._send = send
        self._response: AsyncAPIResponse[R] | None = None

    async def __aenter__(self) -> AsyncAPIResponse[R]:
        self._response = await self._send()
        return self._response

    async def __aexit__(self, *exc: object) -> None:
        if self._response is not None:
            await self._response.close()


def _bound(func: Callable[..., Any], **flags: bool) -> Callable[..., Any]:
    """``func`` bound to a copy of its resource, whose client passes ``flags`` to each call."""
    method: Any = func
    resource = copy.copy(method.__self__)
    resource._client = copy.copy(resource._client)
    resource._client._request = partial(method.__self__._client._request, **flags)
    return cast("Callable[..., Any]", method.__func__.__get__(resource))


@overload
def to_raw(func: Callable[Params, R]) -> Callable[Params, APIResponse[R]]: ...
@overload
def to_raw(
    func: Callable[Params, R], streamed: Literal[True]
) -> Callable[Params, ResponseContextManager[R]]: ...
def to_raw(func: Callable[..., Any], streamed: bool = False) -> Callable[..., Any]:
    """A method returning its raw response: read (``with_raw_response``), or ``streamed``
    (``with_streaming_response``: a :class:`ResponseContextManager`)."""
    call = _bound(func, raw=True, streamed=streamed)
    if not streamed:
        return call
    return lambda *args, **kwargs: ResponseContextManager(
        partial(call, *args, **kwargs)
    )


@overload
def async_to_raw(
    func: Callable[Params, Awaitable[R]],
) -> Callable[Params, Awaitable[AsyncAPIResponse[R]]]: ...
@overload
def async_to_raw(
    func: Callable[Params, Awaitable[R]], streamed: Literal[True]
) -> Callable[Params, AsyncResponseContextManager[R]]: ...
def async_to_raw(
    func: Callable[..., Any], streamed: bool = False
) -> Callable[..., Any]:
    """The async :func:`to_raw` (``streamed``: an :class:`AsyncResponseContextManager`)."""
    call = _bound(func, raw=True, streamed=streamed)
    if not streamed:
        return call
    return lambda *args, **kwargs: AsyncResponseContextManager(
        partial(call, *args, **kwargs)
    )
