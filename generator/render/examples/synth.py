"""The :class:`Synthesizer`: valid JSON instances of IR types, minimal or full.

A minimal instance honours required fields, enums, consts, numeric and length
constraints, patterns and the common formats; optional fields are left out and arrays
have ``minItems`` items, so it is as small as the schema allows (the docs' request
samples). The full mode (:mod:`generator.render.examples.full`) fills everything in.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from generator.ir import Api, Model, TypeRef
from generator.render.examples.budget import Budget, budget_for
from generator.render.examples.common import MockError, minimal_number, minimal_string, tag_of
from generator.render.examples.conform import conforms
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

    def conforms(self, value: Any, t: TypeRef) -> bool:
        """Whether ``value`` is an instance of ``t`` (see :func:`conforms`)."""
        return conforms(value, t, self.models)

    def value(self, t: TypeRef) -> Any:
        """An instance of ``t``; MockError when none can be built."""
        if self.full:
            return copy.deepcopy(self._builder().value(t))
        kind = t.kind
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
            item = self.value(t.items) if t.items is not None else "a"
            return [item] * count
        if kind == "map":
            return {}
        if kind == "union":
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
            for member in t.members:
                try:
                    return self.value(member)
                except MockError as exc:  # try the next member
                    errors.append(str(exc))
            if t.nullable:
                return None
            raise MockError("; ".join(errors) or "empty union")
        if kind == "null":
            return None
        return {}  # any

    def _tag(self, name: str, prop: str, tag: str) -> Any:
        """The tag of member ``name`` (see :func:`tag_of`)."""
        return tag_of(self.models, name, prop, tag)

    def _model(self, name: str) -> Any:
        return self._memo(name, name, self._cache, self._build)

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
        model = self.models.get(name)
        if model is None:
            return {}
        self._active.add(name)
        try:
            result = build(model)
        finally:
            self._active.discard(name)
        cache[key] = result
        return result

    def _build(self, model: Model) -> Any:
        if model.kind == "object":
            out: dict[str, Any] = {}
            for f in model.fields:
                if not f.required:
                    continue
                if f.nullable and f.type.kind not in ("literal",):
                    try:
                        out[f.name] = self.value(f.type)
                    except MockError:
                        out[f.name] = None
                    continue
                out[f.name] = self.value(f.type)
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

    def _primitive(self, t: TypeRef) -> Any:
        c = t.constraints
        if t.primitive == "boolean":
            return False
        if t.primitive in ("integer", "number"):
            return minimal_number(c, integer=t.primitive == "integer")
        if t.primitive == "string":
            return minimal_string(t.format, c)
        return {}
