"""Operations that share a method and a path, told apart by a constant header or query
parameter: AWS-style paths (``/#X-Amz-Target=Foo`` and ``/#X-Amz-Target=Bar``, both
``POST /``, the ``X-Amz-Target`` header naming the operation).

A URL's fragment never reaches a server, so the normalize step strips it and gives each
operation a required parameter holding the constant (a header when the name looks like
one, else a query parameter); an IR where the path still holds its fragment is read the
same way. FastAPI matches a request by method and path only, so each such operation's
route is registered at ``<path>#<name>=<value>`` (the spec's own key, which is also how
the app's OpenAPI document shows it), and the app rewrites a request's path to that
route's when its method and path match and the parameter holds the value
(``_dispatch`` in ``server.py``). Every operation keeps its own route: its arguments,
validation, answers and name.

Operations that share a method and a path with no such parameter to tell them apart are
routed at the path without its fragment, where the first one is matched, with a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from generator.ir import Api, Operation, Parameter, TypeRef
from generator.load import escape_token
from generator.normalize.diagnostics import Diagnostic


@dataclass(frozen=True)
class Dispatch:
    """One dispatched operation: requests to ``method`` ``path`` whose ``location``
    parameter ``name`` (lower case for a header) is ``value`` go to ``route_path``."""

    method: str  # upper case
    path: str  # the path requests use (no fragment)
    location: str  # "header" or "query"
    name: str
    value: str
    route_path: str


def real_path(path: str) -> str:
    """``path`` without its fragment (``/#X-Amz-Target=Foo`` -> ``/``)."""
    return path.split("#", 1)[0] or "/"


def _const(api: Api, t: TypeRef, depth: int = 0) -> Any:
    """The one value ``t`` allows (a one-value literal or enum), else None."""
    if t.kind == "literal" and len(t.literals) == 1:
        return t.literals[0]
    if t.kind == "model" and t.name is not None and depth < 8:
        try:
            model = api.model(t.name)
        except KeyError:
            return None
        if model.kind == "enum" and len(model.enum_values) == 1:
            return model.enum_values[0]
        if model.root is not None:
            return _const(api, model.root, depth + 1)
    return None


def _constants(api: Api, op: Operation) -> dict[tuple[str, str], tuple[Parameter, str]]:
    """(location, name as matched) -> (the parameter, its value as text) of ``op``'s
    required constant header and query parameters."""
    found: dict[tuple[str, str], tuple[Parameter, str]] = {}
    for p in op.parameters:
        if not p.required or p.location not in ("header", "query"):
            continue
        value = _const(api, p.schema)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            key = p.name.lower() if p.location == "header" else p.name
            found[(p.location, key)] = (p, str(value))
    return found


def _fragment(op: Operation, p: Parameter, value: str) -> str:
    """The route's fragment: the spec's own, else ``name=value``."""
    return op.path.split("#", 1)[1] if "#" in op.path else f"{p.name}={value}"


def _group_dispatch(api: Api, ops: Sequence[Operation]) -> list[tuple[Operation, Dispatch]]:
    """The dispatch of each operation of a group sharing a method and a path (none when no
    constant parameter tells them apart)."""
    constants = [_constants(api, op) for op in ops]
    shared = set(constants[0]).intersection(*constants[1:])
    for key in sorted(shared):
        values = [c[key][1] for c in constants]
        if len(set(values)) == len(values):
            path = real_path(ops[0].path)
            out = []
            for op, c in zip(ops, constants, strict=True):
                p, value = c[key]
                route = f"{path}#{_fragment(op, p, value)}"
                out.append((op, Dispatch(op.method.upper(), path, key[0], key[1], value, route)))
            return out
    return []


def dispatches(api: Api) -> tuple[dict[str, Dispatch], tuple[Diagnostic, ...]]:
    """python name -> its dispatch, for every operation that shares its method and path
    (its fragment aside) with another, or whose path has a fragment; and a warning per
    group that no constant parameter tells apart."""
    groups: dict[tuple[str, str], list[Operation]] = {}
    for op in api.operations:
        groups.setdefault((op.method, real_path(op.path)), []).append(op)
    found: dict[str, Dispatch] = {}
    warnings: list[Diagnostic] = []
    for (method, path), ops in groups.items():
        if len(ops) < 2 and "#" not in ops[0].path:
            continue
        routed = _group_dispatch(api, ops)
        found.update((op.python_name, d) for op, d in routed)
        if not routed and len(ops) > 1:
            names = ", ".join(op.operation_id or op.python_name for op in ops)
            warnings.append(
                Diagnostic(
                    "server",
                    "warning",
                    "#/paths/" + escape_token(ops[1].path) + f"/{method}",
                    f"{names} share {method.upper()} {path} and no required constant header"
                    " or query parameter tells them apart: the server routes every such"
                    " request to the first",
                )
            )
    return found, tuple(warnings)
