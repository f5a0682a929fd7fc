"""Normalization pass `names`: schema, operation and field names made valid and unique.

1. ``X-Input``/``X-Output`` pairs (FastAPI) that are the same schema once refs to other
   merged pairs are merged, and titles ignored, become one ``X``. Pairs that differ, or
   whose ``X`` exists already, stay two schemas (``XInput``, ``XOutput``) with a warning.
2. Every schema gets a valid PascalCase class name (rules in :mod:`naming`); every
   ``$ref`` and discriminator mapping follows, and a title equal to the old name becomes
   the new one.
3. Every operation gets its Python method name as ``x-apismith-name``; ``operationId`` is
   kept as it is (servers must reproduce it).
4. Names two schemas (or operations) want are resolved in sorted order: the first keeps
   the name, the others get ``2``, ``3``... (``_2`` for methods).
5. Properties whose name is not a safe pydantic field name get ``x-python-name``.

Options: ``schema_renames`` ({old: new}) and ``operation_names`` ({operationId or
"method /path": name}) win over the automatic rules; ``alias_soft_keywords`` (default
false) aliases ``match``/``case``/``type`` fields too; ``reserved_names`` adds class names
to avoid. Pointers of rename and merge diagnostics locate the old name in this pass's
input; those of alias diagnostics the property in its output.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from generator.load import escape_token, unescape_token
from generator.normalize import naming
from generator.normalize.diagnostics import Diagnostic, Kind, PassResult
from generator.normalize.walk import (
    SCHEMA_KEYS,
    SCHEMA_LIST_KEYS,
    SCHEMA_MAP_KEYS,
    json_copy,
    pointer_join,
    spec_roots,
)

NAME = "names"

Json = Any


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(out: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``out`` is the caller's to give (see :mod:`generator.normalize`)."""
    diags: list[Diagnostic] = []
    reserved = naming.RESERVED_CLASS_NAMES | frozenset(options.get("reserved_names") or ())
    renames = dict(options.get("schema_renames") or {})
    schemas, prefix = _container(out)
    mapping = _plan_schema_names(schemas or {}, prefix, renames, reserved, diags)
    property_maps: list[dict[str, Any]] = []
    _rename_refs(out, prefix, mapping, property_maps)
    out_schemas = _container(out)[0]
    if out_schemas:
        _rename_container(out_schemas, mapping)
    _name_operations(out, dict(options.get("operation_names") or {}), diags)
    soft = bool(options.get("alias_soft_keywords", False))
    wire_names = {name for props in property_maps for name in props}
    # a field named like a model would shadow it in the class body (DCG renames it Token_1)
    classes = frozenset(out_schemas or ())
    if not all(
        naming.is_safe_field_name(n, soft_keywords=soft) and n not in classes for n in wire_names
    ):
        _alias_fields(out, soft, diags, classes)  # the exact walk, only when it can find something
    return PassResult(spec=out, diagnostics=tuple(diags))


def _diag(kind: Kind, pointer: str, message: str, old: str = "", new: str = "") -> Diagnostic:
    return Diagnostic(NAME, kind, pointer, message, old, new)


def _show(name: str) -> str:
    """``name`` for a one-line message: quoted when it holds newlines or other
    unprintable characters."""
    return name if name and name.isprintable() else json.dumps(name)


# --- schemas ---------------------------------------------------------------------------


def _container(spec: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """The named-schema map of the spec and the ref prefix that points into it."""
    if "openapi" in spec or "components" in spec:
        schemas = (spec.get("components") or {}).get("schemas")
        return (schemas if isinstance(schemas, dict) else None), "#/components/schemas/"
    for key in ("$defs", "definitions"):
        if isinstance(spec.get(key), dict):
            return spec[key], f"#/{key}/"
    return None, "#/$defs/"


def _plan_schema_names(
    schemas: dict[str, Any],
    prefix: str,
    renames: dict[str, str],
    reserved: frozenset[str],
    diags: list[Diagnostic],
) -> dict[str, str]:
    """The new name of every schema (old name -> new name; both members of a merged pair
    map to the merged name). Reads ``schemas`` only."""
    ptr = {name: prefix + escape_token(name) for name in schemas}
    # 1. overrides of the original names win; 2. Input/Output pairs merge
    overrides = {
        old: _checked_class_name(new, ptr[old], reserved, diags)
        for old, new in renames.items()
        if old in schemas
    }
    merged, kept = _find_merges(schemas, prefix, set(overrides))
    into = {member: base for base in merged for member in (base + "-Input", base + "-Output")}
    for old, new in renames.items():  # overrides of a merged name
        if old in merged:
            overrides[old] = _checked_class_name(new, ptr[old + "-Input"], reserved, diags)
        elif old not in schemas:
            diags.append(_diag("warning", "#", f"schema_renames: no schema named {old!r}"))
    # 3. class names, made unique: overrides first, then names kept as they are
    current = list(dict.fromkeys(into.get(name, name) for name in schemas))
    wanted = {**naming.class_names([n for n in current if n not in overrides], reserved)}
    wanted.update(overrides)
    rank = {n: 0 if n in overrides else 1 if wanted[n] == n else 2 for n in current}
    final = naming.unique_names(wanted, lambda k: (rank[k], k), lambda name, n: f"{name}{n}")

    for base in sorted(merged):  # one per merged schema: ``old`` is always one name
        message = f"{base}-Input and {base}-Output are the same schema: merged into {final[base]}"
        for member in (base + "-Input", base + "-Output"):
            diags.append(_diag("merge", ptr[member], message, member, final[base]))
    for base, why in sorted(kept.items()):
        message = (
            f"{base}-Input and {base}-Output kept as {final[base + '-Input']} and "
            f"{final[base + '-Output']}: {why}"
        )
        diags.append(_diag("warning", ptr[base + "-Input"], message))
    for name in current:
        new = final[name]
        if new == name:
            continue
        why = "schema_renames" if name in overrides else "not a valid class name"
        if new != wanted[name]:
            why = f"{wanted[name]} is taken"
        where = ptr.get(name) or ptr[name + "-Input"]
        message = f"schema {_show(name)} renamed to {new} ({why})"
        diags.append(_diag("rename", where, message, name, new))
    return {old: final[into.get(old, old)] for old in schemas}


def _checked_class_name(
    new: str, pointer: str, reserved: frozenset[str], diags: list[Diagnostic]
) -> str:
    if naming.identifier_problem(new, "class", reserved=reserved) is None:
        return new
    fixed = naming.class_name(new, reserved)
    message = f"schema_renames: {new!r} is not a valid class name, using {fixed}"
    diags.append(_diag("warning", pointer, message))
    return fixed


def _find_merges(
    schemas: dict[str, Any], prefix: str, excluded: set[str]
) -> tuple[set[str], dict[str, str]]:
    """The bases of the ``X-Input``/``X-Output`` pairs to merge, and the differing pairs
    (base -> where they differ). The largest set of pairs that are equal when all of them
    are merged is kept (a fixpoint: pairs that refer to each other can merge together)."""
    pairs = sorted(
        name[: -len("-Input")]
        for name in schemas
        if name.endswith("-Input")
        and name[: -len("-Input")] + "-Output" in schemas
        and not {name, name[: -len("-Input")] + "-Output"} & excluded
    )
    differing: dict[str, str] = {}
    candidates = set()
    for base in pairs:
        if base in schemas:
            differing[base] = f"not merged: {base} exists already"
        else:
            candidates.add(base)
    changed = True
    while changed:
        changed = False
        refs = {}
        for base in candidates:
            refs[prefix + escape_token(base + "-Input")] = base
            refs[prefix + escape_token(base + "-Output")] = base
        for base in sorted(candidates):
            titles = {None, base, base + "-Input", base + "-Output"}
            where = _difference(
                schemas[base + "-Input"], schemas[base + "-Output"], refs, titles, ""
            )
            if where is not None:
                differing[base] = f"they differ at {where or 'the top'}"
                candidates.discard(base)
                changed = True
    return candidates, differing


def _difference(a: Json, b: Json, refs: dict[str, str], titles: set[Any], at: str) -> str | None:
    """Where ``a`` and ``b`` first differ (a pointer relative to them), or None. Refs are
    compared after ``refs`` (merged names); a top-level title in ``titles`` is ignored."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = set(a) | set(b)
        if not at and a.get("title") in titles and b.get("title") in titles:
            keys.discard("title")
        for key in sorted(keys):
            if key not in a or key not in b:
                return pointer_join(at, key)
            x, y = a[key], b[key]
            found = _difference(x, y, refs, titles, pointer_join(at, key))
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return at
        for i, (x, y) in enumerate(zip(a, b)):
            found = _difference(x, y, refs, titles, pointer_join(at, i))
            if found is not None:
                return found
        return None
    if isinstance(a, str) and isinstance(b, str):  # refs, discriminator mappings
        return None if refs.get(a, a) == refs.get(b, b) else at
    return None if type(a) is type(b) and a == b else at


def _rename_refs(
    spec: dict[str, Any], prefix: str, mapping: dict[str, str], property_maps: list[dict[str, Any]]
) -> None:
    """Make every ref (and discriminator mapping) into ``prefix`` follow ``mapping``, in
    place, children before parents (as the copy this once was made them); the schema map
    itself is renamed by the caller. Every ``properties`` map (some may not belong to a
    schema) is appended to ``property_maps``. Containers are plain dicts and lists: the
    document is a :func:`json_copy`."""

    def fix(ref: str) -> str:
        if not ref.startswith(prefix):
            return ref
        token, sep, rest = ref[len(prefix) :].partition("/")
        new = mapping.get(unescape_token(token))
        return ref if new is None else prefix + escape_token(new) + sep + rest

    def visit(node: dict[str, Any]) -> None:
        for value in node.values():
            kind = type(value)
            if kind is dict:
                visit(value)
            elif kind is list:
                visit_list(value)
        if "properties" in node and isinstance(node["properties"], dict):
            property_maps.append(node["properties"])
        if mapping and "$ref" in node and isinstance(node["$ref"], str):
            node["$ref"] = fix(node["$ref"])
        disc = node.get("discriminator") if mapping else None
        if isinstance(disc, dict) and isinstance(disc.get("mapping"), dict):
            disc["mapping"] = {
                tag: (mapping.get(to, to) if "/" not in to else fix(to))
                if isinstance(to, str)
                else to
                for tag, to in disc["mapping"].items()
            }

    def visit_list(node: list[Any]) -> None:
        for value in node:
            kind = type(value)
            if kind is dict:
                visit(value)
            elif kind is list:
                visit_list(value)

    visit(spec)


def _rename_container(schemas: dict[str, Any], mapping: dict[str, str]) -> None:
    """Rename the keys of ``schemas`` in place, keeping their order (merged schemas
    collapse into the first one); a title equal to the old name follows it."""
    renamed: dict[str, Any] = {}
    for old, schema in schemas.items():
        new = mapping.get(old, old)
        if new in renamed:
            continue
        if isinstance(schema, dict) and old != new:
            title = schema.get("title")
            if title == old or (isinstance(title, str) and mapping.get(title + "-Input") == new):
                schema["title"] = new
        renamed[new] = schema
    schemas.clear()
    schemas.update(renamed)


# --- operations --------------------------------------------------------------------------


def _name_operations(
    spec: dict[str, Any], overrides: dict[str, str], diags: list[Diagnostic]
) -> None:
    """Set ``x-apismith-name`` on every operation."""
    ops: dict[tuple[str, str, str], dict[str, Any]] = {}  # (operationId or "", path, method)
    for path, item in (spec.get("paths") or {}).items():
        for method in naming.HTTP_METHODS if isinstance(item, dict) else ():
            op = item.get(method)
            if isinstance(op, dict):
                oid = op.get("operationId")
                ops[(oid if isinstance(oid, str) else "", path, method)] = op
    drop = naming.shared_version_tag(key[0] for key in ops)
    wanted: dict[tuple[str, str, str], str] = {}
    rank: dict[tuple[str, str, str], int] = {}
    unused = set(overrides)
    for key in ops:
        oid, path, method = key
        by = oid if oid in overrides else f"{method} {path}"
        if by in overrides:
            unused.discard(by)
            wanted[key], rank[key] = overrides[by], 0
            if not naming.is_valid_method_name(overrides[by]):
                wanted[key] = naming.safe_method_name(overrides[by])
                message = (
                    f"operation_names: {overrides[by]!r} is not a valid method name, "
                    f"using {wanted[key]}"
                )
                diags.append(_diag("warning", pointer_join("#/paths", path, method), message))
        else:
            wanted[key] = naming.method_name(oid or None, method, path, drop)
            rank[key] = 1 if wanted[key] == oid else 2
    for name in sorted(unused):
        diags.append(_diag("warning", "#/paths", f"operation_names: no operation {name!r}"))
    final = naming.unique_names(wanted, lambda k: (rank[k], k), lambda name, n: f"{name}_{n}")
    for key, op in ops.items():
        oid, path, method = key
        op["x-apismith-name"] = new = final[key]
        if new == oid:
            continue
        if new != wanted[key]:
            why = f"{wanted[key]} is taken"
        elif not oid:
            why = "no operationId"
        else:
            why = "operation_names" if rank[key] == 0 else "not a valid method name"
        label = _show(oid) if oid else f"{method.upper()} {_show(path)}"
        message = f"operation {label} is method {new} ({why})"
        diags.append(_diag("rename", pointer_join("#/paths", path, method), message, oid, new))


# --- fields ------------------------------------------------------------------------------

Found = tuple[str, tuple[str, ...], dict[str, Any]]
_MAP_KEYS = frozenset(SCHEMA_MAP_KEYS)
_SUBSCHEMA_KEYS = frozenset(SCHEMA_KEYS) | frozenset(SCHEMA_LIST_KEYS) | _MAP_KEYS


def object_schemas(spec: dict[str, Any]) -> list[Found]:
    """Every schema with a ``properties`` map, in document order, as (root pointer, tokens
    below the root, schema): pointers are only built for the few that need one."""
    if "openapi" in spec or "components" in spec:
        roots: list[tuple[str, dict[str, Any]]] = list(spec_roots(spec))
    else:
        roots = [("#", spec)]
    found: list[Found] = []

    def visit(root: str, tokens: tuple[str, ...], schema: dict[str, Any]) -> None:
        if type(schema.get("properties")) is dict:
            found.append((root, tokens, schema))
        if _SUBSCHEMA_KEYS.isdisjoint(schema):
            return
        for key, sub in schema.items():
            if key not in _SUBSCHEMA_KEYS:
                continue
            if type(sub) is dict:
                if key in _MAP_KEYS:
                    for name, s in sub.items():
                        if type(s) is dict:
                            visit(root, (*tokens, key, name), s)
                else:
                    visit(root, (*tokens, key), sub)
            elif type(sub) is list and key not in _MAP_KEYS:
                for i, s in enumerate(sub):
                    if type(s) is dict:
                        visit(root, (*tokens, key, str(i)), s)

    for root, schema in roots:
        visit(root, (), schema)
    return found


class _Taken:
    """The names a field may not take: the model names (shared by every schema, never
    copied) and the schema's own."""

    def __init__(self, base: frozenset[str], own: set[str]) -> None:
        self.base = base
        self.own = own

    def __contains__(self, name: object) -> bool:
        return name in self.own or name in self.base

    def add(self, name: str) -> None:
        self.own.add(name)


def _alias_fields(
    spec: dict[str, Any], soft_keywords: bool, diags: list[Diagnostic], classes: frozenset[str]
) -> None:
    """Set ``x-python-name`` on every property whose name is not a safe field name or is
    the name of a model (``classes``)."""
    prefix = _container(spec)[1]
    safe: dict[str, bool] = {}
    for root, tokens, schema in object_schemas(spec):
        props: dict[str, Any] = schema["properties"]
        for p in props:
            if p not in safe:
                safe[p] = naming.is_safe_field_name(p, soft_keywords=soft_keywords)
                safe[p] = safe[p] and p not in classes
        unsafe = [p for p, sub in props.items() if not safe[p] and sub is not False]
        if not unsafe:
            continue
        taken = _Taken(classes, set(props) - set(unsafe))
        pointer = pointer_join(root, *tokens)
        owner = pointer
        if not tokens and root.startswith(prefix):
            owner = unescape_token(root[len(prefix) :])
        for prop in unsafe:
            sub = dict(props[prop]) if isinstance(props[prop], dict) else {}
            given = sub.get("x-python-name")
            if isinstance(given, str) and given not in taken and naming.is_safe_field_name(given):
                py = given
            else:
                py = naming.python_field_name(prop, taken, soft_keywords=soft_keywords)
            taken.add(py)
            sub["x-python-name"] = py
            props[prop] = sub  # a copy: the same dict may be shared by other properties
            message = f"field {_show(owner)}.{_show(prop)} is {py} in Python"
            where = pointer_join(pointer, "properties", prop)
            diags.append(_diag("alias", where, message, prop, py))
