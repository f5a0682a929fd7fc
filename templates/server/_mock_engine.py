"""The mock server's engine, copied verbatim into each generated package with a server.

:class:`MockEngine` answers from ``mock.py``'s tables, echoing path parameters, or in
stateful mode keeps the records of resources (see :class:`Role`); :func:`install_faults`
adds latency and documented errors (all off by default: :class:`MockOptions`). Answers
always validate: a field that would not keeps the table's value.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import random
import types
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

from fastapi import FastAPI, HTTPException
from fastapi.routing import APIRoute
from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.responses import JSONResponse
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["Fault", "MockEngine", "MockOptions", "Role", "install_faults"]

_MISSING: Any = object()
_SHAPED = ("get", "create")  # the actions whose answers give records their shape


@dataclass(frozen=True)
class Role:
    """What an operation does to a resource collection in stateful mode: ``action``
    (create, get, list, update or delete); ``collection``, the key of the records (the
    collection's path template); ``id_param``, the path parameter holding the id (get,
    update, delete); ``id_field``, the field of the operation's response holding the id;
    ``items_field``, the array field of a list response holding the records (None: the
    response is the array); ``scope``, the parent path parameters (a nested collection
    holds records per parent)."""

    action: str
    collection: str
    id_param: str | None = None
    id_field: str | None = None
    items_field: str | None = None
    scope: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fault:
    """A documented error answer: its status, JSON body, and whether to Retry-After."""

    status: int
    body: Any
    retry_after: bool = False


@dataclass(frozen=True)
class MockOptions:
    """How the mock behaves: ``stateful`` keeps records; ``latency_ms`` delays every
    operation; ``error_rate`` is the share of requests answered with a documented error,
    drawn from ``random.Random(seed)`` in request order."""

    seed: int = 0
    stateful: bool = False
    latency_ms: float = 0
    error_rate: float = 0.0


class MockEngine:
    """Answers operations from ``responses`` (operation -> JSON body) and ``chunks``
    (operation -> the JSON chunks a stream sends), stateful where ``roles`` say how."""

    def __init__(
        self,
        responses: Mapping[str, Any],
        chunks: Mapping[str, Sequence[Any]],
        roles: Mapping[str, Role],
        options: MockOptions | None = None,
    ) -> None:
        self.responses, self.chunks = responses, chunks
        self.roles, self.options = roles, options or MockOptions()
        # collection -> the operation records are shaped like (a get, else a create)
        ranked = sorted(roles.items(), key=lambda item: item[1].action == "get")
        self._shapes = {r.collection: n for n, r in ranked if r.action in _SHAPED}
        self._records: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}
        self._counts: dict[str, int] = {}  # collection -> the ids it has given

    def answer(
        self, operation: str, tp: Any, path: Mapping[str, Any], body: Any
    ) -> Any:
        """The response of ``operation`` validated as ``tp`` (None when it has no body).
        ``path``: wire name -> value of the path parameters; ``body``: the request body
        (a model, JSON, or None). In stateful mode, an unknown id raises a 404."""
        literal, role = self.responses.get(operation), self.roles.get(operation)
        if self.options.stateful and role is not None:
            data = self._stateful(operation, role, tp, path, _fields_of(body))
        else:
            data = _echo(copy.deepcopy(literal), role, path)
        return None if literal is None else self._valid(tp, data, literal)

    async def stream(
        self, operation: str, tp: Any, path: Mapping[str, Any], body: Any
    ) -> AsyncIterator[Any]:
        """The chunks of a streaming operation in order, each validated as ``tp``."""
        for chunk in self.chunks.get(operation, ()):
            yield _adapter(tp).validate_python(copy.deepcopy(chunk))

    def _stateful(
        self, operation: str, role: Role, tp: Any, path: Mapping[str, Any], body: Any
    ) -> Any:
        literal = self.responses.get(operation)
        scope = tuple(str(path.get(name)) for name in role.scope)
        records = self._records.setdefault((role.collection, scope), {})
        shape = self._shapes.get(role.collection, operation)
        id_field = (self.roles.get(shape) or role).id_field  # where records hold the id
        if role.action == "list":
            field = role.items_field
            items = literal.get(field) if isinstance(literal, dict) else literal
            item = items[0] if isinstance(items, list) and items else None
            declared = _item_fields(tp, field)
            # each record with its parents' ids and its id (where the item has them)
            rows = [{**path, role.id_field or "": k, **r} for k, r in records.items()]
            if not declared and not isinstance(item, dict):  # items of unknown shape
                rows = list(records.values())
            found = [_project(row, item, declared) for row in rows]
            if field is None or not isinstance(literal, dict):
                return found
            return {**copy.deepcopy(literal), field: found}
        if role.action == "create":
            fields = _fields(tp)  # the answer's (a parent's id goes to its field)
            base = copy.deepcopy(self.responses.get(shape))
            record = {**(base if isinstance(base, dict) else {}), **body}
            record.update((k, v) for k, v in path.items() if k in record or k in fields)
            template = record.get(id_field or "")
            new = body[id_field] if id_field in body else self._new_id(role, template)
            record.update({id_field: new} if id_field is not None else {})
            records[str(new)] = record
            return _echo(_project(record, literal, fields), role, path, new)
        key = str(path.get(role.id_param or ""))
        if key not in records:
            raise HTTPException(404, f"{operation}: no record with id {key!r}")
        if role.action == "delete":
            del records[key]
            return _echo(copy.deepcopy(literal), role, path)
        if role.action == "update":
            records[key].update((k, v) for k, v in body.items() if k != id_field)
        return _echo(_project(records[key], literal, _fields(tp)), role, path)

    def _new_id(self, role: Role, template: Any) -> Any:
        """The collection's next id, like ``template``: int, UUID, else ``things-1``."""
        self._counts[role.collection] = n = self._counts.get(role.collection, 0) + 1
        if isinstance(template, int) and not isinstance(template, bool):
            return n
        if len(str(template)) == 36 and str(template).count("-") == 4:  # a UUID
            return str(uuid.UUID(int=n, version=4))
        return f"{role.collection.rstrip('/').rpartition('/')[2] or 'id'}-{n}"

    def _valid(self, tp: Any, data: Any, literal: Any) -> Any:
        """``data`` validated as ``tp``; fields that fail take the literal's value (or
        go), and when that is not enough the literal itself answers."""
        adapter = _adapter(tp)
        for _ in range(10):
            try:
                return adapter.validate_python(data)
            except ValidationError as exc:
                errors = reversed(exc.errors())  # later list items first
                reverted = [_revert(data, literal, e["loc"]) for e in errors]
                if not any(reverted):
                    break
        return adapter.validate_python(copy.deepcopy(literal))


@functools.cache
def _adapter(tp: Any) -> TypeAdapter[Any]:
    return TypeAdapter(tp)


def _echo(out: Any, role: Role | None, path: Mapping[str, Any], new: Any = None) -> Any:
    """``out`` with the path parameters echoed into the top-level fields of the same
    names, and the id (``new``, else the id parameter's) into the role's id field."""
    if isinstance(out, dict):
        out.update((k, v) for k, v in path.items() if k in out)
        if role is not None and role.id_field is not None:
            new = path.get(role.id_param or "") if new is None else new
            out.update({role.id_field: new} if new is not None else {})
    return out


def _revert(data: Any, orig: Any, loc: tuple[int | str, ...]) -> bool:
    """Undo what fails at ``loc``: the deepest value found there takes the original's
    value, or goes when the original has none; parts that match no key (union members'
    tags) are skipped. Whether anything changed."""
    parent, key, node = None, None, data
    for i, part in enumerate(loc):
        if isinstance(node, dict) and part in node:
            sub = orig.get(part, _MISSING) if isinstance(orig, dict) else _MISSING
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            last = len(orig) - 1 if isinstance(orig, list) else -1  # its item, or last
            sub = orig[min(part, last)] if last >= 0 else _MISSING
        elif i + 1 < len(loc):
            continue
        elif isinstance(node, dict) and isinstance(orig, dict) and part in orig:
            node[part] = copy.deepcopy(orig[part])  # missing: the original's value
            return True
        else:
            break
        parent, key, node, orig = node, part, node[part], sub
    if parent is None or node == orig:
        return False
    if orig is _MISSING:
        del parent[key]
    else:
        parent[key] = copy.deepcopy(orig)
    return True


def _fields_of(body: Any) -> dict[str, Any]:
    """The fields a request body sets, by wire name (none when it is not an object)."""
    if isinstance(body, BaseModel):
        body = body.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return copy.deepcopy(body) if isinstance(body, dict) else {}


def _project(record: dict[str, Any], template: Any, declared: Mapping[str, Any]) -> Any:
    """``record`` as an answer: the template's fields, with the record's values for
    those and for the other fields the answer's model declares."""
    if not isinstance(template, dict) and not declared:
        return copy.deepcopy(record)
    out = copy.deepcopy(template) if isinstance(template, dict) else {}
    keep = set(out) | set(declared)
    out.update((k, copy.deepcopy(v)) for k, v in record.items() if k in keep)
    return out


def _members(tp: Any) -> list[Any]:
    """The members of a union (``X | None``), through ``Annotated`` and aliases."""
    origin = get_origin(tp)
    if origin is Union or origin is types.UnionType:
        return [m for arg in get_args(tp) for m in _members(arg)]
    if origin is Annotated:
        return _members(get_args(tp)[0])
    value = getattr(tp, "__value__", None)  # a type alias (TypeAliasType)
    return [tp] if value is None or isinstance(tp, type) else _members(value)


def _fields(tp: Any) -> dict[str, Any]:
    """Wire name -> annotation of the fields of ``tp``'s models (of a union: all)."""
    fields: dict[str, Any] = {}
    for m in _members(tp):
        if isinstance(m, type) and issubclass(m, BaseModel):
            fields |= {f.alias or k: f.annotation for k, f in m.model_fields.items()}
    return fields


def _item_fields(tp: Any, items_field: str | None) -> dict[str, Any]:
    """The fields of one item of a list answer (``tp``, or its ``items_field``)."""
    tp = tp if items_field is None else _fields(tp).get(items_field)
    lists = [get_args(m) for m in _members(tp) if get_origin(m) is list]
    return _fields(next((args[0] for args in lists if args), None))


def _api_routes(routes: Sequence[Any]) -> list[APIRoute]:
    """The APIRoutes of ``routes`` and of the routers included there (FastAPI 0.16x)."""
    found = [r for r in routes if isinstance(r, APIRoute)]
    inner = [r.original_router.routes for r in routes if hasattr(r, "original_router")]
    return found + [route for group in inner for route in _api_routes(group)]


def install_faults(
    app: FastAPI, faults: Mapping[str, Sequence[Fault]], options: MockOptions
) -> None:
    """Add latency, and with probability ``options.error_rate`` answer a request to an
    operation (a route's name) with one of its ``faults`` (a 503 when it has none)."""
    if options.latency_ms <= 0 and options.error_rate <= 0:
        return
    draw = random.Random(options.seed)

    def middleware(inner: ASGIApp) -> ASGIApp:
        async def faulty(scope: Scope, receive: Receive, send: Send) -> None:
            routes = _api_routes(app.router.routes) if scope["type"] == "http" else []
            full = [r.name for r in routes if r.matches(scope)[0] == Match.FULL]
            name = full[0] if full else None
            if name is not None and options.latency_ms > 0:
                await asyncio.sleep(options.latency_ms / 1000)
            if name is None or draw.random() >= options.error_rate:
                return await inner(scope, receive, send)
            default = Fault(503, {"detail": "Service Unavailable (mock fault)"}, True)
            fault = draw.choice(list(faults.get(name) or [default]))
            headers = {"Retry-After": "1"} if fault.retry_after else None
            await JSONResponse(fault.body, fault.status, headers)(scope, receive, send)

        return faulty

    app.add_middleware(middleware)
