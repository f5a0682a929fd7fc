"""``$ref``s: confinement to the ref root, bundling of cross-file targets into the main
document, and the dangling/circular checks (``check_refs``)."""

from __future__ import annotations

import json
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from generator.errors import ApismithError
from generator.load.common import (
    MAX_BYTES,
    Json,
    Link,
    _display,
    escape_token,
    resolve_pointer,
    unescape_token,
)
from generator.load.read import _read, locate_line
from generator.load.skeleton import Shape

# --- $refs ---------------------------------------------------------------------------------

# (document, shown file, its pointer in the main document) -> (warnings, its $refs)
Confine = Callable[
    [Json, str, str], tuple[list[tuple[str, str, str]], list[tuple[str, dict[str, Any]]]]
]


def walk_refs(
    node: Json, pointer: str = "#", keys: frozenset[str] | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """Every ``$ref``-holding dict in the document, with its pointer, in document order
    (a subtree shared by aliases is walked once); with ``keys``, every dict holding one of
    them too (whatever their values).

    Pointers are built only for the refs found: the walk keeps a link to its parent per
    container, and two flags for :func:`_literal`'s test of ``"/examples/" in pointer``
    (``under``: the pointer holds ``/examples/``; ``ends``: it ends with ``/examples``)."""
    found: list[tuple[Link, str, dict[str, Any]]] = []
    seen: set[int] = set()
    # (container, link to it: (parent link, escaped token) or None for the root, under, ends)
    stack: list[tuple[Any, Link, bool, bool]] = [
        (node, None, "/examples/" in pointer, pointer.endswith("/examples"))
    ]
    while stack:
        cur, link, under, ends = stack.pop()
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        inner = under or ends  # the children's ``under``
        if isinstance(cur, dict):
            if keys is None:
                if isinstance(cur.get("$ref"), str):
                    found.append((link, pointer, cur))
            elif isinstance(cur.get("$ref"), str) or not keys.isdisjoint(cur):
                found.append((link, pointer, cur))
            for key, value in reversed(cur.items()):
                if not isinstance(value, (dict, list)):
                    continue  # a scalar holds no ref
                text = key if type(key) is str else str(key)
                if text in _LITERAL_KEYS or text.startswith("x-"):
                    continue
                if text == "examples" and isinstance(value, list):
                    continue
                if text == "value" and under:
                    continue
                stack.append((value, (link, escape_token(text)), inner, text == "examples"))
        else:
            for i in reversed(range(len(cur))):
                value = cur[i]
                if isinstance(value, (dict, list)):
                    stack.append((value, (link, str(i)), inner, False))
    return [(_joined(root, link), ref) for link, root, ref in found]


def _joined(root: str, link: Link) -> str:
    parts: list[str] = []
    while link is not None:
        link, token = link
        parts.append(token)
    parts.append(root)
    parts.reverse()
    return "/".join(parts)


_LITERAL_KEYS = frozenset({"example", "default", "const", "enum"})


def _literal(pointer: str, key: str, value: Json) -> bool:
    """Whether ``pointer/key`` holds data, not spec: examples (an Example Object's
    ``value``, a schema's ``examples`` list), defaults, enums, consts and ``x-`` extensions.
    A ``$ref`` key there is part of the data (GitHub's examples, Azure's
    ``x-ms-examples``), never read."""
    if key in _LITERAL_KEYS or key.startswith("x-"):
        return True
    if key == "examples" and isinstance(value, list):
        return True
    return key == "value" and "/examples/" in pointer


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

    def __init__(
        self,
        main_path: Path,
        doc: dict[str, Any],
        root: Path,
        confine: Confine | None = None,
    ) -> None:
        self.main_path = main_path.resolve()
        # applied to the document and each bundled copy (shown file, pointer in the main
        # document): the policy for the other reference keywords
        # (generator.load.ref_keywords), whose walk also finds the $refs
        self.confine = confine
        self.warnings: list[tuple[str, str, str]] = []  # (file, pointer, message)
        self.root = root
        self.doc = doc
        self.is_openapi = "openapi" in doc or "swagger" in doc
        self.docs: dict[Path, Json] = {self.main_path: doc}
        self.placed: dict[tuple[Path, str], str] = {}
        self.files: list[Path] = [self.main_path]
        self.duplicates: list[tuple[str, str, str]] = []  # (file, pointer, key)
        # the refs of the main document as read, and whether bundling changed it (if not,
        # they are its refs still, and check_refs need not walk it again)
        self.refs: list[tuple[str, dict[str, Any]]] = []
        self.changed = False

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
        self.refs = self.refs_of(self.doc, _display(self.main_path), "#")
        queue = [(self.main_path, ref, ptr) for ptr, ref in self.refs]
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
            self.changed = True
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
                inner = self.refs_of(copy, _display(path), self.prefix() + escape_token(name))
                self.container()[name] = copy
                self.placed[key] = name
                queue.extend((path, ref, at) for at, ref in inner)
            ref["$ref"] = self.prefix() + escape_token(self.placed[key])

    def refs_of(self, doc: Json, shown: str, pointer: str) -> list[tuple[str, dict[str, Any]]]:
        """The ``$ref``s of ``doc`` (placed at ``pointer``), after :attr:`confine`."""
        if self.confine is None:
            return [(pointer + at[1:], ref) for at, ref in walk_refs(doc)]
        warnings, refs = self.confine(doc, shown, pointer)
        self.warnings += warnings
        return refs

    def free_name(self, name: str) -> str:
        existing = self.container()
        candidate, n = name, 2
        while candidate in existing:
            candidate = f"{name}{n}"
            n += 1
        return candidate


def check_refs(doc: Json, file: Path, refs: list[tuple[str, dict[str, Any]]] | None = None) -> None:
    """Raise on a dangling local ``$ref`` or a circular chain of pure-``$ref`` aliases.
    ``refs``: the document's refs (:func:`walk_refs`), when the caller has them."""
    if refs is None:
        refs = walk_refs(doc)
    resolved: dict[str, Json] = {}  # target -> node: refs repeat their targets

    def resolve(target: str) -> Json:
        if target not in resolved:
            resolved[target] = resolve_pointer(doc, target)
        return resolved[target]

    for ptr, ref in refs:
        target = ref["$ref"]
        if not target.startswith("#"):
            continue
        try:
            resolve(target)
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
            node = resolve(target)
        ends.update(seen)
