"""Full instances: every field present, arrays of 1-3 items, plausible scalars, the spec's
own examples where they conform; deterministic for a seed. Optional ``error``/``errors``
fields are null (when nullable) or left out: these are answers of successful calls.

A value is a pure function of (api, seed, its type, its *salt*): the salt tells the
instances of one type apart (array items, stream chunks) and, with the value's place
(``Model.field[0]``), seeds every free choice through :func:`scalars.token`. Model values
are memoized under (name, cut, salt), so a model's value never depends on where it is
built, unless the budget cuts it down there (below).

Cycles: models that reach each other (a strongly connected component of the reference
graph) nest one level. Inside model ``M``, a field whose type leads back into ``M``'s
component is built in *cut* mode, where the component's models omit such fields when
optional (and build them, cut, when required; a model that requires itself is a
:class:`MockError`, as in minimal mode). So ``Tree`` is ``{"children": [{...}]}`` with the
inner tree's ``children`` left out.

Budget (:mod:`generator.render.examples.budget`): a value has at most ``budget.nodes`` JSON
nodes and ``budget.depth`` levels. Members are added in order while they fit the room
left: an object's scalar fields, then its other fields, each within half of the object's
room (the value keeps the model's order), an array's items up to its 1-3; a member that
does not fit whole is built again within the room left, so past the budget optional
fields are left out, arrays have their ``minItems`` and maps no entry. What the schema
requires is built whatever the budget (required fields, ``minItems``), as small as it can
be. A model's value within the full budget is memoized as before; one cut down to the
room of its place is memoized under that room, so a value depends on its place only where
the budget bites.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from generator.ir import Field, Model, TypeRef, snake_case
from generator.render.examples import scalars
from generator.render.examples.budget import Budget, Sized, leaf, measure
from generator.render.examples.common import MockError, minimal_number, tag_of
from generator.render.examples.conform import conforms
from generator.render.examples.graph import cyclic_components, referenced

# Optional fields that a successful answer leaves empty: clients read a present error as a
# failure (llmengine's stream chunks, OpenAI-style SDKs), so they are null or absent.
NO_ERRORS = frozenset({"error", "errors"})

ITEM_ATTEMPTS = 3  # extra items tried when some repeat an earlier one


class _Ctx(NamedTuple):
    """Where a value is built: the component in cut mode (or None), the salt, the place
    (seeding its choices) and the property name its strings start with."""

    cut: frozenset[str] | None
    salt: int
    path: str
    hint: str

    def at(self, suffix: str, salt: int | None = None) -> _Ctx:
        return self._replace(path=self.path + suffix, salt=self.salt if salt is None else salt)


class FullBuilder:
    """Full instances of ``models``' types for ``seed``, each within ``budget``."""

    def __init__(self, models: Mapping[str, Model], seed: int, budget: Budget) -> None:
        self.models = models
        self.seed = seed
        self.budget = budget
        self.components = cyclic_components(models)
        self._cache: dict[tuple[str, bool, int], Sized] = {}
        self._within: dict[tuple[str, bool, int, Budget], Sized] = {}
        self._active: set[tuple[str, bool]] = set()
        self._names: dict[int, tuple[TypeRef, frozenset[str]]] = {}

    def value(self, t: TypeRef, salt: int = 0) -> Any:
        return self._type(t, _Ctx(None, salt, "$", "string"), self.budget).value

    # --- types -----------------------------------------------------------------------

    def _type(self, t: TypeRef, ctx: _Ctx, room: Budget) -> Sized:
        kind = t.kind
        if kind == "model":
            return self._model(t.name or "", ctx, room)
        if kind == "primitive":
            return leaf(self._primitive(t, ctx))
        if kind == "literal":
            return leaf(t.literals[0] if t.literals else None)
        if kind == "array":
            return self._array(t, ctx, room)
        if kind == "map":
            return self._map(t, ctx, room)
        if kind == "union":
            return self._union(t, ctx, room)
        if kind == "null":
            return leaf(None)
        return leaf({})  # any

    def _token(self, ctx: _Ctx, extra: str = "") -> int:
        return scalars.token(self.seed, ctx.salt, ctx.path + extra)

    def _primitive(self, t: TypeRef, ctx: _Ctx) -> Any:
        c, n = t.constraints, self._token(ctx)
        if t.primitive == "boolean":
            return n % 2 == 1
        if t.primitive in ("integer", "number"):
            integer = t.primitive == "integer"
            found = scalars.integer(c, n) if integer else scalars.number(c, n)
            return found if found is not None else minimal_number(c, integer=integer)
        if t.primitive == "string":
            return scalars.string(t.format, c, ctx.hint, n, self.seed)
        return {}

    def _map(self, t: TypeRef, ctx: _Ctx, room: Budget) -> Sized:
        empty = Sized({}, 1, 1)
        here = room.inside(1)
        if t.values is None or here.empty:
            return empty
        try:
            entry = self._type(t.values, ctx.at("{}"), here)
        except MockError:
            return empty
        if not entry.fits(here):
            return empty  # a map needs no entry
        return Sized({"key": entry.value}, 1 + entry.nodes, 1 + entry.depth)

    def _array(self, t: TypeRef, ctx: _Ctx, room: Budget) -> Sized:
        if t.prefix_items:
            out = _Members()
            for i, m in enumerate(t.prefix_items):
                out.append(self._type(m, ctx.at(f"({i})"), room.inside(out.nodes)))
            return out.sized()
        low = int(t.constraints.get("minItems", 0) or 0)
        cap = t.constraints.get("maxItems")
        count = max(low, 1 + self._token(ctx, "#") % 3)
        count = count if cap is None else min(count, int(cap))
        items = _Members()
        kept: list[Sized] = []
        seen: set[str] = set()
        for i in range(count + ITEM_ATTEMPTS):
            if len(kept) == count:
                break
            here = room.inside(items.nodes)
            required = len(kept) < low
            if not required and here.empty:
                break
            try:
                item = self._item(t.items, ctx, i, here)
            except MockError:
                if low == 0:
                    return Sized([], 1, 1)
                raise
            if not required and not item.fits(here):
                break  # past the budget: no more items than minItems
            key = json.dumps(item.value, sort_keys=True, default=repr)
            if key not in seen:
                seen.add(key)
                kept.append(item)
                items.append(item)
        while kept and len(kept) < min(low, count):
            item = kept[len(kept) % len(seen)]  # no distinct items left: repeat
            kept.append(item)
            items.append(item)
        return items.sized()

    def _item(self, items: TypeRef | None, ctx: _Ctx, i: int, room: Budget) -> Sized:
        salt = ctx.salt if i == 0 else scalars.token(ctx.salt, i)
        here = ctx.at(f"[{i}]", salt)
        if items is None:
            return leaf(scalars.string(None, {}, ctx.hint, self._token(here), self.seed))
        return self._type(items, here, room)

    def _union(self, t: TypeRef, ctx: _Ctx, room: Budget) -> Sized:
        errors: list[str] = []
        if t.discriminator is not None:
            prop = t.discriminator.property_name
            for tag, name in t.discriminator.mapping.items():
                try:
                    found = self._model(name, ctx, room)
                except MockError as exc:
                    errors.append(str(exc))
                    continue
                if isinstance(found.value, dict):
                    rest = {k: v for k, v in found.value.items() if k != prop}
                    value = {prop: tag_of(self.models, name, prop, tag), **rest}
                    extra = 0 if prop in found.value else 1
                    return Sized(value, found.nodes + extra, max(found.depth, 1))
        for member in t.members:
            try:
                return self._type(member, ctx, room)
            except MockError as exc:  # try the next member
                errors.append(str(exc))
        if t.nullable:
            return leaf(None)
        raise MockError("; ".join(errors) or "empty union")

    # --- models ----------------------------------------------------------------------

    def _model(self, name: str, ctx: _Ctx, room: Budget) -> Sized:
        model = self.models.get(name)
        if model is None:
            return leaf({})
        cut = ctx.cut is not None and name in ctx.cut
        key = (name, cut, ctx.salt)
        whole = self._cache.get(key)
        if whole is None:
            whole = self._cache[key] = self._guarded(model, cut, ctx.salt, self.budget)
        if whole.fits(room) or Sized(None, *self.budget).fits(room):
            return whole  # (a value the schema makes larger than the budget: as it is)
        # cut down to the room of this place (memoized per room: what fits no scalar is
        # the smallest value, the same for every such room)
        room = Budget(max(room.nodes, 0), max(room.depth, -1))
        if room.nodes <= 1 or room.depth <= 0:
            room = Budget(0, -1)
        within = (name, cut, ctx.salt, room)
        found = self._within.get(within)
        if found is None:
            found = self._within[within] = self._guarded(model, cut, ctx.salt, room)
        return found

    def _guarded(self, model: Model, cut: bool, salt: int, room: Budget) -> Sized:
        """``_build``; a model that requires itself is a :class:`MockError`."""
        if (model.name, cut) in self._active:
            raise MockError(f"{model.name} requires itself")
        self._active.add((model.name, cut))
        try:
            return self._build(model, cut, salt, room)
        finally:
            self._active.discard((model.name, cut))

    def _example(
        self, examples: tuple[Any, ...], t: TypeRef, salt: int, room: Budget
    ) -> Sized | None:
        """One of the spec's ``examples`` that conforms to ``t`` (by salt), if it fits
        ``room``, else None."""
        if not examples:
            return None
        fitting = [e for e in examples if conforms(e, t, self.models)]
        if not fitting:
            return None
        found = measure(fitting[salt % len(fitting)])
        return found if found.fits(room) else None

    def _inner(self, t: TypeRef, component: frozenset[str] | None) -> bool:
        """Whether ``t`` leads back into ``component`` (a cycle through it)."""
        if component is None:
            return False
        known = self._names.get(id(t))
        if known is None:  # keyed by id, the type kept alive with it (TypeRefs are unhashable)
            known = self._names[id(t)] = (t, referenced(t))
        return not component.isdisjoint(known[1])

    def _build(self, model: Model, cut: bool, salt: int, room: Budget) -> Sized:
        example = self._example(model.examples, TypeRef("model", name=model.name), salt, room)
        if example is not None:
            return example
        if model.kind == "object":
            return self._object(model, cut, salt, room)
        if model.kind == "enum":
            return leaf(model.enum_values[0] if model.enum_values else None)
        if model.root is None:
            return leaf({})
        root = model.root
        if model.discriminator is not None and root.discriminator is None:
            root = replace(root, discriminator=model.discriminator)
        component = self.components.get(model.name)
        inner = component if self._inner(root, component) else None
        return self._type(
            root, _Ctx(inner, salt, model.name, scalars.hint_of(snake_case(model.name))), room
        )

    def _object(self, model: Model, cut: bool, salt: int, room: Budget) -> Sized:
        """The fields in the model's order; scalars are added first, then the others, each
        within half of the object's room (so that one field cannot take it all)."""
        component = self.components.get(model.name)
        out = _Members()
        chosen: dict[str, Sized] = {}
        wide: list[tuple[Field, bool]] = []
        for f in model.fields:
            inner = self._inner(f.type, component)
            if inner and cut and not f.required:
                continue  # the nested instance of a cycle stops here
            if not f.required and f.name in NO_ERRORS:
                if (f.nullable or f.type.nullable) and not room.inside(out.nodes).empty:
                    chosen[f.name] = out.add(leaf(None))  # a success reports no error
                continue
            if not self._scalar(f.type):
                wide.append((f, inner))
                continue
            self._field(model, f, inner, salt, room.inside(out.nodes), component, out, chosen)
        share = max(room.nodes // 2, 1)
        for f, inner in wide:
            here = room.inside(out.nodes)
            here = Budget(min(here.nodes, share), here.depth)
            self._field(model, f, inner, salt, here, component, out, chosen)
        return Sized(
            {f.name: chosen[f.name].value for f in model.fields if f.name in chosen},
            out.nodes,
            out.depth,
        )

    def _field(
        self,
        model: Model,
        f: Field,
        inner: bool,
        salt: int,
        here: Budget,
        component: frozenset[str] | None,
        out: _Members,
        chosen: dict[str, Sized],
    ) -> None:
        """Field ``f``'s value, in ``chosen`` if it is required or fits ``here``."""
        if not f.required and here.empty:
            return  # past the budget: optional fields are left out
        ctx = _Ctx(
            component if inner else None, salt, f"{model.name}.{f.name}", scalars.hint_of(f.name)
        )
        try:
            example = self._example(f.examples, f.type, salt, here)
            found = example if example is not None else self._type(f.type, ctx, here)
        except MockError:
            if f.required and not f.nullable:
                raise
            if f.required:
                chosen[f.name] = out.add(leaf(None))
            return
        if f.required or found.fits(here):
            chosen[f.name] = out.add(found)

    def _scalar(self, t: TypeRef, hops: int = 0) -> bool:
        """Whether every value of ``t`` is a scalar (through aliases and unions)."""
        if t.kind in ("primitive", "literal", "null"):
            return t.kind != "primitive" or t.primitive in (
                "boolean",
                "integer",
                "number",
                "string",
            )
        if t.kind == "union":
            return bool(t.members) and all(self._scalar(m, hops) for m in t.members)
        if t.kind != "model" or hops > 8:
            return False
        model = self.models.get(t.name or "")
        if model is None or model.kind == "object":
            return False
        return model.kind == "enum" or (
            model.root is not None and self._scalar(model.root, hops + 1)
        )


class _Members:
    """A container being filled: its members (an array's) and its size so far."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self.nodes = 1
        self.depth = 1

    def add(self, member: Sized) -> Sized:
        """Count ``member`` in (an object keeps its fields itself) and return it."""
        self.nodes += member.nodes
        self.depth = max(self.depth, member.depth + 1)
        return member

    def append(self, member: Sized) -> None:
        self.values.append(self.add(member).value)

    def sized(self) -> Sized:
        return Sized(self.values, self.nodes, self.depth)
