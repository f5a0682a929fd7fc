"""Reading a file's bytes (regular files of at most ``MAX_BYTES``, never a FIFO), decoding
them as UTF-8, and finding the JSON pointer around a text position for parse errors."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from typing import Any

import yaml

from generator.load.common import MAX_BYTES, MAX_DEPTH, _Base, _fail, escape_token

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
