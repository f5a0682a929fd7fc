"""Stage 1: read a spec (JSON or YAML) into one self-contained dict.

A spec is untrusted input: reading it is bounded, and confined to the spec's folder.

- **Files.** Only regular files are read, at most ``MAX_BYTES`` (128 MiB) each, as UTF-8
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
- **Swagger 2.0** is read as OpenAPI 3.0.3 (:mod:`.swagger2`) before the structure check;
  a schema read from another file of a 2.0 spec gets the 2.0 schema rules too. What
  **OpenAPI 3.2** adds is read in its 3.1 form (:mod:`.openapi32`) at the same point.
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

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.errors import ApismithError
from generator.load.common import (
    MAX_ALIAS_NODES,
    MAX_BYTES,
    MAX_DEPTH,
    MAX_INT_DIGITS,
    Json,
    LoadedSpec,
    _display,
    _fail,
    collector_paused,
    escape_token,
    resolve_pointer,
    unescape_token,
)
from generator.load.openapi32 import is_openapi32, lower_openapi32
from generator.load.read import _read, locate_line, parse_text, read_document
from generator.load.ref_keywords import confine_ref_keywords
from generator.load.refs import _Bundler, check_refs
from generator.load.skeleton import Shape, _kind, check_document
from generator.load.swagger2 import is_swagger2, schema, upgrade_swagger2

if TYPE_CHECKING:
    from generator.normalize.diagnostics import Diagnostic


def load_warnings(
    duplicates: list[tuple[str, str, str]], others: Sequence[tuple[str, str, str]] = ()
) -> tuple[Diagnostic, ...]:
    """The load stage's warnings: duplicate keys (file, pointer, key), then ``others``
    (file, pointer, message)."""
    from generator.normalize.diagnostics import Diagnostic

    found = [
        Diagnostic(
            "load", "warning", pointer, f"duplicate key {key!r} in {file}: the last value wins"
        )
        for file, pointer, key in duplicates
    ]
    found += [Diagnostic("load", "warning", p, f"{m} (in {f})") for f, p, m in others]
    return tuple(found)


def load_spec(path: Path, root: Path | None = None) -> LoadedSpec:
    """Read ``path``, bundle cross-file refs (read only inside ``root``, by default the
    spec's folder) and validate every ref."""
    with collector_paused():
        return _load_spec(path, root)


def _load_spec(path: Path, root: Path | None) -> LoadedSpec:
    doc, duplicates = _read(path)
    shown = _display(path)
    if not isinstance(doc, dict):
        _fail(f"a spec must be a JSON/YAML object at the top level, not {_kind(doc)}", shown)
    swagger2, upgraded = is_swagger2(doc), list[tuple[str, str, str]]()
    if swagger2:
        doc, upgraded = upgrade_swagger2(doc, shown)
    elif "swagger" in doc:
        raise ApismithError(
            f"unsupported: Swagger {doc['swagger']!r} (Swagger 2.0 and OpenAPI 3.0 to 3.2 are)",
            file=shown,
            pointer="#/swagger",
        )
    version = doc.get("openapi")
    if version is not None and not str(version).startswith(("3.0", "3.1", "3.2")):
        raise ApismithError(
            f"unsupported: OpenAPI version {version!r} (3.0, 3.1 and 3.2 are supported)",
            file=shown,
            pointer="#/openapi",
        )
    if is_openapi32(doc):
        doc, lowered = lower_openapi32(doc, shown)
        upgraded += lowered
    check_document(doc, shown)
    if root is not None:
        if not root.is_dir():
            raise ApismithError(f"the ref root {_display(root)} is not a directory", file=shown)
        ref_root = root.resolve()
    else:
        ref_root = path.resolve().parent
    openapi = "openapi" in doc

    def confine(part: Json, file: str, pointer: str) -> Any:
        part = schema(part, local=False) if swagger2 else part  # a 2.0 file's schema
        return confine_ref_keywords(part, file, openapi=openapi, pointer=pointer)

    bundler = _Bundler(path, doc, ref_root, confine)
    bundler.bundle()
    check_refs(doc, path, None if bundler.changed else bundler.refs)
    warnings = load_warnings(
        [(shown, p, k) for p, k in duplicates] + bundler.duplicates,
        [*upgraded, *bundler.warnings],
    )
    return LoadedSpec(doc=doc, path=path, files=tuple(bundler.files), warnings=warnings)


__all__ = [  # _display: the shown file name, for normalize's messages
    "_display",
    "Json",
    "LoadedSpec",
    "MAX_ALIAS_NODES",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "Shape",
    "check_document",
    "check_refs",
    "escape_token",
    "load_spec",
    "load_warnings",
    "locate_line",
    "parse_text",
    "read_document",
    "resolve_pointer",
    "unescape_token",
]
