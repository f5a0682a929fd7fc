"""Checking parsed values (lone surrogates, non-finite numbers, over-long integers, depth)
and the public readers: ``parse_text``, ``read_document``, ``locate_line``."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from generator.load.common import (
    _LOCATE_MAX_BYTES,
    MAX_DEPTH,
    MAX_INT_DIGITS,
    Json,
    Link,
    _Base,
    _display,
    _fail,
    _pointer,
    escape_token,
    unescape_token,
)
from generator.load.parse import _BigInt, _parse_json, _parse_yaml
from generator.load.text import _decode, _looks_json, _read_bytes

# --- checking values -----------------------------------------------------------------------


def _push_members(
    value: dict[str, Any] | list[Any],
    link: Link,
    depth: int,
    shown: str,
    dup_ids: dict[int, list[str]],
    stack: list[tuple[Any, Link, int]],
) -> list[tuple[str, str]]:
    """Push an object's or array's members onto ``stack`` (refusing a key that is not
    text); return the object's duplicate keys as ``(pointer, key)``."""
    duplicates: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for dup in dup_ids.get(id(value), ()):
            duplicates.append((_pointer((link, escape_token(dup))), dup))
        for key in reversed(list(value)):
            if not isinstance(key, str):
                _fail("a mapping key must be a string", shown, _pointer(link))
            if not key.isascii() and not _utf8(key):
                _fail(
                    f"the key {ascii(key)} holds a lone surrogate (not valid Unicode text)",
                    shown,
                    _pointer(link),
                )
            token = escape_token(key)
            stack.append((value[key], (link, token), depth + 1))
    else:
        for i in reversed(range(len(value))):
            stack.append((value[i], (link, str(i)), depth + 1))
    return duplicates


def _check_values(doc: Json, shown: str, dup_ids: dict[int, list[str]]) -> list[tuple[str, str]]:
    """Refuse lone surrogates, non-finite numbers, over-long integers and deep nesting;
    return the duplicate keys of JSON objects as ``(pointer, key)``.

    A document with nothing to report (nearly all) is recognised by a quick walk that
    builds no pointers; any other takes the walk below, which finds the first problem
    and its pointer."""
    if not dup_ids and _plain(doc, 0):
        return []
    duplicates: list[tuple[str, str]] = []
    seen: set[int] = set()
    stack: list[tuple[Any, Link, int]] = [(doc, None, 0)]
    while stack:
        value, link, depth = stack.pop()
        if isinstance(value, str):
            if not value.isascii() and not _utf8(value):
                _fail(
                    "a string holds a lone surrogate (not valid Unicode text)",
                    shown,
                    _pointer(link),
                )
        elif isinstance(value, bool) or value is None or isinstance(value, int):
            pass
        elif isinstance(value, float):
            if not math.isfinite(value):
                _fail(
                    f"non-finite number {value!r} (JSON numbers are finite)", shown, _pointer(link)
                )
        elif isinstance(value, (dict, list)):
            if id(value) in seen:
                continue
            seen.add(id(value))
            if depth >= MAX_DEPTH:
                _fail(
                    f"nests too deeply (more than {MAX_DEPTH} levels of objects and arrays)",
                    shown,
                    _pointer(link),
                )
            duplicates += _push_members(value, link, depth, shown, dup_ids, stack)
        elif isinstance(value, _BigInt):
            _fail(
                f"integer with {value.digits} digits (at most {MAX_INT_DIGITS})",
                shown,
                _pointer(link),
            )
        else:
            _fail(
                f"unsupported value of type {type(value).__name__} (only JSON values)",
                shown,
                _pointer(link),
            )
    return duplicates


def _plain(node: Json, depth: int) -> bool:
    """Whether the container ``node`` (at ``depth``) and everything in it passes
    :func:`_check_values`: plain JSON values only, valid text, finite numbers, no deeper
    than ``MAX_DEPTH``. A subtree shared by YAML aliases is checked at every place (so this
    is never more lenient than the exact walk, which checks it once)."""
    if depth >= MAX_DEPTH:
        return False
    if type(node) is dict:
        for key in node:
            if type(key) is not str or (not key.isascii() and not _utf8(key)):
                return False
        values: Any = node.values()
    elif type(node) is list:
        values = node
    else:
        return False
    for value in values:
        kind = type(value)
        if kind is str:
            if not value.isascii() and not _utf8(value):
                return False
        elif kind is dict or kind is list:
            if not _plain(value, depth + 1):
                return False
        elif kind is float:
            if not math.isfinite(value):
                return False
        elif not (kind is int or kind is bool or value is None):
            return False
    return True


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# --- the public readers --------------------------------------------------------------------


def _read(path: Path) -> tuple[Json, list[tuple[str, str]]]:
    """Read, parse and check one file: (document, duplicate keys as (pointer, key))."""
    shown = _display(path)
    text = _decode(_read_bytes(path, shown), path, shown)
    if _looks_json(text, path):
        doc, dup_ids, _alive = _parse_json(text, shown)
        duplicates = _check_values(doc, shown, dup_ids)
    else:
        doc, duplicates = _parse_yaml(text, shown)
        _check_values(doc, shown, {})
    return doc, duplicates


def parse_text(text: str, path: Path) -> Json:
    """Parse (and check) JSON or YAML text; errors carry ``file:line:col`` and a pointer."""
    shown = _display(path)
    if _looks_json(text, path):
        doc, dup_ids, _alive = _parse_json(text, shown)
        _check_values(doc, shown, dup_ids)
        return doc
    doc, _ = _parse_yaml(text, shown)
    _check_values(doc, shown, {})
    return doc


def read_document(path: Path) -> Json:
    """Read, parse and check one file (duplicate keys are not reported)."""
    return _read(path)[0]


def locate_line(path: Path, pointer: str) -> int | None:
    """Best effort: the 1-based line of a JSON pointer in a file (used only for errors)."""
    try:
        if path.stat().st_size > _LOCATE_MAX_BYTES:
            return None
        node = yaml.compose(path.read_text(encoding="utf-8-sig"), Loader=_Base)
    except Exception:  # best effort
        return None
    for raw in pointer.lstrip("#").lstrip("/").split("/") if pointer.strip("#/") else []:
        token = unescape_token(raw)
        if isinstance(node, yaml.MappingNode):
            found = [v for k, v in node.value if getattr(k, "value", None) == token]
            if not found:
                return None
            node = found[0]
        elif isinstance(node, yaml.SequenceNode) and token.isdigit():
            if int(token) >= len(node.value):
                return None
            node = node.value[int(token)]
        else:
            return None
    return int(node.start_mark.line) + 1 if node is not None else None
