"""Helpers shared by the passes: walking every schema of a spec and JSON pointers.

The walks build pointers by plain concatenation (the text :func:`pointer_join` gives) and
skip leaf schemas with one set test: on a large spec (GitHub's, 13 MB) a walk costs a
few tens of milliseconds, so no pass walks more than it needs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from generator.load import escape_token
from generator.normalize.naming import HTTP_METHODS

Schema = dict[str, Any]

# Keywords whose value is one schema, a list of schemas, or a name -> schema map.
SCHEMA_KEYS = (
    "items",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
)
SCHEMA_LIST_KEYS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_MAP_KEYS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_CHILD_KEYS = frozenset((*SCHEMA_KEYS, *SCHEMA_LIST_KEYS, *SCHEMA_MAP_KEYS))


def json_copy(value: Any) -> Any:
    """A deep copy of JSON-like data: dicts and lists copied, scalars shared, and no
    sharing kept between branches (about 3x faster than :func:`copy.deepcopy`)."""
    if isinstance(value, dict):
        return {k: json_copy(v) if isinstance(v, _CONTAINERS) else v for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) if isinstance(v, _CONTAINERS) else v for v in value]
    return value


_CONTAINERS = (dict, list)


def operations(spec: Any) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(pointer, path, method, operation) of every operation object, in spec order."""
    paths = spec.get("paths") if isinstance(spec, dict) else None
    for path, item in paths.items() if isinstance(paths, dict) else ():
        if not isinstance(item, dict):
            continue
        for method in HTTP_METHODS:
            op = item.get(method)
            if isinstance(op, dict):
                yield f"#/paths/{escape_token(str(path))}/{method}", str(path), method, op


def pointer_join(base: str, *tokens: str | int) -> str:
    return base + "".join("/" + escape_token(str(t)) for t in tokens)


def child_schemas(schema: Schema, pointer: str) -> Iterator[tuple[str, Schema]]:
    """The direct sub-schemas of ``schema``, each with its pointer, in a stable order:
    the keywords of ``SCHEMA_KEYS``, then ``SCHEMA_LIST_KEYS``, then ``SCHEMA_MAP_KEYS``."""
    if not _CHILD_KEYS.isdisjoint(schema):
        yield from _children(schema, pointer)


def spec_roots(spec: dict[str, Any]) -> Iterator[tuple[str, Schema]]:
    """Every top-level schema position of an OpenAPI document: components,
    parameters, request bodies, responses, of the paths and then of the webhooks (in
    document order)."""
    for name, schema in (spec.get("components", {}).get("schemas") or {}).items():
        if isinstance(schema, dict):
            yield "#/components/schemas/" + escape_token(str(name)), schema
    for kind in ("parameters", "requestBodies", "responses", "headers"):
        for name, obj in (spec.get("components", {}).get(kind) or {}).items():
            yield from _object_schemas(obj, f"#/components/{kind}/" + escape_token(str(name)))
    items = [("paths", p, i) for p, i in (spec.get("paths") or {}).items()]
    items += [("webhooks", p, i) for p, i in (spec.get("webhooks") or {}).items()]
    for where, path, item in items:
        if not isinstance(item, dict):
            continue
        base = f"#/{where}/" + escape_token(str(path))
        for i, param in enumerate(item.get("parameters") or []):
            yield from _object_schemas(param, f"{base}/parameters/{i}")
        for method, op in item.items():
            if method == "parameters" or not isinstance(op, dict):
                continue
            opptr = base + "/" + escape_token(str(method))
            for i, param in enumerate(op.get("parameters") or []):
                yield from _object_schemas(param, f"{opptr}/parameters/{i}")
            if isinstance(op.get("requestBody"), dict):
                yield from _object_schemas(op["requestBody"], opptr + "/requestBody")
            for status, resp in (op.get("responses") or {}).items():
                yield from _object_schemas(resp, opptr + "/responses/" + escape_token(str(status)))


def _object_schemas(obj: Any, pointer: str) -> Iterator[tuple[str, Schema]]:
    if not isinstance(obj, dict):
        return
    if isinstance(obj.get("schema"), dict):
        yield pointer + "/schema", obj["schema"]
    for media, content in (obj.get("content") or {}).items():
        if isinstance(content, dict) and isinstance(content.get("schema"), dict):
            yield pointer + "/content/" + escape_token(str(media)) + "/schema", content["schema"]
    for name, header in (obj.get("headers") or {}).items():
        yield from _object_schemas(header, pointer + "/headers/" + escape_token(str(name)))


def transform_schemas(spec: dict[str, Any], fn: Callable[[Schema, str], Schema]) -> None:
    """Rewrite every schema in ``spec`` in place, bottom-up (children before parents).

    ``fn(schema, pointer)`` returns the replacement (or the same dict). The caller owns
    ``spec``: :func:`generator.normalize.normalize` copies its input once, and each pass's
    ``run`` copies its own. Children are visited in the order of :func:`child_schemas`.
    """

    def visit(schema: Schema, pointer: str) -> Schema:
        if _CHILD_KEYS.isdisjoint(schema):  # a leaf: most schemas
            return fn(schema, pointer)
        for key in SCHEMA_KEYS:
            sub = schema.get(key)
            if isinstance(sub, dict):
                schema[key] = visit(sub, pointer + "/" + key)
            elif key == "items" and isinstance(sub, list):
                base = pointer + "/items/"
                for i, s in enumerate(sub):
                    if isinstance(s, dict):
                        sub[i] = visit(s, base + str(i))
        for key in SCHEMA_LIST_KEYS:
            subs = schema.get(key)
            if isinstance(subs, list):
                base = pointer + "/" + key + "/"
                for i, s in enumerate(subs):
                    if isinstance(s, dict):
                        subs[i] = visit(s, base + str(i))
        for key in SCHEMA_MAP_KEYS:
            subs = schema.get(key)
            if isinstance(subs, dict):
                base = pointer + "/" + key + "/"
                for name, s in subs.items():  # values are replaced, keys stay
                    if isinstance(s, dict):
                        subs[name] = visit(s, base + escape_token(str(name)))
        return fn(schema, pointer)

    for pointer, schema in list(spec_roots(spec)):
        new = visit(schema, pointer)
        if new is not schema:
            _replace_at(spec, pointer, new)


def _replace_at(spec: dict[str, Any], pointer: str, value: Schema) -> None:
    from generator.load import unescape_token

    tokens = [unescape_token(t) for t in pointer.lstrip("#/").split("/")]
    node: Any = spec
    for token in tokens[:-1]:
        node = node[int(token)] if isinstance(node, list) else node[token]
    last = tokens[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def iter_schemas(spec: dict[str, Any]) -> Iterator[tuple[str, Schema]]:
    """Every schema in the spec, parents before children, with its pointer (children in
    the order of :func:`child_schemas`)."""
    stack = list(reversed(list(spec_roots(spec))))
    while stack:
        pointer, schema = stack.pop()
        yield pointer, schema
        if not _CHILD_KEYS.isdisjoint(schema):
            stack.extend(reversed(_children(schema, pointer)))


def iter_schemas_with(spec: dict[str, Any], key: str) -> Iterator[tuple[str, Schema]]:
    """The ``(pointer, schema)`` of :func:`iter_schemas` whose schema has ``key``, in the
    same order; only their pointers are built (a pass that looks at a few schemas, such as
    those with a ``pattern``, pays for no others)."""
    for root, schema in list(spec_roots(spec)):
        # the path to the current schema: (text, map member name to escape, or None)
        path: list[tuple[str, str | None]] = []
        stack: list[tuple[Schema, int, str, str | None]] = [(schema, 0, "", None)]
        while stack:
            node, depth, text, name = stack.pop()
            del path[depth:]
            path.append((text, name))
            if key in node:
                yield (
                    root + "".join(t if n is None else t + escape_token(n) for t, n in path[1:]),
                    node,
                )
            if _CHILD_KEYS.isdisjoint(node):
                continue
            below = depth + 1
            found: list[tuple[Schema, int, str, str | None]] = []
            for k in SCHEMA_KEYS:
                sub = node.get(k)
                if isinstance(sub, dict):
                    found.append((sub, below, "/" + k, None))
                elif k == "items" and isinstance(sub, list):
                    found.extend(
                        (s, below, f"/items/{i}", None)
                        for i, s in enumerate(sub)
                        if isinstance(s, dict)
                    )
            for k in SCHEMA_LIST_KEYS:
                subs = node.get(k)
                if isinstance(subs, list):
                    found.extend(
                        (s, below, f"/{k}/{i}", None)
                        for i, s in enumerate(subs)
                        if isinstance(s, dict)
                    )
            for k in SCHEMA_MAP_KEYS:
                subs = node.get(k)
                if isinstance(subs, dict):
                    base = "/" + k + "/"
                    found.extend(
                        (s, below, base, str(n)) for n, s in subs.items() if isinstance(s, dict)
                    )
            found.reverse()
            stack.extend(found)


def walk_schemas(spec: dict[str, Any]) -> Iterator[Schema]:
    """The schemas of :func:`iter_schemas`, in the same order, without their pointers."""
    stack = [schema for _pointer, schema in spec_roots(spec)]
    stack.reverse()
    while stack:
        schema = stack.pop()
        yield schema
        if not _CHILD_KEYS.isdisjoint(schema):
            stack.extend(reversed(_child_list(schema)))


def _children(schema: Schema, pointer: str) -> list[tuple[str, Schema]]:
    """:func:`child_schemas` as a list, pointers built by concatenation (the same text)."""
    found: list[tuple[str, Schema]] = []
    for key in SCHEMA_KEYS:
        sub = schema.get(key)
        if isinstance(sub, dict):
            found.append((pointer + "/" + key, sub))
        elif key == "items" and isinstance(sub, list):
            found.extend(
                (f"{pointer}/items/{i}", item)
                for i, item in enumerate(sub)
                if isinstance(item, dict)
            )
    for key in SCHEMA_LIST_KEYS:
        subs = schema.get(key)
        if isinstance(subs, list):
            base = pointer + "/" + key + "/"
            found.extend((base + str(i), s) for i, s in enumerate(subs) if isinstance(s, dict))
    for key in SCHEMA_MAP_KEYS:
        subs = schema.get(key)
        if isinstance(subs, dict):
            base = pointer + "/" + key + "/"
            found.extend(
                (base + escape_token(str(name)), s)
                for name, s in subs.items()
                if isinstance(s, dict)
            )
    return found


def _child_list(schema: Schema) -> list[Schema]:
    """The direct sub-schemas of ``schema`` in the order of :func:`child_schemas`."""
    found: list[Schema] = []
    for key in SCHEMA_KEYS:
        sub = schema.get(key)
        if isinstance(sub, dict):
            found.append(sub)
        elif key == "items" and isinstance(sub, list):
            found.extend(item for item in sub if isinstance(item, dict))
    for key in SCHEMA_LIST_KEYS:
        subs = schema.get(key)
        if isinstance(subs, list):
            found.extend(s for s in subs if isinstance(s, dict))
    for key in SCHEMA_MAP_KEYS:
        subs = schema.get(key)
        if isinstance(subs, dict):
            found.extend(s for s in subs.values() if isinstance(s, dict))
    return found
