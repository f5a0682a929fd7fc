"""The client runtime, copied verbatim into each generated package (httpx + pydantic only).

This module re-exports what the client and the package use. Its sections, one module each:
``_types`` (types and constants, ``RequestOptions``), ``_errors``, ``_encoding`` (request
encoding, response parsing: strict or lenient), ``_response`` (raw and streamed responses),
``_streaming`` (server-sent events), ``_pages`` and ``_base_client`` (retries, base clients).
"""

from ._base_client import (
    INITIAL_RETRY_DELAY,
    MAX_RETRY_AFTER,
    MAX_RETRY_DELAY,
    AsyncAPIClient,
    BaseClient,
    SyncAPIClient,
    retry_delay,
    retryable,
    status_error,
)
from ._encoding import basic_auth, construct, parse_json, path_param
from ._errors import (
    APIConnectionError,
    APIError,
    APIOriginError,
    APIResponseValidationError,
    APIStatusError,
    APIStreamError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
)
from ._pages import AsyncPage, SyncPage
from ._response import (
    APIResponse,
    AsyncAPIResponse,
    AsyncResponseContextManager,
    ResponseContextManager,
    async_to_raw,
    to_raw,
)
from ._streaming import AsyncStream, Stream
from ._types import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    NOT_GIVEN,
    RETRY_COUNT_HEADER,
    Body,
    FileInput,
    Headers,
    LazyErrors,
    LazyModule,
    NotGiven,
    Paging,
    Query,
    RequestOptions,
    Timeout,
)

__all__ = [
    "DEFAULT_MAX_RETRIES", "DEFAULT_TIMEOUT", "INITIAL_RETRY_DELAY", "MAX_RETRY_AFTER",
    "MAX_RETRY_DELAY", "NOT_GIVEN", "RETRY_COUNT_HEADER", "APIConnectionError",
    "APIError", "APIOriginError", "APIResponse", "APIResponseValidationError",
    "APIStatusError", "APIStreamError", "APITimeoutError", "AsyncAPIClient",
    "AsyncAPIResponse", "AsyncPage", "AsyncResponseContextManager", "AsyncStream",
    "AuthenticationError", "BadRequestError", "BaseClient", "Body", "ConflictError",
    "FileInput", "Headers", "InternalServerError", "LazyErrors", "LazyModule",
    "NotFoundError", "NotGiven",
    "Paging", "PermissionDeniedError", "Query", "RateLimitError", "RequestOptions",
    "ResponseContextManager", "Stream", "SyncAPIClient", "SyncPage", "Timeout",
    "UnprocessableEntityError", "async_to_raw", "basic_auth", "construct", "parse_json",
    "path_param", "retry_delay", "retryable", "status_error", "to_raw",
]  # fmt: skip
