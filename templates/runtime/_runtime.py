"""The client runtime, copied verbatim into each generated package (httpx + pydantic)."""

from __future__ import annotations

import asyncio
import base64
import copy
import email.utils
import json
import mimetypes
import os
import random
import re
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Generator,
    Iterator,
    Mapping,
)
from dataclasses import dataclass, replace
from functools import partial
from itertools import count
from typing import IO, Any, Concatenate, Generic, Literal, ParamSpec, TypeVar, cast
from urllib.parse import quote

import httpx
import pydantic
from pydantic_core import to_json

# === Types and constants ==============================================================
T = TypeVar("T")
P = TypeVar("P")
R = TypeVar("R")
Params = ParamSpec("Params")

Headers = Mapping[str, str]
Query = Mapping[str, object]
Body = Mapping[str, object]
Timeout = float | httpx.Timeout | None
Errors = Mapping[int, Any]  # status -> the error model of its body
Send = Callable[["RequestOptions"], Any]  # one call, sent and retried
_Data = bytes | IO[bytes]
FileInput = _Data | os.PathLike[str] | tuple[str, _Data] | tuple[str, _Data, str]
"""An upload: bytes, a binary file object, a path, or (filename, content[, content_type])."""

DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=5.0)
DEFAULT_MAX_RETRIES = 2
INITIAL_RETRY_DELAY = 0.5
MAX_RETRY_DELAY = 8.0
MAX_RETRY_AFTER = 60.0  # the longest Retry-After obeyed; a longer one skips the retry
_ADAPTERS: dict[Any, pydantic.TypeAdapter[Any]] = {}  # by response type, built once


class NotGiven:
    """The type of :data:`NOT_GIVEN`: an argument that was not passed (distinct from ``None``)."""

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


@dataclass(frozen=True)
class Paging:
    """How a list call pages (``items``: the answer's item field, "": the answer itself).
    "page": ``param`` = ``current`` + 1 while fewer than ``total`` items were seen;
    "cursor": ``param`` = the answer's ``next`` until it is empty; "link": the URL of the
    ``Link`` header's ``rel="next"``."""

    style: str
    items: str = "items"
    param: str = ""
    next: str = ""
    current: str = "current_page"
    total: str = "total_item_count"


@dataclass(frozen=True)
class RequestOptions:
    """One call, as the generated method describes it to :meth:`BaseClient._request`."""

    method: str
    path: str  # below the base URL, path parameters filled in
    kind: Any  # the response type: a model class, or any type a TypeAdapter takes
    query: Query | None = None  # NOT_GIVEN values dropped (here, in headers and body)
    headers: Mapping[str, object] | None = None
    body: object = NOT_GIVEN  # a dict of fields, a model, or any JSON value
    files: list[str] | None = None  # the body's file fields (sent as multipart)
    stream: Any = None  # the chunk type of a server-sent-event response
    page: Paging | None = None  # the response is a page: a SyncPage / AsyncPage
    errors: Errors | None = None
    extra_headers: Headers | None = None
    extra_query: Query | None = None
    extra_body: Body | None = None
    timeout: Timeout | NotGiven = NOT_GIVEN  # NOT_GIVEN: the client's
    raw: bool = False  # return an APIResponse (``with_raw_response``)


def _takes(
    options: Callable[Params, object],
) -> Callable[[Callable[..., R]], Callable[Concatenate[Any, Params], R]]:
    """Types the decorated method as taking what ``options`` takes (for the type checker)."""
    return lambda method: method


# === Errors ===========================================================================
class APIError(Exception):
    """Base class of every error the client raises."""

    def __init__(
        self, message: str, request: httpx.Request | None = None, body: object = None
    ) -> None:
        super().__init__(message)
        self.message, self.request, self.body = message, request, body


class APIConnectionError(APIError):
    """The request could not be sent, or no response came back."""


class APITimeoutError(APIConnectionError):
    """The request timed out (after its retries)."""


class APIStatusError(APIError):
    """A non-2xx response. ``body`` is the parsed error model when the spec declares one."""

    def __init__(self, message: str, response: httpx.Response, body: object) -> None:
        super().__init__(message, response.request, body)
        self.response, self.status_code = response, response.status_code


# fmt: off
class BadRequestError(APIStatusError): ...  # 400
class AuthenticationError(APIStatusError): ...  # 401
class PermissionDeniedError(APIStatusError): ...  # 403
class NotFoundError(APIStatusError): ...  # 404
class ConflictError(APIStatusError): ...  # 409
class UnprocessableEntityError(APIStatusError): ...  # 422
class RateLimitError(APIStatusError): ...  # 429
class InternalServerError(APIStatusError): ...  # 5xx
# fmt: on


class APIStreamError(APIError):
    """An error event received in the middle of a server-sent-event stream."""


class APIResponseValidationError(APIError):
    """A 2xx response, or one event of its stream, that is not JSON or not its model.
    ``body``: the parsed JSON, else the text; ``errors``: pydantic's error list."""

    def __init__(
        self, response: httpx.Response, text: str, exc: pydantic.ValidationError
    ) -> None:
        self.response, self.status_code = response, response.status_code
        self.errors = exc.errors(include_url=False)
        where = [".".join(map(str, e["loc"])) or "body" for e in self.errors[:3]]
        detail = "; ".join(f"{w}: {e['msg']}" for w, e in zip(where, self.errors))
        message = f"invalid response from {response.request.url}: {exc.title}: {detail}"
        super().__init__(message, response.request, _loads(text))


STATUS_ERRORS: dict[int, type[APIStatusError]] = {400: BadRequestError, 401: AuthenticationError,
    403: PermissionDeniedError, 404: NotFoundError, 409: ConflictError,
    422: UnprocessableEntityError, 429: RateLimitError}  # fmt: skip


# === Encoding and parsing =============================================================
def parse_json(kind: Any, response: httpx.Response, text: str | None = None) -> Any:
    """The body (or ``text``, one stream event) validated as ``kind`` (a model class, or any
    type a TypeAdapter takes); a failure raises :class:`APIResponseValidationError`."""
    if kind is None:
        return None
    content = response.content if text is None else text.encode()
    try:
        if isinstance(kind, type) and issubclass(kind, pydantic.BaseModel):
            return kind.model_validate_json(content)
        if (adapter := _ADAPTERS.get(kind)) is None:
            adapter = _ADAPTERS[kind] = pydantic.TypeAdapter(kind)
        return adapter.validate_json(content)
    except pydantic.ValidationError as exc:
        text = response.text if text is None else text
        raise APIResponseValidationError(response, text, exc) from exc


def _loads(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return text


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
    filename, content, content_type = name, value, None
    if isinstance(value, tuple):
        filename, content, content_type = (*value, None)[:3]
    elif isinstance(value, (bytes, bytearray)):
        content = bytes(value)
    elif isinstance(value, os.PathLike):
        filename = os.path.basename(os.fspath(value))
        with open(value, "rb") as fh:
            content = fh.read()
    else:  # a file object
        filename = os.path.basename(str(getattr(value, "name", "") or name))
    if content_type is None:
        content_type = mimetypes.guess_type(filename)[0] or "application/octet-stream"
    return name, (filename, content, content_type)


def multipart(
    fields: Mapping[str, object], file_fields: list[str]
) -> tuple[dict[str, Any], list[Any]]:
    """Form fields and file parts (each with a filename and a content type) of a request."""
    names = set(file_fields)
    data = {k: _text(v) for k, v in fields.items() if k not in names and v is not None}
    items = [(k, v) for k, vs in fields.items() if k in names for v in _listed(vs)]
    return data, [_file(k, v) for k, v in items]


def _listed(value: object) -> list[Any]:
    return value if isinstance(value, list) else [value]


def basic_auth(username: str, password: str = "") -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


# === Responses ========================================================================
class APIResponse(Generic[R]):
    """The raw httpx response of a call; ``parse()`` gives what the method would return."""

    def __init__(self, response: httpx.Response, parse: Callable[[], R]) -> None:
        self.http_response = response
        self.status_code, self.headers = response.status_code, response.headers
        self.parse = parse


def to_raw(func: Callable[Params, R]) -> Callable[Params, APIResponse[R]]:
    """``func`` bound to a copy of its resource, whose client asks for raw responses."""
    method: Any = func
    resource = copy.copy(method.__self__)
    resource._client = copy.copy(resource._client)
    resource._client._request = partial(method.__self__._client._request, raw=True)
    return cast("Callable[Params, APIResponse[R]]", method.__func__.__get__(resource))


def async_to_raw(
    func: Callable[Params, Awaitable[R]],
) -> Callable[Params, Awaitable[APIResponse[R]]]:
    return cast("Callable[Params, Awaitable[APIResponse[R]]]", to_raw(func))


# === Streaming ========================================================================
class _Decoder:
    """Server-sent-event lines in, typed chunks out (none while an event is incomplete)."""

    def __init__(self, kind: Any, response: httpx.Response) -> None:
        self.kind, self.response, self.done = kind, response, False
        self.event: str | None = None
        self.data: list[str] = []

    def feed(self, line: str) -> list[Any]:
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
                body = _loads(text)
                error = body.get("error") if isinstance(body, dict) else None
                if event == "error" or error:
                    message = f"error event in stream: {error or body}"
                    raise APIStreamError(message, self.response.request, body)
            return [parse_json(self.kind, self.response, text)]
        return []

    def end(self) -> None:
        """At the end of the body: an event without its closing blank line was cut short."""
        if self.data:
            request = self.response.request
            raise APIConnectionError("Stream cut in the middle of an event.", request)


class _StreamBase:
    def __init__(self, response: httpx.Response, kind: Any) -> None:
        self.response = response
        self._iterator = self._events(_Decoder(kind, response))

    def _events(self, decoder: _Decoder) -> Any: ...  # pragma: no cover


class Stream(_StreamBase, Generic[T]):
    """Typed chunks of a server-sent-event response, up to ``[DONE]``; closing it (or leaving
    its loop or ``with`` block) closes the connection. A body cut short raises
    :class:`APIConnectionError`, an event that fails its model a validation error."""

    _iterator: Generator[T, None, None]

    def _events(self, decoder: _Decoder) -> Generator[T, None, None]:
        try:
            for line in self.response.iter_lines():
                yield from decoder.feed(line)
                if decoder.done:
                    return
            decoder.end()
        except httpx.RequestError as exc:
            raise connection_error(self.response.request, exc) from exc
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
                for chunk in decoder.feed(line):
                    yield chunk
                if decoder.done:
                    return
            decoder.end()
        except httpx.RequestError as exc:
            raise connection_error(self.response.request, exc) from exc
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


# === Pages ============================================================================
_NEXT_LINK = re.compile(r'<([^>]*)>\s*;[^,]*\brel="?next"?', re.IGNORECASE)


class _Page(Generic[P, T]):
    """One page (``.page``: the typed answer, ``.items``: its items). Iterating it yields
    every page's items; ``iter_pages()``, every page (this one first)."""

    def __init__(self, page: P, fetch: Send, o: RequestOptions, link: str = "",
                 seen: int = 0) -> None:  # fmt: skip
        self.page, self._fetch, self._options, self._link = page, fetch, o, link
        self._paging = paging = o.page or Paging("page")
        found = getattr(page, paging.items) if paging.items else page
        self.items: list[T] = list(cast(Any, found))
        self._seen = seen + len(self.items)

    def _next_options(self) -> RequestOptions | None:
        o, paging, page, value = self._options, self._paging, self.page, None
        if paging.style == "link":
            found = _NEXT_LINK.search(self._link) if self.items else None
            return replace(o, path=found.group(1), query=None) if found else None
        if paging.style == "cursor":
            value = getattr(page, paging.next, None)
        elif self._seen < (getattr(page, paging.total, None) or 0):
            value = getattr(page, paging.current) + 1
        query = {**(o.query or {}), paging.param: value}
        return replace(o, query=query) if value and self.items else None

    def has_next_page(self) -> bool:
        return self._next_options() is not None

    def _turn(self, raw: APIResponse[Any], o: RequestOptions) -> Any:
        return type(self)(
            raw.parse(), self._fetch, o, raw.headers.get("link", ""), self._seen
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


# === Retries and HTTP errors ==========================================================
def retry_delay(attempt: int, response: httpx.Response | None) -> float | None:
    """The wait before the next attempt, or ``None``: do not retry. ``retry-after-ms`` or
    ``Retry-After`` (seconds or an HTTP date) is obeyed exactly up to ``MAX_RETRY_AFTER``; a
    longer one skips the retry (no retry comes early). Else: backoff with jitter."""
    headers = response.headers if response is not None else httpx.Headers()
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name, "")
        try:
            seconds = float(value) * scale
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(value)
                seconds = when.timestamp() - time.time()
            except (TypeError, ValueError, OverflowError):
                continue
        if seconds > MAX_RETRY_AFTER:
            return None
        if seconds <= MAX_RETRY_AFTER:  # (not NaN)
            return max(seconds, 0.0)
    delay = min(INITIAL_RETRY_DELAY * 2.0**attempt, MAX_RETRY_DELAY)
    return delay * (1 - 0.25 * random.random())


def connection_error(request: httpx.Request, exc: Exception) -> APIConnectionError:
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError("Request timed out.", request)
    return APIConnectionError(f"Connection error: {exc}", request)


def status_error(response: httpx.Response, errors: Errors | None) -> APIStatusError:
    status, text = response.status_code, response.text
    kind = errors.get(status) if errors else None
    try:
        body = parse_json(kind, response) if kind else _loads(text)
    except APIResponseValidationError:
        body = text
    default = InternalServerError if status >= 500 else APIStatusError
    cls = STATUS_ERRORS.get(status, default)
    message = f"HTTP {status} from {response.request.url}: {text[:500]}"
    return cls(message, response, body)


# === Base clients =====================================================================
class BaseClient:
    """State and request building shared by the sync and async clients."""

    _http: httpx.Client | httpx.AsyncClient
    _http_class: Any = httpx.Client
    _stream_class: Any = Stream
    _page_class: Any = SyncPage
    _send: Send  # (a coroutine function on the async client)

    def __init__(self, *, base_url: str, headers: Headers, timeout: Timeout | NotGiven,
                 max_retries: int, default_headers: Headers | None,
                 http_client: Any) -> None:  # fmt: skip
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

    @_takes(RequestOptions)
    def _request(self, *args: Any, **kwargs: Any) -> Any:
        """A generated method's call (:class:`RequestOptions`); awaitable when async."""
        return self._send(RequestOptions(*args, **kwargs))

    def _build(self, o: RequestOptions) -> httpx.Request:
        params = {**given(o.query), **(o.extra_query or {})}
        hdrs = {**self._headers, **{k: _text(v) for k, v in given(o.headers).items()}}
        hdrs.update(o.extra_headers or {})
        body, extra_body = o.body, o.extra_body
        content = data = files = None
        if o.files is not None:
            fields = {**given(cast(Any, body)), **(extra_body or {})}
            data, files = multipart(fields, o.files)
        elif body is not NOT_GIVEN or extra_body:
            body = given(body) if isinstance(body, dict) else body
            if extra_body:
                body = {**(body if isinstance(body, dict) else {}), **extra_body}
            content = to_json(jsonable(body))
            hdrs["content-type"] = "application/json"
        url = o.path if "://" in o.path else self.base_url + o.path  # (a Link's URL)
        return self._http.build_request(
            o.method,
            url,
            params=cast(Any, params) or None,
            headers=hdrs,
            content=content,
            data=data,
            files=files,
            timeout=self.timeout if isinstance(o.timeout, NotGiven) else o.timeout,
        )

    def _failed(self, attempt: int, request: httpx.Request,
                failure: httpx.Response | Exception, o: RequestOptions) -> float:  # fmt: skip
        """The delay before the next attempt (connection errors, 408, 409, 429 and 5xx);
        raises when the call is not retried (see :func:`retry_delay`)."""
        response = failure if isinstance(failure, httpx.Response) else None
        status = response.status_code if response is not None else 0
        delay = retry_delay(attempt, response) if attempt < self.max_retries else None
        if delay is not None and (status in (0, 408, 409, 429) or status >= 500):
            return delay
        if isinstance(failure, httpx.Response):
            raise status_error(failure, o.errors)
        raise connection_error(request, failure) from failure

    def _result(self, response: httpx.Response, o: RequestOptions) -> Any:
        """A call's stream, page or parsed body (when raw: an APIResponse parsing to it)."""
        if o.raw:
            parse = partial(self._result, response, replace(o, raw=False))
            return APIResponse(response, parse)
        if o.stream is not None:
            return self._stream_class(response, o.stream)
        result = parse_json(o.kind, response)
        if o.page is None:
            return result
        return self._page_class(result, self._send, o, response.headers.get("link", ""))


class SyncAPIClient(BaseClient):
    _http: httpx.Client

    def close(self) -> None:
        self._http.close()

    def _send(self, o: RequestOptions) -> Any:
        request = self._build(o)
        for attempt in count():
            try:
                response = self._http.send(request, stream=o.stream is not None)
                if response.status_code < 400:
                    break
                response.read()
                failure: httpx.Response | Exception = response
            except httpx.RequestError as exc:
                failure = exc
            time.sleep(self._failed(attempt, request, failure, o))
        return self._result(response, o)


class AsyncAPIClient(BaseClient):
    _http: httpx.AsyncClient
    _http_class, _stream_class, _page_class = httpx.AsyncClient, AsyncStream, AsyncPage

    async def close(self) -> None:
        await self._http.aclose()

    async def _send(self, o: RequestOptions) -> Any:
        request = self._build(o)
        for attempt in count():
            try:
                response = await self._http.send(request, stream=o.stream is not None)
                if response.status_code < 400:
                    break
                await response.aread()
                failure: httpx.Response | Exception = response
            except httpx.RequestError as exc:
                failure = exc
            await asyncio.sleep(self._failed(attempt, request, failure, o))
        return self._result(response, o)
