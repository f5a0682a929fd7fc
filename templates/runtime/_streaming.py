"""The client runtime's streams: typed chunks, sync and async, of server-sent events,
JSON Lines or JSON text sequences (RFC 7464), as the response's content type says."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator
from typing import Any, Generic

import httpx

from ._encoding import parse_json
from ._errors import APIConnectionError, APIStreamError, connection_error
from ._types import T, loads

# a JSON value per line (a JSON text sequence puts a record separator before each)
LINE_MEDIA = {"application/jsonl", "application/x-ndjson", "application/x-jsonlines"}
LINE_MEDIA.add("application/json-seq")


class _Decoder:
    """Lines in, typed chunks out (none while an event is incomplete)."""

    def __init__(self, kind: Any, response: httpx.Response, strict: bool) -> None:
        self.kind, self.response, self.strict, self.done = kind, response, strict, False
        self.event: str | None = None
        self.data: list[str] = []
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        self.lines = media in LINE_MEDIA

    def feed(self, line: str) -> list[Any]:
        if self.lines:
            text = line.strip().lstrip("\x1e")
            if not text:
                return []
            return [parse_json(self.kind, self.response, text, self.strict)]
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
                body = loads(text)
                error = body.get("error") if isinstance(body, dict) else None
                if event == "error" or error:
                    message = f"error event in stream: {error or body}"
                    raise APIStreamError(message, self.response.request, body)
            return [parse_json(self.kind, self.response, text, self.strict)]
        return []

    def end(self) -> None:
        """At the end of the body: an event without its closing blank line was cut short."""
        if self.data:
            request = self.response.request
            raise APIConnectionError("Stream cut in the middle of an event.", request)


class _StreamBase:
    def __init__(
        self, response: httpx.Response, kind: Any, strict: bool = True
    ) -> None:
        self.response = response
        self._iterator = self._events(_Decoder(kind, response, strict))

    def _events(self, decoder: _Decoder) -> Any: ...  # pragma: no cover


class Stream(_StreamBase, Generic[T]):
    """Typed chunks of a streamed response (server-sent events up to ``[DONE]``, or JSON
    Lines); closing it (or leaving its loop or ``with`` block) closes the connection. A body cut short raises
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
