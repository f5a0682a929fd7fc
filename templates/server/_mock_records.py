"""How the mock's records and tables become answers: the fields a request body sets, a
record projected onto an answer (without its hidden fields), the model fields of a response
type, and the undoing of a value that fails validation. Copied verbatim into each generated
package with a server, beside ``_mock_engine.py``.
"""

from __future__ import annotations

import copy
import types
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

__all__ = ["fields_of", "fields_of_type", "item_fields", "project", "revert"]

_MISSING: Any = object()


def revert(data: Any, orig: Any, loc: tuple[int | str, ...]) -> bool:
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


def fields_of(body: Any) -> dict[str, Any]:
    """The fields a request body sets, by wire name (none when it is not an object)."""
    if isinstance(body, BaseModel):
        body = body.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return copy.deepcopy(body) if isinstance(body, dict) else {}


def project(
    record: dict[str, Any],
    template: Any,
    declared: Mapping[str, Any],
    hidden: Sequence[str] = (),
) -> Any:
    """``record`` as an answer: the template's fields, with the record's values for
    those and for the other fields the answer's model declares, but the ``hidden`` ones
    (writeOnly: a password a create set is never answered)."""
    if not isinstance(template, dict) and not declared:
        return {k: copy.deepcopy(v) for k, v in record.items() if k not in hidden}
    out = copy.deepcopy(template) if isinstance(template, dict) else {}
    keep = (set(out) | set(declared)).difference(hidden)
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


def fields_of_type(tp: Any) -> dict[str, Any]:
    """Wire name -> annotation of the fields of ``tp``'s models (of a union: all)."""
    fields: dict[str, Any] = {}
    for m in _members(tp):
        if isinstance(m, type) and issubclass(m, BaseModel):
            fields |= {f.alias or k: f.annotation for k, f in m.model_fields.items()}
    return fields


def item_fields(tp: Any, items_field: str | None) -> dict[str, Any]:
    """The fields of one item of a list answer (``tp``, or its ``items_field``)."""
    tp = tp if items_field is None else fields_of_type(tp).get(items_field)
    lists = [get_args(m) for m in _members(tp) if get_origin(m) is list]
    return fields_of_type(next((args[0] for args in lists if args), None))
