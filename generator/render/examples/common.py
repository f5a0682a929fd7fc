"""What both modes share: the error, the minimal format table, the tag rule and the
minimal scalars (also the full mode's fallback where its own choice does not fit)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from generator.ir import Model
from generator.render.pattern_values import matching_string

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


def tag_of(models: Mapping[str, Model], name: str, prop: str, tag: str) -> Any:
    """The tag of member ``name``: its own const where it declares one (mapping keys
    are strings even when the tag is a boolean), else the mapping's key (a plain string
    field would otherwise get a made-up value the union refuses)."""
    model = models.get(name)
    for f in model.fields if model is not None else ():
        if f.name == prop and f.type.kind == "literal" and len(f.type.literals) == 1:
            return f.type.literals[0]
    return tag


def minimal_number(c: Any, *, integer: bool) -> int | float:
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


def minimal_string(fmt: str | None, c: Any) -> str:
    pattern = c.get("pattern")
    min_len = int(c.get("minLength", 0) or 0)
    max_len = c.get("maxLength")
    if fmt in FORMATS and not pattern:
        return FORMATS[fmt]
    preferred = FORMATS.get(fmt or "", "a" * max(min_len, 1))
    found = matching_string(pattern or "", min_len, max_len, preferred)
    if found is not None:
        return found
    raise MockError(f"no string matches pattern {pattern!r} (length {min_len}..{max_len})")
