"""Shared by the loader's modules: limits, JSON pointers and their tokens, the shown file
name, the typed failure, and :class:`LoadedSpec`."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import unquote

import yaml

from generator.errors import ApismithError

if TYPE_CHECKING:
    from generator.normalize.diagnostics import Diagnostic


Json = Any
_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_BYTES = 128 * 1024 * 1024  # GitHub's dereferenced specs are 70-80 MB
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


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for a while (as it was, after): for building and
    walking a large document, which makes no cyclic garbage (the collector has nothing to
    find there) but enough objects to trigger collections that each traverse everything
    alive. On Microsoft Graph's 47 MB spec they cost about as much as the work itself."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
