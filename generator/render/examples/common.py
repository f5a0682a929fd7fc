"""What both modes share: the errors, the minimal format table, the tag rule, the keys of
a map's entries, the values of a finite type and the minimal scalars (also the full
mode's fallback where its own choice does not fit)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from generator.ir import Model, TypeRef
from generator.render.pattern_values import MAX_TEXT, matching_string

FORMATS: dict[str, str] = {
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


class OverBudget(MockError):
    """What the schema requires does not fit the budget of one value, or a cap (see
    :mod:`.budget`): no instance is built."""


def check_length(min_len: int, where: str) -> None:
    """:class:`OverBudget` when a string must be longer than the cap (:data:`MAX_TEXT`)."""
    if min_len > MAX_TEXT:
        raise OverBudget(
            f"{where}: minLength {min_len} is over the mock's cap of {MAX_TEXT} characters"
        )


def entry_keys(count: int) -> list[str]:
    """The keys of a map's ``count`` entries: ``key``, ``key-2``, ``key-3``..."""
    return ["key" if i == 0 else f"key-{i + 1}" for i in range(count)]


def map_size(c: Any) -> tuple[int, int | None]:
    """A map's ``minProperties`` and ``maxProperties`` (None: no maximum)."""
    high = c.get("maxProperties")
    return int(c.get("minProperties", 0) or 0), None if high is None else int(high)


def tag_of(models: Mapping[str, Model], name: str, prop: str, tag: str) -> Any:
    """The tag of member ``name``: its own const where it declares one (mapping keys
    are strings even when the tag is a boolean), else the mapping's key (a plain string
    field would otherwise get a made-up value the union refuses)."""
    model = models.get(name)
    for f in model.fields if model is not None else ():
        if f.name == prop and f.type.kind == "literal" and len(f.type.literals) == 1:
            return f.type.literals[0]
    return tag


def choices_of(models: Mapping[str, Model], t: TypeRef | None, hops: int = 0) -> tuple[Any, ...]:
    """Every value of ``t`` where it is a finite set (a literal, an enum, through aliases),
    else none."""
    if t is not None and t.kind == "literal":
        return t.literals
    model = models.get(t.name or "") if t is not None and t.kind == "model" else None
    if model is None or hops > 8:
        return ()
    if model.kind == "enum":
        return model.enum_values
    return choices_of(models, model.root, hops + 1) if model.kind == "alias" else ()


def minimal_number(c: Any, *, integer: bool, where: str = "$") -> int | float:
    """The number nearest 0 within the bounds, on ``multipleOf``; MockError where floats
    cannot say one (``where``: the value's place, for the reason)."""
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
        value = _multiple_from(value, step, where)
    if integer:
        return value if isinstance(value, int) else int(math.ceil(value))
    return value


def _multiple_from(value: float, step: float, where: str) -> float:
    """The first multiple of ``step`` from ``value`` up (exact for integers); MockError
    where floats cannot say it (``multipleOf: 1e-300`` at ``1e300``: the ratio is inf)."""
    if isinstance(value, int) and isinstance(step, int):
        return -(-value // step) * step
    try:
        found = math.ceil(value / step) * step
    except (OverflowError, ValueError):
        found = math.inf
    if not math.isfinite(found):
        raise MockError(f"{where}: no float from {value!r} on is a multiple of {step!r}")
    return found


def minimal_string(fmt: str | None, c: Any, where: str = "$") -> str:
    pattern = c.get("pattern")
    min_len = int(c.get("minLength", 0) or 0)
    max_len = c.get("maxLength")
    check_length(min_len, where)
    if fmt in FORMATS and not pattern:
        return FORMATS[fmt]
    preferred = FORMATS.get(fmt or "", "a" * max(min_len, 1))
    found = matching_string(pattern or "", min_len, max_len, preferred)
    if found is not None:
        return found
    raise no_match(pattern, min_len, max_len)


def no_match(pattern: str | None, min_len: int, max_len: int | None) -> MockError:
    """The error of a pattern no string (of the lengths, and the cap) was found for."""
    capped = max_len is None or max_len > MAX_TEXT
    cap = f", at most {MAX_TEXT} built" if capped else ""
    return MockError(f"no string matches pattern {pattern!r} (length {min_len}..{max_len}{cap})")
