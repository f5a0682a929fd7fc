"""Stage 1: read a spec (JSON or YAML) into one self-contained dict.

A spec is untrusted input: reading it is bounded, and confined to the spec's folder.

- **Files.** Only regular files are read, at most ``MAX_BYTES`` (64 MiB) each, as UTF-8
  (a leading BOM is allowed).
- **Parsing.** JSON, or YAML through a safe loader that builds JSON values only: every
  mapping key is taken as its text (``200:`` is the key ``"200"``), timestamps stay text,
  and any other tag (``!!python/object``, ``!!binary``, ``!!set``, ...) is refused. Parse
  errors point at ``file:line:col`` and at the JSON pointer around the mistake.
- **Bounds.** YAML aliases may add at most ``MAX_ALIAS_NODES`` (1,000,000) nodes to the
  document once expanded (a "billion laughs" is refused before it is built), and a
  recursive alias is refused. Objects and arrays nest at most ``MAX_DEPTH`` (128) levels.
- **Values.** A string holding a lone surrogate (``"\\ud800"``), a non-finite number
  (``NaN``, ``Infinity``, ``1e999``) or an integer of more than ``MAX_INT_DIGITS`` (4300)
  digits is refused with its pointer. A duplicate key is a warning (the last value wins).
- **Structure.** The OpenAPI skeleton (info, servers, paths, path items, operations,
  parameters, request bodies, responses, media types, components) and every schema
  keyword that holds schemas, names or text must have the right JSON type; the first
  violation is refused with its pointer (null counts as absent where later stages take
  it so).
- **``$ref``s.** Refs into other local files are bundled: the target is copied into the
  document (``components/schemas`` for OpenAPI, ``$defs`` for JSON Schema) and the ref
  rewritten to point at the copy. Only files inside the *ref root* are read: the folder of
  the spec file (symlinks resolved), or the one given by ``--ref-root DIR`` / ``ref_root``.
  An absolute path,
  a drive letter, a URL (``file:``, ``https:``), a backslash, or a relative path that
  leaves the root (``..``, ``..%2F``, or a symlink whose target is outside) is refused
  before anything is read. A dangling ``$ref``, or a circular chain of ``$ref`` aliases,
  is an error that names the JSON pointer of the offending ref.

All failures raise :class:`ApismithError` with exit code 2. Every walk is iterative and
visits a shared (aliased) subtree once, so loading is linear in the size of the text.
"""

from __future__ import annotations

import json
import math
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import unquote

import yaml

from generator.errors import ApismithError

if TYPE_CHECKING:
    from generator.normalize.diagnostics import Diagnostic

Json = Any

MAX_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 128
MAX_ALIAS_NODES = 1_000_000
MAX_INT_DIGITS = 4300
# beyond this size, error messages do not re-read the file to find a line number
_LOCATE_MAX_BYTES = 8 * 1024 * 1024

# a pointer, built lazily: (parent link, escaped token), or None for the root
Link = tuple[Any, str] | None


def _pointer(link: Link) -> str:
    parts: list[str] = []
    while link is not None:
        link, token = link
        parts.append(token)
    return "#" + "".join(f"/{t}" for t in reversed(parts))


@dataclass(frozen=True)
class LoadedSpec:
    """A bundled spec, the files it was read from (main file first) and load warnings."""

    doc: dict[str, Any]
    path: Path
    files: tuple[Path, ...] = field(default_factory=tuple)
    warnings: tuple[Diagnostic, ...] = ()


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    return unquote(token).replace("~1", "/").replace("~0", "~")


def _fail(message: str, shown: str, pointer: str | None = "#", **where: Any) -> NoReturn:
    raise ApismithError(message, file=shown, pointer=pointer, **where)


# --- reading bytes -------------------------------------------------------------------------


def _read_bytes(path: Path, shown: str) -> bytes:
    """The bytes of a regular file of at most MAX_BYTES; never blocks on a FIFO or device."""
    try:
        info = path.stat()
    except FileNotFoundError:
        _fail("file not found", shown, None)
    except (OSError, ValueError) as exc:
        _fail(f"cannot read: {getattr(exc, 'strerror', None) or exc}", shown, None)
    if stat.S_ISDIR(info.st_mode):
        _fail("is a directory, not a spec file", shown, None)
    if not stat.S_ISREG(info.st_mode):
        _fail("not a regular file (a device, FIFO or socket is never read)", shown, None)
    if info.st_size > MAX_BYTES:
        _fail(f"file too large: {info.st_size} bytes (at most {MAX_BYTES} are read)", shown)
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        _fail(f"cannot read: {exc.strerror or exc}", shown, None)
    if len(data) > MAX_BYTES:
        _fail(f"file too large: more than {MAX_BYTES} bytes", shown)
    return data


def _decode(data: bytes, path: Path, shown: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8", errors="replace")
        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1) + 1
        text = data.decode("utf-8", errors="replace")
        pointer = _pointer_at(text, len(before), _looks_json(text, path))
        _fail(
            f"not UTF-8 text: {exc.reason} at byte {exc.start}",
            shown,
            pointer,
            line=line,
            column=column,
        )


def _looks_json(text: str, path: Path) -> bool:
    return path.suffix.lower() == ".json" or text.lstrip()[:1] in ("{", "[")


# --- where a parse error is: the JSON pointer around a text position ------------------------

# one frame per open container: [is_mapping, key or index, inside a value]
_Frame = list[Any]


def _frames_pointer(frames: list[_Frame]) -> str:
    parts = []
    for is_map, token, in_value in frames:
        if is_map and in_value and token is not None:
            parts.append(escape_token(str(token)))
        elif not is_map and token >= 0:
            parts.append(str(token))
    return "#" + "".join(f"/{p}" for p in parts)


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[{}\[\],:]', re.S)


def _json_pointer_at(text: str, pos: int) -> str:
    """Best effort: the pointer of the JSON value being read at ``pos``."""
    frames: list[_Frame] = []
    for match in _JSON_TOKEN.finditer(text):
        if match.start() >= pos:
            break
        tok = match.group()
        top = frames[-1] if frames else None
        if tok in "{[":
            frames.append([tok == "{", None if tok == "{" else 0, False])
        elif tok in "}]":
            if frames:
                frames.pop()
        elif tok == ",":
            if top is not None and top[0]:
                top[2] = False
            elif top is not None:
                top[1] += 1
        elif tok == ":":
            if top is not None and top[0]:
                top[2] = True
        elif top is not None:  # a string
            if top[0] and not top[2]:
                try:
                    top[1] = json.loads(tok)
                except ValueError:
                    top[1] = tok.strip('"')
        if len(frames) > MAX_DEPTH + 1:
            break
    return _frames_pointer(frames)


def _yaml_pointer_at(text: str, pos: int | None) -> str:
    """Best effort: the pointer of the YAML node being read at ``pos`` (or where the
    parser stopped, when ``pos`` is None)."""
    frames: list[_Frame] = []
    try:
        for event in yaml.parse(text, Loader=_Base):
            mark = event.start_mark
            if pos is not None and mark is not None and mark.index >= pos:
                break
            top = frames[-1] if frames else None
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                if frames:
                    frames.pop()
                if frames and frames[-1][0]:
                    frames[-1][2] = False
                continue
            if not isinstance(
                event,
                (
                    yaml.ScalarEvent,
                    yaml.AliasEvent,
                    yaml.MappingStartEvent,
                    yaml.SequenceStartEvent,
                ),
            ):
                continue
            collection = isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent))
            if top is not None:
                if top[0] and not top[2]:  # a key
                    top[1] = event.value if isinstance(event, yaml.ScalarEvent) else "?"
                    top[2] = True
                    if not collection:
                        continue
                elif top[0]:  # a value
                    if not collection:
                        top[2] = False
                        continue
                else:
                    top[1] += 1
            if collection:
                frames.append([isinstance(event, yaml.MappingStartEvent), -1, False])
                if frames[-1][0]:
                    frames[-1][1] = None
            if len(frames) > MAX_DEPTH + 1:
                break
    except Exception:  # best effort, on text that is already known bad
        pass
    return _frames_pointer(frames)


def _pointer_at(text: str, pos: int | None, looks_json: bool) -> str:
    if looks_json and pos is not None:
        return _json_pointer_at(text, pos)
    return _yaml_pointer_at(text, pos)


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


_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
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
            total = 1
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    total += size[id(k)] + size[id(v)]
            elif isinstance(node, yaml.SequenceNode):
                for item in node.value:
                    total += size[id(item)]
            size[key] = min(total, cap)
            continue
        if key in open_nodes:
            _fail(
                "a YAML alias refers to a node that contains it (a recursive structure)",
                shown,
                _pointer(link),
                line=node.start_mark.line + 1,
            )
        if key in size:
            reused.append((size[key], node, link))
            continue
        if node.tag not in _TAGS:
            _fail(
                f"unsupported YAML tag {node.tag!r} (only JSON values are read)",
                shown,
                _pointer(link),
                line=node.start_mark.line + 1,
            )
        if isinstance(node, yaml.ScalarNode):
            if node.tag == f"{_YAML}int" and len(node.value) > MAX_INT_DIGITS:
                _fail(
                    f"integer with {len(node.value)} digits (at most {MAX_INT_DIGITS})",
                    shown,
                    _pointer(link),
                    line=node.start_mark.line + 1,
                )
            size[key] = 1
            continue
        if depth > MAX_DEPTH:
            _fail(
                f"nests too deeply (more than {MAX_DEPTH} levels of mappings and sequences)",
                shown,
                _pointer(link),
                line=node.start_mark.line + 1,
            )
        open_nodes.add(key)
        stack.append((node, link, depth, True))
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for k, _v in node.value:
                if not isinstance(k, yaml.ScalarNode):
                    _fail(
                        "a mapping key must be a string, not a mapping or a sequence",
                        shown,
                        _pointer(link),
                        line=k.start_mark.line + 1,
                    )
                if k.tag not in _TAGS:
                    _fail(
                        f"unsupported YAML tag {k.tag!r} (only JSON values are read)",
                        shown,
                        _pointer(link),
                        line=k.start_mark.line + 1,
                    )
                size[id(k)] = 1
                if k.tag == f"{_YAML}merge":
                    continue
                if k.value in seen:
                    duplicates.append((_pointer((link, escape_token(k.value))), k.value))
                seen.add(k.value)
        for token, child in reversed(list(_children(node))):
            stack.append((child, (link, token), depth + 1, False))
    extra = size[id(root)] - len(size)
    if extra > MAX_ALIAS_NODES:
        biggest = max(reused, key=lambda r: r[0])
        _fail(
            f"YAML aliases expand to more than {MAX_ALIAS_NODES} extra nodes (an alias bomb?)",
            shown,
            _pointer(biggest[2]),
            line=biggest[1].start_mark.line + 1,
        )
    return duplicates


# --- checking values -----------------------------------------------------------------------


def _check_values(doc: Json, shown: str, dup_ids: dict[int, list[str]]) -> list[tuple[str, str]]:
    """Refuse lone surrogates, non-finite numbers, over-long integers and deep nesting;
    return the duplicate keys of JSON objects as ``(pointer, key)``."""
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


def resolve_pointer(doc: Json, pointer: str) -> Json:
    """Resolve a JSON pointer (``#/a/b`` or ``/a/b``); raise KeyError when it dangles."""
    pointer = pointer.removeprefix("#")
    node = doc
    if not pointer:
        return node
    for raw in pointer.lstrip("/").split("/"):
        token = unescape_token(raw)
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise KeyError(pointer)
    return node


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


# --- the shape of an OpenAPI document --------------------------------------------------------

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_ONE = (
    "not",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "contentSchema",
)
_OBJECT_MAPS = {
    "securitySchemes": "a security scheme",
    "examples": "an example",
    "links": "a link",
    "callbacks": "a callback",
}
_SCHEMA_TEXT = ("$ref", "title", "description", "format", "pattern", "$id", "$schema", "$comment")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


class Shape:
    """Checks the JSON types of an OpenAPI document's skeleton and of its schemas.

    In the skeleton, null counts as absent (a null key, map member or array member), as
    the later stages treat it. In a schema, a null keyword counts as absent too, except
    ``allOf``/``anyOf``/``oneOf``/``enum``; a null schema is refused."""

    def __init__(self, shown: str) -> None:
        self.shown = shown
        self.seen: set[int] = set()

    def fail(self, link: Link, what: str, value: Any) -> NoReturn:
        _fail(f"{what}, not {_kind(value)}", self.shown, _pointer(link))

    @staticmethod
    def sub(link: Link, key: str) -> Link:
        return (link, escape_token(key))

    def obj(self, value: Any, link: Link, what: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(link, what, value)
        return value

    def array(self, value: Any, link: Link, what: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(link, what, value)
        return value

    def text(self, parent: dict[str, Any], link: Link, *keys: str) -> None:
        """Each of ``keys`` is a string when present (null counts as absent, but not for
        ``$ref``)."""
        for key in keys:
            value = parent.get(key)
            if key not in parent or isinstance(value, str):
                continue
            if value is not None or key == "$ref":
                self.fail(self.sub(link, key), f"{key} must be a string", value)

    def each(self, parent: dict[str, Any], link: Link, key: str, check: Any) -> None:
        """``check(member, link)`` for each member of the object ``parent[key]`` (``x-``
        members skipped where an object may hold extensions)."""
        value = parent.get(key)
        if value is None:
            return
        here = self.sub(link, key)
        extensions = key in ("paths", "webhooks", "responses", "callbacks")
        for name, member in self.obj(value, here, f"{key} must be an object").items():
            if not (extensions and name.startswith("x-")):
                check(member, self.sub(here, name))

    def items(self, parent: dict[str, Any], link: Link, key: str, check: Any) -> None:
        """``check(item, link)`` for each item of the array ``parent[key]``."""
        value = parent.get(key)
        if value is None:
            return
        here = self.sub(link, key)
        for i, item in enumerate(self.array(value, here, f"{key} must be an array")):
            check(item, (here, str(i)))

    def member(self, value: Any, link: Link, what: str) -> dict[str, Any] | None:
        """A skeleton object, or None for null (absent)."""
        return None if value is None else self.obj(value, link, f"{what} must be an object")

    # -- the document

    def document(self, doc: dict[str, Any]) -> None:
        if "openapi" not in doc:
            self.schema(doc, None)
            return
        info = self.member(doc.get("info"), (None, "info"), "info")
        if info is not None:
            self.text(info, (None, "info"), "title", "summary", "description")
            version = info.get("version")
            if version is not None and not isinstance(version, (str, int, float)):
                self.fail(((None, "info"), "version"), "version must be a string", version)
        self.items(doc, None, "servers", self.server)
        self.each(doc, None, "paths", self.path_item)
        self.each(doc, None, "webhooks", self.path_item)
        if "components" in doc:
            link: Link = (None, "components")
            comps = self.obj(doc["components"], link, "components must be an object")
            self.each(comps, link, "schemas", self.schema)
            self.each(comps, link, "parameters", self.parameter)
            self.each(comps, link, "responses", self.response)
            self.each(comps, link, "requestBodies", self.request_body)
            self.each(comps, link, "headers", self.header)
            self.each(comps, link, "pathItems", self.path_item)
            for key, what in _OBJECT_MAPS.items():
                self.each(comps, link, key, self.any_object(what))
        self.items(doc, None, "tags", self.tag)
        self.items(doc, None, "security", self.any_object("a security requirement"))

    def any_object(self, what: str) -> Any:
        """A check that a member is an object (``what`` names it in the error)."""
        return lambda value, link: self.member(value, link, what)

    def server(self, value: Any, link: Link) -> None:
        server = self.member(value, link, "a server")
        if server is not None:
            self.text(server, link, "url", "description")

    def tag(self, value: Any, link: Link) -> None:
        tag = self.member(value, link, "a tag")
        if tag is not None:
            self.text(tag, link, "name", "description")

    def path_item(self, value: Any, link: Link) -> None:
        item = self.member(value, link, "a path item")
        if item is None:
            return
        self.text(item, link, "$ref", "summary", "description")
        self.items(item, link, "parameters", self.parameter)
        self.items(item, link, "servers", self.server)
        for method in _METHODS:
            self.operation(item.get(method), self.sub(link, method))

    def operation(self, value: Any, link: Link) -> None:
        op = self.member(value, link, "an operation")
        if op is None:
            return
        self.text(op, link, "summary", "description", "operationId")
        self.items(op, link, "tags", self.tag_name)
        self.items(op, link, "parameters", self.parameter)
        self.request_body(op.get("requestBody"), self.sub(link, "requestBody"))
        self.each(op, link, "responses", self.response)
        self.each(op, link, "callbacks", self.callback)
        self.items(op, link, "security", self.any_object("a security requirement"))
        self.items(op, link, "servers", self.server)

    def tag_name(self, value: Any, link: Link) -> None:
        if value is not None and not isinstance(value, str):
            self.fail(link, "a tag must be a string", value)

    def callback(self, value: Any, link: Link) -> None:
        callback = self.member(value, link, "a callback")
        if callback is not None:
            for name, item in callback.items():
                if not name.startswith("x-"):
                    self.path_item(item, self.sub(link, name))

    def parameter(self, value: Any, link: Link) -> None:
        param = self.member(value, link, "a parameter")
        if param is not None:
            self.text(param, link, "$ref", "name", "in", "description")
            self.media_holder(param, link)

    def header(self, value: Any, link: Link) -> None:
        header = self.member(value, link, "a header")
        if header is not None:
            self.text(header, link, "$ref", "description")
            self.media_holder(header, link)

    def media_holder(self, value: dict[str, Any], link: Link) -> None:
        if value.get("schema") is not None:
            self.schema(value["schema"], self.sub(link, "schema"))
        self.each(value, link, "content", self.media)

    def request_body(self, value: Any, link: Link) -> None:
        body = self.member(value, link, "a request body")
        if body is not None:
            self.text(body, link, "$ref", "description")
            self.each(body, link, "content", self.media)

    def response(self, value: Any, link: Link) -> None:
        response = self.member(value, link, "a response")
        if response is not None:
            self.text(response, link, "$ref", "description")
            self.each(response, link, "content", self.media)
            self.each(response, link, "headers", self.header)

    def media(self, value: Any, link: Link) -> None:
        media = self.member(value, link, "a media type")
        if media is None:
            return
        if media.get("schema") is not None:
            self.schema(media["schema"], self.sub(link, "schema"))
        self.each(media, link, "examples", self.any_object("an example"))
        self.each(media, link, "encoding", self.encoding)

    def encoding(self, value: Any, link: Link) -> None:
        encoding = self.member(value, link, "an encoding")
        if encoding is not None:
            self.each(encoding, link, "headers", self.header)

    # -- schemas

    def schema(self, value: Any, link: Link) -> None:
        """A schema and every schema under it (iterative; shared subtrees once)."""
        stack: list[tuple[Any, Link]] = [(value, link)]
        while stack:
            node, here = stack.pop()
            if isinstance(node, bool):
                continue
            if not isinstance(node, dict):
                self.fail(here, "a schema must be an object or a boolean", node)
            if id(node) in self.seen:
                continue
            self.seen.add(id(node))
            self.text(node, here, *_SCHEMA_TEXT)
            if node.get("type") is not None:
                kind = node["type"]
                kinds = kind if isinstance(kind, list) else [kind]
                for k in kinds:
                    if not isinstance(k, str):
                        self.fail(self.sub(here, "type"), "type must be a string", k)
            if node.get("required") is None:
                pass
            elif not isinstance(node["required"], bool):
                req = self.array(
                    node["required"],
                    self.sub(here, "required"),
                    "required must be an array of property names",
                )
                for i, name in enumerate(req):
                    if not isinstance(name, str):
                        self.fail(
                            (self.sub(here, "required"), str(i)),
                            "a required property name must be a string",
                            name,
                        )
            else:
                self.fail(
                    self.sub(here, "required"),
                    "required must be an array of property names (in OpenAPI 3,"
                    " list them in the parent object's required)",
                    node["required"],
                )
            if "enum" in node:
                self.array(node["enum"], self.sub(here, "enum"), "enum must be an array")
            for key in _SCHEMA_MAPS:
                if node.get(key) is not None:
                    sub = self.sub(here, key)
                    children = self.obj(node[key], sub, f"{key} must be an object")
                    for name in reversed(list(children)):
                        stack.append((children[name], self.sub(sub, name)))
            for key in _SCHEMA_LISTS:
                if key in node and (key != "prefixItems" or node[key] is not None):
                    sub = self.sub(here, key)
                    members = self.array(node[key], sub, f"{key} must be an array of schemas")
                    for i in reversed(range(len(members))):
                        stack.append((members[i], (sub, str(i))))
            for key in _SCHEMA_ONE:
                if node.get(key) is not None:
                    stack.append((node[key], self.sub(here, key)))
            if node.get("items") is not None:
                items, sub = node["items"], self.sub(here, "items")
                if isinstance(items, list):
                    for i in reversed(range(len(items))):
                        stack.append((items[i], (sub, str(i))))
                else:
                    stack.append((items, sub))
            if "discriminator" in node and isinstance(node["discriminator"], dict):
                self.text(node["discriminator"], self.sub(here, "discriminator"), "propertyName")


def check_document(doc: dict[str, Any], file: str) -> None:
    """Raise on the first part of an OpenAPI document (or JSON Schema) of the wrong type."""
    Shape(file).document(doc)


# --- $refs ---------------------------------------------------------------------------------


def _walk_refs(node: Json, pointer: str = "#") -> list[tuple[str, dict[str, Any]]]:
    """Every ``$ref``-holding dict in the document, with its pointer, in document order
    (a subtree shared by aliases is walked once)."""
    found: list[tuple[str, dict[str, Any]]] = []
    seen: set[int] = set()
    stack: list[tuple[str, Json]] = [(pointer, node)]
    while stack:
        here, cur = stack.pop()
        if isinstance(cur, (dict, list)):
            if id(cur) in seen:
                continue
            seen.add(id(cur))
        if isinstance(cur, dict):
            if isinstance(cur.get("$ref"), str):
                found.append((here, cur))
            for key in reversed(list(cur)):
                stack.append((f"{here}/{escape_token(str(key))}", cur[key]))
        elif isinstance(cur, list):
            for i in reversed(range(len(cur))):
                stack.append((f"{here}/{i}", cur[i]))
    return found


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def _ref_problem(file_part: str) -> str | None:
    """Why a ``$ref``'s file part may not be read (before resolving it), or None."""
    if "://" in file_part or (_SCHEME.match(file_part) and not re.match(r"^[A-Za-z]:", file_part)):
        scheme = file_part.split(":", 1)[0].lower()
        if scheme == "file":
            return "a file: URL (only paths relative to the spec are read)"
        return "remote"
    decoded = unquote(file_part)
    if "\x00" in decoded:
        return "a path with a NUL character"
    if re.match(r"^[A-Za-z]:", decoded):
        return "an absolute (drive letter) path"
    if "\\" in decoded:
        return "a path with a backslash (use '/')"
    if decoded.startswith("/"):
        return "an absolute path"
    return None


class _Bundler:
    """Copies targets of cross-file refs into the main document."""

    def __init__(self, main_path: Path, doc: dict[str, Any], root: Path) -> None:
        self.main_path = main_path.resolve()
        self.root = root
        self.doc = doc
        self.is_openapi = "openapi" in doc or "swagger" in doc
        self.docs: dict[Path, Json] = {self.main_path: doc}
        self.placed: dict[tuple[Path, str], str] = {}
        self.files: list[Path] = [self.main_path]
        self.duplicates: list[tuple[str, str, str]] = []  # (file, pointer, key)

    def container(self) -> dict[str, Any]:
        if self.is_openapi:
            if not isinstance(self.doc.get("components"), dict):
                self.doc["components"] = {}
            comps = self.doc["components"]
            if not isinstance(comps.get("schemas"), dict):
                comps["schemas"] = {}
            result: dict[str, Any] = comps["schemas"]
            return result
        if not isinstance(self.doc.get("$defs"), dict):
            self.doc["$defs"] = {}
        defs: dict[str, Any] = self.doc["$defs"]
        return defs

    def prefix(self) -> str:
        return "#/components/schemas/" if self.is_openapi else "#/$defs/"

    def target_path(self, origin: Path, target: str, file_part: str, pointer: str) -> Path:
        """The file a ref names, refused before anything is read if it is not inside the
        ref root."""
        where: dict[str, Any] = {"file": _display(origin), "pointer": pointer}
        problem = _ref_problem(file_part)
        if problem == "remote":
            raise ApismithError(
                f"unsupported: remote $ref {target!r} (only local files are read)", **where
            )
        if problem is not None:
            raise ApismithError(
                f"$ref {target!r} is refused: {problem}; only files under"
                f" {_display(self.root)} are read (--ref-root DIR widens that)",
                **where,
            )
        try:
            path = (origin.parent / unquote(file_part)).resolve()
        except (OSError, RuntimeError, ValueError) as exc:
            raise ApismithError(f"$ref {target!r} cannot be resolved: {exc}", **where) from None
        if not path.is_relative_to(self.root):
            raise ApismithError(
                f"$ref {target!r} leaves the spec's folder: only files under"
                f" {_display(self.root)} are read (--ref-root DIR widens that)",
                **where,
            )
        return path

    def load(self, path: Path, ref_file: Path, pointer: str) -> Json:
        if path not in self.docs:
            where: dict[str, Any] = {"file": _display(ref_file), "pointer": pointer}
            try:
                info = path.stat()
            except FileNotFoundError:
                raise ApismithError(
                    f"$ref points at a missing file: {_display(path)}",
                    line=locate_line(ref_file, pointer),
                    **where,
                ) from None
            except OSError as exc:
                raise ApismithError(
                    f"$ref points at an unreadable file: {_display(path)}: {exc.strerror}",
                    **where,
                ) from None
            if not stat.S_ISREG(info.st_mode):
                kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
                raise ApismithError(f"$ref points at {_display(path)}, which is {kind}", **where)
            if info.st_size > MAX_BYTES:
                raise ApismithError(
                    f"$ref points at {_display(path)}, which is too large ({info.st_size}"
                    f" bytes; at most {MAX_BYTES} are read)",
                    **where,
                )
            doc, duplicates = _read(path)
            self.docs[path] = doc
            self.files.append(path)
            self.duplicates += [(_display(path), p, k) for p, k in duplicates]
        return self.docs[path]

    def bundle(self) -> None:
        # (file the ref lives in, ref dict, pointer of the ref within the main doc)
        queue = [(self.main_path, ref, ptr) for ptr, ref in _walk_refs(self.doc)]
        done: set[int] = set()
        while queue:
            origin, ref, ptr = queue.pop(0)
            if id(ref) in done:
                continue
            done.add(id(ref))
            target = ref["$ref"]
            file_part, _, frag = target.partition("#")
            if not file_part and origin == self.main_path:
                continue
            path = self.target_path(origin, target, file_part, ptr) if file_part else origin
            key = (path, frag)
            if key not in self.placed:
                other = self.load(path, origin, ptr)
                try:
                    value = resolve_pointer(other, frag)
                except KeyError:
                    raise ApismithError(
                        f"dangling $ref {target!r}: no such pointer in {_display(path)}",
                        file=_display(origin),
                        pointer=ptr,
                        line=locate_line(origin, ptr) if origin == self.main_path else None,
                    ) from None
                name = self.free_name(unescape_token(frag.rsplit("/", 1)[-1]) or path.stem)
                copy = json.loads(json.dumps(value))
                # the copy becomes a schema of the main document: check it as one, where
                # it came from
                frag_link: Link = None
                for raw in frag.lstrip("/").split("/") if frag.strip("/") else []:
                    frag_link = (frag_link, raw)
                Shape(_display(path)).schema(copy, frag_link)
                self.container()[name] = copy
                self.placed[key] = name
                queue.extend(
                    (path, inner, f"{self.prefix()}{escape_token(name)}{sub[1:]}")
                    for sub, inner in _walk_refs(copy)
                )
            ref["$ref"] = self.prefix() + escape_token(self.placed[key])

    def free_name(self, name: str) -> str:
        existing = self.container()
        candidate, n = name, 2
        while candidate in existing:
            candidate = f"{name}{n}"
            n += 1
        return candidate


def check_refs(doc: Json, file: Path) -> None:
    """Raise on a dangling local ``$ref`` or a circular chain of pure-``$ref`` aliases."""
    refs = _walk_refs(doc)
    for ptr, ref in refs:
        target = ref["$ref"]
        if not target.startswith("#"):
            continue
        try:
            resolve_pointer(doc, target)
        except KeyError:
            raise ApismithError(
                f"dangling $ref {target!r}",
                file=_display(file),
                pointer=ptr,
                line=locate_line(file, ptr),
            ) from None
    ends: set[str] = set()  # pointers known to end a chain without a cycle
    for ptr, ref in refs:
        seen = [ptr]
        in_chain = {ptr}
        node: Json = ref
        while isinstance(node, dict) and set(node) <= {"$ref", "description", "title"}:
            target = node.get("$ref")
            if not isinstance(target, str) or not target.startswith("#") or target in ends:
                break
            if target in in_chain:
                chain = " -> ".join([*seen[1:], target])
                raise ApismithError(
                    f"circular $ref alias: {chain}",
                    file=_display(file),
                    pointer=ptr,
                    line=locate_line(file, ptr),
                )
            seen.append(target)
            in_chain.add(target)
            node = resolve_pointer(doc, target)
        ends.update(seen)


def load_warnings(duplicates: list[tuple[str, str, str]]) -> tuple[Diagnostic, ...]:
    from generator.normalize.diagnostics import Diagnostic

    return tuple(
        Diagnostic(
            "load", "warning", pointer, f"duplicate key {key!r} in {file}: the last value wins"
        )
        for file, pointer, key in duplicates
    )


def load_spec(path: Path, root: Path | None = None) -> LoadedSpec:
    """Read ``path``, bundle cross-file refs (read only inside ``root``, by default the
    spec's folder) and validate every ref."""
    doc, duplicates = _read(path)
    shown = _display(path)
    if not isinstance(doc, dict):
        _fail(f"a spec must be a JSON/YAML object at the top level, not {_kind(doc)}", shown)
    if "swagger" in doc:
        raise ApismithError(
            f"unsupported: Swagger {doc['swagger']} (convert it to OpenAPI 3 first)",
            file=shown,
            pointer="#/swagger",
        )
    version = doc.get("openapi")
    if version is not None and not str(version).startswith(("3.0", "3.1")):
        raise ApismithError(
            f"unsupported: OpenAPI version {version!r} (3.0 and 3.1 are supported)",
            file=shown,
            pointer="#/openapi",
        )
    check_document(doc, shown)
    if root is not None:
        if not root.is_dir():
            raise ApismithError(f"the ref root {_display(root)} is not a directory", file=shown)
        ref_root = root.resolve()
    else:
        ref_root = path.resolve().parent
    bundler = _Bundler(path, doc, ref_root)
    bundler.bundle()
    check_refs(doc, path)
    warnings = load_warnings([(shown, p, k) for p, k in duplicates] + bundler.duplicates)
    return LoadedSpec(doc=doc, path=path, files=tuple(bundler.files), warnings=warnings)
