"""A route's path as Starlette's router reads it: parameters it can name, and types it
can take from a path segment."""

from __future__ import annotations

import re

from generator.ir import Api, Operation, TypeRef

ROUTE_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")  # what Starlette reads as a parameter


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
