"""Whether a value conforms to an IR type: the check a spec's own example passes before
the full mode uses it (spec examples are often wrong, and the mock's answers must pass the
generated models).

The check is structural and conservative: kinds, primitives (bounds, lengths, pattern, the
common formats), enums and literals (type and value), arrays (lengths, uniqueness, items),
maps (sizes, values), union members (of a ``oneOf`` without a discriminator, exactly one:
a value valid under two of them is not an instance, whatever pydantic's union accepts),
and object models' required fields and present fields. A value it refuses is simply not
used; it never raises.

An *answer* (``answer=True``: a response the mock sends) also must not show a
``writeOnly`` property (a password): such an example is not used for answers.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import decimal
import ipaddress
import json
import math
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from generator.ir import Field, Model, TypeRef
from generator.normalize.patterns import matches
from generator.render.examples.common import map_size

MAX_DEPTH = 64  # model references followed without consuming the value (alias chains)
_UUID_VERSIONS = {"uuid1": 1, "uuid3": 3, "uuid4": 4, "uuid5": 5}


def conforms(
    value: Any, t: TypeRef, models: Mapping[str, Model] | None = None, *, answer: bool = False
) -> bool:
    """Whether ``value`` (JSON data) is an instance of ``t``; ``models`` resolves model
    references (a model it does not know accepts anything). With ``answer``, a value that
    sets a ``writeOnly`` field does not conform (responses never show them)."""
    try:
        return _Checker(models or {}, answer).check(value, t, 0)
    except (RecursionError, TypeError, ValueError, OverflowError):
        return False


def exclusive(value: Any, t: TypeRef, models: Mapping[str, Model]) -> bool:
    """Whether ``value``, built for a member of union ``t``, may stand for ``t``: always,
    but for a ``oneOf`` without a discriminator only when it matches exactly one member
    (the synthesizers try the members in order for one that does)."""
    return not t.one_of or t.discriminator is not None or conforms(value, t, models)


_WRONG: tuple[Any, ...] = (0, "a", [], {}, True)  # one of each JSON kind, to break a field


def set_apart(value: Any, t: TypeRef, models: Mapping[str, Model]) -> Any | None:
    """``value`` (an object built for the first member of ``oneOf`` ``t`` that accepts
    it) made an instance of that member alone: for every other member that accepts it, a
    property that member declares and the first does not, set to a value of the wrong
    kind for it (the first member takes any extra property). None when no such property
    sets it apart: scideas.net's ``oneOf: [Result, Error]``, whose members require
    nothing, takes ``{"error": "invalid key"}`` under both, and
    ``{"error": "invalid key", "calls\"": 0}`` under Error alone."""
    if not isinstance(value, dict) or not t.one_of or t.discriminator is not None:
        return None
    accepting = [m for m in t.members if conforms(value, m, models, answer=True)]
    fields = [_object_fields(m, models) for m in accepting]
    if len(accepting) < 2 or any(f is None for f in fields):
        return None
    own = {f.name for f in fields[0] or ()}
    out = dict(value)
    for other in fields[1:]:
        spare = [f for f in other or () if f.name not in own and f.name not in out]
        for f in spare:
            wrong = next((w for w in _WRONG if not conforms(w, f.type, models)), None)
            if wrong is not None:
                out[f.name] = wrong
                break
        else:
            return None
    return out if conforms(out, t, models) else None


def _object_fields(t: TypeRef, models: Mapping[str, Model]) -> tuple[Field, ...] | None:
    """The fields of an object model member, None for any other member."""
    model = models.get(t.name or "") if t.kind == "model" else None
    return model.fields if model is not None and model.kind == "object" else None


def same(a: Any, b: Any) -> bool:
    """Equal and of the same JSON kind (``True`` is not ``1``, ``1.0`` is not ``1``)."""
    return type(a) is type(b) and a == b


class _Checker:
    def __init__(self, models: Mapping[str, Model], answer: bool = False) -> None:
        self.models = models
        self.answer = answer

    def check(self, v: Any, t: TypeRef, depth: int) -> bool:
        if v is None and (t.nullable or t.kind in ("null", "any")):
            return True
        kind = t.kind
        if kind == "model":
            return self._model(v, t.name or "", depth)
        if kind == "primitive":
            return _primitive(v, t)
        if kind == "literal":
            return any(same(v, lit) for lit in t.literals)
        if kind == "array":
            return self._array(v, t)
        if kind == "map":
            if not isinstance(v, dict) or not all(isinstance(k, str) for k in v):
                return False
            low, high = map_size(t.constraints)
            if len(v) < low or (high is not None and len(v) > high):
                return False
            values = t.values
            return values is None or all(self.check(x, values, 0) for x in v.values())
        if kind == "union":
            if t.discriminator is not None:
                return self._tagged(v, t, depth)
            if t.one_of:  # JSON Schema's ``oneOf``: valid under exactly one member
                return sum(1 for m in t.members if self.check(v, m, depth)) == 1
            return any(self.check(v, m, depth) for m in t.members)
        if kind == "null":
            return v is None
        return True  # any

    def _tagged(self, v: Any, t: TypeRef, depth: int) -> bool:
        """A discriminated union: the member the tag names (pydantic tries no other)."""
        assert t.discriminator is not None
        prop = t.discriminator.property_name
        if not isinstance(v, dict) or prop not in v:
            return False
        tag = v[prop]
        text = str(tag).lower() if isinstance(tag, bool) else str(tag)
        named = [name for key, name in t.discriminator.mapping.items() if key == text]
        if not named:  # no mapping (or not this tag's): the members say which is which
            return any(self.check(v, m, depth) for m in t.members)
        return any(self._model(v, name, depth) for name in named)

    def _array(self, v: Any, t: TypeRef) -> bool:
        if not isinstance(v, list):
            return False
        if t.prefix_items:
            return len(v) == len(t.prefix_items) and all(
                self.check(x, m, 0) for x, m in zip(v, t.prefix_items, strict=True)
            )
        low = t.constraints.get("minItems")
        high = t.constraints.get("maxItems")
        if (low is not None and len(v) < low) or (high is not None and len(v) > high):
            return False
        if t.constraints.get("uniqueItems") is True and not _distinct(v):
            return False
        items = t.items
        return items is None or all(self.check(x, items, 0) for x in v)

    def _model(self, v: Any, name: str, depth: int) -> bool:
        model = self.models.get(name)
        if model is None:
            return True
        if depth > MAX_DEPTH:
            return False
        if model.kind == "object":
            if not isinstance(v, dict):
                return False
            for f in model.fields:
                if f.name not in v:
                    if f.required:
                        return False
                    continue
                if self.answer and f.write_only and not f.required:
                    return False
                if not self.check(v[f.name], f.type, 0):
                    return False
            return True
        if model.kind == "enum":
            return any(same(v, e) for e in model.enum_values)
        return model.root is None or self.check(v, model.root, depth + 1)


def _distinct(items: list[Any]) -> bool:
    """Whether no two items are the same JSON value (``uniqueItems``)."""
    keys = [json.dumps(x, sort_keys=True, default=repr) for x in items]
    return len(set(keys)) == len(keys)


def _primitive(v: Any, t: TypeRef) -> bool:
    c = t.constraints
    if t.primitive == "boolean":
        return isinstance(v, bool)
    if t.primitive in ("integer", "number"):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return False
        if t.primitive == "integer" and not isinstance(v, int):
            return False
        return (isinstance(v, int) or math.isfinite(v)) and _in_bounds(v, c)
    if t.primitive == "string":
        if not isinstance(v, str):
            return False
        low, high = c.get("minLength"), c.get("maxLength")
        if (low is not None and len(v) < low) or (high is not None and len(v) > high):
            return False
        pattern = c.get("pattern")
        if pattern and not matches(pattern, v):
            return False
        return _format_ok(t.format, v)
    return True


def _in_bounds(v: float, c: Mapping[str, Any]) -> bool:
    def number(key: str) -> float | None:
        x = c.get(key)
        return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None

    low, high = number("minimum"), number("maximum")
    ex_low, ex_high = number("exclusiveMinimum"), number("exclusiveMaximum")
    if low is not None and (v < low or (c.get("exclusiveMinimum") is True and v == low)):
        return False
    if high is not None and (v > high or (c.get("exclusiveMaximum") is True and v == high)):
        return False
    if (ex_low is not None and v <= ex_low) or (ex_high is not None and v >= ex_high):
        return False
    step = number("multipleOf")
    if step:
        return _multiple(v, step)
    return True


def _multiple(v: float, step: float) -> bool:
    """Whether ``v`` is a multiple of ``step``: exactly for integers (whatever their size),
    else within floats' rounding (a ratio past the floats is none)."""
    if isinstance(v, int) and isinstance(step, int):
        return v % step == 0
    ratio = v / step
    return math.isfinite(ratio) and abs(ratio - round(ratio)) < 1e-9 * max(1.0, abs(ratio))


def _iso_datetime(v: str) -> Any:
    return datetime.datetime.fromisoformat(v.replace("Z", "+00:00").replace("z", "+00:00"))


def _uuid(version: int | None) -> Callable[[str], Any]:
    def check(v: str) -> None:
        if version is not None and uuid.UUID(v).version != version:
            raise ValueError(v)

    return check


def _url(v: str) -> None:
    scheme, sep, rest = v.partition("://")
    if not (sep and scheme and rest) or any(ch.isspace() for ch in v):
        raise ValueError(v)


def _email(v: str) -> None:
    local, at, domain = v.rpartition("@")
    if not (at and local and "." in domain) or any(ch.isspace() for ch in v):
        raise ValueError(v)


def _duration(v: str) -> None:
    if not v.lstrip("-+").startswith("P") and ":" not in v:
        raise ValueError(v)


_FORMAT_CHECKS: dict[str, Callable[[str], Any]] = {
    "date-time": _iso_datetime,
    "timestamp with time zone": _iso_datetime,
    "date-time-local": _iso_datetime,
    "date": datetime.date.fromisoformat,
    "time": datetime.time.fromisoformat,
    "time-local": datetime.time.fromisoformat,
    "duration": _duration,
    "uuid": _uuid(None),
    "uuid2": _uuid(None),
    **{fmt: _uuid(version) for fmt, version in _UUID_VERSIONS.items()},
    "uri": _url,
    "email": _email,
    "idn-email": _email,
    "ipv4": ipaddress.IPv4Address,
    "ipv6": ipaddress.IPv6Address,
    "ipv4-network": ipaddress.IPv4Network,
    "ipv6-network": ipaddress.IPv6Network,
    "byte": lambda v: base64.b64decode(v, validate=True),
    "decimal": decimal.Decimal,
    "integer": int,
    "unixtime": int,
}


def _format_ok(fmt: str | None, v: str) -> bool:
    check = _FORMAT_CHECKS.get(fmt or "")
    if check is None:
        return True
    try:
        check(v)
    except (ValueError, TypeError, binascii.Error, decimal.InvalidOperation):
        return False
    return True
