"""Helpers shared by the passes: walking every schema of a spec and JSON pointers."""

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


def json_copy(value: Any) -> Any:
    """A deep copy of JSON-like data: dicts and lists copied, scalars shared, and no
    sharing kept between branches (about 3x faster than :func:`copy.deepcopy`)."""
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    return value


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
    """The direct sub-schemas of ``schema``, each with its pointer, in a stable order."""
    for key in SCHEMA_KEYS:
        sub = schema.get(key)
        if isinstance(sub, dict):
            yield pointer_join(pointer, key), sub
        elif key == "items" and isinstance(sub, list):
            for i, item in enumerate(sub):
                if isinstance(item, dict):
                    yield pointer_join(pointer, key, i), item
    for key in SCHEMA_LIST_KEYS:
        subs = schema.get(key)
        if isinstance(subs, list):
            for i, sub in enumerate(subs):
                if isinstance(sub, dict):
                    yield pointer_join(pointer, key, i), sub
    for key in SCHEMA_MAP_KEYS:
        subs = schema.get(key)
        if isinstance(subs, dict):
            for name, sub in subs.items():
                if isinstance(sub, dict):
                    yield pointer_join(pointer, key, name), sub


def spec_roots(spec: dict[str, Any]) -> Iterator[tuple[str, Schema]]:
    """Every top-level schema position of an OpenAPI document: components,
    parameters, request bodies, responses (in document order)."""
    for name, schema in (spec.get("components", {}).get("schemas") or {}).items():
        if isinstance(schema, dict):
            yield pointer_join("#/components/schemas", name), schema
    for kind in ("parameters", "requestBodies", "responses", "headers"):
        for name, obj in (spec.get("components", {}).get(kind) or {}).items():
            yield from _object_schemas(obj, pointer_join("#/components", kind, name))
    for path, item in (spec.get("paths") or {}).items():
        if not isinstance(item, dict):
            continue
        base = pointer_join("#/paths", path)
        for i, param in enumerate(item.get("parameters") or []):
            yield from _object_schemas(param, pointer_join(base, "parameters", i))
        for method, op in item.items():
            if method == "parameters" or not isinstance(op, dict):
                continue
            opptr = pointer_join(base, method)
            for i, param in enumerate(op.get("parameters") or []):
                yield from _object_schemas(param, pointer_join(opptr, "parameters", i))
            if isinstance(op.get("requestBody"), dict):
                yield from _object_schemas(op["requestBody"], pointer_join(opptr, "requestBody"))
            for status, resp in (op.get("responses") or {}).items():
                yield from _object_schemas(resp, pointer_join(opptr, "responses", status))


def _object_schemas(obj: Any, pointer: str) -> Iterator[tuple[str, Schema]]:
    if not isinstance(obj, dict):
        return
    if isinstance(obj.get("schema"), dict):
        yield pointer_join(pointer, "schema"), obj["schema"]
    for media, content in (obj.get("content") or {}).items():
        if isinstance(content, dict) and isinstance(content.get("schema"), dict):
            yield pointer_join(pointer, "content", media, "schema"), content["schema"]
    for name, header in (obj.get("headers") or {}).items():
        yield from _object_schemas(header, pointer_join(pointer, "headers", name))


def transform_schemas(spec: dict[str, Any], fn: Callable[[Schema, str], Schema]) -> None:
    """Rewrite every schema in ``spec`` in place, bottom-up (children before parents).

    ``fn(schema, pointer)`` returns the replacement (or the same dict). Callers own ``spec``:
    passes deep-copy their input first, so they stay pure.
    """

    def visit(schema: Schema, pointer: str) -> Schema:
        for key in SCHEMA_KEYS:
            sub = schema.get(key)
            if isinstance(sub, dict):
                schema[key] = visit(sub, pointer_join(pointer, key))
            elif key == "items" and isinstance(sub, list):
                schema[key] = [
                    visit(s, pointer_join(pointer, key, i)) if isinstance(s, dict) else s
                    for i, s in enumerate(sub)
                ]
        for key in SCHEMA_LIST_KEYS:
            subs = schema.get(key)
            if isinstance(subs, list):
                schema[key] = [
                    visit(s, pointer_join(pointer, key, i)) if isinstance(s, dict) else s
                    for i, s in enumerate(subs)
                ]
        for key in SCHEMA_MAP_KEYS:
            subs = schema.get(key)
            if isinstance(subs, dict):
                for name in list(subs):
                    if isinstance(subs[name], dict):
                        subs[name] = visit(subs[name], pointer_join(pointer, key, name))
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
    """Every schema in the spec, parents before children, with its pointer."""
    stack = list(reversed(list(spec_roots(spec))))
    while stack:
        pointer, schema = stack.pop()
        yield pointer, schema
        stack.extend(reversed(list(child_schemas(schema, pointer))))
