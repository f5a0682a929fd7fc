"""The mock server's engine, copied verbatim into each generated package with a server.

:class:`MockEngine` answers from ``mock.py``'s tables, echoing path parameters, or in
stateful mode keeps the records of resources (see :class:`Role`); ``_mock_faults.py``'s
:func:`install_faults` adds latency and documented errors (all off by default:
:class:`MockOptions`) and answers errors with their declared bodies. Answers
always validate: a field that would not keeps the table's value, and an answer that still
would not is a 501 saying so (never a 500). A record never shows the fields its role hides
(``writeOnly``: a password), an unknown id answers the operation's declared 404 body, and
list operations page to an end (:class:`Pager`).
"""

from __future__ import annotations

import copy
import functools
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ._mock_faults import Fault, MockOptions, RecordMissing, install_faults
from ._mock_pages import Pager, paged
from ._mock_records import fields_of, fields_of_type, item_fields, project, revert

__all__ = ["Fault", "MockEngine", "MockOptions", "Pager", "Role", "install_faults"]

_MISSING: Any = object()
_SHAPED = ("get", "create")  # the actions whose answers give records their shape
DEFAULT_PAGE_SIZE = 10  # records per page in stateful mode, when the request gives no size


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
    hidden: tuple[str, ...] = ()  # fields answers never show (writeOnly: a password)
    missing: Any = None  # the 404 body of an unknown id, as declared (None: a detail)


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
        self,
        operation: str,
        tp: Any,
        path: Mapping[str, Any],
        body: Any,
        pager: Pager | None = None,
        query: Mapping[str, Any] | None = None,
    ) -> Any:
        """The response of ``operation`` validated as ``tp`` (None when it has no body).
        ``path``: wire name -> value of the path parameters; ``body``: the request body
        (a model, JSON, or None); a list operation's ``pager`` and the values of its
        ``query`` parameters (wire name -> value) select the page. In stateful mode, an
        unknown id raises a 404."""
        literal, role = self.responses.get(operation), self.roles.get(operation)
        per_page = 0  # the table's items, on STATELESS_PAGES pages
        if self.options.stateful and role is not None:
            data = self._stateful(operation, role, tp, path, fields_of(body))
            per_page = DEFAULT_PAGE_SIZE
        else:
            data = _echo(copy.deepcopy(literal), role, path)
        if pager is not None and literal is not None:
            data = paged(pager, data, query or {}, per_page)
        return None if literal is None else self._valid(operation, tp, data, literal)

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
            declared = item_fields(tp, field)
            # each record with its parents' ids and its id (where the item has them)
            rows = [{**path, role.id_field or "": k, **r} for k, r in records.items()]
            if not declared and not isinstance(item, dict):  # items of unknown shape
                rows = list(records.values())
            found = [project(row, item, declared, role.hidden) for row in rows]
            if field is None or not isinstance(literal, dict):
                return found
            return {**copy.deepcopy(literal), field: found}
        if role.action == "create":
            fields = fields_of_type(tp)  # the answer's (a parent's id goes to its field)
            base = copy.deepcopy(self.responses.get(shape))
            record = {**(base if isinstance(base, dict) else {}), **body}
            record.update((k, v) for k, v in path.items() if k in record or k in fields)
            template = record.get(id_field or "")
            new = body[id_field] if id_field in body else self._new_id(role, template)
            record.update({id_field: new} if id_field is not None else {})
            records[str(new)] = record
            return _echo(project(record, literal, fields, role.hidden), role, path, new)
        key = str(path.get(role.id_param or ""))
        if key not in records:
            raise RecordMissing(f"{operation}: no record with id {key!r}", role.missing)
        if role.action == "delete":
            del records[key]
            return _echo(copy.deepcopy(literal), role, path)
        if role.action == "update":
            records[key].update((k, v) for k, v in body.items() if k != id_field)
        return _echo(project(records[key], literal, fields_of_type(tp), role.hidden), role, path)

    def _new_id(self, role: Role, template: Any) -> Any:
        """The collection's next id, like ``template``: int, UUID, else ``things-1``."""
        self._counts[role.collection] = n = self._counts.get(role.collection, 0) + 1
        if isinstance(template, int) and not isinstance(template, bool):
            return n
        if len(str(template)) == 36 and str(template).count("-") == 4:  # a UUID
            return str(uuid.UUID(int=n, version=4))
        return f"{role.collection.rstrip('/').rpartition('/')[2] or 'id'}-{n}"

    def _valid(self, operation: str, tp: Any, data: Any, literal: Any) -> Any:
        """``data`` validated as ``tp``; fields that fail take the literal's value (or
        go), and when that is not enough the literal itself answers. A literal that fails
        too (the generator's check of the data and pydantic's disagree) is a 501 that says
        so, never a 500."""
        adapter = _adapter(tp)
        for _ in range(10):
            try:
                return adapter.validate_python(data)
            except ValidationError as exc:
                errors = reversed(exc.errors())  # later list items first
                reverted = [revert(data, literal, e["loc"]) for e in errors]
                if not any(reverted):
                    break
        try:
            return adapter.validate_python(copy.deepcopy(literal))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "the answer"
            raise NotImplementedError(
                f"{operation} (the mock's answer does not validate: {where}: {first['msg']})"
            ) from None


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
