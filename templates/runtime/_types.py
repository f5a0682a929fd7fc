"""The client runtime's types and constants, and ``RequestOptions`` (one call)."""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import IO, Any, Concatenate, Literal, ParamSpec, TypeVar

import httpx

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
RETRY_COUNT_HEADER = "x-retry-count"  # sent with every attempt: 0, then 1, 2, ...


class LazyModule:
    """A module imported on its first attribute access: a resource module's ``models`` and
    ``_params``, so that making a client and reaching its resources builds no model."""

    def __init__(self, name: str, package: str) -> None:
        self._name, self._package = name, package
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name, self._package)
        return getattr(self._module, attr)


class LazyErrors(Mapping[int, Any]):
    """A resource's error table (status -> error model), built on its first use."""

    def __init__(self, build: Callable[[], Mapping[int, Any]]) -> None:
        self._build = build
        self._table: Mapping[int, Any] | None = None

    def _get(self) -> Mapping[int, Any]:
        if self._table is None:
            self._table = self._build()
        return self._table

    def __getitem__(self, status: int) -> Any:
        return self._get()[status]

    def __iter__(self) -> Iterator[int]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


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
    "cursor": ``param`` = the answer's ``next`` until it is empty (an http(s) URL: the next
    page's URL); "link": the URL of the ``Link`` header's ``rel="next"``."""

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
    # key -> (style, explode), where not (form, exploded)
    query_styles: Mapping[str, tuple[str, bool]] | None = None
    headers: Mapping[str, object] | None = None
    body: object = NOT_GIVEN  # a dict of fields, a model, or any JSON value
    files: list[str] | None = None  # the body's file fields (sent as multipart)
    form: bool = False  # the body is sent as application/x-www-form-urlencoded
    stream: Any = None  # the chunk type of a server-sent-event response
    page: Paging | None = None  # the response is a page: a SyncPage / AsyncPage
    errors: Errors | None = None
    extra_headers: Headers | None = None
    extra_query: Query | None = None
    extra_body: Body | None = None
    timeout: Timeout | NotGiven = NOT_GIVEN  # NOT_GIVEN: the client's
    raw: bool = False  # return an APIResponse (``with_raw_response``)
    streamed: bool = False  # raw, its body not read yet (``with_streaming_response``)
    url: str | None = None  # a next page's URL, sent instead of base URL + path


def _takes(
    options: Callable[Params, object],
) -> Callable[[Callable[..., R]], Callable[Concatenate[Any, Params], R]]:
    """Types the decorated method as taking what ``options`` takes (for the type checker)."""
    return lambda method: method


def loads(text: str) -> object:
    """``text`` as JSON, else as is."""
    try:
        return json.loads(text)
    except ValueError:
        return text
