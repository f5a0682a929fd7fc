"""A route's path as Starlette's router reads it: parameters it can name, types it can
take from a path segment, and the order that lets every route be reached."""

from __future__ import annotations

import re
from typing import Protocol, TypeVar

from generator.ir import Api, Operation, TypeRef

ROUTE_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")  # what Starlette reads as a parameter


class Routed(Protocol):
    method: str
    path: str


R = TypeVar("R", bound=Routed)


def structured_segment(api: Api, t: TypeRef) -> bool:
    """Whether a path parameter's type is one FastAPI refuses for a path (a list, an object:
    TfL's ``/Line/{ids}`` takes ``a,b,c``): the route then takes the segment as text."""
    if t.kind in ("array", "map", "union", "tuple"):
        return True
    if t.kind != "model" or t.name is None:
        return False
    try:
        return api.model(t.name).kind == "object"
    except KeyError:
        return False


def route_path(op: Operation, names: list[str]) -> str:
    """``op``'s path as the router reads it: a path parameter whose name Starlette would
    take as literal text (``{a-b}``, ``{a.b}``) is named after its argument instead
    (``names``: the arguments' names, in the order of ``op.parameters``)."""
    path = op.path
    for p, name in zip(op.parameters, names, strict=False):
        if p.location == "path" and not ROUTE_NAME.fullmatch(p.name):
            path = path.replace("{" + p.name + "}", "{" + name + "}")
    return path


def _is_parameter(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")


def shadows(first: str, second: str) -> bool:
    """Whether the route path ``first`` takes every request of ``second`` (a path with a
    literal segment where ``first`` has a parameter): ``/users/{id}`` shadows
    ``/users/me``, so Starlette, matching in order, would never reach the latter."""
    one, two = first.split("/"), second.split("/")
    if len(one) != len(two):
        return False
    wider = False
    for a, b in zip(one, two, strict=True):
        if _is_parameter(a) and not _is_parameter(b):
            wider = True
        elif a != b and not (_is_parameter(a) and _is_parameter(b)):
            return False
    return wider


def matching_order(routes: list[R]) -> list[R]:
    """``routes`` in the spec's order, except that a route comes before the first one of
    its method that shadows it (:func:`shadows`): ``/users/me`` before ``/users/{id}``."""
    out: list[R] = []
    for r in routes:
        at = next(
            (i for i, o in enumerate(out) if o.method == r.method and shadows(o.path, r.path)),
            len(out),
        )
        out.insert(at, r)
    return out
