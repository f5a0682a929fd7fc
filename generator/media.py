"""Media types, as a spec writes them."""

from __future__ import annotations


def media_base(media: str) -> str:
    """``media`` without its parameters, in lower case: ``text/plain; charset=utf-8`` is
    ``text/plain``."""
    return media.split(";", 1)[0].strip().lower()


def is_json(media: str) -> bool:
    """Whether ``media`` (any case, parameters allowed) is a JSON media type:
    ``application/json``, ``*/*+json`` (``application/problem+json``), ``*/json``."""
    base = media_base(media)
    return base == "application/json" or base.endswith(("+json", "/json"))


# sequential media types (a stream of items) and the format each is read in
SEQUENCES = {
    "text/event-stream": "sse",
    "application/jsonl": "jsonl",
    "application/x-ndjson": "jsonl",
    "application/x-jsonlines": "jsonl",
    "application/json-seq": "json-seq",
}


def sequence_format(media: str) -> str | None:
    """How a stream of ``media`` is read: ``"sse"`` (server-sent events), ``"jsonl"``
    (one JSON value per line), ``"json-seq"`` (RFC 7464: each value after a record
    separator), or None when ``media`` is not sequential."""
    return SEQUENCES.get(media_base(media))
