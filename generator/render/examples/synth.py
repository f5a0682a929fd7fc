"""The :class:`Synthesizer`: valid JSON instances of IR types, minimal or full.

A minimal instance honours required fields, enums, consts, numeric and length
constraints, patterns and the common formats; optional fields are left out, arrays have
``minItems`` items and maps ``minProperties`` entries, so it is as small as the schema
allows (the docs' request samples). It is held to the same budget as a full one
(:mod:`generator.render.examples.budget`): a model's instance that is larger, or deeper,
is an :class:`OverBudget` error. The full mode (:mod:`generator.render.examples.full`)
fills everything in.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from generator.ir import Api, Field, Model, TypeRef
from generator.render.examples.budget import (
    MAX_NESTING,
    Budget,
    budget_for,
    check_count,
    check_fits,
)
from generator.render.examples.common import (
    MockError,
    OverBudget,
    entry_keys,
    map_size,
    minimal_number,
    minimal_string,
    tag_of,
)
from generator.render.examples.conform import conforms, exclusive, set_apart
from generator.render.examples.full import FullBuilder


class Synthesizer:
    """Build instances of ``api``'s types: minimal ones (memoized per model name, cycles
    end at optional fields), or with ``full`` every field, arrays of 1-3 items and
    plausible values drawn from ``seed`` (see :mod:`generator.render.examples.full`), each
    within ``budget`` (default: the API's, see :func:`budget_for`)."""

    def __init__(
        self, api: Api, *, full: bool = False, seed: int = 0, budget: Budget | None = None
    ) -> None:
        self.models = {m.name: m for m in api.models}
        self.full = full
        self.seed = seed
        self.budget = budget if budget is not None else budget_for(len(api.operations))
        self._cache: dict[str, Any] = {}
        self._active: set[str] = set()
        self._path: list[str] = []  # the models and fields being built, outermost first
        self._checked: dict[str, OverBudget | None] = {}  # model -> over the budget?
        self._full: FullBuilder | None = None

    def _builder(self) -> FullBuilder:
        if self._full is None:
            self._full = FullBuilder(self.models, self.seed, self.budget)
        return self._full

    def variants(self, t: TypeRef, count: int) -> list[Any]:
        """``count`` full instances of ``t`` (whatever the mode), each valid, the first the
        full mode's ``value(t)``, the others differing in their free values (a stream's
        chunks); MockError when none can be built."""
        builder = self._builder()
        return [copy.deepcopy(builder.value(t, salt)) for salt in range(count)]

    def conforms(self, value: Any, t: TypeRef, *, answer: bool = False) -> bool:
        """Whether ``value`` is an instance of ``t`` (see :func:`conforms`; ``answer``: a
        response, which shows no ``writeOnly`` field)."""
        return conforms(value, t, self.models, answer=answer)

    def answers(self, examples: tuple[Any, ...], t: TypeRef) -> list[Any]:
        """The spec's ``examples`` of a response of type ``t`` that the mock may answer:
        those that conform to ``t`` and show no ``writeOnly`` field (a wrong example would
        fail the response model: the mock answered 500 with it)."""
        return [e for e in examples if conforms(e, t, self.models, answer=True)]

    def value(self, t: TypeRef) -> Any:
        """An instance of ``t``; MockError when none can be built."""
        if self.full:
            return copy.deepcopy(self._builder().value(t))
        kind = t.kind
        if kind == "model" and t.nullable:
            try:
                return self._model(t.name or "")
            except OverBudget:
                return None  # (what the budget cannot hold may be null)
        if kind == "model":
            return self._model(t.name or "")
        if kind == "primitive":
            return self._primitive(t)
        if kind == "literal":
            if t.literals:
                return t.literals[0]
            return None
        if kind == "array":
            if t.prefix_items:
                return [self.value(m) for m in t.prefix_items]
            count = int(t.constraints.get("minItems", 0) or 0)
            if count == 0:
                return []
            return self._repeated(t.items, "minItems", count, lambda item: [item] * count)
        if kind == "map":
            count = map_size(t.constraints)[0]
            if count == 0:
                return {}
            return self._repeated(
                t.values, "minProperties", count, lambda v: dict.fromkeys(entry_keys(count), v)
            )
        if kind == "union":
            return self._union(t)
        if kind == "null":
            return None
        return {}  # any

    def _union(self, t: TypeRef) -> Any:
        """The tagged member's instance (the first the mapping names that can be built), else
        the first member's that can be; of a ``oneOf`` without a tag, the first that is an
        instance of that member alone (else, as before, the first built: the schema
        leaves no member's values apart)."""
        errors: list[str] = []
        if t.discriminator is not None:
            for tag, name in t.discriminator.mapping.items():
                try:
                    found = self._model(name)
                except MockError as exc:
                    errors.append(str(exc))
                    continue
                if isinstance(found, dict):
                    prop = t.discriminator.property_name
                    rest = {k: v for k, v in found.items() if k != prop}
                    return {prop: self._tag(name, prop, tag), **rest}
        built: list[Any] = []
        for member in t.members:
            try:
                built.append(self.value(member))
            except MockError as exc:  # try the next member
                errors.append(str(exc))
                continue
            if exclusive(built[-1], t, self.models):
                return built[-1]
        if built:
            apart = set_apart(built[0], t, self.models)
            return built[0] if apart is None else apart
        if t.nullable:
            return None
        raise MockError("; ".join(errors) or "empty union")

    def _where(self) -> str:
        """The place of the value being built, for a reason: its field or model, else ``$``."""
        return self._path[-1] if self._path else "$"

    def _repeated(
        self, t: TypeRef | None, what: str, count: int, build: Callable[[Any], Any]
    ) -> Any:
        """``count`` copies of one instance of ``t`` (``"a"`` without a schema), as
        ``build`` makes the container of them, within the budget."""
        where = self._where()
        check_count(count, what, self.budget, where)
        value = build(self.value(t) if t is not None else "a")
        check_fits(value, self.budget, where)
        return value

    def _tag(self, name: str, prop: str, tag: str) -> Any:
        """The tag of member ``name`` (see :func:`tag_of`)."""
        return tag_of(self.models, name, prop, tag)

    def _model(self, name: str) -> Any:
        """Model ``name``'s minimal instance; :class:`OverBudget` when even that is larger
        than the budget (checked once per model, counted only that far)."""
        value = self._memo(name, name, self._cache, self._build)
        if name not in self._checked:
            try:
                check_fits(value, self.budget, name)
                self._checked[name] = None
            except OverBudget as exc:
                self._checked[name] = exc
        over = self._checked[name]
        if over is not None:
            raise OverBudget(*over.args)
        return value

    def _memo(
        self,
        name: str,
        key: Any,
        cache: dict[Any, Any],
        build: Callable[[Model], Any],
    ) -> Any:
        """The value ``build`` makes for model ``name``, cached under ``key``; a model that
        requires itself (through required fields) is a :class:`MockError`."""
        if key in cache:
            return cache[key]
        if name in self._active:
            raise MockError(f"{name} requires itself")
        if len(self._active) >= MAX_NESTING:
            raise OverBudget(f"{name}: models nest more than {MAX_NESTING} deep")
        model = self.models.get(name)
        if model is None:
            return {}
        self._active.add(name)
        self._path.append(name)
        try:
            result = build(model)
        finally:
            self._active.discard(name)
            self._path.pop()
        cache[key] = result
        return result

    def _build(self, model: Model) -> Any:
        if model.kind == "object":
            out: dict[str, Any] = {}
            for f in model.fields:
                if f.required:
                    out[f.name] = self._field(model, f)
            return out
        if model.kind == "enum":
            if model.enum_values:
                return model.enum_values[0]
            return None
        if model.root is None:
            return {}
        if model.discriminator is not None and model.root.discriminator is None:
            from dataclasses import replace

            return self.value(replace(model.root, discriminator=model.discriminator))
        return self.value(model.root)

    def _field(self, model: Model, f: Field) -> Any:
        """Required field ``f``'s value (None where a nullable one has none)."""
        self._path.append(f"{model.name}.{f.name}")
        try:
            return self.value(f.type)
        except MockError:
            if f.nullable and f.type.kind not in ("literal",):
                return None
            raise
        finally:
            self._path.pop()

    def _primitive(self, t: TypeRef) -> Any:
        c = t.constraints
        if t.primitive == "boolean":
            return False
        if t.primitive in ("integer", "number"):
            return minimal_number(c, integer=t.primitive == "integer", where=self._where())
        if t.primitive == "string":
            return minimal_string(t.format, c, self._where())
        return {}
