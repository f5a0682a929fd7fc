"""Full instances: every field present, arrays of 1-3 items, plausible scalars, the spec's
own examples where they conform; deterministic for a seed. Optional ``error``/``errors``
fields are null (when nullable) or left out: these are answers of successful calls; so are
optional ``writeOnly`` fields (a password is never answered), and examples that show one.

A value is a pure function of (api, seed, its type, its *salt*): the salt tells instances
of one type apart (array items, stream chunks) and, with the value's place (``M.f[0]``),
seeds every free choice through :func:`scalars.token`. Model values are memoized (below),
so a model's value never depends on where it is built, unless the budget cuts it there.

Cycles: models that reach each other (a strongly connected component of references) nest
one level. Inside model ``M``, a field whose type leads back into ``M``'s component is
built in *cut* mode, where the component's models omit such fields when optional (and
build them, cut, when required; a model that requires itself is a :class:`MockError`, as
in minimal mode). So ``Tree`` is ``{"children": [{...}]}`` with the
inner tree's ``children`` left out.

Budget (:mod:`generator.render.examples.budget`): a value has at most ``budget.nodes`` JSON
nodes and ``budget.depth`` levels. Members are added in order while they fit the room
left: an object's scalar fields, then its other fields, each within half of the object's
room (the value keeps the model's order), an array's items up to its 1-3; a member that
does not fit whole is built again within the room left, so past the budget optional
fields are left out, arrays have their ``minItems`` and maps their ``minProperties`` (or no
entry). What the schema requires counts against the budget too: an object keeps room for
its required fields still to come (their smallest values), so that nothing crowds them
out, and where even the smallest value does not fit (more nodes than the budget, or
deeper), or a cap forbids it (``minLength`` over ``pattern_values.MAX_TEXT``), the value
is an :class:`OverBudget` error. It is found as soon as a running count passes the budget,
so building never costs much more than the budget itself.

A model's value is memoized under (name, cut, salt) and the depth left (the value of a
greater depth serves where it is no deeper: depth only ever cuts), so the depth bounds the
recursion too; one cut down to the room of its place is memoized under that room, so a
value depends on its place only where the budget bites. Errors of the budget are memoized
as such.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from generator.ir import Field, Model, TypeRef, snake_case
from generator.render.examples import scalars
from generator.render.examples.budget import (
    MAX_NESTING,
    Budget,
    Members,
    Sized,
    check_count,
    leaf,
    measure,
    over_budget,
    text_weight,
)
from generator.render.examples.common import (
    MockError,
    OverBudget,
    choices_of,
    entry_keys,
    map_size,
    minimal_number,
    tag_of,
)
from generator.render.examples.conform import conforms, exclusive, set_apart
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
        self._whole: dict[tuple[str, bool, int], list[tuple[int, Sized | OverBudget]]] = {}
        self._within: dict[tuple[str, bool, int, Budget], Sized | OverBudget] = {}
        self._active: set[tuple[str, bool]] = set()
        self._names: dict[int, tuple[TypeRef, frozenset[str]]] = {}
        self._fitting: dict[int, tuple[tuple[Any, ...], list[Sized]]] = {}

    def value(self, t: TypeRef, salt: int = 0) -> Any:
        """A full instance of ``t``; MockError (:class:`OverBudget`: not within budget)."""
        found = self._type(t, _Ctx(None, salt, "$", "string"), self.budget)
        if not found.fits(self.budget):
            raise over_budget(t.name or "$", self.budget)
        return found.value

    # --- types -----------------------------------------------------------------------

    def _type(self, t: TypeRef, ctx: _Ctx, room: Budget) -> Sized:
        kind = t.kind
        if kind == "model" and t.nullable:
            try:
                return self._model(t.name or "", ctx, room)
            except OverBudget:
                return leaf(None)  # (what the budget cannot hold may be null)
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
            if found is not None:
                return found
            return minimal_number(c, integer=integer, where=ctx.path)
        if t.primitive == "string":
            return scalars.string(t.format, c, ctx.hint, n, self.seed, ctx.path)
        return {}

    def _container(self, room: Budget, where: str) -> None:
        """:class:`OverBudget` where a container cannot fit: the budget's levels are used."""
        if room.depth < 1:
            raise over_budget(where, self.budget, "deeper")

    def _map(self, t: TypeRef, ctx: _Ctx, room: Budget) -> Sized:
        """``minProperties`` entries (``key``, ``key-2``...), or one if it fits, or none."""
        self._container(room, ctx.path)
        low, high = map_size(t.constraints)
        if t.values is None and low == 0:
            return Sized({}, 1, 1)
        check_count(low, "minProperties", self.budget, ctx.path)
        count = max(low, 1) if high is None else min(max(low, 1), high)
        entries = Members(self.budget, ctx.path)
        out: dict[str, Any] = {}
        for i, key in enumerate(entry_keys(count)):
            here = room.inside(entries.nodes)
            required = i < low
            if not required and here.empty:
                break
            try:
                entry = self._member(t.values, ctx.at("{}" if i == 0 else f"{{{i}}}"), here)
            except MockError:
                if required:
                    raise
                break
            if not required and not entry.fits(here):
                break  # a map needs no more entries than minProperties
            out[key] = entries.add(entry, key).value
        return Sized(out, entries.nodes, entries.depth)

    def _array(self, t: TypeRef, ctx: _Ctx, room: Budget) -> Sized:
        self._container(room, ctx.path)
        if t.prefix_items:
            out = Members(self.budget, ctx.path)
            for i, m in enumerate(t.prefix_items):
                out.append(self._type(m, ctx.at(f"({i})"), room.inside(out.nodes)))
            return out.sized()
        low = int(t.constraints.get("minItems", 0) or 0)
        cap = t.constraints.get("maxItems")
        check_count(low, "minItems", self.budget, ctx.path)
        count = max(low, 1 + self._token(ctx, "#") % 3)
        count = count if cap is None else min(count, int(cap))
        items = Members(self.budget, ctx.path)
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
            except OverBudget:
                if required:
                    raise
                break  # past the budget: no more items than minItems
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
        self._repeat(t, ctx, kept, items, min(low, count))
        return items.sized()

    def _repeat(self, t: TypeRef, ctx: _Ctx, kept: list[Sized], items: Members, low: int) -> None:
        """Items repeated up to ``low`` when no distinct ones are left; where ``uniqueItems``
        forbids it, the other values of a finite item type (an enum), else MockError."""
        if kept and len(kept) < low and t.constraints.get("uniqueItems") is True:
            taken = [k.value for k in kept]
            others = [v for v in choices_of(self.models, t.items) if v not in taken]
            if len(kept) + len(others) < low:
                raise MockError(f"{ctx.path}: too few distinct items for minItems {low}")
            for value in others[: low - len(kept)]:
                items.append(leaf(value))
            return
        distinct = len(kept)
        while kept and len(kept) < low:
            item = kept[len(kept) % distinct]  # no distinct items left: repeat
            kept.append(item)
            items.append(item)

    def _item(self, items: TypeRef | None, ctx: _Ctx, i: int, room: Budget) -> Sized:
        salt = ctx.salt if i == 0 else scalars.token(ctx.salt, i)
        return self._member(items, ctx.at(f"[{i}]", salt), room)

    def _member(self, t: TypeRef | None, ctx: _Ctx, room: Budget) -> Sized:
        """A member of type ``t``: an item, a map's entry; a string where the schema says
        nothing of it."""
        if t is None:
            return leaf(scalars.string(None, {}, ctx.hint, self._token(ctx), self.seed))
        return self._type(t, ctx, room)

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
        first: Sized | None = None  # of a ``oneOf``: the first value of one member alone
        for member in t.members:
            try:
                found = self._type(member, ctx, room)
            except MockError as exc:  # try the next member
                errors.append(str(exc))
                continue
            if not t.one_of or (found.fits(room) and exclusive(found.value, t, self.models)):
                return found
            first = found if first is None else first
        if first is not None and (apart := set_apart(first.value, t, self.models)) is not None:
            return Sized(apart, first.nodes + 1, first.depth)  # none is alone: set apart
        if first is not None:
            return first
        if t.nullable:
            return leaf(None)
        raise MockError("; ".join(errors) or "empty union")

    # --- models ----------------------------------------------------------------------

    def _model(self, name: str, ctx: _Ctx, room: Budget) -> Sized:
        model = self.models.get(name)
        if model is None:
            return leaf({})
        cut = ctx.cut is not None and name in ctx.cut
        whole = self._whole_at(model, cut, ctx.salt, room.depth)
        if whole.fits(room):
            return whole
        # cut down to the room of this place (memoized per room: what fits no scalar is
        # the smallest value, the same for every such room of its depth; where no container
        # fits, the same for every such room)
        room = Budget(room.nodes if room.nodes > 1 else 0, room.depth)
        if room.depth <= 0:
            room = Budget(0, -1)
        within = (name, cut, ctx.salt, room)
        found = self._within.get(within)
        if found is None:
            found = self._within[within] = self._guarded(model, cut, ctx.salt, room)
        return _outcome(found)

    def _whole_at(self, model: Model, cut: bool, salt: int, depth: int) -> Sized:
        """The model's value within the budget's nodes and ``depth`` levels. One built for
        a greater depth serves where it is no deeper (or failed: less room fails too):
        depth only ever cuts a value, so it is the same."""
        depth = min(depth, self.budget.depth)
        built = self._whole.setdefault((model.name, cut, salt), [])
        for at, found in built:
            if at == depth or (
                at > depth and (isinstance(found, MockError) or found.depth <= depth)
            ):
                return _outcome(found)
        found = self._guarded(model, cut, salt, Budget(self.budget.nodes, depth))
        built.append((depth, found))
        return _outcome(found)

    def _guarded(self, model: Model, cut: bool, salt: int, room: Budget) -> Sized | OverBudget:
        """``_build``, or the :class:`OverBudget` it raised (to be memoized); a model that
        requires itself is a :class:`MockError`, and so is a chain of models nested more
        than :data:`MAX_NESTING` deep."""
        if (model.name, cut) in self._active:
            raise MockError(f"{model.name} requires itself")
        if len(self._active) >= MAX_NESTING:
            raise OverBudget(f"{model.name}: models nest more than {MAX_NESTING} deep")
        self._active.add((model.name, cut))
        try:
            return self._build(model, cut, salt, room)
        except OverBudget as exc:
            return exc
        finally:
            self._active.discard((model.name, cut))

    def _example(
        self, examples: tuple[Any, ...], t: TypeRef, salt: int, room: Budget
    ) -> Sized | None:
        """One of the spec's ``examples`` that conforms to ``t`` (by salt), if it fits
        ``room``, else None."""
        if not examples:
            return None
        known = self._fitting.get(id(examples))
        if known is None:  # keyed by id, kept alive with it (a tuple belongs to one schema)
            fitting = [measure(e) for e in examples if conforms(e, t, self.models, answer=True)]
            known = self._fitting[id(examples)] = (examples, fitting)
        fitting = known[1]
        if not fitting:
            return None
        found = fitting[salt % len(fitting)]
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
        within half of the object's room (so that one field cannot take it all). Room is
        kept for the required fields still to come (their smallest values), so that no
        field crowds out what the schema requires."""
        self._container(room, model.name)
        component = self.components.get(model.name)
        order = self._fill_order(model, cut, component)
        ctxs = {f.name: self._field_ctx(model, f, inner, salt, component) for f, inner in order}
        floors = {
            f.name: self._floor(f, ctxs[f.name], room.depth - 1)
            for f, _ in order[1:]  # (the first field needs no room kept for itself)
            if f.required
        }
        reserved = sum(floors.values())
        share = max(room.nodes // 2, 1)
        out = Members(self.budget, model.name)
        chosen: dict[str, Sized] = {}
        for f, _ in order:
            reserved -= floors.get(f.name, 0)
            here = room.inside(out.nodes + reserved)
            if not self._scalar(f.type):
                here = Budget(min(here.nodes, share), here.depth)
            if not f.required and f.name in NO_ERRORS:
                if not here.empty:
                    chosen[f.name] = out.add(leaf(None), f.name)  # a success reports no error
                continue
            self._field(f, ctxs[f.name], salt, here, out, chosen)
        return Sized(
            {f.name: chosen[f.name].value for f in model.fields if f.name in chosen},
            out.nodes,
            out.depth,
        )

    def _fill_order(
        self, model: Model, cut: bool, component: frozenset[str] | None
    ) -> list[tuple[Field, bool]]:
        """(field, whether it leads back into the cycle) in the order fields are filled:
        scalars (and null ``error`` fields) first, then the others, each in the model's
        order; a cycle's nested instance leaves out what leads back into it."""
        first: list[tuple[Field, bool]] = []
        wide: list[tuple[Field, bool]] = []
        for f in model.fields:
            inner = self._inner(f.type, component)
            if ((inner and cut) or f.write_only) and not f.required:
                continue  # the nested instance of a cycle stops here; answers hide writeOnly
            if not f.required and f.name in NO_ERRORS:
                if f.nullable or f.type.nullable:
                    first.append((f, inner))
                continue
            (first if self._scalar(f.type) else wide).append((f, inner))
        return first + wide

    def _field_ctx(
        self, model: Model, f: Field, inner: bool, salt: int, component: frozenset[str] | None
    ) -> _Ctx:
        return _Ctx(
            component if inner else None, salt, f"{model.name}.{f.name}", scalars.hint_of(f.name)
        )

    def _floor(self, f: Field, ctx: _Ctx, depth: int) -> int:
        """The nodes of required field ``f``'s smallest value, its key included: the room
        kept for it (one node where it has none: a null, or the error its build raises)."""
        try:
            found = self._type(f.type, ctx, Budget(0, depth))
        except MockError:
            found = leaf(None)
        return found.nodes + text_weight(f.name)

    def _field(
        self,
        f: Field,
        ctx: _Ctx,
        salt: int,
        here: Budget,
        out: Members,
        chosen: dict[str, Sized],
    ) -> None:
        """Field ``f``'s value, in ``chosen`` if it is required or fits ``here``."""
        if not f.required and here.empty:
            return  # past the budget: optional fields are left out
        try:
            example = self._example(f.examples, f.type, salt, here)
            found = example if example is not None else self._type(f.type, ctx, here)
        except MockError:
            if f.required and not f.nullable:
                raise
            if f.required:
                chosen[f.name] = out.add(leaf(None), f.name)
            return
        if f.required or found.fits(here):
            chosen[f.name] = out.add(found, f.name)

    def _scalar(self, t: TypeRef, hops: int = 0) -> bool:
        """Whether every value of ``t`` is a scalar (through aliases and unions)."""
        if t.kind in ("literal", "null"):
            return True
        if t.kind == "primitive":
            return t.primitive in ("boolean", "integer", "number", "string")
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


def _outcome(found: Sized | OverBudget) -> Sized:
    """A memoized value, or its error raised again (a fresh one: no traceback piles up)."""
    if isinstance(found, OverBudget):
        raise OverBudget(*found.args)
    return found
