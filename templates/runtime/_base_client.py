"""The client runtime's retries, HTTP errors and base clients (what a call goes through)."""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import replace
from functools import partial
from itertools import count
from typing import Any, cast

import httpx
from pydantic_core import to_json

from ._encoding import given, jsonable, multipart, parse_json, query_items, simple_text
from ._errors import (
    STATUS_ERRORS,
    APIOriginError,
    APIResponseValidationError,
    APIStatusError,
    InternalServerError,
    connection_error,
)
from ._pages import AsyncPage, SyncPage
from ._response import APIResponse, AsyncAPIResponse
from ._streaming import AsyncStream, Stream
from ._types import (
    DEFAULT_TIMEOUT,
    NOT_GIVEN,
    RETRY_COUNT_HEADER,
    Errors,
    Headers,
    NotGiven,
    RequestOptions,
    Send,
    Timeout,
    _takes,
    loads,
)

INITIAL_RETRY_DELAY = 0.5
MAX_RETRY_DELAY = 8.0
MAX_RETRY_AFTER = 60.0  # the longest Retry-After obeyed; a longer one skips the retry
RETRIED = frozenset({408, 409, 429})  # and 5xx, and connection errors
ORIGIN = "apismith_origin"  # a request extension: the only origin the request may reach


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


def retryable(response: httpx.Response | None) -> bool:
    """Connection errors (no response), 408, 409, 429 and 5xx; ``x-should-retry: true`` or
    ``false`` decides instead when the server sends it."""
    should = response.headers.get("x-should-retry", "") if response is not None else ""
    if should.lower() in ("true", "false"):
        return should.lower() == "true"
    return (
        response is None
        or response.status_code in RETRIED
        or response.status_code >= 500
    )


def status_error(response: httpx.Response, errors: Errors | None) -> APIStatusError:
    status, text = response.status_code, response.text
    kind = errors.get(status) if errors else None
    try:
        body = parse_json(kind, response) if kind else loads(text)
    except APIResponseValidationError:
        body = text
    default = InternalServerError if status >= 500 else APIStatusError
    cls = STATUS_ERRORS.get(status, default)
    message = f"HTTP {status} from {response.request.url}: {text[:500]}"
    return cls(message, response, body)


# === Origins ==========================================================================
def origin(url: httpx.URL) -> tuple[str, bytes, int | None]:
    """A URL's scheme, host (IDNA-encoded) and port (the scheme's default if none)."""
    default = {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, url.raw_host, url.port or default


def check_origin(request: httpx.Request) -> None:
    """Refuses a request whose URL is not on the origin it was built for (every call's is
    ``base_url``'s). Also an httpx ``request`` event hook: a redirect is checked too."""
    allowed = request.extensions.get(ORIGIN)
    if allowed is not None and origin(request.url) != allowed:
        message = f"Refused a request to {request.url}: not on the origin of base_url."
        raise APIOriginError(message, request)


async def acheck_origin(request: httpx.Request) -> None:
    check_origin(request)


# === Base clients =====================================================================
class BaseClient:
    """State and request building shared by the sync and async clients."""

    _http: httpx.Client | httpx.AsyncClient
    _http_class: Any = httpx.Client
    _stream_class: Any = Stream
    _page_class: Any = SyncPage
    _raw_class: Any = APIResponse  # the response of with_raw/streaming_response
    _origin_hook: Any = staticmethod(check_origin)
    _send: Send  # (a coroutine function on the async client)

    def __init__(self, *, base_url: str, headers: Headers, timeout: Timeout | NotGiven,
                 max_retries: int, default_headers: Headers | None, http_client: Any,
                 strict_response_validation: bool = True,
                 idempotency_header: str | None = None,
                 query: Mapping[str, str] | None = None) -> None:  # fmt: skip
        self.base_url = str(base_url).rstrip("/")
        self.timeout = DEFAULT_TIMEOUT if isinstance(timeout, NotGiven) else timeout
        self.max_retries = max_retries
        self.strict_response_validation = strict_response_validation
        self.idempotency_header = idempotency_header
        self._headers = {"accept": "application/json", **headers}
        self._headers.update(default_headers or {})
        self._query = dict(query or {})  # credentials sent in the query
        self._http = http_client or self._http_class()
        hooks = self._http.event_hooks["request"]  # (one hook, however many clients)
        if self._origin_hook not in hooks:
            hooks.append(self._origin_hook)

    def _configure(self, timeout: Timeout | NotGiven, max_retries: int | None,
                   strict_response_validation: bool | None = None) -> None:  # fmt: skip
        """Called on a copy by the generated ``with_options``."""
        if not isinstance(timeout, NotGiven):
            self.timeout = timeout
        if max_retries is not None:
            self.max_retries = max_retries
        if strict_response_validation is not None:
            self.strict_response_validation = strict_response_validation
        self.__dict__.pop("with_raw_response", None)
        self.__dict__.pop("with_streaming_response", None)
        self._init_resources()

    def _init_resources(self) -> None:
        """Creates the resources (generated subclasses define it)."""

    @_takes(RequestOptions)
    def _request(self, *args: Any, **kwargs: Any) -> Any:
        """A generated method's call (:class:`RequestOptions`); awaitable when async."""
        return self._send(RequestOptions(*args, **kwargs))

    def _build(self, o: RequestOptions) -> httpx.Request:
        values = {**self._query, **given(o.query), **(o.extra_query or {})}
        params = query_items(values, o.query_styles)
        hdrs = {
            **self._headers,
            **{k: simple_text(v) for k, v in given(o.headers).items()},
        }
        hdrs.update(o.extra_headers or {})
        key, names = self.idempotency_header, {name.lower() for name in hdrs}
        if key and o.method.lower() != "get" and key.lower() not in names:
            hdrs[key] = str(uuid.uuid4())  # one per call: the same for all its retries
        body, extra_body = o.body, o.extra_body
        content = data = files = None
        if o.files is not None or o.form:
            data, files = multipart(body, extra_body, o.files)
        elif body is not NOT_GIVEN or extra_body:
            body = given(body) if isinstance(body, dict) else body
            if extra_body:
                body = {**(body if isinstance(body, dict) else {}), **extra_body}
            content = to_json(jsonable(body))
            hdrs["content-type"] = "application/json"
        try:
            base = httpx.URL(self.base_url)  # (relative: the http_client's base_url)
            allowed = origin(base if base.is_absolute_url else self._http.base_url)
            request = self._http.build_request(
                o.method,
                o.url or self.base_url + o.path,
                params=cast(Any, params) or None,
                headers=hdrs,
                content=content,
                data=data,
                files=files,
                timeout=self.timeout if isinstance(o.timeout, NotGiven) else o.timeout,
                extensions={ORIGIN: allowed},
            )
        except httpx.InvalidURL as exc:
            raise APIOriginError(f"Refused an invalid URL: {exc}") from exc
        check_origin(request)
        return request

    @staticmethod
    def _attempts(request: httpx.Request) -> Iterator[int]:
        """0, 1, 2, ...: each sets the request's retry-count header (unless the caller did)."""
        counted = RETRY_COUNT_HEADER not in request.headers
        for attempt in count():
            if counted:
                request.headers[RETRY_COUNT_HEADER] = str(attempt)
            yield attempt

    def _failed(self, attempt: int, request: httpx.Request,
                failure: httpx.Response | Exception, o: RequestOptions) -> float:  # fmt: skip
        """The delay before the next attempt (see :func:`retryable`); raises when the call
        is not retried (see :func:`retry_delay`)."""
        response = failure if isinstance(failure, httpx.Response) else None
        retried = attempt < self.max_retries and retryable(response)
        if retried and (delay := retry_delay(attempt, response)) is not None:
            return delay
        if isinstance(failure, httpx.Response):
            raise status_error(failure, o.errors)
        raise connection_error(request, failure) from failure

    def _result(
        self, response: httpx.Response, o: RequestOptions, retries: int = 0
    ) -> Any:
        """A call's stream, page or parsed body (when raw: an APIResponse parsing to it)."""
        if o.raw:
            parse = partial(
                self._result, response, replace(o, raw=False, streamed=False)
            )
            return self._raw_class(response, parse, o.stream is not None, retries)
        strict = self.strict_response_validation
        if o.stream is not None:
            return self._stream_class(response, o.stream, strict)
        result = parse_json(o.kind, response, strict=strict)
        if o.page is None:
            return result
        return self._page_class(result, self._send, o, response)


class SyncAPIClient(BaseClient):
    _http: httpx.Client

    def close(self) -> None:
        self._http.close()

    def _send(self, o: RequestOptions) -> Any:
        request, stream = self._build(o), o.stream is not None or o.streamed
        for attempt in self._attempts(request):
            try:
                response = self._http.send(request, stream=stream)
                if response.status_code < 400:
                    break
                response.read()
                failure: httpx.Response | Exception = response
            except httpx.RequestError as exc:
                failure = exc
            time.sleep(self._failed(attempt, request, failure, o))
        return self._result(response, o, attempt)


class AsyncAPIClient(BaseClient):
    _http: httpx.AsyncClient
    _http_class, _stream_class, _page_class = httpx.AsyncClient, AsyncStream, AsyncPage
    _raw_class, _origin_hook = AsyncAPIResponse, staticmethod(acheck_origin)

    async def close(self) -> None:
        await self._http.aclose()

    async def _send(self, o: RequestOptions) -> Any:
        request, stream = self._build(o), o.stream is not None or o.streamed
        for attempt in self._attempts(request):
            try:
                response = await self._http.send(request, stream=stream)
                if response.status_code < 400:
                    break
                await response.aread()
                failure: httpx.Response | Exception = response
            except httpx.RequestError as exc:
                failure = exc
            await asyncio.sleep(self._failed(attempt, request, failure, o))
        return self._result(response, o, attempt)
