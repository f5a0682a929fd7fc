"""Stage 1: read a spec (JSON or YAML) into one self-contained dict.

- Parse errors point at ``file:line:col``.
- ``$ref``s into other local files are bundled: the target is copied into the
  document (``components/schemas`` for OpenAPI, ``$defs`` for JSON Schema) and the
  ref rewritten to point at the copy.
- A dangling ``$ref``, or a circular chain of ``$ref`` aliases, is an error that names
  the JSON pointer of the offending ref.

All failures raise :class:`ApismithError` with exit code 2.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

from generator.errors import ApismithError

Json = Any


@dataclass(frozen=True)
class LoadedSpec:
    """A bundled spec and the files it was read from (main file first)."""

    doc: dict[str, Any]
    path: Path
    files: tuple[Path, ...] = field(default_factory=tuple)


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def parse_text(text: str, path: Path) -> Json:
    """Parse JSON or YAML text; errors carry ``file:line:col``."""
    shown = _display(path)
    looks_json = path.suffix.lower() == ".json" or text.lstrip()[:1] in ("{", "[")
    if looks_json:
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ApismithError(
                f"invalid JSON: {exc.msg}", file=shown, line=exc.lineno, column=exc.colno
            ) from None
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "parse error"
        raise ApismithError(
            f"invalid YAML: {problem}",
            file=shown,
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from None
    except yaml.YAMLError as exc:
        raise ApismithError(f"invalid YAML: {exc}", file=shown) from None


def read_document(path: Path) -> Json:
    """Read and parse one file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ApismithError("file not found", file=_display(path)) from None
    except IsADirectoryError:
        raise ApismithError("is a directory, not a spec file", file=_display(path)) from None
    except UnicodeDecodeError as exc:
        raise ApismithError(f"not UTF-8 text: {exc.reason}", file=_display(path)) from None
    except OSError as exc:
        raise ApismithError(f"cannot read: {exc.strerror}", file=_display(path)) from None
    return parse_text(text, path)


def escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    return unquote(token).replace("~1", "/").replace("~0", "~")


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
        node = yaml.compose(path.read_text(encoding="utf-8"))
    except Exception:
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


def _walk_refs(node: Json, pointer: str = "#") -> list[tuple[str, dict[str, Any]]]:
    """Every ``$ref``-holding dict in the document, with its pointer, in document order."""
    found: list[tuple[str, dict[str, Any]]] = []
    stack: list[tuple[str, Json]] = [(pointer, node)]
    while stack:
        here, cur = stack.pop()
        if isinstance(cur, dict):
            if isinstance(cur.get("$ref"), str):
                found.append((here, cur))
            for key in reversed(list(cur)):
                stack.append((f"{here}/{escape_token(str(key))}", cur[key]))
        elif isinstance(cur, list):
            for i in reversed(range(len(cur))):
                stack.append((f"{here}/{i}", cur[i]))
    return found


class _Bundler:
    """Copies targets of cross-file refs into the main document."""

    def __init__(self, main_path: Path, doc: dict[str, Any]) -> None:
        self.main_path = main_path.resolve()
        self.doc = doc
        self.is_openapi = "openapi" in doc or "swagger" in doc
        self.docs: dict[Path, Json] = {self.main_path: doc}
        self.placed: dict[tuple[Path, str], str] = {}
        self.files: list[Path] = [self.main_path]

    def container(self) -> dict[str, Any]:
        if self.is_openapi:
            comps = self.doc.setdefault("components", {})
            result: dict[str, Any] = comps.setdefault("schemas", {})
            return result
        defs: dict[str, Any] = self.doc.setdefault("$defs", {})
        return defs

    def prefix(self) -> str:
        return "#/components/schemas/" if self.is_openapi else "#/$defs/"

    def load(self, path: Path, ref_file: Path, pointer: str) -> Json:
        path = path.resolve()
        if path not in self.docs:
            if not path.exists():
                raise ApismithError(
                    f"$ref points at a missing file: {_display(path)}",
                    file=_display(ref_file),
                    pointer=pointer,
                    line=locate_line(ref_file, pointer),
                )
            self.docs[path] = read_document(path)
            self.files.append(path)
        return self.docs[path]

    def bundle(self) -> None:
        # (file the ref lives in, ref dict, pointer of the ref within the main doc)
        queue = [(self.main_path, ref, ptr) for ptr, ref in _walk_refs(self.doc)]
        while queue:
            origin, ref, ptr = queue.pop(0)
            target = ref["$ref"]
            if "://" in target.split("#", 1)[0]:
                raise ApismithError(
                    f"unsupported: remote $ref {target!r} (only local files are read)",
                    file=_display(origin),
                    pointer=ptr,
                )
            file_part, _, frag = target.partition("#")
            if not file_part and origin == self.main_path:
                continue
            path = (origin.parent / file_part).resolve() if file_part else origin
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
    for ptr, ref in refs:
        seen = [ptr]
        node: Json = ref
        while isinstance(node, dict) and set(node) <= {"$ref", "description", "title"}:
            target = node.get("$ref")
            if not isinstance(target, str) or not target.startswith("#"):
                break
            if target in seen:
                chain = " -> ".join([*seen[1:], target])
                raise ApismithError(
                    f"circular $ref alias: {chain}",
                    file=_display(file),
                    pointer=ptr,
                    line=locate_line(file, ptr),
                )
            seen.append(target)
            node = resolve_pointer(doc, target)


def load_spec(path: Path) -> LoadedSpec:
    """Read ``path``, bundle cross-file refs and validate every ref."""
    doc = read_document(path)
    shown = _display(path)
    if not isinstance(doc, dict):
        raise ApismithError("a spec must be a JSON/YAML object at the top level", file=shown)
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
    bundler = _Bundler(path, doc)
    bundler.bundle()
    check_refs(doc, path)
    return LoadedSpec(doc=doc, path=path, files=tuple(bundler.files))
