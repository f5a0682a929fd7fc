"""What the mock keeps to beyond its tables, read from the IR at generation time (the
runtime is ``templates/server/_mock_engine.py``):

- :func:`mock_pager`: how a list operation pages, so that the mock's pages end. Cursor and
  page-number paging are the client's own (``surface.methods.paging_of``: the mock pages as
  the client walks); offset paging (``offset``/``skip`` with a page size) is read here, as
  no client helper walks it, and so are the answer's ``has_more`` and total-count fields
  of every style. ``Link`` paging needs nothing: the mock sends no ``Link`` header, so its
  walk is one page (all the records, in stateful mode).
- :func:`role_extras`: what a stateful role adds: the ``writeOnly`` fields its records
  never show (``hidden``: a password a create set), and for an item action the body of the
  404 its operation declares for an unknown id (``missing``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.ir import Api, Field, Operation, TypeRef
from generator.render.examples import MockError, Synthesizer
from generator.render.surface.methods import ITEM_FIELDS, paging_of

OFFSET_PARAMS = ("offset", "skip", "start", "startIndex", "start_index")
SIZE_PARAMS = (
    *("limit", "per_page", "page_size", "pageSize", "size", "max_results", "maxResults"),
    *("count", "top", "$top", "first"),
)
TOTAL_FIELDS = ("total", "total_count", "totalCount", "total_items", "totalItems", "count")
MORE_FIELDS = ("has_more", "hasMore", "has_next", "hasNext", "has_next_page", "hasNextPage")
MISSING_STATUSES = ("404", "4XX", "default")  # the body of an unknown id, in this order


def _fields(api: Api, t: TypeRef | None, depth: int = 0) -> tuple[Field, ...]:
    """The fields of an object model ``t`` (through aliases and ``| null``), of a union the
    fields of all its members; none for anything else."""
    if t is None or depth > 8:
        return ()
    if t.kind == "union":
        return tuple(f for m in t.members for f in _fields(api, m, depth + 1))
    if t.kind != "model" or not t.name:
        return ()
    model = api.model(t.name)
    return model.fields if model.kind == "object" else _fields(api, model.root, depth + 1)


def _typed(fields: tuple[Field, ...], names: tuple[str, ...], primitive: str) -> str:
    """The first of ``names`` that is a ``primitive`` field ("" none)."""
    found = {f.name for f in fields if f.type.kind == "primitive" and f.type.primitive == primitive}
    return next((n for n in names if n in found), "")


def _pager_args(api: Api, op: Operation) -> dict[str, Any] | None:
    """The runtime ``Pager``'s keyword arguments for ``op`` (None: it does not page)."""
    ok = op.success_response
    if op.method != "get" or ok is None or ok.schema is None:
        return None
    query = {p.name: p for p in op.parameters_in("query")}
    fields = _fields(api, ok.schema)
    size = next((n for n in SIZE_PARAMS if n in query), "")
    more = _typed(fields, MORE_FIELDS, "boolean")
    client = paging_of(api, op)
    if client is not None and client.style in ("cursor", "page"):
        args: dict[str, Any] = {"style": client.style, "items": client.items}
        args |= {"param": client.param, "size": size, "more": more}
        if client.style == "cursor":
            return args | {"next": client.next}
        first = query[client.param].default
        first = first if isinstance(first, int) and not isinstance(first, bool) else 1
        return args | {"current": "current_page", "total": "total_item_count", "first": first}
    offset = next((n for n in OFFSET_PARAMS if n in query), None)
    arrays = [f.name for f in fields if f.type.kind == "array"]
    items = next((n for n in ITEM_FIELDS if n in arrays), arrays[0] if len(arrays) == 1 else None)
    if offset is None or not size or (items is None and ok.schema.kind != "array"):
        return None
    total = _typed(fields, TOTAL_FIELDS, "integer")
    args = {"style": "offset", "items": items, "param": offset, "size": size}
    return args | {"total": total, "more": more}


def mock_pager(api: Api, op: Operation, names: Mapping[str, str]) -> str:
    """Code: the arguments a mock method adds to its ``engine.answer(...)`` call to page
    (``, pager=Pager(...), query={...}``; "" when ``op`` does not page). ``names``: the
    query parameters' wire names -> their Python arguments."""
    args = _pager_args(api, op)
    if args is None:
        return ""
    shown = ", ".join(f"{k}={v!r}" for k, v in args.items() if v not in ("", None) or k == "items")
    wires = [w for w in (args["param"], args["size"]) if w and w in names]
    query = ", ".join(f"{w!r}: {names[w]}" for w in wires)
    return f", pager=Pager({shown}), query={{{query}}}"


def role_extras(
    api: Api, op: Operation, role: Mapping[str, Any], synth: Synthesizer
) -> dict[str, Any]:
    """The keyword arguments a stateful role gets beyond the inferred ones: ``hidden``
    (the ``writeOnly`` fields of its records), and for get, update and delete ``missing``
    (an instance of the 404 response its operation declares; none without one)."""
    ok = op.success_response
    record = ok.schema if ok is not None else None
    if role.get("action") == "list":
        items = record
        if role.get("items_field"):
            found = {f.name: f.type for f in _fields(api, record)}
            items = found.get(role["items_field"])
        record = items.items if items is not None and items.kind == "array" else None
    out: dict[str, Any] = {}
    hidden = sorted({f.name for f in _fields(api, record) if f.write_only and not f.required})
    if hidden:
        out["hidden"] = tuple(hidden)
    if role.get("action") in ("get", "update", "delete"):
        by_status = {r.status: r for r in op.responses}
        declared = next((by_status[s] for s in MISSING_STATUSES if s in by_status), None)
        if declared is not None and declared.schema is not None:
            try:
                out["missing"] = synth.value(declared.schema)
            except MockError:
                pass  # FastAPI's {"detail": ...}
    return out
