"""Parsing JSON and YAML into JSON values: big integers kept apart, duplicate keys recorded,
YAML through a safe loader (text keys, no tags but the JSON ones) with bounded aliases."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, NoReturn

import yaml

from generator.load.common import (
    MAX_ALIAS_NODES,
    MAX_DEPTH,
    MAX_INT_DIGITS,
    Json,
    Link,
    _Base,
    _fail,
    _pointer,
    escape_token,
)
from generator.load.text import _json_pointer_at, _yaml_pointer_at

# --- parsing -------------------------------------------------------------------------------


class _BigInt:
    """An integer literal too long to convert, kept until its pointer is known."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _parse_int(text: str) -> int | _BigInt:
    if len(text) > MAX_INT_DIGITS:
        return _BigInt(len(text))
    return int(text)


def _parse_json(text: str, shown: str) -> tuple[Json, dict[int, list[str]], list[dict[str, Any]]]:
    """The document, the duplicate keys of each object by id, and the objects those ids
    belong to (kept alive until the ids are looked up)."""
    duplicates: dict[int, list[str]] = {}
    keep: list[dict[str, Any]] = []  # keeps the ids in ``duplicates`` alive

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            dups: list[str] = []
            for key, _ in pairs:
                if key in seen and key not in dups:
                    dups.append(key)
                seen.add(key)
            duplicates[id(obj)] = dups
            keep.append(obj)
        return obj

    try:
        doc = json.loads(text, object_pairs_hook=pairs_hook, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        _fail(
            f"invalid JSON: {exc.msg}",
            shown,
            _json_pointer_at(text, exc.pos),
            line=exc.lineno,
            column=exc.colno,
        )
    except RecursionError:
        _fail(
            f"nests too deeply (more than {MAX_DEPTH} levels of objects and arrays)",
            shown,
            _json_pointer_at(text, len(text)),
        )
    except ValueError as exc:  # e.g. an over-long float literal
        _fail(f"invalid JSON: {exc}", shown)
    return doc, duplicates, keep


_YAML = "tag:yaml.org,2002:"
_TAGS = {f"{_YAML}{t}" for t in ("str", "int", "float", "bool", "null", "map", "seq")}
_TAGS |= {f"{_YAML}timestamp", f"{_YAML}merge", f"{_YAML}value"}


class _Loader(_Base):  # type: ignore[misc]
    """The safe loader, building JSON values only (see the module docstring)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[str, Any]:
        self.flatten_mapping(node)
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(
                    None, None, "a mapping key must be a string", key_node.start_mark
                )
            result[key_node.value] = self.construct_object(value_node, deep=deep)
        return result


def _text_scalar(loader: Any, node: yaml.ScalarNode) -> str:
    return str(node.value)


_Loader.add_constructor(f"{_YAML}timestamp", _text_scalar)


def _yaml_error(exc: yaml.YAMLError, text: str, shown: str) -> NoReturn:
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "parse error"
        _fail(
            f"invalid YAML: {problem}",
            shown,
            _yaml_pointer_at(text, mark.index if mark else None),
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        )
    _fail(f"invalid YAML: {exc}", shown, _yaml_pointer_at(text, None))


def _parse_yaml(text: str, shown: str) -> tuple[Json, list[tuple[str, str]]]:
    loader = _Loader(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            _fail(
                f"nests too deeply (more than {MAX_DEPTH} levels of mappings and sequences)",
                shown,
                _yaml_pointer_at(text, None),
            )
        if node is None:
            return None, []
        duplicates = _inspect_yaml(node, shown)
        return loader.construct_document(node), duplicates
    except yaml.YAMLError as exc:
        _yaml_error(exc, text, shown)
    finally:
        loader.dispose()


def _children(node: yaml.Node) -> Iterator[tuple[str, yaml.Node]]:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            token = escape_token(key.value) if isinstance(key, yaml.ScalarNode) else "?"
            yield token, value
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield str(i), item


def _refuse(message: str, shown: str, link: Link, node: yaml.Node) -> NoReturn:
    _fail(message, shown, _pointer(link), line=node.start_mark.line + 1)


def _expanded_size(node: yaml.Node, size: dict[int, int]) -> int:
    """The node count of ``node`` with aliases expanded (its children's sizes are known)."""
    total = 1
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            total += size[id(k)] + size[id(v)]
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            total += size[id(item)]
    return total


def _check_keys(
    node: yaml.MappingNode,
    link: Link,
    shown: str,
    size: dict[int, int],
    duplicates: list[tuple[str, str]],
) -> None:
    """A mapping's keys are plain scalars; records the duplicates as ``(pointer, key)``."""
    seen: set[str] = set()
    for k, _v in node.value:
        if not isinstance(k, yaml.ScalarNode):
            _refuse("a mapping key must be a string, not a mapping or a sequence", shown, link, k)
        if k.tag not in _TAGS:
            _refuse(f"unsupported YAML tag {k.tag!r} (only JSON values are read)", shown, link, k)
        size[id(k)] = 1
        if k.tag == f"{_YAML}merge":
            continue
        if k.value in seen:
            duplicates.append((_pointer((link, escape_token(k.value))), k.value))
        seen.add(k.value)


_RECURSIVE = "a YAML alias refers to a node that contains it (a recursive structure)"


def _check_node(node: yaml.Node, link: Link, depth: int, shown: str) -> bool:
    """Refuse a foreign tag, an over-long integer or a too deep collection; whether the
    node is a scalar."""
    if node.tag not in _TAGS:
        _refuse(f"unsupported YAML tag {node.tag!r} (only JSON values are read)", shown, link, node)
    if isinstance(node, yaml.ScalarNode):
        if node.tag == f"{_YAML}int" and len(node.value) > MAX_INT_DIGITS:
            _refuse(
                f"integer with {len(node.value)} digits (at most {MAX_INT_DIGITS})",
                shown,
                link,
                node,
            )
        return True
    if depth > MAX_DEPTH:
        _refuse(
            f"nests too deeply (more than {MAX_DEPTH} levels of mappings and sequences)",
            shown,
            link,
            node,
        )
    return False


def _inspect_yaml(root: yaml.Node, shown: str) -> list[tuple[str, str]]:
    """Check the composed node graph before anything is built: tags, keys, depth,
    recursive aliases and the size the aliases expand to. Returns duplicate keys as
    ``(pointer, key)``."""
    cap = 10 * MAX_ALIAS_NODES + 10
    size: dict[int, int] = {}
    open_nodes: set[int] = set()
    reused: list[tuple[int, yaml.Node, Link]] = []
    duplicates: list[tuple[str, str]] = []
    # (node, link, depth, leaving)
    stack: list[tuple[yaml.Node, Link, int, bool]] = [(root, None, 1, False)]
    while stack:
        node, link, depth, leaving = stack.pop()
        key = id(node)
        if leaving:
            open_nodes.discard(key)
            size[key] = min(_expanded_size(node, size), cap)
            continue
        if key in open_nodes:
            _refuse(_RECURSIVE, shown, link, node)
        if key in size:
            reused.append((size[key], node, link))
            continue
        if _check_node(node, link, depth, shown):  # a scalar
            size[key] = 1
            continue
        open_nodes.add(key)
        stack.append((node, link, depth, True))
        if isinstance(node, yaml.MappingNode):
            _check_keys(node, link, shown, size, duplicates)
        for token, child in reversed(list(_children(node))):
            stack.append((child, (link, token), depth + 1, False))
    extra = size[id(root)] - len(size)
    if extra > MAX_ALIAS_NODES:
        biggest = max(reused, key=lambda r: r[0])
        _refuse(
            f"YAML aliases expand to more than {MAX_ALIAS_NODES} extra nodes (an alias bomb?)",
            shown,
            biggest[2],
            biggest[1],
        )
    return duplicates
