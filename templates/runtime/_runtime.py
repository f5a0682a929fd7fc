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
from functools import partial
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
MAX_RETRY_AFTER = 60.0  # the longest Retry-After obeyed; a longer one skips the retry


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


class APIResponseValidationError(APIError):
    """A 2xx response, or one event of its stream, that is not JSON or not its model.
    ``body``: the parsed JSON, else the text; ``errors``: pydantic's error list."""

    def __init__(self, response: httpx.Response, text: str, exc: pydantic.ValidationError) -> None:  # fmt: skip
        self.response, self.status_code = response, response.status_code
        self.errors = exc.errors(include_url=False)
        where = [".".join(map(str, e["loc"])) or "body" for e in self.errors[:3]]
        detail = "; ".join(f"{w}: {e['msg']}" for w, e in zip(where, self.errors))
        message = f"invalid response from {response.request.url}: {exc.title}: {detail}"
        super().__init__(message, response.request, _loads(text))


STATUS_ERRORS: dict[int, type[APIStatusError]] = {400: BadRequestError, 401: AuthenticationError,
    403: PermissionDeniedError, 404: NotFoundError, 409: ConflictError,
    422: UnprocessableEntityError, 429: RateLimitError}  # fmt: skip


_ADAPTERS: dict[Any, pydantic.TypeAdapter[Any]] = {}


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

    def __init__(self, kind: Any, response: httpx.Response) -> None:
        self.kind, self.response = kind, response
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
                body = _loads(text)
                error = body.get("error") if isinstance(body, dict) else None
                if event == "error" or error:
                    message = f"error event in stream: {error or body}"
                    raise APIStreamError(message, self.response.request, body)
            return parse_json(self.kind, self.response, text)
        return SKIP

    def end(self) -> None:
        """At the end of the body: an event without its closing blank line was cut short."""
        if self.data:
            request = self.response.request
            raise APIConnectionError("Stream cut in the middle of an event.", request)


SKIP = object()


class _StreamBase:
    def __init__(self, response: httpx.Response, kind: Any) -> None:
        self.response = response
        self._iterator = self._events(_Decoder(kind, response))

    def _events(self, decoder: _Decoder) -> Any: ...  # pragma: no cover


class Stream(_StreamBase, Generic[T]):
    """Typed chunks of a server-sent-event response; stops at ``[DONE]``. Closing the stream
    (or leaving its loop early, or its ``with`` block) closes the connection. A body cut
    short (mid-chunk or mid-event) raises :class:`APIConnectionError`; an event that is not
    JSON or not its model, :class:`APIResponseValidationError`."""

    _iterator: Generator[T, None, None]

    def _events(self, decoder: _Decoder) -> Generator[T, None, None]:
        try:
            for line in self.response.iter_lines():
                chunk = decoder.feed(line)
                if decoder.done:
                    return
                if chunk is not SKIP:
                    yield chunk
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
                chunk = decoder.feed(line)
                if decoder.done:
                    return
                if chunk is not SKIP:
                    yield chunk
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


def retry_delay(attempt: int, response: httpx.Response | None) -> float | None:
    """The wait before the next attempt, or ``None``: do not retry. A ``retry-after-ms`` or
    ``Retry-After`` header (seconds or an HTTP date) is obeyed exactly up to
    ``MAX_RETRY_AFTER`` (60 s); a longer one skips the retry (the status error is raised at
    once), so a retry never comes early. Else: exponential backoff with jitter."""
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


def status_error(response: httpx.Response, errors: Any) -> APIStatusError:
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


class BaseClient:
    """State and request building shared by the sync and async clients."""

    _http: httpx.Client | httpx.AsyncClient
    _http_class: Any = httpx.Client
    _stream_class: Any = Stream
    _page_class: Any = SyncPage
    _request: Callable[..., Any]

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

    def _failed(self, attempt: int, request: httpx.Request,
                failure: httpx.Response | Exception, o: Any) -> float:  # fmt: skip
        """The delay before the next attempt (connection errors, 408, 409, 429 and 5xx);
        raises when the call is not retried (see :func:`retry_delay`)."""
        response = failure if isinstance(failure, httpx.Response) else None
        status = response.status_code if response is not None else 0
        delay = retry_delay(attempt, response) if attempt < self.max_retries else None
        if delay is not None and (status in (0, 408, 409, 429) or status >= 500):
            return delay
        if isinstance(failure, httpx.Response):
            raise status_error(failure, o.get("errors"))
        raise connection_error(request, failure) from failure

    def _result(
        self, response: httpx.Response, method: str, path: str, kind: Any, o: Any
    ) -> Any:
        """A call's stream, page (the next ones fetched by ``_request``) or parsed body."""
        if o.get("stream") is not None:
            return self._stream_class(response, o["stream"])
        result = parse_json(kind, response)
        if not o.get("page"):
            return result
        return self._page_class(
            result, lambda n: self._request(method, path, kind, **_next_page(o, n))
        )


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
                if response.status_code < 400:
                    break
                response.read()
                failure: httpx.Response | Exception = response
            except httpx.RequestError as exc:
                failure = exc
            time.sleep(self._failed(attempt, request, failure, o))
            attempt += 1
        parse = partial(self._result, response, method, path, kind, o)
        return APIResponse(response, parse) if _RAW.get() else parse()


class AsyncAPIClient(BaseClient):
    _http: httpx.AsyncClient
    _http_class, _stream_class, _page_class = httpx.AsyncClient, AsyncStream, AsyncPage

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
                if response.status_code < 400:
                    break
                await response.aread()
                failure: httpx.Response | Exception = response
            except httpx.RequestError as exc:
                failure = exc
            await asyncio.sleep(self._failed(attempt, request, failure, o))
            attempt += 1
        parse = partial(self._result, response, method, path, kind, o)
        return APIResponse(response, parse) if _RAW.get() else parse()
