"""The client runtime, copied verbatim into each generated package (httpx + pydantic)."""

from __future__ import annotations

import asyncio
import base64
import email.utils
import json
import mimetypes
import os
import random
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Generator,
    Iterable,
    Iterator,
    Mapping,
)
from contextvars import ContextVar
from typing import IO, Any, Generic, Literal, ParamSpec, TypeVar, cast
from urllib.parse import quote

import httpx
import pydantic
from pydantic_core import to_json

T = TypeVar("T")
P = TypeVar("P")
R = TypeVar("R")
Params = ParamSpec("Params")

Headers = Mapping[str, str]
Query = Mapping[str, object]
Body = Mapping[str, object]
Timeout = float | httpx.Timeout | None
_Content = bytes | IO[bytes]
FileInput = (
    _Content | os.PathLike[str] | tuple[str, _Content] | tuple[str, _Content, str]
)
"""An upload: bytes, a binary file object, a path, or (filename, content[, content_type])."""

DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=5.0)
DEFAULT_MAX_RETRIES = 2
INITIAL_RETRY_DELAY = 0.5
MAX_RETRY_DELAY = 8.0
MAX_RETRY_AFTER = 60.0


class NotGiven:
    """The type of :data:`NOT_GIVEN`: an argument that was not passed (distinct from ``None``)."""

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


class APIError(Exception):
    """Base class of every error the client raises."""

    def __init__(self, message: str, request: httpx.Request | None = None, body: object = None) -> None:  # fmt: skip
        super().__init__(message)
        self.message = message
        self.request = request
        self.body = body


class APIConnectionError(APIError):
    """The request could not be sent, or no response came back."""


class APITimeoutError(APIConnectionError):
    """The request timed out (after its retries)."""


class APIStatusError(APIError):
    """A non-2xx response. ``body`` is the parsed error model when the spec declares one."""

    def __init__(self, message: str, response: httpx.Response, body: object) -> None:
        super().__init__(message, response.request, body)
        self.response = response
        self.status_code = response.status_code


class BadRequestError(APIStatusError): ...  # 400


class AuthenticationError(APIStatusError): ...  # 401


class PermissionDeniedError(APIStatusError): ...  # 403


class NotFoundError(APIStatusError): ...  # 404


class ConflictError(APIStatusError): ...  # 409


class UnprocessableEntityError(APIStatusError): ...  # 422


class RateLimitError(APIStatusError): ...  # 429


class InternalServerError(APIStatusError): ...  # 5xx


class APIStreamError(APIError):
    """An error event received in the middle of a server-sent-event stream."""


STATUS_ERRORS: dict[int, type[APIStatusError]] = {400: BadRequestError, 401: AuthenticationError,
    403: PermissionDeniedError, 404: NotFoundError, 409: ConflictError,
    422: UnprocessableEntityError, 429: RateLimitError}  # fmt: skip


_ADAPTERS: dict[Any, pydantic.TypeAdapter[Any]] = {}


def parse_json(kind: Any, content: bytes) -> Any:
    """``content`` validated as ``kind`` (a model class, or any type a TypeAdapter takes)."""
    if kind is None:
        return None
    if isinstance(kind, type) and issubclass(kind, pydantic.BaseModel):
        return kind.model_validate_json(content)
    adapter = _ADAPTERS.get(kind)
    if adapter is None:
        adapter = _ADAPTERS[kind] = pydantic.TypeAdapter(kind)
    return adapter.validate_json(content)


def jsonable(value: object) -> object:
    """Models dumped by alias (only the fields that were set); containers recursed."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return value


def given(values: Mapping[str, object] | None) -> dict[str, object]:
    return {k: v for k, v in values.items() if v is not NOT_GIVEN} if values else {}


def path_param(value: object) -> str:
    return quote(_text(value), safe="")


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list, pydantic.BaseModel)):
        return to_json(jsonable(value)).decode()
    return str(value)


def _file(name: str, value: Any) -> tuple[str, tuple[str, Any, str]]:
    content_type = None
    if isinstance(value, tuple):
        filename, content, *rest = value
        content_type = rest[0] if rest else None
    elif isinstance(value, (bytes, bytearray)):
        filename, content = name, bytes(value)
    elif isinstance(value, os.PathLike):
        path = os.fspath(value)
        filename = os.path.basename(path)
        with open(path, "rb") as fh:
            content = fh.read()
    else:  # a file object
        filename = os.path.basename(str(getattr(value, "name", "") or name))
        content = value
    if content_type is None:
        content_type = mimetypes.guess_type(filename)[0] or "application/octet-stream"
    return name, (filename, content, content_type)


def multipart(fields: Mapping[str, object], file_fields: Iterable[str]) -> tuple[dict[str, Any], list[Any]]:  # fmt: skip
    """Form fields and file parts (each with a filename and a content type) of a request."""
    files_set = set(file_fields)
    data: dict[str, Any] = {}
    files: list[Any] = []
    for key, value in fields.items():
        if key in files_set:
            for item in value if isinstance(value, list) else [value]:
                files.append(_file(key, item))
        elif value is not None:
            data[key] = _text(value)
    return data, files


def basic_auth(username: str, password: str = "") -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


class APIResponse(Generic[R]):
    """The raw httpx response of a call; ``parse()`` gives what the method would return."""

    def __init__(self, response: httpx.Response, parse: Callable[[], R]) -> None:
        self.http_response = response
        self.status_code = response.status_code
        self.headers = response.headers
        self._parse = parse

    def parse(self) -> R:
        return self._parse()


class _Decoder:
    """Server-sent-event lines in, typed chunks out (``SKIP`` while an event is incomplete)."""

    def __init__(self, kind: Any) -> None:
        self.kind = kind
        self.event: str | None = None
        self.data: list[str] = []
        self.done = False

    def feed(self, line: str) -> Any:
        if line.startswith("data:"):
            value = line[6:] if line[5:6] == " " else line[5:]
            if value == "[DONE]":
                self.done = True
            else:
                self.data.append(value)
        elif line.startswith("event:"):
            self.event = line[6:].strip()
        elif not line and self.data:
            text, event = "\n".join(self.data), self.event
            self.event, self.data = None, []
            if event == "error" or '"error"' in text:
                body = json.loads(text) if text.lstrip().startswith("{") else text
                error = body.get("error") if isinstance(body, dict) else body
                if event == "error" or error:
                    raise APIStreamError(f"error event in stream: {error}", None, body)
            return parse_json(self.kind, text.encode())
        return SKIP


SKIP = object()


class _StreamBase:
    def __init__(self, response: httpx.Response, kind: Any) -> None:
        self.response = response
        self._iterator = self._events(_Decoder(kind))

    def _events(self, decoder: _Decoder) -> Any: ...  # pragma: no cover


class Stream(_StreamBase, Generic[T]):
    """Typed chunks of a server-sent-event response; stops at ``[DONE]``. Closing the stream
    (or leaving its loop early, or its ``with`` block) closes the connection."""

    _iterator: Generator[T, None, None]

    def _events(self, decoder: _Decoder) -> Generator[T, None, None]:
        try:
            for line in self.response.iter_lines():
                chunk = decoder.feed(line)
                if decoder.done:
                    return
                if chunk is not SKIP:
                    yield chunk
            if (chunk := decoder.feed("")) is not SKIP:
                yield chunk
        finally:
            self.response.close()

    def __iter__(self) -> Iterator[T]:
        return self._iterator

    def close(self) -> None:
        self._iterator.close()
        self.response.close()

    def __enter__(self) -> Stream[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncStream(_StreamBase, Generic[T]):
    """The async :class:`Stream`."""

    _iterator: AsyncGenerator[T, None]

    async def _events(self, decoder: _Decoder) -> AsyncGenerator[T, None]:
        try:
            async for line in self.response.aiter_lines():
                chunk = decoder.feed(line)
                if decoder.done:
                    return
                if chunk is not SKIP:
                    yield chunk
            if (chunk := decoder.feed("")) is not SKIP:
                yield chunk
        finally:
            await self.response.aclose()

    def __aiter__(self) -> AsyncIterator[T]:
        return self._iterator

    async def close(self) -> None:
        await self._iterator.aclose()
        await self.response.aclose()

    async def __aenter__(self) -> AsyncStream[T]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class _Page(Generic[P, T]):
    def __init__(self, page: P, fetch: Callable[[int], Any]) -> None:
        self.page = page
        self.items: list[T] = list(cast(Any, page).items)
        self._fetch = fetch


class SyncPage(_Page[P, T]):
    """One page (``.page``: the typed response model); iterating it yields every item of
    every page, fetching the next page lazily."""

    def __iter__(self) -> Iterator[T]:
        page: Any = self.page
        seen = len(page.items)
        yield from page.items
        while page.items and seen < page.total_item_count:
            page = self._fetch(page.current_page + 1)
            seen += len(page.items)
            yield from page.items


class AsyncPage(_Page[P, T]):
    """The async :class:`SyncPage`: ``async for item in await client.x.list()``."""

    async def __aiter__(self) -> AsyncIterator[T]:
        page: Any = self.page
        seen = len(page.items)
        for item in page.items:
            yield item
        while page.items and seen < page.total_item_count:
            page = await self._fetch(page.current_page + 1)
            seen += len(page.items)
            for item in page.items:
                yield item


_RAW: ContextVar[bool] = ContextVar("_apismith_raw", default=False)


def to_raw(func: Callable[Params, R]) -> Callable[Params, APIResponse[R]]:
    def wrapped(*args: Params.args, **kwargs: Params.kwargs) -> APIResponse[R]:
        token = _RAW.set(True)
        try:
            return cast(APIResponse[R], func(*args, **kwargs))
        finally:
            _RAW.reset(token)

    return wrapped


def async_to_raw(
    func: Callable[Params, Awaitable[R]],
) -> Callable[Params, Awaitable[APIResponse[R]]]:
    async def wrapped(*args: Params.args, **kwargs: Params.kwargs) -> APIResponse[R]:
        token = _RAW.set(True)
        try:
            return cast(APIResponse[R], await func(*args, **kwargs))
        finally:
            _RAW.reset(token)

    return wrapped


def retry_delay(attempt: int, response: httpx.Response | None) -> float:
    """``Retry-After`` (seconds or an HTTP date) when given and sane, else exponential
    backoff with jitter."""
    after = response.headers.get("retry-after") if response is not None else None
    if after:
        try:
            seconds = float(after)
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(after)
                seconds = when.timestamp() - time.time()
            except (TypeError, ValueError):
                seconds = -1.0
        if 0 <= seconds <= MAX_RETRY_AFTER:
            return seconds
    delay = min(INITIAL_RETRY_DELAY * 2.0**attempt, MAX_RETRY_DELAY)
    return delay * (1 - 0.25 * random.random())


def status_error(
    response: httpx.Response, errors: Mapping[int, Any] | None
) -> APIStatusError:
    status, text = response.status_code, response.text
    kind = errors.get(status) if errors else None
    body: object
    try:
        body = parse_json(kind, response.content) if kind else response.json()
    except (ValueError, pydantic.ValidationError):
        body = text
    default = InternalServerError if status >= 500 else APIStatusError
    cls = STATUS_ERRORS.get(status, default)
    return cls(
        f"HTTP {status} from {response.request.url}: {text[:500]}", response, body
    )


class BaseClient:
    """State and request building shared by the sync and async clients."""

    _http: httpx.Client | httpx.AsyncClient
    _http_class: Any = httpx.Client

    def __init__(self, *, base_url: str, headers: Headers, timeout: Timeout | NotGiven,
                 max_retries: int, default_headers: Headers | None, http_client: Any) -> None:  # fmt: skip
        self.base_url = str(base_url).rstrip("/")
        self.timeout = DEFAULT_TIMEOUT if isinstance(timeout, NotGiven) else timeout
        self.max_retries = max_retries
        self._headers = {"accept": "application/json", **headers}
        self._headers.update(default_headers or {})
        self._http = http_client or self._http_class()

    def _configure(self, timeout: Timeout | NotGiven, max_retries: int | None) -> None:
        """Called on a copy by the generated ``with_options``."""
        if not isinstance(timeout, NotGiven):
            self.timeout = timeout
        if max_retries is not None:
            self.max_retries = max_retries
        self.__dict__.pop("with_raw_response", None)
        self._init_resources()

    def _init_resources(self) -> None:
        """Creates the resources (generated subclasses define it)."""

    def _build(self, method: str, path: str, o: Any) -> httpx.Request:
        params = given(o.get("query"))
        if extra_query := o.get("extra_query"):
            params.update(extra_query)
        hdrs = dict(self._headers)
        if headers := o.get("headers"):
            hdrs.update((k, _text(v)) for k, v in headers.items() if v is not NOT_GIVEN)
        if extra_headers := o.get("extra_headers"):
            hdrs.update(extra_headers)
        body, extra_body = o.get("body", NOT_GIVEN), o.get("extra_body")
        content = data = files = None
        if o.get("files") is not None:
            fields = {**given(body), **(extra_body or {})}
            data, files = multipart(fields, o["files"])
        elif body is not NOT_GIVEN or extra_body:
            if isinstance(body, dict):
                body = given(body)
            if extra_body:
                body = {**(body if isinstance(body, dict) else {}), **extra_body}
            content = to_json(jsonable(body))
            hdrs["content-type"] = "application/json"
        timeout = o.get("timeout", NOT_GIVEN)
        return self._http.build_request(
            method,
            self.base_url + path,
            params=cast(Any, params) or None,
            headers=hdrs,
            content=content,
            data=data,
            files=files,
            timeout=self.timeout if isinstance(timeout, NotGiven) else timeout,
        )

    def _failed(self, attempt: int, request: httpx.Request, exc: Exception | None,
                response: httpx.Response | None = None, errors: Any = None) -> float:  # fmt: skip
        """The delay before the next attempt (connection errors, 408, 409, 429 and 5xx);
        raises when the call is not retried."""
        status = response.status_code if response is not None else 0
        if attempt < self.max_retries and (
            status in (0, 408, 409, 429) or status >= 500
        ):
            return retry_delay(attempt, response)
        if response is not None:
            raise status_error(response, errors)
        if isinstance(exc, httpx.TimeoutException):
            raise APITimeoutError("Request timed out.", request) from exc
        raise APIConnectionError(f"Connection error: {exc}", request) from exc


def _next_page(o: dict[str, Any], number: int) -> dict[str, Any]:
    return {**o, "page": False, "query": {**(o.get("query") or {}), "page": number}}


class SyncAPIClient(BaseClient):
    _http: httpx.Client

    def close(self) -> None:
        self._http.close()

    def _request(self, method: str, path: str, kind: Any, **o: Any) -> Any:
        """One call, retried; ``o``: query, headers, body, files, stream (chunk type), page,
        errors (status -> error model), extra_headers, extra_query, extra_body, timeout.
        """
        request = self._build(method, path, o)
        stream = o.get("stream")
        attempt = 0
        while True:
            try:
                response = self._http.send(request, stream=stream is not None)
            except httpx.TransportError as exc:
                delay = self._failed(attempt, request, exc)
            else:
                if response.status_code < 400:
                    break
                response.read()
                delay = self._failed(attempt, request, None, response, o.get("errors"))
            time.sleep(delay)
            attempt += 1

        def parse() -> Any:
            if stream is not None:
                return Stream(response, stream)
            result = parse_json(kind, response.content)
            if o.get("page"):
                return SyncPage(
                    result,
                    lambda n: self._request(method, path, kind, **_next_page(o, n)),
                )
            return result

        return APIResponse(response, parse) if _RAW.get() else parse()


class AsyncAPIClient(BaseClient):
    _http: httpx.AsyncClient
    _http_class = httpx.AsyncClient

    async def close(self) -> None:
        await self._http.aclose()

    async def _request(self, method: str, path: str, kind: Any, **o: Any) -> Any:
        """The async :meth:`SyncAPIClient._request`."""
        request = self._build(method, path, o)
        stream = o.get("stream")
        attempt = 0
        while True:
            try:
                response = await self._http.send(request, stream=stream is not None)
            except httpx.TransportError as exc:
                delay = self._failed(attempt, request, exc)
            else:
                if response.status_code < 400:
                    break
                await response.aread()
                delay = self._failed(attempt, request, None, response, o.get("errors"))
            await asyncio.sleep(delay)
            attempt += 1

        def parse() -> Any:
            if stream is not None:
                return AsyncStream(response, stream)
            result = parse_json(kind, response.content)
            if o.get("page"):
                return AsyncPage(
                    result,
                    lambda n: self._request(method, path, kind, **_next_page(o, n)),
                )
            return result

        return APIResponse(response, parse) if _RAW.get() else parse()
