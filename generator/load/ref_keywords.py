"""Every reference-like keyword but ``$ref``, under the same policy as ``$ref``.

apismith resolves references itself, relative to the file that holds them and only inside
the ref root (:mod:`generator.load.refs`). Nothing after the load stage may resolve one
on its own (datamodel-code-generator would follow ``$dynamicRef``, ``$id`` bases and
discriminator mappings to any file or URL), so the loaded document holds none it could
follow:

- ``$dynamicRef`` / ``$recursiveRef``: a local JSON pointer (``#/components/...``) becomes
  the ``$ref`` it is equivalent to (when no dynamic anchor redirects it, which apismith
  does not model), and is checked as one. A reference into a file or to a URL is refused
  as a ``$ref`` would be, before anything is read; one to another file inside the ref root
  is refused too (write a ``$ref``). An anchor (``#meta``, ``#``) is dropped with a
  warning: the schema then accepts any value.
- ``$id``, ``$anchor``, ``$dynamicAnchor``, ``$recursiveAnchor`` and the root's ``$self``
  only change how references resolve: they are removed.
- A discriminator ``mapping`` value is a schema name or a local pointer; a name becomes
  its pointer, and a value naming a file or a URL is dropped with a warning (the
  ``discriminators`` pass completes the mapping from the union's members).
- ``externalValue`` (an Example Object's URL) is never fetched: it is removed.

Data (examples, defaults, enums, consts, ``x-`` extensions) is not touched: the walk is
:func:`generator.load.refs.walk_refs`'s.
"""

from __future__ import annotations

from typing import Any

from generator.errors import ApismithError
from generator.load.common import escape_token
from generator.load.refs import _ref_problem, walk_refs

_DYNAMIC = ("$dynamicRef", "$recursiveRef")
_BASES = ("$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor")
_KEYS = frozenset((*_DYNAMIC, *_BASES, "discriminator", "externalValue"))

# (file, pointer, message) of each warning
Warnings = list[tuple[str, str, str]]


def confine_ref_keywords(
    doc: Any, shown: str, *, openapi: bool, pointer: str = "#"
) -> tuple[Warnings, list[tuple[str, dict[str, Any]]]]:
    """Apply the module's policy to ``doc`` (read from ``shown``) in place; ``pointer``:
    where ``doc`` sits in the main document. Returns the warnings and the document's
    ``$ref``s afterwards (:func:`walk_refs`'s list: one walk finds both); raises
    :class:`ApismithError` (exit 2) for a reference that leaves the document."""
    warnings: Warnings = []
    if pointer == "#" and isinstance(doc, dict) and isinstance(doc.get("$self"), str):
        del doc["$self"]
    prefix = "#/components/schemas/" if openapi else "#/$defs/"
    refs: list[tuple[str, dict[str, Any]]] = []
    for at, node in walk_refs(doc, "#", _KEYS):
        where = pointer + at[1:]
        if not _KEYS.isdisjoint(node):
            _confine(node, shown, where, prefix, warnings)
        if isinstance(node.get("$ref"), str):
            refs.append((where, node))
    return warnings, refs


def _confine(node: dict[str, Any], shown: str, where: str, prefix: str, warnings: Warnings) -> None:
    for key in _DYNAMIC:
        if key in node:
            _dynamic(node, key, shown, where, warnings)
    for key in _BASES:
        if key in node and not isinstance(node[key], (dict, list)):
            del node[key]
    disc = node.get("discriminator")
    if isinstance(disc, dict) and isinstance(disc.get("mapping"), dict):
        _mapping(disc["mapping"], prefix, shown, f"{where}/discriminator/mapping", warnings)
    if "externalValue" in node and not isinstance(node["externalValue"], (dict, list)):
        del node["externalValue"]


def _dynamic(node: dict[str, Any], key: str, shown: str, where: str, warnings: Warnings) -> None:
    target = node.pop(key)
    here = f"{where}/{escape_token(key)}"
    if not isinstance(target, str):
        raise ApismithError(f"{key} must be a string", file=shown, pointer=here)
    file_part, _, fragment = target.partition("#")
    if file_part:
        problem = _ref_problem(file_part)
        if problem == "remote":
            problem = "a URL (only local files are read)"
        raise ApismithError(
            f"{key} {target!r} is refused: {problem or 'it names another file'}; only"
            " references inside the document are followed (bundle the file with $ref)",
            file=shown,
            pointer=here,
        )
    if fragment.startswith("/") and "$ref" not in node:
        node["$ref"] = target
        return
    if "$ref" not in node:
        warnings.append(
            (
                shown,
                here,
                f"{key} {target!r} is not followed (anchors are not supported):"
                " the schema accepts any value",
            )
        )


def _mapping(
    mapping: dict[str, Any], prefix: str, shown: str, where: str, warnings: Warnings
) -> None:
    for tag in list(mapping):
        target = mapping[tag]
        if not isinstance(target, str):
            continue
        if target.startswith("#/"):
            continue
        if "#" not in target and "/" not in target and ":" not in target and "\\" not in target:
            mapping[tag] = prefix + escape_token(target)  # a schema name
            continue
        del mapping[tag]
        warnings.append(
            (
                shown,
                f"{where}/{escape_token(str(tag))}",
                f"discriminator mapping {tag!r} -> {target!r} leaves the document: dropped",
            )
        )
