"""Normalization pass `streams`: the streaming responses the config declares are documented.

Specs rarely say that an operation answers server-sent events: LLM Engine and SGP declare
only ``application/json``. An API's ``[streaming.<operation>]`` tables say which operations
stream and what one event carries. This pass writes that into the spec: each such
operation's 2xx responses also offer ``text/event-stream``, whose schema is one event
(:func:`sse_event_schema`), or the media type of the entry's ``format`` (``jsonl``:
``application/jsonl``, ``json-seq``: ``application/json-seq``), whose schema is a chunk.
The normalized spec that ships with a package then describes what its server sends, so a
conformance tool (schemathesis) needs no allowance.

``options["operations"]`` maps an operation (its ``operationId`` or Python name) to
``{"chunk": <schema name>, "terminator": "[DONE]" | "none", "format": "sse" | ...}``; the
pipeline fills it from the config's ``[streaming]`` tables. An entry naming no operation,
or a chunk that is not a component schema, is left to the config check (``bind_settings``),
which names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.normalize.diagnostics import PassResult
from generator.normalize.walk import json_copy, operations

NAME = "streams"
EVENT_STREAM = "text/event-stream"
# the media type a [streaming] entry's format is sent in
STREAM_MEDIA = {
    "sse": EVENT_STREAM,
    "jsonl": "application/jsonl",
    "json-seq": "application/json-seq",
}


def sse_event_schema(chunk: str, terminator: str = "[DONE]") -> dict[str, Any]:
    """The schema of one event of a ``text/event-stream`` answer (an event object, as
    OpenAPI 3.2 describes SSE): its ``data`` is a JSON ``chunk``, or the final
    ``terminator`` (``"none"``: the stream has no end event)."""
    chunk_data = {
        "type": "string",
        "contentMediaType": "application/json",
        "contentSchema": {"$ref": f"#/components/schemas/{chunk}"},
    }
    if terminator == "none":
        data: dict[str, Any] = {**chunk_data, "description": "A JSON chunk."}
    else:
        data = {
            "anyOf": [chunk_data, {"const": terminator}],
            "description": f"A JSON chunk; the last event's data is {terminator}.",
        }
    return {"type": "object", "required": ["data"], "properties": {"data": data}}


def stream_schema(chunk: str, terminator: str, media: str) -> dict[str, Any]:
    """The schema of one item of a stream of ``chunk`` in ``media``: an event
    (:func:`sse_event_schema`), else the chunk."""
    if media == EVENT_STREAM:
        return sse_event_schema(chunk, terminator)
    return {"$ref": f"#/components/schemas/{chunk}"}


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(out: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``out`` is the caller's to give (see :mod:`generator.normalize`)."""
    entries = options.get("operations") or {}
    schemas = (out.get("components") or {}).get("schemas") or {}
    found: list[tuple[str, str, str, Mapping[str, Any]]] = []
    for _pointer, path, method, op in operations(out):
        entry = entries.get(op.get("operationId")) or entries.get(op.get("x-apismith-name"))
        if isinstance(entry, Mapping) and entry.get("chunk") in schemas:
            found.append((path, method, str(entry["chunk"]), entry))
    if not found:
        return PassResult(spec=out, diagnostics=())
    for path, method, chunk, entry in found:
        responses = out["paths"][path][method].get("responses")
        for status, response in (responses or {}).items():
            inline = isinstance(response, dict) and "$ref" not in response
            if str(status).startswith("2") and inline:
                content = response.setdefault("content", {})
                media = STREAM_MEDIA.get(str(entry.get("format", "sse")), EVENT_STREAM)
                if isinstance(content, dict) and media not in content:
                    terminator = str(entry.get("terminator", "[DONE]"))
                    content[media] = {"schema": stream_schema(chunk, terminator, media)}
    return PassResult(spec=out, diagnostics=())
