"""Normalization pass `defs`: one flat namespace of named schemas.

- A standalone JSON Schema document (no ``openapi`` key) is wrapped into an OpenAPI 3.1
  document whose ``components/schemas`` holds the root schema (named after its ``title``)
  and its definitions. Every ref into the root (``#``, ``#/...``) follows it.
- ``$defs``/``definitions`` found in any schema, at any depth (and at the root of an
  OpenAPI document), are hoisted into ``components/schemas``; every ``$ref`` to them, or
  into them, is rewritten.
- Identical definitions of the same name (equal once refs are rewritten, including
  recursive ones) become one schema (a ``merge``); different ones get a suffix ``X2``,
  ``X3``... (a ``rename``). A top-level component always keeps its name.
- ``$schema`` and ``$id`` are dropped from every schema: after flattening there is only
  one document, and the loader has already checked every ref against its root.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from generator.load import escape_token
from generator.normalize import naming
from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.walk import Schema, child_schemas, json_copy, spec_roots

NAME = "defs"

DEF_KEYS = ("$defs", "definitions")
DROPPED = ("$schema", "$id")
COMPONENTS = "#/components/schemas/"


@dataclass
class _Entry:
    """A named schema taking part in hoisting: a nested definition or a top-level component."""

    pointer: str  # where it lives in the input (after a standalone document is wrapped)
    name: str
    schema: Schema
    top_level: bool = False


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(doc: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``doc`` is the caller's to give (see :mod:`generator.normalize`)."""
    root_base = ""
    if "openapi" not in doc and "swagger" not in doc:
        doc, root_base = _wrap(doc)
    schemas: dict[str, Any] = doc.setdefault("components", {}).setdefault("schemas", {})

    found: list[_Entry] = []
    if root_base or _mentions(
        doc, frozenset((*DEF_KEYS, *DROPPED))
    ):  # the common case is a quick scan
        if not root_base:  # definitions at the root of an OpenAPI document
            _hoist_defs(doc, "#", found)
        for pointer, schema in list(spec_roots(doc)):
            _discover(schema, pointer, found)
    if not found and not root_base:
        return PassResult(spec=doc)

    def_names = {e.name for e in found}
    entries = [
        _Entry(COMPONENTS + escape_token(n), n, s, top_level=True)
        for n, s in schemas.items()
        if n in def_names and isinstance(s, dict)
    ] + found
    names = _assign_names(entries, _classes(entries), set(schemas))

    moved: dict[str, str] = {}
    diagnostics: list[Diagnostic] = []
    placed: set[str] = set()
    for entry, final in zip(entries, names):
        target = COMPONENTS + escape_token(final)
        if entry.top_level:
            placed.add(final)
            continue
        moved[entry.pointer] = target
        where = "#" + entry.pointer[len(root_base) :] if root_base else entry.pointer
        if final in placed:
            diagnostics.append(
                Diagnostic(
                    NAME,
                    "merge",
                    where,
                    f"definition {entry.name!r} is identical to {final!r}; merged",
                    old=where,
                    new=target,
                )
            )
            continue
        placed.add(final)
        schemas[final] = entry.schema
        if final != entry.name:
            diagnostics.append(
                Diagnostic(
                    NAME,
                    "rename",
                    where,
                    f"definition {entry.name!r} renamed to {final!r}: name already taken",
                    old=entry.name,
                    new=final,
                )
            )
    _rewrite_refs(doc, root_base, moved)
    return PassResult(spec=doc, diagnostics=tuple(diagnostics))


def _mentions(node: Any, keys: frozenset[str]) -> bool:
    """Whether any object anywhere in ``node`` has one of ``keys`` (a quick scan)."""
    if isinstance(node, dict):
        if not keys.isdisjoint(node):
            return True
        node = node.values()
    for value in node:
        if isinstance(value, (dict, list)) and _mentions(value, keys):
            return True
    return False


def component_name(title: Any) -> str:
    """A class-like name from a schema title: ``"chat request"`` -> ``ChatRequest``."""
    name = naming.capitalized_words(title, keep_underscores=True) if isinstance(title, str) else ""
    if not name:
        return "Model"
    return "Model" + name if name[0].isdigit() else name


def _wrap(root: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A standalone JSON Schema as an OpenAPI 3.1 document; also the root's new pointer."""
    title = root.get("title")
    name = component_name(title)
    doc = {
        "openapi": "3.1.0",
        "info": {"title": title if isinstance(title, str) and title else "Schema", "version": "0"},
        "paths": {},
        "components": {"schemas": {name: root}},
    }
    return doc, COMPONENTS + escape_token(name)


def _hoist_defs(schema: dict[str, Any], pointer: str, found: list[_Entry]) -> None:
    """Pop ``$defs``/``definitions`` off ``schema`` into ``found``, then walk each body."""
    start = len(found)
    for key in DEF_KEYS:
        defs = schema.get(key)
        if not isinstance(defs, dict):
            continue
        del schema[key]
        for name, body in defs.items():
            if isinstance(body, bool):  # boolean schemas: true accepts all, false none
                body = {} if body else {"not": {}}
            if isinstance(body, dict):
                found.append(_Entry(f"{pointer}/{key}/{escape_token(name)}", name, body))
    for entry in found[start:]:
        _discover(entry.schema, entry.pointer, found)


def _discover(schema: Schema, pointer: str, found: list[_Entry]) -> None:
    """Hoist the definitions of ``schema`` and its sub-schemas, depth first."""
    for key in DROPPED:
        schema.pop(key, None)
    _hoist_defs(schema, pointer, found)
    for child_pointer, child in child_schemas(schema, pointer):
        _discover(child, child_pointer, found)


def _lookup(index: Mapping[str, int], ref: str) -> tuple[int, str] | None:
    """The entry a ref points at or into (longest prefix), and the rest of the ref."""
    cut = len(ref)
    while cut > 1:
        hit = index.get(ref[:cut])
        if hit is not None:
            return hit, ref[cut:]
        cut = ref.rfind("/", 0, cut)
    return None


def _classes(entries: list[_Entry]) -> list[int]:
    """Partition entries into classes of identical schemas.

    Start from one class per name and split until every class is stable: two entries stay
    together when their canonical JSON is equal once every ref to an entry is replaced by
    that entry's class (so mutually recursive copies are recognised as identical).
    """
    index = {e.pointer: i for i, e in enumerate(entries)}
    first_of: dict[str, int] = {}
    classes = [first_of.setdefault(e.name, i) for i, e in enumerate(entries)]
    sizes = Counter(classes)
    shared = [i for i, c in enumerate(classes) if sizes[c] > 1]

    def token(ref: str) -> str:
        hit = _lookup(index, ref)
        return ref if hit is None else f"#class{classes[hit[0]]}{hit[1]}"

    while shared:
        keys = {i: (classes[i], _canonical(entries[i].schema, token)) for i in shared}
        new_ids: dict[tuple[int, str], int] = {}
        for i in shared:
            new_ids.setdefault(keys[i], i)
        split = [new_ids[keys[i]] for i in shared]
        if split == [classes[i] for i in shared]:
            break
        for i, c in zip(shared, split):
            classes[i] = c
    return classes


def _canonical(schema: Schema, token: Callable[[str], str]) -> str:
    def sub(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                k: token(v) if k == "$ref" and isinstance(v, str) else sub(v)
                for k, v in node.items()
            }
        if isinstance(node, list):
            return [sub(v) for v in node]
        return node

    return json.dumps(sub(schema), sort_keys=True)


def _assign_names(entries: list[_Entry], classes: list[int], taken: set[str]) -> list[str]:
    """The final component name of each entry: its class's name.

    In each name group the first class (the top-level component if there is one) keeps
    the name; the others get the first free ``<name>2``, ``<name>3``...
    """
    reserved = taken | {e.name for e in entries}
    class_name: dict[int, str] = {}
    used: dict[str, int] = {}
    for entry, cls in zip(entries, classes):
        if cls in class_name:
            continue
        if entry.name not in used:
            used[entry.name] = 1
            class_name[cls] = entry.name
            continue
        n = used[entry.name] + 1
        while f"{entry.name}{n}" in reserved:
            n += 1
        used[entry.name] = n
        reserved.add(f"{entry.name}{n}")
        class_name[cls] = f"{entry.name}{n}"
    return [class_name[c] for c in classes]


def _rewrite_refs(doc: Any, root_base: str, moved: Mapping[str, str]) -> None:
    """Point every local ``$ref`` at the new home of its target, in place."""
    index = {pointer: i for i, pointer in enumerate(moved)}
    targets = list(moved.values())
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                if root_base:  # a standalone schema: "#..." now means the root component
                    ref = root_base + ref[1:]
                hit = _lookup(index, ref)
                node["$ref"] = ref if hit is None else targets[hit[0]] + hit[1]
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, (dict, list)))
