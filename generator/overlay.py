"""OpenAPI Overlay 1.0 support: patch a spec without editing the vendored file.

An overlay file (JSON or YAML) holds ``actions``; each has a ``target`` (a JSONPath
subset: ``$``, ``.name``, ``['name']``, ``["name"]``, ``[N]`` and the ``*`` wildcard)
and either ``update`` (merged in: mappings recursively, lists appended, scalars
replaced) or ``remove: true``. A target that matches nothing is an error, because a
silent no-op overlay hides a spec change.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from generator.errors import ApismithError
from generator.load import check_document, read_document
from generator.load.ref_keywords import confine_ref_keywords

_TOKEN = re.compile(
    r"""\.([A-Za-z0-9_\-$@]+|\*)|\[\s*'([^']*)'\s*\]|\[\s*"([^"]*)"\s*\]|\[(\d+|\*)\]"""
)


def parse_path(path: str) -> list[str | int]:
    if not path.startswith("$"):
        raise ValueError(f"JSONPath must start with '$': {path!r}")
    tokens: list[str | int] = []
    pos = 1
    while pos < len(path):
        match = _TOKEN.match(path, pos)
        if not match:
            raise ValueError(f"unsupported JSONPath syntax at {path[pos:]!r}")
        name, sq, dq, index = match.groups()
        if index is not None:
            tokens.append(int(index) if index.isdigit() else "*")
        else:
            tokens.append(name if name is not None else (sq if sq is not None else dq or ""))
        pos = match.end()
    return tokens


def select(doc: Any, tokens: Sequence[str | int]) -> list[tuple[Any, str | int | None]]:
    """(parent, key) pairs of every match; (None, None) for the root."""
    current: list[tuple[Any, str | int | None, Any]] = [(None, None, doc)]
    for token in tokens:
        nxt: list[tuple[Any, str | int | None, Any]] = []
        for _parent, _key, node in current:
            if token == "*":
                if isinstance(node, dict):
                    nxt.extend((node, k, v) for k, v in node.items())
                elif isinstance(node, list):
                    nxt.extend((node, i, v) for i, v in enumerate(node))
            elif isinstance(node, dict) and token in node:
                nxt.append((node, token, node[token]))
            elif isinstance(node, list) and isinstance(token, int) and token < len(node):
                nxt.append((node, token, node[token]))
        current = nxt
    return [(p, k) for p, k, _ in current]


def merge(target: Any, update: Any) -> Any:
    if isinstance(target, dict) and isinstance(update, dict):
        for key, value in update.items():
            target[key] = merge(target[key], value) if key in target else copy.deepcopy(value)
        return target
    if isinstance(target, list) and isinstance(update, list):
        return target + copy.deepcopy(update)
    return copy.deepcopy(update)


def apply_overlay(doc: dict[str, Any], overlay: Any, source: str) -> dict[str, Any]:
    if not isinstance(overlay, dict) or not isinstance(overlay.get("actions"), list):
        raise ApismithError("overlay needs an 'actions' list", file=source, pointer="#/actions")
    result = copy.deepcopy(doc)
    for i, action in enumerate(overlay["actions"]):
        where = f"#/actions/{i}"
        if not isinstance(action, dict):
            raise ApismithError(
                "overlay: an overlay action must be an object", file=source, pointer=where
            )
        if not isinstance(action.get("target", ""), str):
            raise ApismithError(
                "overlay: target must be a string (a JSONPath)",
                file=source,
                pointer=f"{where}/target",
            )
        try:
            tokens = parse_path(action.get("target", ""))
        except ValueError as exc:
            raise ApismithError(f"overlay: {exc}", file=source, pointer=where) from None
        matches = select(result, tokens)
        if not matches:
            raise ApismithError(
                f"overlay target {action.get('target')!r} matches nothing",
                file=source,
                pointer=where,
            )
        for parent, key in matches:
            if action.get("remove"):
                if parent is None:
                    raise ApismithError(
                        "overlay cannot remove the root", file=source, pointer=where
                    )
                del parent[key]
            elif "update" in action:
                if parent is None:
                    result = merge(result, action["update"])
                else:
                    parent[key] = merge(parent[key], action["update"])
    if not isinstance(result, dict):
        raise ApismithError(
            "overlay: the patched spec is no longer an object", file=source, pointer="#"
        )
    try:
        check_document(result, source)
        _warnings, refs = confine_ref_keywords(result, source, openapi="openapi" in result)
        for pointer, ref in refs:
            if not ref["$ref"].startswith("#"):
                raise ApismithError(
                    f"$ref {ref['$ref']!r} names another file: an overlay may only add"
                    " references inside the document",
                    file=source,
                    pointer=pointer,
                )
    except ApismithError as exc:  # the pointer is into the patched spec
        raise ApismithError(
            f"after this overlay, the spec is invalid: {exc.message}",
            file=source,
            pointer=exc.pointer,
        ) from None
    return result


def apply_overlays(doc: dict[str, Any], overlays: Sequence[Path]) -> dict[str, Any]:
    """Apply each overlay in turn. Overlays come from the config's author, not from the
    spec, so they are read from wherever the config says (no ref-root confinement), through
    the same bounded loader as specs."""
    for path in overlays:
        doc = apply_overlay(doc, read_document(path), str(path))
    return doc
