"""What the mock's stateful mode and fault injection know of each operation, read from the
IR at generation time (the runtime is ``templates/server/_mock_engine.py``).

:func:`mock_roles` reads resources from the paths, the way a person would:

- a *collection path* ends with a literal segment (``/v4/evaluations``); an *item path*
  is a collection path and one parameter (``/v4/evaluations/{evaluation_id}``). Paths
  that differ only in their parameters' names are the same collection
  (``/v4/models/{model_id}/deployments`` is ``/v4/models/{model_instance_id}/deployments``);
- POST on a collection creates, GET lists; GET on an item reads it, PATCH or PUT updates
  it (a POST with a body does, when there is neither), DELETE deletes it;
- a resource needs a create and a get (action endpoints such as ``POST .../cancel`` are
  thus never resources); its records are keyed by ``collection``, the collection's path
  template as the create spells it, and nested collections by their parents' ids
  (``scope``: each operation's other path parameters, by its own names);
- ``id_param``: the item path's parameter; ``id_field``: the field of the operation's
  response holding the id (for a list: of its items; see :func:`id_field`);
  ``items_field``: the list response's array of records (:func:`items_field`); a list
  without one gets no role.

``[mock.resources.<operation>]`` entries (:mod:`generator.config.mock`) amend, add or
(``action = "none"``) remove roles. :func:`mock_faults` picks the errors to inject,
:func:`mock_errors` the declared bodies of the errors the framework raises.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from generator.errors import ApismithError
from generator.ir import Api, Field, Operation, TypeRef
from generator.media import is_json

ITEM_ACTIONS = ("get", "update", "delete")
ITEM_METHODS = {"get": "get", "patch": "update", "put": "update", "delete": "delete"}
RETRYABLE = (408, 409, 429)  # and every 5xx
_PARAM = re.compile(r"^\{([^{}]+)\}$")

Role = dict[str, Any]  # the keyword arguments of the runtime's ``Role``


def _segments(path: str) -> list[str]:
    return path.rstrip("/").split("/")


def _param(segment: str) -> str | None:
    found = _PARAM.match(segment)
    return found.group(1) if found else None


def _shape(segments: list[str]) -> str:
    """A path with its parameters' names erased: the same collection whatever they are."""
    return "/".join("{}" if _param(s) else s for s in segments)


@dataclass
class _Resource:
    """The operations on one collection, by action (in spec order)."""

    ops: dict[str, list[Operation]] = field(default_factory=dict)

    def first(self, action: str) -> Operation | None:
        found = self.ops.get(action)
        return found[0] if found else None


def _classify(op: Operation) -> tuple[str, str] | None:
    """(collection shape, action) of ``op`` as its path and method read, or None."""
    segments = _segments(op.path)
    if len(segments) < 2 or not segments[-1]:
        return None
    if _param(segments[-1]) is None:
        action = {"post": "create", "get": "list"}.get(op.method)
        return (_shape(segments), action) if action else None
    if len(segments) < 3 or _param(segments[-2]) is not None or not segments[-2]:
        return None
    action = ITEM_METHODS.get(op.method)
    if op.method == "post" and op.request_body is not None:
        action = "post"  # an update, when the item has no PATCH or PUT (see _resources)
    return (_shape(segments[:-1]), action) if action else None


def _resources(api: Api) -> dict[str, _Resource]:
    """Collection shape -> its operations; a POST on an item updates it only when the
    item has no PATCH or PUT."""
    found: dict[str, _Resource] = {}
    for op in api.operations:
        read = _classify(op)
        if read is not None:
            found.setdefault(read[0], _Resource()).ops.setdefault(read[1], []).append(op)
    for resource in found.values():
        posts = resource.ops.pop("post", [])
        if "update" not in resource.ops and posts:
            resource.ops["update"] = posts[:1]
    return {k: r for k, r in found.items() if r.first("create") and r.first("get")}


def _object_fields(api: Api, t: TypeRef | None, depth: int = 0) -> tuple[Field, ...]:
    """The fields of an object model type, through aliases; of a union of objects, the
    fields every member has (as the first spells them); none for anything else."""
    if t is None or depth > 8:
        return ()
    if t.kind == "union":
        members = [_object_fields(api, m, depth + 1) for m in t.members]
        common = set.intersection(*({f.name for f in m} for m in members)) if members else set()
        return tuple(f for f in members[0] if f.name in common) if members else ()
    if t.kind != "model" or t.name is None:
        return ()
    model = api.model(t.name)
    return model.fields if model.kind == "object" else _object_fields(api, model.root, depth + 1)


def _scalar(api: Api, t: TypeRef) -> bool:
    """Whether ``t`` is a string or integer (an id), through aliases and ``| null``."""
    for _ in range(8):  # aliases of aliases, not cycles
        root = api.model(t.name).root if t.kind == "model" and t.name else None
        if root is not None:
            t = root
        elif t.kind == "union" and len(t.members) == 1:
            t = t.members[0]
        else:
            break
    return t.kind == "primitive" and t.primitive in ("string", "integer")


def _response(op: Operation) -> TypeRef | None:
    success = op.success_response
    return success.schema if success is not None else None


def id_field(api: Api, t: TypeRef | None, param: str | None, create: bool = False) -> str | None:
    """The field of ``t`` (a response, a list's item) holding the id of the resource whose
    path parameter is ``param``: for a ``..._id`` parameter (or ``id``), the field ``id``,
    else the one named like the parameter, else a ``..._id`` field the parameter ends with
    (``job_id`` for ``batch_job_id``), else, for a create, the only required ``..._id``
    field; for another parameter (``model_endpoint_name``), the field named like it, else
    like its last word (``name``); without a parameter, ``id``. Only string and integer
    fields count."""
    fields = {f.name: f for f in _object_fields(api, t) if _scalar(api, f.type)}
    if param is None:
        return "id" if "id" in fields else None
    if not (param == "id" or param.endswith("_id")):
        last = param.rsplit("_", 1)[-1]
        return next((n for n in (param, last) if n in fields), None)
    for name in ("id", param):
        if name in fields:
            return name
    suffixes = [n for n in fields if n.endswith("_id") and param.endswith("_" + n)]
    if suffixes:
        return max(suffixes, key=len)
    required = [n for n, f in fields.items() if n.endswith("_id") and f.required]
    return required[0] if create and len(required) == 1 else None


@dataclass(frozen=True)
class Records:
    """Where a list response holds its records: ``field`` (None: the response is the
    array), and the type of one record."""

    field: str | None
    item: TypeRef | None


def items_field(api: Api, op: Operation, item: TypeRef | None = None) -> Records | None:
    """Where ``op``'s response holds records: the response itself when it is an array;
    else the array field whose items are the resource's model (``item``), else the only
    array field; None when there is no such field."""
    t = _response(op)
    if t is not None and t.kind == "array":
        return Records(None, t.items)
    arrays = [f for f in _object_fields(api, t) if f.type.kind == "array"]
    matching = [f for f in arrays if item is not None and f.type.items == item]
    chosen = matching or (arrays if len(arrays) == 1 else [])
    return Records(chosen[0].name, chosen[0].type.items) if chosen else None


def _records_in(api: Api, op: Operation, name: str | None) -> Records:
    """Where a list override says ``op``'s records are (``name``: its items_field)."""
    if name is None:
        return items_field(api, op) or Records(None, None)
    fields = {f.name: f.type for f in _object_fields(api, _response(op))}
    return Records(name, fields[name].items if name in fields else None)


def _path_params(op: Operation) -> list[str]:
    return [p for s in _segments(op.path) if (p := _param(s)) is not None]


def _plain(role: Role) -> Role:
    return {k: v for k, v in role.items() if v not in (None, ())}


def _role(api: Api, op: Operation, action: str, collection: str, get: Operation) -> Role | None:
    """The role of ``op`` in the resource read by ``get`` (None: a list without records)."""
    params = _path_params(op)
    id_param = params[-1] if action in ITEM_ACTIONS else None
    resource_param = _path_params(get)[-1]
    role: Role = {"action": action, "collection": collection, "id_param": id_param}
    if action == "list":
        records = items_field(api, op, _response(get))
        if records is None:
            return None
        role["id_field"] = id_field(api, records.item, resource_param)
        role["items_field"] = records.field
    else:
        t = _response(op)
        role["id_field"] = id_field(api, t, id_param or resource_param, action == "create")
    role["scope"] = tuple(p for p in params if p != id_param)
    return _plain(role)


def inferred_roles(api: Api) -> dict[str, Role]:
    """python name -> role, from the paths alone (see the module docstring)."""
    roles: dict[str, Role] = {}
    for resource in _resources(api).values():
        create, get = resource.first("create"), resource.first("get")
        assert create is not None and get is not None
        collection = "/".join(_segments(create.path))  # the key, as the create spells it
        for action, ops in resource.ops.items():
            for op in ops:
                role = _role(api, op, action, collection, get)
                if role is not None:
                    roles[op.python_name] = role
    order = {op.python_name: i for i, op in enumerate(api.operations)}
    return dict(sorted(roles.items(), key=lambda item: order[item[0]]))


def _override_error(key: str, message: str, where: str | None = None) -> ApismithError:
    return ApismithError(f"config: [mock.resources.{key}] {message}", file=where)


def _base_role(op: Operation, action: str) -> Role:
    """The role an override with a new ``action`` starts from: the path's collection (for
    an item action, the path without its last parameter, which holds the id)."""
    segments = _segments(op.path)
    item = action in ITEM_ACTIONS and _param(segments[-1]) is not None
    role: Role = {"action": action, "collection": "/".join(segments[:-1] if item else segments)}
    if item:
        role["id_param"] = _param(segments[-1])
    return role


def _amend(api: Api, key: str, op: Operation, role: Role | None, entry: Mapping[str, Any]) -> Role:
    """The role an override entry gives ``op`` (``role``: the inferred one, if any)."""
    action = entry.get("action", role["action"] if role else None)
    if action is None:
        where = f"{op.method.upper()} {op.path}"
        raise _override_error(key, f"{where} has no inferred role: give its action")
    if role is None or role["action"] != action:
        role = _base_role(op, action)
    params = _path_params(op)
    role = {**role, **{k: v for k, v in entry.items() if k != "scope"}}
    if "scope" in entry:
        role["scope"] = tuple(entry["scope"])
    elif "scope" not in role:
        role["scope"] = tuple(p for p in params if p != role.get("id_param"))
    if action in ITEM_ACTIONS and "id_param" not in role:
        raise _override_error(key, f"action {action!r} needs id_param (a path parameter)")
    wrong = [p for p in (role.get("id_param"), *role["scope"]) if p is not None and p not in params]
    if wrong:
        raise _override_error(key, f"{wrong} are not path parameters of {op.path} ({params})")
    if action == "list":
        records = _records_in(api, op, role.get("items_field"))
        role.setdefault("items_field", records.field)
        role.setdefault("id_field", id_field(api, records.item, None))
    else:
        role.pop("items_field", None)
        role.setdefault(
            "id_field", id_field(api, _response(op), role.get("id_param"), action == "create")
        )
    return _plain(role)


def mock_roles(
    api: Api, overrides: Mapping[str, Mapping[str, Any]], where: str | None = None
) -> dict[str, Role]:
    """python name -> the keyword arguments of its runtime ``Role`` (str or tuple-of-str
    values; keys left out take the defaults), in spec order: the inferred roles, amended
    by ``overrides`` (``[mock.resources]``: operationId or python name -> entry, as
    :func:`generator.config.mock.read_mock` checked it). An override naming no operation,
    or a path parameter its operation lacks, fails (``where``: the config file)."""
    roles = inferred_roles(api)
    shapes = {_shape(_segments(r["collection"])): r["collection"] for r in roles.values()}
    for key, entry in overrides.items():
        try:
            op = api.operation(key)
        except KeyError:
            message = "names no operation (use an operationId or python name)"
            raise _override_error(key, message, where) from None
        if entry.get("action") == "none":
            roles.pop(op.python_name, None)
            continue
        try:
            role = _amend(api, key, op, roles.get(op.python_name), entry)
        except ApismithError as exc:
            exc.file = where
            raise
        collection = role["collection"]  # another spelling of an inferred collection: its key
        role["collection"] = shapes.get(_shape(_segments(collection)), collection)
        roles[op.python_name] = role
    order = {op.python_name: i for i, op in enumerate(api.operations)}
    return dict(sorted(roles.items(), key=lambda item: order[item[0]]))


def _fault_status(status: str) -> int | None:
    """An error status to inject for a documented one: ``5XX`` -> 503, ``4XX`` -> 400."""
    if status.isdigit():
        return int(status)
    return {"5XX": 503, "4XX": 400}.get(status.upper())


def mock_faults(op: Operation) -> list[tuple[int, TypeRef | None, bool]]:
    """The errors fault injection answers for ``op``: (status, the error body's type or
    None, whether to send Retry-After), by status. Its documented retryable errors (408,
    409, 429, 5xx), else its other documented errors (422 aside: FastAPI's own), else a
    503 (typed as the ``default`` response, if any). Retry-After for 429 and 503 and for
    responses that document the header."""
    documented: dict[int, tuple[int, TypeRef | None, bool]] = {}
    for r in op.responses:
        code = _fault_status(r.status)
        if code is None or code < 400 or code == 422 or code in documented:
            continue
        documented[code] = (code, r.schema, code in (429, 503) or "retry-after" in r.headers)
    retryable = [f for code, f in documented.items() if code in RETRYABLE or code >= 500]
    chosen = retryable or list(documented.values())
    if not chosen:
        default = next((r for r in op.responses if r.status == "default"), None)
        chosen = [(503, default.schema if default is not None else None, True)]
    return sorted(chosen, key=lambda f: f[0])


def mock_errors(op: Operation) -> list[tuple[str, TypeRef]]:
    """The declared bodies of the client errors the framework raises for ``op`` (a body it
    cannot parse: 400; a credential missing: 401): (status key, the body's type), where
    ``op`` documents the status with a JSON schema, as ``"400"``, ``"4XX"`` or
    ``"default"``. 422 stays FastAPI's own (its validation errors)."""
    found: dict[str, TypeRef] = {}
    for r in op.responses:
        key = r.status.upper()
        numeric = key.isdigit() and 400 <= int(key) < 500 and key != "422"
        if r.schema is None or not is_json(r.content_type or "") or key in found:
            continue
        if numeric or key in ("4XX", "DEFAULT"):
            found[key.lower() if key == "DEFAULT" else key] = r.schema
    return sorted(found.items())
