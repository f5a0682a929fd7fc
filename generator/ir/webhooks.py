"""The IR's webhooks (OpenAPI 3.1 ``webhooks``): requests the API sends its users.

Each method of each entry of ``webhooks`` (a path item, or a ``$ref`` to one) whose JSON
request body is an object model becomes a :class:`~generator.ir.model.Webhook`, in spec
order. The ``inline_bodies`` pass has named an inline payload already
(``<Key>Event``); one that is no object model (a string, an array, no JSON body) is
skipped here, and that pass warned about it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any

from generator.ir.model import RequestBody, Webhook
from generator.ir.types import is_map
from generator.media import is_json
from generator.normalize import naming


def raw_webhooks(
    spec: Mapping[str, Any], deref: Callable[[Any], Any]
) -> Iterator[tuple[str, str, Mapping[str, Any], bool]]:
    """(key, method, operation, whether the entry has several methods) of every webhook
    operation, in spec order."""
    entries = spec.get("webhooks")
    for key, item in entries.items() if is_map(entries) else ():
        item = deref(item)
        found = [(m, item[m]) for m in naming.HTTP_METHODS if is_map(item.get(m))]
        for method, op in found:
            yield str(key), method, op, len(found) > 1


def build_webhooks(
    spec: Mapping[str, Any],
    deref: Callable[[Any], Any],
    request_body: Callable[[Any], RequestBody | None],
    objects: Collection[str],
) -> tuple[Webhook, ...]:
    """The webhooks of ``spec`` whose payload is one of the object models ``objects``;
    ``deref`` and ``request_body`` read as the operations' builder reads."""
    taken: set[str] = set()
    found: list[Webhook] = []
    for key, method, op, several in raw_webhooks(spec, deref):
        body = request_body(op.get("requestBody"))
        if body is None or not is_json(body.content_type):
            continue
        payload = body.schema
        if payload.kind != "model" or payload.nullable or payload.name not in objects:
            continue
        stem = f"{key}_{method}" if several else key
        name, _ = naming.take_name(None, naming.python_snake_case(stem), "method", taken)
        media = next(m for m in body.content if m.content_type == body.content_type)
        found.append(
            Webhook(
                name=key,
                python_name=name,
                method=method,
                payload=str(payload.name),
                content_type=body.content_type,
                operation_id=_text(op.get("operationId")),
                summary=_text(op.get("summary")),
                description=_text(op.get("description")) or _text(body.description),
                deprecated=op.get("deprecated") is True,
                examples=media.examples,
            )
        )
    return tuple(found)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
