"""What an OpenAPI 3.2 document adds, drawn onto a finished 3.1-shaped document
(:func:`add_openapi32`): ``query`` operations and ``additionalOperations``, ``in:
querystring`` parameters, ``itemSchema`` streams (JSON Lines, json-seq and server-sent
events, with and without an end event), nested tags and ``$self`` with an absolute ref."""

from __future__ import annotations

import re
from typing import Any

from tests.fuzz.operations import operation
from tests.fuzz.schemas import Drawing

SELF = "https://api.example.com/v1/openapi.json"
ADDITIONAL = ["COPY", "MOVE", "PURGE", "LOCK", "SEARCH"]
QUERYSTRING = {
    "type": "object",
    "required": ["term"],
    "properties": {"term": {"type": "string"}, "max_hits": {"type": "integer", "minimum": 1}},
}


def add_openapi32(d: Drawing, doc: dict[str, Any]) -> None:
    """Draw the 3.2 constructs onto ``doc`` (in place)."""
    for template, item in list(doc["paths"].items()):
        if "{" in template:
            continue  # new operations would need the path's parameters
        if "query" not in item and d.chance(0.3):
            d.feature("openapi32:query")
            item["query"] = operation(d, "post", [])
        if d.chance(0.2):
            method = d.pick(ADDITIONAL)
            d.feature("openapi32:additionalOperations")
            item["additionalOperations"] = {method: operation(d, method.lower(), [])}
    for item in doc["paths"].values():
        for key, op in item.items():
            if isinstance(op, dict) and "responses" in op:
                _streams(d, op)
                if key != "head" and d.chance(0.25):
                    _querystring(d, op)
    _tags(d, doc)
    if d.chance(0.3):
        d.feature("openapi32:$self")
        doc["$self"] = SELF
        _absolute_ref(doc)


def _streams(d: Drawing, op: dict[str, Any]) -> None:
    """A 2xx JSON answer now and then becomes a stream of its schema."""
    for status, response in op["responses"].items():
        content = response.get("content") if "$ref" not in response else None
        media = (content or {}).get("application/json")
        schema = (media or {}).get("schema") or {}
        if not status.startswith("2") or not schema or not d.chance(0.5):
            continue
        fmt = d.pick(["application/jsonl", "application/json-seq", "text/event-stream"])
        d.feature(f"openapi32:itemSchema:{fmt}")
        item = schema
        if fmt == "text/event-stream":
            data = {"type": "string", "contentMediaType": "application/json"}
            item = _event({**data, "contentSchema": schema})
            if d.chance(0.5):
                item = {"oneOf": [item, _event({"const": "[DONE]"})]}
        response["content"] = {fmt: {"itemSchema": item}}


def _event(data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": ["data"], "properties": {"data": data}}


def _querystring(d: Drawing, op: dict[str, Any]) -> None:
    names = {p.get("name") for p in op.get("parameters", []) if isinstance(p, dict)}
    if names & set(QUERYSTRING["properties"]):
        return
    d.feature("openapi32:querystring")
    content = {"application/x-www-form-urlencoded": {"schema": QUERYSTRING}}
    param = {"name": "search", "in": "querystring", "required": d.chance(0.5), "content": content}
    op.setdefault("parameters", []).append(param)


def _tags(d: Drawing, doc: dict[str, Any]) -> None:
    """The operations' tags declared, nested under a parent tag now and then."""
    used = sorted(
        {t for item in doc["paths"].values() for op in _ops(item) for t in op.get("tags", ())}
    )
    if not used or not d.chance(0.5):
        return
    d.feature("openapi32:tags:parent")
    tags: list[dict[str, Any]] = [{"name": "Group", "summary": "A group", "kind": "nav"}]
    tags += [{"name": t, "summary": t.title(), "parent": "Group"} for t in used if t != "Group"]
    doc["tags"] = tags


def _ops(item: dict[str, Any]) -> list[dict[str, Any]]:
    found = [op for op in item.values() if isinstance(op, dict) and "responses" in op]
    return found + list((item.get("additionalOperations") or {}).values())


def _absolute_ref(doc: dict[str, Any]) -> None:
    """The first local component ref written in its absolute form, through ``$self``."""
    text = repr(doc)
    match = re.search(r"'#/components/schemas/[^']+'", text)
    if match is None:
        return
    target = match.group(0)[1:-1]
    stack: list[Any] = [doc["paths"], doc.get("components", {})]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("$ref") == target:
                node["$ref"] = SELF + target
                return
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
