"""The client runtime's errors: every one the client raises is an :class:`APIError`."""

from __future__ import annotations

import re

import httpx
import pydantic

from ._types import loads

_USERINFO = re.compile(r"//[^/?#@\s]*@")  # a URL's ``user:password@``


class APIError(Exception):
    """Base class of every error the client raises. Its message never holds the userinfo
    of a URL (``http://user:password@host/``: ``http://***@host/``)."""

    def __init__(
        self, message: str, request: httpx.Request | None = None, body: object = None
    ) -> None:
        message = _USERINFO.sub("//***@", message)
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


class APIOriginError(APIError):
    """A request refused before it was sent: its URL (a next page's, a redirect's, or
    ``base_url`` + a path) is not on ``base_url``'s origin, or not a valid URL."""


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
        super().__init__(message, response.request, loads(text))


STATUS_ERRORS: dict[int, type[APIStatusError]] = {400: BadRequestError, 401: AuthenticationError,
    403: PermissionDeniedError, 404: NotFoundError, 409: ConflictError,
    422: UnprocessableEntityError, 429: RateLimitError}  # fmt: skip


def connection_error(request: httpx.Request, exc: Exception) -> APIConnectionError:
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError("Request timed out.", request)
    return APIConnectionError(f"Connection error: {exc}", request)
