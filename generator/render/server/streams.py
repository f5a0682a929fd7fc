"""A streaming route: its mode, the media type it sends, the content it documents, and
the chunks the mock sends (:func:`route_stream`, from the operation's ``[streaming]``
entry, configured or implied: :func:`generator.render.settings.implied_streams`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.config import StreamTable
from generator.ir import Operation, TypeRef, annotate
from generator.media import media_base, sequence_format
from generator.normalize.streams import STREAM_MEDIA, stream_schema
from generator.render.examples import MockError, Synthesizer

STREAM_LENGTH = 3  # the chunks a mock stream sends


@dataclass(frozen=True)
class MockGap:
    """No value could be synthesized (an impossible schema, a required self-reference): the
    mock's operation answers 501 and says why, and generation goes on with a warning."""

    reason: str


@dataclass
class RouteStream:
    """A route's stream fields (of :class:`generator.render.server.routes.Route`, by the
    same names); the defaults are a route that does not stream."""

    stream: str | None = None  # "always", or "when" a body field says so
    stream_field: str | None = None
    chunk: str | None = None  # the chunk's annotation
    mock_chunks: Any = None
    method_kind: str = "async"
    stream_content: Any = None
    stream_media: str = "text/event-stream"
    terminator: str | None = None


def route_stream(op: Operation, synth: Synthesizer, streaming: StreamTable | None) -> RouteStream:
    """The stream of ``op``'s ``[streaming]`` entry (already checked against the IR)."""
    if streaming is None:
        return RouteStream()
    chunk_type = TypeRef("model", name=streaming.chunk)
    flag = streaming.flag
    media = stream_media(op, streaming.format)
    schema = stream_schema(streaming.chunk, streaming.terminator, media)
    return RouteStream(
        stream="when" if flag else "always",
        stream_field=flag or None,
        chunk=annotate.python(chunk_type, module="models"),
        mock_chunks=mock_chunks(synth, chunk_type),
        method_kind="async" if flag else "asyncgen",
        stream_content={media: {"schema": schema}},
        stream_media=media,
        terminator=None if streaming.terminator == "none" else streaming.terminator,
    )


def stream_media(op: Operation, fmt: str) -> str:
    """The media type a stream of ``fmt`` is sent in: the operation's own, when its
    success answer declares one of that format (``application/x-ndjson``), else the
    format's usual one."""
    ok = op.success_response
    for media in ok.content if ok is not None else ():
        if sequence_format(media.content_type) == fmt:
            return media_base(media.content_type)
    return STREAM_MEDIA[fmt]


def mock_chunks(synth: Synthesizer, t: TypeRef) -> Any:
    """The chunks of a mock stream: distinct values of ``t``, or a :class:`MockGap`."""
    try:
        return synth.variants(t, STREAM_LENGTH)
    except MockError as exc:
        return MockGap(str(exc))
