"""Where an operation sits in the client: its resource, from its path and first tag.

The rules work on :class:`OperationFacts`, what a spec says of an operation (its path,
method, operationId, tags and whether its answer is one record), so that the normalize
passes (which name inline models after the methods: :mod:`generator.normalize.inline_bodies`)
and the client renderer read them alike; :mod:`generator.normalize.naming.operations`
names the methods and applies the config's overrides.

An operation's path without a leading version segment (``v1``) is read as collections and
items. A prefix of a path is a collection when a parameter follows it in some path
(``/a/{id}``), when it answers GET or DELETE, or when it is a whole path without
parameters; after a parameter, a path answering only POST, PUT or PATCH is an action
(``/a/{id}/cancel``). The static segments before the first parameter, cut back to the
longest prefix that is a collection, are the resource (each segment one level:
``/v1/llm/model-endpoints`` is ``llm.model_endpoints``); after a parameter, the static
segments that again make a collection are a sub-resource, so
``/v4/knowledge-bases/{id}/uploads/{upload_id}`` is in ``knowledge_bases.uploads``.

The first tag names the top resource instead when tag and path agree one to one: all the
tag's operations start with one path segment, and all operations under that segment have
that tag (without a parenthesized remark or a version word: ``Fine Tuning Jobs V3
(Beta)`` is ``fine_tuning_jobs``). A coarse tag (``Models`` over ``/models``,
``/model-groups`` and ``/model-deployments``), or a segment shared by several tags, leaves
the top resource to the path's first segment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from generator.media import sequence_format
from generator.normalize.naming.case import client_snake_case

VERSION = re.compile(r"^v\d+(beta\d*|alpha\d*)?$")
TAG_REMARK = re.compile(r"\s*\([^)]*\)|\s+v\d+(beta\d*|alpha\d*)?\b", re.IGNORECASE)
THINGS = ("get", "delete")  # what a collection answers; an action answers POST/PUT/PATCH
PARAM = re.compile(r"\{[^}]*\}")
Segments = list[tuple[bool, str]]  # (is a parameter, segment)
Shape = tuple[str, ...]  # static segments, and "{}" for each parameter


@dataclass(frozen=True)
class OperationFacts:
    """What the naming rules read of one operation. ``python_name`` is its method name in
    the config's tables (``x-apismith-name``); ``one_record``: its 2xx answer is one
    record (an object without a list among its fields, a map, a primitive), which makes a
    GET of a collection a ``retrieve``."""

    path: str
    method: str
    operation_id: str | None
    python_name: str
    tags: tuple[str, ...] = ()
    one_record: bool = False


def path_shape(path: str) -> tuple[str, ...]:
    """A path's segments, every parameter as ``{}``: how ``[client.resources]`` prefixes
    and paths are compared (``/v4/a/{a_id}`` starts ``/v4/a/{id}/b``)."""
    return tuple("{}" if PARAM.fullmatch(s) else s for s in path.split("/") if s)


def segments(path: str) -> Segments:
    out = []
    for seg in path.strip("/").split("/"):
        if seg:
            out.append((seg.startswith("{") and seg.endswith("}"), seg))
    return out


def unversioned(path: str) -> tuple[Segments, int]:
    """The segments without a leading version segment, and how many were dropped."""
    segs = segments(path)
    if segs and not segs[0][0] and VERSION.match(segs[0][1]):
        return segs[1:], 1
    return segs, 0


def shape(segs: Segments) -> Shape:
    return tuple("{}" if is_param else seg for is_param, seg in segs)


def head(segs: Segments) -> list[str]:
    """The static segments before the first parameter."""
    out: list[str] = []
    for is_param, seg in segs:
        if is_param:
            break
        out.append(seg)
    return out


def version(path: str) -> str | None:
    segs = segments(path)
    return segs[0][1] if segs and not segs[0][0] and VERSION.match(segs[0][1]) else None


def attrs(parts: Sequence[str]) -> tuple[str, ...]:
    return tuple(client_snake_case(p) for p in parts)


class Tree:
    """The resource rules over all of an API's operations (collections, tag agreement)."""

    def __init__(self, ops: Sequence[OperationFacts]) -> None:
        self.collections: set[Shape] = set()
        tag_heads: dict[str, set[str]] = {}
        head_tags: dict[str, set[str | None]] = {}
        for op in ops:
            segs, _ = unversioned(op.path)
            found = shape(segs)
            for i in range(1, len(segs)):
                if segs[i][0] and not segs[i - 1][0]:
                    self.collections.add(found[:i])
            if segs and not segs[-1][0] and (op.method in THINGS or "{}" not in found):
                self.collections.add(found)
            first = head(segs)
            if first:
                tag = op.tags[0] if op.tags else None
                head_tags.setdefault(first[0], set()).add(tag)
                if tag is not None:
                    tag_heads.setdefault(tag, set()).add(first[0])
        self.tag_roots = {
            tag
            for tag, heads in tag_heads.items()
            if len(heads) == 1 and head_tags[next(iter(heads))] == {tag}
        }

    def root(self, op: OperationFacts, segs: Segments) -> tuple[list[str], int]:
        """The top resource (one or more attributes) and how many segments it takes."""
        first = head(segs)
        tag = op.tags[0] if op.tags else None
        if tag is not None and (not first or tag in self.tag_roots):
            return [client_snake_case(TAG_REMARK.sub("", tag) or tag)], (1 if first else 0)
        if tag is not None:  # a coarse tag: the path's first segment instead
            return [client_snake_case(first[0])], 1
        n = len(first)
        while n > 1 and tuple(first[:n]) not in self.collections:
            n -= 1
        return [client_snake_case(s) for s in first[:n]] or ["root"], n

    def below(self, segs: Segments, start: int) -> tuple[list[str], list[str]]:
        """The sub-resources after segment ``start``, and the static segments left over
        (the action's words: ``cancel`` of ``/a/{id}/cancel``)."""
        resource: list[str] = []
        tail: list[str] = []
        i = start
        while i < len(segs):
            if segs[i][0]:
                i += 1
                continue
            j = i
            while j < len(segs) and not segs[j][0]:
                j += 1
            m = j
            if not tail and i > 0 and segs[i - 1][0]:  # segments after a parameter
                while m > i and shape(segs[:m]) not in self.collections:
                    m -= 1
            else:
                m = i
            resource += [client_snake_case(seg) for _, seg in segs[i:m]]
            tail += [seg for _, seg in segs[m:j]]
            i = j
        return resource, tail


# --- what a spec's answer is ------------------------------------------------------------------

JSON_TYPES = ("application/json", "application/problem+json")


def success_schema(op: Mapping[str, Any]) -> Any:
    """The schema of an operation's first 2xx answer (JSON when it has several media
    types; a stream, of a sequential media type, is an array of its items), or None."""
    responses = op.get("responses")
    if not isinstance(responses, Mapping):
        return None
    for status, response in responses.items():
        if not str(status).startswith("2") or not isinstance(response, Mapping):
            continue
        content = response.get("content")
        if not isinstance(content, Mapping) or not content:
            return None
        key = next((t for t in content if str(t).split(";")[0].strip() in JSON_TYPES), None)
        key = key if key is not None else next(iter(content))
        media = content.get(key)
        schema = media.get("schema") if isinstance(media, Mapping) else None
        if schema is not None and sequence_format(str(key)) is not None:
            return {"type": "array", "items": schema}
        return schema
    return None


def resolve(spec: Mapping[str, Any], schema: Any, depth: int = 0) -> Any:
    """``schema`` through its local ``$ref`` chain (at most eight), or None."""
    while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and depth < 8:
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            return None
        node: Any = spec
        for token in ref[2:].split("/"):
            token = token.replace("~1", "/").replace("~0", "~")
            node = node.get(token) if isinstance(node, Mapping) else None
        schema, depth = node, depth + 1
    return schema


def _listy(spec: Mapping[str, Any], schema: Any) -> bool:
    schema = resolve(spec, schema)
    if not isinstance(schema, Mapping):
        return False
    if schema.get("type") == "array" or "items" in schema or "prefixItems" in schema:
        return True
    members = schema.get("anyOf") or schema.get("oneOf") or ()
    return any(_listy(spec, m) for m in members if isinstance(m, Mapping))


def one_record(spec: Mapping[str, Any], schema: Any, depth: int = 0) -> bool:
    """Whether an answer is one record: an object without a list among its fields, a map,
    a primitive; False for a list, null or what is not known (``{}``)."""
    schema = resolve(spec, schema)
    if not isinstance(schema, Mapping) or depth > 3 or not schema:
        return False
    kind = schema.get("type")
    if kind in ("array", "null") or "items" in schema or "prefixItems" in schema:
        return False
    members = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(members, list) and members:
        return all(one_record(spec, m, depth + 1) for m in members)
    parts = schema.get("allOf")
    props: dict[str, Any] = {}
    for part in [schema, *(parts if isinstance(parts, list) else ())]:
        part = resolve(spec, part)
        if isinstance(part, Mapping) and isinstance(part.get("properties"), Mapping):
            props.update(part["properties"])
    if props:
        return not any(_listy(spec, p) for p in props.values())
    return (
        kind is not None
        or "enum" in schema
        or "const" in schema
        or "additionalProperties" in schema
    )
