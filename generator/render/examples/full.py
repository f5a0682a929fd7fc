"""Full instances: every field present, arrays of 1-3 items, plausible scalars, the spec's
own examples where they conform; deterministic for a seed. Optional ``error``/``errors``
fields are null (when nullable) or left out: these are answers of successful calls.

A value is a pure function of (api, seed, its type, its *salt*): the salt tells the
instances of one type apart (array items, stream chunks) and, with the value's place
(``Model.field[0]``), seeds every free choice through :func:`scalars.token`. Model values
are memoized under (name, cut, salt), so a model's value never depends on where it is
built.

Cycles: models that reach each other (a strongly connected component of the reference
graph) nest one level. Inside model ``M``, a field whose type leads back into ``M``'s
component is built in *cut* mode, where the component's models omit such fields when
optional (and build them, cut, when required; a model that requires itself is a
:class:`MockError`, as in minimal mode). So ``Tree`` is ``{"children": [{...}]}`` with the
inner tree's ``children`` left out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from generator.ir import Model, TypeRef, snake_case
from generator.render.examples import scalars
from generator.render.examples.common import MockError, minimal_number, tag_of
from generator.render.examples.conform import conforms
from generator.render.examples.graph import cyclic_components, referenced

# Optional fields that a successful answer leaves empty: clients read a present error as a
# failure (llmengine's stream chunks, OpenAI-style SDKs), so they are null or absent.
NO_ERRORS = frozenset({"error", "errors"})

ITEM_ATTEMPTS = 3  # extra items tried when some repeat an earlier one
_NOTHING = object()


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
    """Full instances of ``models``' types for ``seed``."""

    def __init__(self, models: Mapping[str, Model], seed: int) -> None:
        self.models = models
        self.seed = seed
        self.components = cyclic_components(models)
        self._cache: dict[tuple[str, bool, int], Any] = {}
        self._active: set[tuple[str, bool]] = set()
        self._names: dict[int, tuple[TypeRef, frozenset[str]]] = {}

    def value(self, t: TypeRef, salt: int = 0) -> Any:
        return self._type(t, _Ctx(None, salt, "$", "string"))

    # --- types -----------------------------------------------------------------------

    def _type(self, t: TypeRef, ctx: _Ctx) -> Any:
        kind = t.kind
        if kind == "model":
            return self._model(t.name or "", ctx)
        if kind == "primitive":
            return self._primitive(t, ctx)
        if kind == "literal":
            return t.literals[0] if t.literals else None
        if kind == "array":
            return self._array(t, ctx)
        if kind == "map":
            if t.values is None:
                return {}
            try:
                return {"key": self._type(t.values, ctx.at("{}"))}
            except MockError:
                return {}
        if kind == "union":
            return self._union(t, ctx)
        if kind == "null":
            return None
        return {}  # any

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

    def _array(self, t: TypeRef, ctx: _Ctx) -> list[Any]:
        if t.prefix_items:
            return [self._type(m, ctx.at(f"({i})")) for i, m in enumerate(t.prefix_items)]
        low = int(t.constraints.get("minItems", 0) or 0)
        cap = t.constraints.get("maxItems")
        count = max(low, 1 + self._token(ctx, "#") % 3)
        count = count if cap is None else min(count, int(cap))
        items: list[Any] = []
        seen: set[str] = set()
        for i in range(count + ITEM_ATTEMPTS):
            if len(items) == count:
                break
            try:
                item = self._item(t.items, ctx, i)
            except MockError:
                if low == 0:
                    return []
                raise
            key = json.dumps(item, sort_keys=True, default=repr)
            if key not in seen:
                seen.add(key)
                items.append(item)
        while items and len(items) < min(low, count):
            items.append(items[len(items) % len(seen)])  # no distinct items left: repeat
        return items

    def _item(self, items: TypeRef | None, ctx: _Ctx, i: int) -> Any:
        salt = ctx.salt if i == 0 else scalars.token(ctx.salt, i)
        here = ctx.at(f"[{i}]", salt)
        if items is None:
            return scalars.string(None, {}, ctx.hint, self._token(here), self.seed)
        return self._type(items, here)

    def _union(self, t: TypeRef, ctx: _Ctx) -> Any:
        errors: list[str] = []
        if t.discriminator is not None:
            prop = t.discriminator.property_name
            for tag, name in t.discriminator.mapping.items():
                try:
                    found = self._model(name, ctx)
                except MockError as exc:
                    errors.append(str(exc))
                    continue
                if isinstance(found, dict):
                    rest = {k: v for k, v in found.items() if k != prop}
                    return {prop: tag_of(self.models, name, prop, tag), **rest}
        for member in t.members:
            try:
                return self._type(member, ctx)
            except MockError as exc:  # try the next member
                errors.append(str(exc))
        if t.nullable:
            return None
        raise MockError("; ".join(errors) or "empty union")

    # --- models ----------------------------------------------------------------------

    def _model(self, name: str, ctx: _Ctx) -> Any:
        model = self.models.get(name)
        if model is None:
            return {}
        cut = ctx.cut is not None and name in ctx.cut
        key = (name, cut, ctx.salt)
        if key in self._cache:
            return self._cache[key]
        if (name, cut) in self._active:
            raise MockError(f"{name} requires itself")
        self._active.add((name, cut))
        try:
            result = self._build(model, cut, ctx.salt)
        finally:
            self._active.discard((name, cut))
        self._cache[key] = result
        return result

    def _example(self, examples: tuple[Any, ...], t: TypeRef, salt: int) -> Any:
        """One of the spec's ``examples`` that conforms to ``t`` (by salt), or _NOTHING."""
        if not examples:
            return _NOTHING
        fitting = [e for e in examples if conforms(e, t, self.models)]
        return fitting[salt % len(fitting)] if fitting else _NOTHING

    def _inner(self, t: TypeRef, component: frozenset[str] | None) -> bool:
        """Whether ``t`` leads back into ``component`` (a cycle through it)."""
        if component is None:
            return False
        known = self._names.get(id(t))
        if known is None:  # keyed by id, the type kept alive with it (TypeRefs are unhashable)
            known = self._names[id(t)] = (t, referenced(t))
        return not component.isdisjoint(known[1])

    def _build(self, model: Model, cut: bool, salt: int) -> Any:
        example = self._example(model.examples, TypeRef("model", name=model.name), salt)
        if example is not _NOTHING:
            return example
        if model.kind == "object":
            return self._object(model, cut, salt)
        if model.kind == "enum":
            return model.enum_values[0] if model.enum_values else None
        if model.root is None:
            return {}
        root = model.root
        if model.discriminator is not None and root.discriminator is None:
            root = replace(root, discriminator=model.discriminator)
        component = self.components.get(model.name)
        inner = component if self._inner(root, component) else None
        return self._type(
            root, _Ctx(inner, salt, model.name, scalars.hint_of(snake_case(model.name)))
        )

    def _object(self, model: Model, cut: bool, salt: int) -> dict[str, Any]:
        component = self.components.get(model.name)
        out: dict[str, Any] = {}
        for f in model.fields:
            inner = self._inner(f.type, component)
            if inner and cut and not f.required:
                continue  # the nested instance of a cycle stops here
            if not f.required and f.name in NO_ERRORS:
                if f.nullable or f.type.nullable:
                    out[f.name] = None  # present, but a success reports no error
                continue
            ctx = _Ctx(
                component if inner else None,
                salt,
                f"{model.name}.{f.name}",
                scalars.hint_of(f.name),
            )
            try:
                example = self._example(f.examples, f.type, salt)
                out[f.name] = example if example is not _NOTHING else self._type(f.type, ctx)
            except MockError:
                if f.required and not f.nullable:
                    raise
                if f.required:
                    out[f.name] = None
        return out
