"""Full mode's scalars: plausible strings, formats and numbers, each drawn from a token (a
CRC-32 of the seed and the value's place, see :func:`token`), so the same seed gives the
same bytes and another seed other values.

- A plain string is its property's name and a number, ``"name-417"``, cut or padded to
  the lengths (a URL for ``*_url``, an address for ``*email``); a ``pattern`` tries that
  first, then :func:`matching_string`'s choices.
- A format gets a value of its kind made from the token (a date in 2024, a version-4
  UUID, ``name-417@example.com``...), or the minimal one when that does not fit.
- A number is non-zero where the bounds allow: ``1..100`` (``1.0..100.9``) without bounds,
  a point inside them otherwise, on ``multipleOf`` (integers in exact arithmetic, whatever
  their size); None when none fits, or floats cannot say one (the caller falls back to
  the minimal number).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import math
import re
import uuid
import zlib
from collections.abc import Callable
from typing import Any

from generator.normalize.patterns import matches
from generator.render.examples.common import check_length, minimal_string, no_match
from generator.render.pattern_values import matching_string

_HINT = re.compile(r"[^A-Za-z0-9_-]+")
_UUID_VERSIONS = {"uuid1": 1, "uuid3": 3, "uuid5": 5}


def token(*parts: object) -> int:
    """A stable 32-bit number of ``parts`` (CRC-32: never ``hash()``, which is salted)."""
    text = "\x1f".join(str(p) for p in parts)
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def hint_of(name: str) -> str:
    """A property name as a string's stem: ASCII letters, digits, ``_``, ``-``."""
    return _HINT.sub("", name)[:24].strip("-_") or "string"


def _fit(hint: str, num: str, min_len: int, max_len: int | None) -> str:
    """``hint-num`` within the lengths: the hint cut first, then padded with ``x``."""
    text = f"{hint}-{num}"
    if max_len is not None and len(text) > max_len:
        room = max_len - len(num) - 1
        text = f"{hint[:room]}-{num}" if room > 0 else num[-max_len:] if max_len > 0 else ""
    return text + "x" * (min_len - len(text))


def _when(n: int) -> datetime.datetime:
    start = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    return start + datetime.timedelta(days=n % 366, seconds=(n >> 9) % 86400)


def _uuid(n: int, version: int) -> str:
    digest = hashlib.sha256(str(n).encode()).digest()[:16]
    return str(uuid.UUID(bytes=digest, version=version))


def _formats(hint: str, n: int) -> dict[str, Callable[[], str]]:
    word = f"{hint}-{1 + n % 999}"
    host = word.lower().replace("_", "-").strip("-") or "host"
    return {
        "date-time": lambda: _when(n).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "timestamp with time zone": lambda: _when(n).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "date-time-local": lambda: _when(n).strftime("%Y-%m-%dT%H:%M:%S"),
        "date": lambda: _when(n).strftime("%Y-%m-%d"),
        "time": lambda: _when(n).strftime("%H:%M:%S"),
        "time-local": lambda: _when(n).strftime("%H:%M:%S"),
        "duration": lambda: f"PT{1 + n % 3600}S",
        "time-delta": lambda: f"PT{1 + n % 3600}S",
        "email": lambda: f"{host}@example.com",
        "idn-email": lambda: f"{host}@example.com",
        "uri": lambda: f"https://example.com/{host}",
        "url": lambda: f"https://example.com/{host}",
        "iri": lambda: f"https://example.com/{host}",
        "uri-reference": lambda: f"https://example.com/{host}",
        "iri-reference": lambda: f"https://example.com/{host}",
        "hostname": lambda: f"{host}.example.com",
        "idn-hostname": lambda: f"{host}.example.com",
        "ipv4": lambda: f"192.0.2.{1 + n % 254}",
        "ipv6": lambda: f"2001:db8::{1 + n % 65535:x}",
        "ipv4-network": lambda: "192.0.2.0/24",
        "ipv6-network": lambda: "2001:db8::/32",
        "byte": lambda: base64.b64encode(word.encode()).decode(),
        "binary": lambda: word,
        "path": lambda: f"/data/{host}",
        "decimal": lambda: f"{1 + n % 999}.5",
        "integer": lambda: str(1 + n % 999),
        "unixtime": lambda: str(int(_when(n).timestamp())),
    }


def formatted(fmt: str, hint: str, n: int) -> str | None:
    """A value of format ``fmt`` drawn from ``n``, or None for a format not known here."""
    if fmt == "uuid" or fmt in ("uuid2", "uuid4"):
        return _uuid(n, 4)
    if fmt in _UUID_VERSIONS:
        return _uuid(n, _UUID_VERSIONS[fmt])
    make = _formats(hint, n).get(fmt)
    return make() if make is not None else None


def _implied(hint: str) -> str | None:
    """The format a plain string's name implies (``avatar_url``: a URL), if any."""
    name = hint.lower()
    if name.endswith(("url", "uri", "href")):
        return "uri"
    if name == "email" or name.endswith("_email"):
        return "email"
    return None


def string(fmt: str | None, c: Any, hint: str, n: int, seed: int = 0, where: str = "$") -> str:
    """A string for format ``fmt`` and constraints ``c``; MockError when none fits
    (:class:`OverBudget` when ``minLength`` is over the cap; ``where``: the value's place)."""
    pattern = c.get("pattern") or ""
    min_len = int(c.get("minLength", 0) or 0)
    max_len = c.get("maxLength")
    max_len = int(max_len) if max_len is not None else None
    check_length(min_len, where)
    known = formatted(fmt, hint, n) if fmt else None
    if known is not None:
        fits = len(known) >= min_len and (max_len is None or len(known) <= max_len)
        if fits and (not pattern or matches(pattern, known)):
            return known
        return minimal_string(fmt, c, where)  # the format's minimal value, or a pattern's
    implied = _implied(hint)
    if implied is not None and not fmt:
        text = formatted(implied, hint, n) or ""
        fits = len(text) >= min_len and (max_len is None or len(text) <= max_len)
        if fits and (not pattern or matches(pattern, text)):
            return text
    preferred = _fit(hint, str(1 + n % 999), min_len, max_len)
    found = matching_string(pattern, min_len, max_len, preferred, seed)
    if found is not None:
        return found
    raise no_match(pattern, min_len, max_len)


def _bound(c: Any, plain: str, exclusive: str, pick: Callable[..., Any]) -> tuple[Any, bool]:
    """(bound, open) of one side; a boolean ``exclusive*`` (OpenAPI 3.0) opens ``plain``."""
    value, is_open = c.get(plain), False
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        value = None
    ex = c.get(exclusive)
    if ex is True and value is not None:
        is_open = True
    elif isinstance(ex, (int, float)) and not isinstance(ex, bool):
        if value is None or pick(ex, value) == ex:
            value, is_open = ex, True
    return value, is_open


def _int_range(c: Any) -> tuple[int | None, int | None]:
    lo, lo_open = _bound(c, "minimum", "exclusiveMinimum", max)
    hi, hi_open = _bound(c, "maximum", "exclusiveMaximum", min)
    low = None if lo is None else (math.floor(lo) + 1 if lo_open else math.ceil(lo))
    high = None if hi is None else (math.ceil(hi) - 1 if hi_open else math.floor(hi))
    return low, high


def _inside(v: float, c: Any) -> bool:
    lo, lo_open = _bound(c, "minimum", "exclusiveMinimum", max)
    hi, hi_open = _bound(c, "maximum", "exclusiveMaximum", min)
    if lo is not None and (v < lo or (lo_open and v == lo)):
        return False
    return hi is None or not (v > hi or (hi_open and v == hi))


def integer(c: Any, n: int) -> int | None:
    """A non-zero (where allowed) integer within the bounds, on ``multipleOf``, or None."""
    low, high = _int_range(c)
    if low is not None and high is not None and low > high:
        return None
    base = 1 + n % 100
    if low is not None and high is not None:
        v = low + n % min(high - low + 1, 100)
    elif low is not None:
        v = low + n % 100 if low > 0 else base
    elif high is not None:
        v = base if base <= high else high - n % 100
    else:
        v = base
    step = c.get("multipleOf")
    if step:
        if step != int(step) or step <= 0:
            return None
        s = int(step)  # exact integer arithmetic: a bound may be far beyond the floats
        candidates = [-(-v // s) * s, v // s * s, s, -s]
        found = [x for x in candidates if _in_ints(x, low, high)]
        return next((x for x in found if x != 0), found[0] if found else None)
    if v == 0 and _in_ints(1, low, high):
        return 1
    return v


def _in_ints(v: int, low: int | None, high: int | None) -> bool:
    return (low is None or v >= low) and (high is None or v <= high)


def number(c: Any, n: int) -> float | None:
    """A non-zero (where allowed) float within the bounds, on ``multipleOf``, or None."""
    lo, _ = _bound(c, "minimum", "exclusiveMinimum", max)
    hi, _ = _bound(c, "maximum", "exclusiveMaximum", min)
    base = round(1 + (n % 1000) / 10, 1)
    if lo is not None and hi is not None:
        v = round(lo + (hi - lo) * (1 + n % 99) / 100, 2)
        if not _inside(v, c):
            v = lo / 2 + hi / 2  # (halves first: the sum of two large bounds is inf)
    elif lo is not None:
        v = base if base > lo else lo + base
    elif hi is not None:
        v = base if base < hi else hi - base
    else:
        v = base
    step = c.get("multipleOf")
    if step:
        ratio = v / step if step > 0 else math.nan
        if not math.isfinite(ratio):
            return None  # (``1e300`` on ``1e-300``: no float multiple to say)
        k = round(ratio)
        candidates = [k, k + 1, k - 1, 1, -1]
        found = [float(round(m * step, 12)) for m in candidates if _multiple_inside(m, step, c)]
        return next((x for x in found if x != 0), found[0] if found else None)
    return float(v) if math.isfinite(v) and _inside(v, c) else None


def _multiple_inside(m: int, step: float, c: Any) -> bool:
    """Whether ``m * step`` is a finite float within the bounds."""
    v = m * step
    return math.isfinite(v) and _inside(v, c)
