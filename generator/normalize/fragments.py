"""Normalization pass `fragments`: paths with a ``#fragment`` (AWS: ``/#X-Amz-Target=...``).

AWS's specs (16 of 156 sampled) key many operations on one path by a fragment:
``/#X-Amz-Target=DynamoDB_20120810.ListTables`` (JSON protocol: the header that names the
operation) or ``/#Action=ListUsers&Version=2010-05-08`` (query protocol). A fragment is
never sent over HTTP, so a client that requests the key as it stands cannot reach the
operation, and a server cannot route it. The fragment names what the real request carries
instead: each ``name=value`` pair is a header when the name looks like one (it starts
with ``X-``/``x-``), else a query parameter, always with that one value.

What the normalized spec carries, for every operation under a key with a ``#``:

- the ``paths`` key is unchanged (keys stay unique: many operations share the real path);
- ``x-apismith-path``: the real path, the key without its fragment (``/``). The IR takes
  ``Operation.path`` from it (only when it is exactly that: a raw spec's own
  ``x-apismith-path`` on any operation is removed here);
- ``x-apismith-fragment``: the pairs, in fragment order, each
  ``{"in": "header" | "query", "name": NAME, "value": VALUE}``: the constants that tell
  this operation from the others on the same method and real path (a server dispatches on
  them);
- each pair is also a required parameter of the operation (``in`` and ``name`` as above,
  ``schema: {"type": "string", "const": VALUE, "default": VALUE}``), added unless the
  operation or its path item already declares a parameter of that name and location (AWS's
  specs usually do; such a one with ``enum: [VALUE]`` or ``const: VALUE`` gets
  ``default: VALUE``). The
  client's method has it with that default, so a call sends it unasked; the server
  validates it.

A fragment without ``name=value`` pairs (``/a#section``) is only stripped. An empty path
segment (Clever Cloud's ``//openapi`` and ``/vendor//apps``) is a typo no server routes:
the key is requested without it, unless another key already is that path. A query in the
key (``/email/history/export?filename={filename}``, ClickSend's) is read the same way: the
real path is the key before the ``?``, a constant ``name=value`` is a required query
parameter with that one value, and a ``name={param}`` pair sends that parameter (which
such specs declare ``in: path``) as the query parameter ``name``. The key before
the ``#`` must be a path like any other: the load stage checks it (``/`` first, no
parameter twice).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from generator.methods import HTTP_METHODS
from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.walk import json_copy

NAME = "fragments"
PATH = "x-apismith-path"
FRAGMENT = "x-apismith-fragment"


def requested_path(key: str, op: Mapping[str, Any]) -> str:
    """The path an operation under the ``paths`` key ``key`` is requested at: this pass's
    ``x-apismith-path`` (the key without its ``#fragment`` and ``?query``), else the key.
    Only that value is taken: never a path the key does not start with (the IR and the
    ``identifiers`` check read it here)."""
    real = op.get(PATH)
    expected = _split_query(key.partition("#")[0])[0] or "/"
    return real if isinstance(real, str) and real in (expected, _collapsed(expected)) else key


def _collapsed(path: str) -> str:
    """``path`` with its empty segments left out: ``//openapi`` is ``/openapi``."""
    return re.sub("//+", "/", path)


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def pairs(fragment: str) -> list[dict[str, str]]:
    """The ``{"in", "name", "value"}`` of each ``name=value`` of a fragment."""
    found = []
    for name, value in _name_values(fragment):
        where = "header" if name.lower().startswith("x-") else "query"
        found.append({"in": where, "name": name, "value": value})
    return found


def _name_values(text: str) -> list[tuple[str, str]]:
    """The ``name=value`` pairs of ``a=1&b=2`` (unquoted; a part without ``=`` or a name
    left out)."""
    found = []
    for part in text.split("&"):
        name, eq, value = part.partition("=")
        name, value = unquote(name).strip(), unquote(value)
        if eq and name:
            found.append((name, value))
    return found


def apply(spec: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``spec`` is the caller's to give (see :mod:`generator.normalize`)."""
    diags: list[Diagnostic] = []
    paths = spec.get("paths")
    if not isinstance(paths, dict):
        return PassResult(spec=spec)
    for key, item in paths.items():
        if not isinstance(item, dict):
            continue
        real, hash_, fragment = str(key).partition("#")
        real, question, query = _split_query(real)
        constants = pairs(fragment) if hash_ else []
        templated = _query(query, constants) if question else []
        real = real or "/"
        if _collapsed(real) != real and _collapsed(real) not in paths:
            real = _collapsed(real)  # an empty segment: a typo (Clever Cloud's //openapi)
            moved = True
        else:
            moved = bool(hash_ or question)
        shared = _declared(item.get("parameters"))
        for method in HTTP_METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            op.pop(PATH, None)
            op.pop(FRAGMENT, None)
            if not moved:
                continue
            op[PATH] = real
            op[FRAGMENT] = [dict(c) for c in constants]
            _to_query(item, op, templated)
            shared = _declared(item.get("parameters"))
            for params in (item.get("parameters"), op.get("parameters")):
                _default_to_constant(params, constants)
            declared = shared | _declared(op.get("parameters"))
            added = [_parameter(c) for c in constants if _key(c) not in declared]
            if added:
                own = op.get("parameters")
                op["parameters"] = [*(own if isinstance(own, list) else []), *added]
        if moved:
            pointer = "#/paths/" + str(key).replace("~", "~0").replace("/", "~1")
            sent = ", ".join(
                [f"{c['in']} {c['name']}: {c['value']}" for c in constants]
                + [f"query {name}: {{{param}}}" for param, name in templated]
            )
            message = f"path {key!r} is requested as {real!r}" + (f" ({sent})" if sent else "")
            diags.append(Diagnostic(NAME, "rename", pointer, message))
    return PassResult(spec=spec, diagnostics=tuple(diags))


def _split_query(path: str) -> tuple[str, str, str]:
    """``path.partition("?")`` at the first ``?`` outside a ``{parameter}``: a parameter
    may be named ``{?}``, a query may not start inside one."""
    depth = 0
    for i, c in enumerate(path):
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif c == "?" and depth == 0:
            return path[:i], "?", path[i + 1 :]
    return path, "", ""


def _query(query: str, constants: list[dict[str, str]]) -> list[tuple[str, str]]:
    """The ``name=value`` pairs of a path key's query (``/export?filename={filename}``,
    ClickSend's): a constant value joins ``constants`` (a query parameter with that one
    value); a ``{param}`` value is returned as (parameter, query name): that parameter,
    which the spec may declare ``in: path``, is sent in the query."""
    templated = []
    for name, value in _name_values(query):
        if len(value) > 2 and value[0] == "{" and value[-1] == "}" and "{" not in value[1:]:
            templated.append((value[1:-1], name))
        else:
            constants.append({"in": "query", "name": name, "value": value})
    return templated


def _to_query(item: dict[str, Any], op: dict[str, Any], templated: list[tuple[str, str]]) -> None:
    """Each (parameter, query name) of ``templated`` as a required query parameter of
    ``op``: its ``in: path`` declaration (the operation's or the path item's) moved to the
    query, else a string parameter added."""
    for param, name in templated:
        lists = [x for x in (op.get("parameters"), item.get("parameters")) if isinstance(x, list)]
        entries = [p for ps in lists for p in ps if isinstance(p, dict)]
        if any(p.get("in") == "query" and p.get("name") == name for p in entries):
            continue
        found = next((p for p in entries if p.get("in") == "path" and p.get("name") == param), None)
        if found is not None:
            found["in"], found["name"], found["required"] = "query", name, True
            continue
        added = {"name": name, "in": "query", "required": True, "schema": {"type": "string"}}
        op["parameters"] = [*(op.get("parameters") or []), added]


def _declared(params: Any) -> set[tuple[str, str]]:
    """(in, name) of the inline parameters of a list (a ``$ref`` one counts by neither)."""
    if not isinstance(params, list):
        return set()
    return {_key(p) for p in params if isinstance(p, dict) and "name" in p}


def _default_to_constant(params: Any, constants: list[dict[str, str]]) -> None:
    """A declared parameter that is one of the constants, ``enum: [VALUE]`` (AWS's own
    ``X-Amz-Target``), gets ``default: VALUE``: the client sends it without being told."""
    values = {_key(c): c["value"] for c in constants}
    for param in params if isinstance(params, list) else ():
        if not isinstance(param, dict) or _key(param) not in values:
            continue
        schema = param.get("schema")
        value = values[_key(param)]
        if isinstance(schema, dict) and (schema.get("enum") == [value] or _const(schema, value)):
            schema.setdefault("default", value)


def _const(schema: Mapping[str, Any], value: str) -> bool:
    return "const" in schema and schema["const"] == value and "enum" not in schema


def _key(param: Mapping[str, Any]) -> tuple[str, str]:
    """(in, name) of a parameter; a header's name in lower case (HTTP ignores its case)."""
    where, name = str(param.get("in")), str(param.get("name"))
    return where, name.lower() if where == "header" else name


def _parameter(constant: Mapping[str, str]) -> dict[str, Any]:
    value = constant["value"]
    return {
        "name": constant["name"],
        "in": constant["in"],
        "required": True,
        "description": f"Always {value!r}: names the operation (the path's fragment).",
        "schema": {"type": "string", "const": value, "default": value},
    }
