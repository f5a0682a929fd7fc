"""Minimal valid JSON instances of IR types: the generated mock service's answers and the
docs' examples (shared by both renderers).

Computed at generation time, so the mock module holds plain literals (deterministic,
readable, no schema walking at run time). An instance honours required fields, enums,
consts, numeric and length constraints, patterns and the common formats. Optional
fields are left out, so an instance is as small as the schema allows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from generator.ir import Api, Model, TypeRef
from generator.render.pattern_values import matching_string

_FORMATS: dict[str, str] = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "00:00:00",
    "duration": "PT0S",
    "time-delta": "PT0S",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uri-reference": "https://example.com/",
    "iri": "https://example.com/",
    "hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "byte": "",
    "binary": "",
}


class MockError(ValueError):
    """No instance could be built (an impossible schema)."""


class Synthesizer:
    """Build minimal instances, memoizing per model name (cycles end at optional fields)."""

    def __init__(self, api: Api) -> None:
        self.models = {m.name: m for m in api.models}
        self._cache: dict[str, Any] = {}
        self._active: set[str] = set()

    def value(self, t: TypeRef) -> Any:
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
        """The tag of member ``name``: its own const where it declares one (mapping keys
        are strings even when the tag is a boolean), else the mapping's key (a plain string
        field would otherwise get a made-up value the union refuses)."""
        model = self.models.get(name)
        for f in model.fields if model is not None else ():
            if f.name == prop and f.type.kind == "literal" and len(f.type.literals) == 1:
                return f.type.literals[0]
        return tag

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
            return _number(c, integer=t.primitive == "integer")
        if t.primitive == "string":
            return _string(t.format, c)
        return {}


def _number(c: Any, *, integer: bool) -> int | float:
    low = c.get("minimum")
    if c.get("exclusiveMinimum") is not None and not isinstance(c.get("exclusiveMinimum"), bool):
        ex = c["exclusiveMinimum"]
        candidate = math.floor(ex) + 1 if integer else ex + 1
        low = candidate if low is None else max(low, candidate)
    high = c.get("maximum")
    if c.get("exclusiveMaximum") is not None and not isinstance(c.get("exclusiveMaximum"), bool):
        ex = c["exclusiveMaximum"]
        candidate = math.ceil(ex) - 1 if integer else ex - 1
        high = candidate if high is None else min(high, candidate)
    value: float = 0
    if low is not None and value < low:
        value = low
    if high is not None and value > high:
        value = high
    step = c.get("multipleOf")
    if step:
        value = math.ceil(value / step) * step
    if integer:
        return int(math.ceil(value))
    return value


def _string(fmt: str | None, c: Any) -> str:
    pattern = c.get("pattern")
    min_len = int(c.get("minLength", 0) or 0)
    max_len = c.get("maxLength")
    if fmt in _FORMATS and not pattern:
        return _FORMATS[fmt]
    preferred = _FORMATS.get(fmt or "", "a" * max(min_len, 1))
    found = matching_string(pattern or "", min_len, max_len, preferred)
    if found is not None:
        return found
    raise MockError(f"no string matches pattern {pattern!r} (length {min_len}..{max_len})")
