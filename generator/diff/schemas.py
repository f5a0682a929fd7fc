"""Two versions of a value compared, as the IR reads them (:class:`~generator.ir.TypeRef`,
object models and their fields), recursively, in one direction: what a client sends
(``request``) or receives (``response``). The direction decides the rule: a request may
accept more, a response may not return more.

Models are compared by shape, not by name (a schema's name is not on the wire): an alias
reads as its target, an enum model as its values, and two object models field by field.
Each pair of object models is compared once per :class:`Walk` (one operation, one
direction), at the first place it is met, which also ends recursive models.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from generator.diff.change import Change
from generator.diff.rules import change
from generator.ir import Api, Field, Model, TypeRef

Direction = Literal["request", "response"]
Relation = Literal["same", "widened", "narrowed", "changed"]
_ANY = TypeRef("any")
_MAX_ALIASES = 64  # an alias of an alias of ...: read through at most this many


@dataclass
class Walk:
    """The comparison of one operation's values in one ``direction``."""

    old: Api
    new: Api
    direction: Direction
    found: list[Change]
    seen: set[tuple[str, str]] = field(default_factory=set)

    def add(self, rule: str, location: str, message: str) -> None:
        """A change by ``<direction>-<rule>``."""
        self.found.append(change(f"{self.direction}-{rule}", location, message))


@dataclass(frozen=True)
class Shape:
    """What one level of a type accepts, for the widened / narrowed / changed verdict."""

    kind: str  # object, enum, primitive, array, tuple, map, union, any, null
    primitive: str | None = None
    format: str | None = None
    values: tuple[Any, ...] = ()
    members: frozenset[str] = frozenset()
    name: str | None = None  # an object model's name


def model_of(api: Api, name: str | None) -> Model | None:
    """The model ``name`` of ``api``, None when there is none."""
    try:
        return api.model(name) if name is not None else None
    except KeyError:
        return None


def read(t: TypeRef | None, api: Api) -> tuple[TypeRef, bool]:
    """``t`` with aliases read through, and whether it (or an alias on the way) is
    nullable."""
    t = t or _ANY
    nullable = t.nullable
    for _ in range(_MAX_ALIASES):
        model = model_of(api, t.name) if t.kind == "model" else None
        if model is None or model.kind != "alias" or model.root is None:
            break
        t = model.root
        nullable = nullable or t.nullable
    return t, nullable


def shape(t: TypeRef, api: Api) -> Shape:
    """The :class:`Shape` of ``t`` (aliases already read through, see :func:`read`)."""
    if t.kind == "model":
        model = model_of(api, t.name)
        if model is not None and model.kind == "enum":
            primitive = model.root.primitive if model.root is not None else None
            return Shape("enum", primitive=primitive, values=tuple(model.enum_values))
        return Shape("object", name=t.name)
    if t.kind == "literal":
        return Shape("enum", primitive=t.primitive, values=tuple(t.literals))
    if t.kind == "primitive":
        return Shape("primitive", primitive=t.primitive, format=t.format)
    if t.kind == "array":
        return Shape("tuple" if t.prefix_items else "array")
    if t.kind == "union":
        return Shape("union", members=frozenset(_label(read(m, api)[0], api) for m in t.members))
    return Shape(t.kind)


def _label(t: TypeRef, api: Api) -> str:
    """A union member, as a name its counterpart in the other version would have."""
    found = shape(t, api)
    if found.kind == "object":
        return f"model {found.name}"
    if found.kind == "enum":
        return f"enum of {_base(found)}"
    if found.kind == "primitive":
        return f"{found.primitive} ({found.format})" if found.format else str(found.primitive)
    return t.display


def _base(s: Shape) -> str | None:
    """The primitive an enum's values are of (declared, else read off its values)."""
    if s.primitive is not None:
        return s.primitive
    kinds = {type(v) for v in s.values}
    names = {str: "string", int: "integer", float: "number", bool: "boolean"}
    return names.get(kinds.pop()) if len(kinds) == 1 else None


def relation(old: Shape, new: Shape) -> Relation:
    """Whether ``new`` accepts the same as ``old``, more, less, or something else."""
    if old == new:
        return "same"
    if new.kind == "any":
        return "widened"
    if old.kind == "any":
        return "narrowed"
    if old.kind == new.kind == "primitive":
        return _primitives(old, new)
    if old.kind == "enum" and new.kind == "primitive" and new.format is None:
        return "widened" if _base(old) == new.primitive else "changed"
    if old.kind == "primitive" and new.kind == "enum" and old.format is None:
        return "narrowed" if _base(new) == old.primitive else "changed"
    if "union" in (old.kind, new.kind):
        before, after = _members(old), _members(new)
        if before < after:
            return "widened"
        if before > after:
            return "narrowed"
    return "changed"


def _members(s: Shape) -> frozenset[str]:
    if s.kind == "union":
        return s.members
    if s.kind == "object":
        return frozenset({f"model {s.name}"})
    if s.kind == "enum":
        return frozenset({f"enum of {_base(s)}"})
    if s.kind == "primitive":
        return frozenset({f"{s.primitive} ({s.format})" if s.format else str(s.primitive)})
    return frozenset({s.kind})


def _primitives(old: Shape, new: Shape) -> Relation:
    if old.primitive == new.primitive:
        if new.format is None:
            return "widened"
        return "narrowed" if old.format is None else "changed"
    if (old.primitive, new.primitive) == ("integer", "number") and new.format is None:
        return "widened"
    if (old.primitive, new.primitive) == ("number", "integer") and old.format is None:
        return "narrowed"
    return "changed"


def compare(
    w: Walk,
    old: TypeRef | None,
    new: TypeRef | None,
    where: str,
    nulls: tuple[bool, bool] = (False, False),
) -> None:
    """Add to ``w`` what changed from ``old`` to ``new`` at ``where``, recursively
    (``nulls``: whether the place itself, a field, is nullable in each version)."""
    o, old_null = read(old, w.old)
    n, new_null = read(new, w.new)
    if (old_null or nulls[0]) != (new_null or nulls[1]):
        nullable = new_null or nulls[1]
        w.add(
            "became-nullable" if nullable else "became-not-nullable",
            where,
            "null " + ("now allowed" if nullable else "no longer allowed"),
        )
    before, after = shape(o, w.old), shape(n, w.new)
    if before.kind == after.kind == "object":
        fields(w, before.name, after.name, where)
    elif before.kind == after.kind == "enum" and _base(before) == _base(after):
        enum_values(w, before.values, after.values, where)
    elif before.kind == after.kind == "array":
        compare(w, o.items, n.items, f"{where}[]")
    elif before.kind == after.kind == "map":
        compare(w, o.values, n.values, f"{where}{{}}")
    else:
        verdict = relation(before, after)
        if verdict != "same":
            was, now = o.display, n.display
            if was == now:  # a model that changed kind: ``Shape (enum) -> Shape (object)``
                was, now = f"{was} ({before.kind})", f"{now} ({after.kind})"
            w.add(f"type-{verdict}", where, f"type {verdict}: {was} -> {now}")
        if before.kind == after.kind == "union":
            _union_members(w, o, n, where)


def _union_members(w: Walk, old: TypeRef, new: TypeRef, where: str) -> None:
    """The object models two unions share (by name), compared member by member."""
    found = {m.name: m for m in new.members if m.kind == "model" and m.name}
    for member in old.members:
        if member.kind == "model" and member.name in found:
            compare(w, member, found[member.name], f"{where}<{member.name}>")


def enum_values(w: Walk, old: tuple[Any, ...], new: tuple[Any, ...], where: str) -> None:
    """An enum's values added and removed (a request enum may grow; a response one,
    seen by exhaustive matchers, may not without a warning)."""
    before = {_json(v): v for v in old}
    after = {_json(v): v for v in new}
    for text in (t for t in before if t not in after):
        w.add("enum-value-removed", where, f"enum value {text} removed")
    for text in (t for t in after if t not in before):
        message = f"enum value {text} added"
        if w.direction == "response":
            message += " (an apismith client keeps unknown values; exhaustive matchers miss it)"
        w.add("enum-value-added", where, message)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def fields(w: Walk, old_name: str | None, new_name: str | None, where: str) -> None:
    """Two object models compared field by field (once per pair and walk)."""
    if old_name is None or new_name is None or (old_name, new_name) in w.seen:
        return
    w.seen.add((old_name, new_name))
    old_model, new_model = model_of(w.old, old_name), model_of(w.new, new_name)
    if old_model is None or new_model is None:
        return
    before = {f.name: f for f in old_model.fields if _sent(f, w.direction)}
    after = {f.name: f for f in new_model.fields if _sent(f, w.direction)}
    for name in (n for n in before if n not in after):
        w.add("property-removed", f"{where}.{name}", "property removed")
    for name, added in after.items():
        if name not in before:
            _added(w, added, f"{where}.{name}")
    for name, old_field in before.items():
        if name in after:
            _field(w, old_field, after[name], f"{where}.{name}")


def _sent(f: Field, direction: Direction) -> bool:
    """Whether a field travels in ``direction`` (a read-only one is never sent, a
    write-only one never received)."""
    return not (f.read_only if direction == "request" else f.write_only)


def _added(w: Walk, added: Field, where: str) -> None:
    if w.direction == "response":
        w.add("property-added", where, "property added")
    elif added.required:
        w.add("property-added-required", where, "new required property")
    else:
        w.add("property-added-optional", where, "new optional property")


def _field(w: Walk, old: Field, new: Field, where: str) -> None:
    if old.required != new.required:
        now = "required" if new.required else "optional"
        w.add(f"property-became-{now}", where, f"property became {now}")
    compare(w, old.type, new.type, where, (old.nullable, new.nullable))
