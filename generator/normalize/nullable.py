"""Normalization pass `nullable`: every null union into one canonical form.

The canonical form (the model renderer relies on it) of a nullable schema X is

- ``{"type": [T, "null"], ...X's keywords}`` when X is inline, has one string ``type`` T
  other than ``object``, and no ``enum``/``const``;
- otherwise (a ``$ref``, an enum, a const, an object schema...)
  ``{"anyOf": [X, {"type": "null"}], ...metadata}``, metadata beside the anyOf;
- a union of several non-null members keeps its ``anyOf``/``oneOf``, with one
  ``{"type": "null"}`` member, last.

Inputs handled: ``anyOf``/``oneOf`` with null members (nested anyOfs flattened), ``type``
lists with ``"null"``, ``enum`` lists with ``None``, and OpenAPI 3.0 ``nullable: true``
(normally converted by the ``upgrade`` pass, which uses :func:`convert_nullable_keyword`).

Conversions are routine and not reported; a union holding null twice, and a ``type`` list
with several non-null types, each get one ``warning``. Required-ness and defaults are
left alone. This module also holds the fast copy/walk helpers the ``upgrade`` and
``defaults`` passes share.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from generator.load import escape_token
from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.walk import (
    SCHEMA_KEYS,
    SCHEMA_LIST_KEYS,
    SCHEMA_MAP_KEYS,
    json_copy,
    spec_roots,
)

NAME = "nullable"

Schema = dict[str, Any]
META_KEYS = ("title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly")
_META = frozenset(META_KEYS)
# An object schema keeps the anyOf form: datamodel-code-generator drops the value type of
# ``{"type": ["object", "null"], "additionalProperties": {...}}`` (``dict[str, Any]``).
_NOT_COLLAPSED = frozenset({"null", "object"})
_NOT_INLINE = frozenset({"$ref", "enum", "const", "anyOf", "oneOf", "allOf", "not", "if"})


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Keywords that only constrain one JSON type, to split ``type: [A, B, "null"]`` by type.
_TYPE_KEYWORDS: dict[str, frozenset[str]] = {
    "string": _words("minLength maxLength pattern format contentMediaType contentEncoding"),
    "number": _words("minimum maximum exclusiveMinimum exclusiveMaximum multipleOf format"),
    "array": _words(
        "items prefixItems minItems maxItems uniqueItems contains minContains maxContains"
        " unevaluatedItems"
    ),
    "object": _words(
        "properties required additionalProperties patternProperties propertyNames"
        " minProperties maxProperties dependentRequired dependentSchemas"
        " unevaluatedProperties"
    ),
}
_TYPE_KEYWORDS["integer"] = _TYPE_KEYWORDS["number"]
_ALL_TYPE_KEYWORDS = frozenset().union(*_TYPE_KEYWORDS.values())
_CHILD_KINDS = {
    **{k: "one" for k in SCHEMA_KEYS},  # "items" may also hold a list (old tuple form)
    **{k: "list" for k in SCHEMA_LIST_KEYS},
    **{k: "map" for k in SCHEMA_MAP_KEYS},
}
# JSON Schema type name -> does a (JSON-decoded) Python value have it; bool is no number.
TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "null": lambda v: v is None,
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}

_NULL: Schema = {"type": "null"}  # only compared with, never handed out
_TRIGGERS = frozenset({"nullable", "enum", "anyOf", "oneOf"})


# ---------------------------------------------------------------------------- shared helpers


def map_schemas(spec: dict[str, Any], fn: Callable[[Schema, str], Schema]) -> None:
    """Rewrite every schema of ``spec`` in place, children before parents.

    Like :func:`generator.normalize.walk.transform_schemas`, but cheaper (pointers built by
    plain concatenation). ``fn(schema, pointer)`` returns the replacement or ``schema``;
    a replacement must be a new dict that does not contain ``schema`` itself.
    """

    def visit(schema: Schema, ptr: str) -> Schema:
        for key, sub in schema.items():  # values may be replaced while iterating, keys not
            kind = _CHILD_KINDS.get(key)
            if kind is None:
                continue
            if isinstance(sub, dict):
                if kind == "one":
                    schema[key] = visit(sub, ptr + "/" + key)
                elif kind == "map":
                    base = ptr + "/" + key + "/"
                    for name, child in sub.items():
                        if isinstance(child, dict):
                            sub[name] = visit(child, base + escape_token(str(name)))
            elif isinstance(sub, list) and kind != "map":
                for i, child in enumerate(sub):
                    if isinstance(child, dict):
                        sub[i] = visit(child, f"{ptr}/{key}/{i}")
        return fn(schema, ptr)

    for pointer, root in list(spec_roots(spec)):
        new = visit(root, pointer)
        if new is not root:  # keep the root's identity: its container is not known here
            root.clear()
            root.update(new)


def split_meta(schema: Mapping[str, Any]) -> tuple[Schema, Schema]:
    """``(core, metadata)``: the schema's keywords without, and only, the metadata keys."""
    core = {k: v for k, v in schema.items() if k not in _META}
    meta = {k: v for k, v in schema.items() if k in _META}
    return core, meta


def is_null(schema: Any) -> bool:
    """True for a schema that accepts only null: ``{"type": "null"}`` and its spellings."""
    if schema == _NULL:
        return True
    if not isinstance(schema, dict):
        return False
    core = [k for k in schema if k not in _META]
    kind = schema.get("type")
    if core == ["type"]:
        return kind == "null" or kind == ["null"]
    if set(core) <= {"type", "enum", "const"} and kind in (None, "null", ["null"]):
        return schema.get("enum") == [None] or ("const" in schema and schema["const"] is None)
    return False


# ------------------------------------------------------------------------ canonical builders


def with_null(x: Schema, outer: Mapping[str, Any]) -> Schema:
    """The canonical form of "``x`` or null", ``outer`` (metadata and any other sibling
    keywords) kept beside. ``x`` must not accept null itself; neither argument is reused."""
    core = dict(x)
    kind = core.get("type")
    if isinstance(kind, str) and kind not in _NOT_COLLAPSED and not _NOT_INLINE.intersection(core):
        merged = dict(core)
        for key, value in outer.items():
            if key in merged and key not in _META and merged[key] != value:
                break  # a real conflict: keep the two schemas apart
            merged[key] = value
        else:
            merged["type"] = [kind, "null"]
            return merged
    if _is_pure_union(core) and not any(k in core for k in outer):
        key = "anyOf" if "anyOf" in core else "oneOf"
        members = list(core[key])
        if not any(_holds_null(m) for m in members):
            members.append({"type": "null"})
        return _normalize_union({key: members, **outer}, key, [])
    if list(core) == ["allOf"] and isinstance(core["allOf"], list) and len(core["allOf"]) == 1:
        only = core["allOf"][0]
        if isinstance(only, dict):
            core = dict(only)
    inner, inner_meta = split_meta(core)
    return {"anyOf": [inner, {"type": "null"}], **inner_meta, **outer}


def _is_pure_union(core: Mapping[str, Any]) -> bool:
    """Only ``anyOf``, or only a ``oneOf`` without a discriminator (which null would break)."""
    return list(core) in (["anyOf"], ["oneOf"]) and isinstance(next(iter(core.values())), list)


def convert_nullable_keyword(schema: Schema) -> Schema:
    """OpenAPI 3.0 ``nullable``: ``true`` becomes the canonical null form (an ``enum``'s
    ``None`` is folded into it), ``false`` is just removed."""
    flag = schema.get("nullable")
    rest = {k: v for k, v in schema.items() if k != "nullable"}
    kind = rest.get("type")
    if flag is not True or (isinstance(kind, list) and "null" in kind):
        return rest
    enum = rest.get("enum")
    if isinstance(enum, list) and None in enum:
        rest["enum"] = [v for v in enum if v is not None]
    core, meta = split_meta(rest)
    return with_null(core, meta)


def _normalize_union(schema: Schema, key: str, notes: list[str]) -> Schema:
    members = schema[key]
    expanded: list[Any] = []
    nulls = 0
    for member in members:
        if key == "anyOf" and isinstance(member, dict) and _is_flat_anyof(member):
            parts = member["anyOf"]
        elif isinstance(member, dict) and _type_list_with_null(member):
            parts = [_without_null_type(member), {"type": "null"}]
        else:
            parts = [member]
        for part in parts:
            if is_null(part):
                nulls += 1
            else:
                expanded.append(part)
    if nulls == 0:
        return schema
    if nulls > 1:
        notes.append(f"{key} lists null {nulls} times; kept one null member")
    outer = {k: v for k, v in schema.items() if k != key}
    if not expanded:
        return {"type": "null", **outer}
    if len(expanded) == 1 and isinstance(expanded[0], dict) and "discriminator" not in outer:
        return with_null(expanded[0], outer)
    result = dict(schema)
    result[key] = [*expanded, {"type": "null"}]
    return result


def _holds_null(member: Any) -> bool:
    """A union member that is null or has null among its own alternatives."""
    if not isinstance(member, dict):
        return False
    inner = member.get("anyOf")
    return (
        is_null(member)
        or _type_list_with_null(member)
        or (isinstance(inner, list) and any(is_null(m) for m in inner))
    )


def _is_flat_anyof(member: Mapping[str, Any]) -> bool:
    """An ``anyOf`` member that can be merged into its parent ``anyOf`` (it has only
    metadata beside it, which is dropped)."""
    return isinstance(member.get("anyOf"), list) and all(k == "anyOf" or k in _META for k in member)


def _type_list_with_null(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    return isinstance(kind, list) and "null" in kind and len(kind) > 1


def _without_null_type(schema: Mapping[str, Any]) -> Schema:
    kinds = [t for t in schema["type"] if t != "null"]
    return {**schema, "type": kinds[0] if len(kinds) == 1 else kinds}


def _split_types(core: Schema, kinds: list[str], meta: Schema) -> Schema:
    """``type: [A, B] (+ null)`` -> ``anyOf: [{type: A, ...}, {type: B, ...}, null]``, each
    type-specific keyword going to the members of its type."""
    members: list[Schema] = []
    for kind in kinds:
        member: Schema = {"type": kind}
        own = _TYPE_KEYWORDS.get(kind, frozenset())
        for key, value in core.items():
            if key == "type" or (key in _ALL_TYPE_KEYWORDS and key not in own):
                continue
            if key == "enum" and isinstance(value, list) and kind in TYPE_CHECKS:
                value = [v for v in value if TYPE_CHECKS[kind](v)]
                if not value:
                    break  # no enum value has this type: the member accepts nothing
            member[key] = json_copy(value)  # each member its own: no two share a subtree
        else:
            members.append(member)
    return {"anyOf": [*members, {"type": "null"}], **meta}


# ---------------------------------------------------------------------------------- the pass


def canonicalize(schema: Schema, notes: list[str]) -> Schema:
    """One schema (children already done) into the canonical null form; ``notes`` gets a
    line for each warning."""
    if _TRIGGERS.isdisjoint(schema) and not isinstance(schema.get("type"), list):
        return schema
    if "nullable" in schema:
        schema = convert_nullable_keyword(schema)
    kind = schema.get("type")
    enum = schema.get("enum")
    wants_null = False
    if isinstance(enum, list) and None in enum:
        wants_null = True
        schema = {**schema, "enum": [v for v in enum if v is not None]}
        if not schema["enum"]:  # only null is allowed
            return {"type": "null", **split_meta(schema)[1]}
    if isinstance(kind, list):
        kinds: list[str] = []
        for t in kind:
            if t not in kinds:
                kinds.append(t)
        if "null" in kinds:
            if kind.count("null") > 1:
                notes.append("type lists null twice")
            wants_null = True
            kinds.remove("null")
        if len(kinds) > 1:
            if wants_null:
                notes.append(f"type lists {len(kinds)} non-null types {kinds}; split into an anyOf")
                core, meta = split_meta(schema)
                return _split_types(core, kinds, meta)
            return schema if kinds == kind else {**schema, "type": kinds}
        if not kinds:
            return {**schema, "type": "null"}
        schema = {**schema, "type": kinds[0]}
    if wants_null:
        return with_null(*split_meta(schema))
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return _normalize_union(schema, key, notes)
    return schema


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(out: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``out`` is the caller's to give (see :mod:`generator.normalize`)."""
    found: list[Diagnostic] = []

    notes: list[str] = []

    def fix(schema: Schema, pointer: str) -> Schema:
        schema = canonicalize(schema, notes)
        if notes:
            found.extend(Diagnostic(NAME, "warning", pointer, note) for note in notes)
            notes.clear()
        return schema

    map_schemas(out, fix)
    return PassResult(spec=out, diagnostics=tuple(found))
