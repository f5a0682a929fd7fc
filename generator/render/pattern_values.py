"""Strings that match a JSON Schema ``pattern``, for example values (the mock's answers and
the docs' examples).

The judge of every candidate is pydantic's own regex engine (Rust's ``regex`` crate, via
:func:`generator.normalize.patterns.matches`): a value is used only if the generated
models would accept it. Candidates come from two sources, in this order:

1. a few plain strings (``"a"``, ``"0"``, ...): short and readable, and what most simple
   patterns (``^[a-z0-9-]+$``) accept;
2. `rstr <https://pypi.org/project/rstr/>`_'s ``Xeger``: a small (300 lines), BSD-licensed,
   pure-Python generator built on the standard library's regex parser, with no
   dependencies. It is driven by a seeded ``random.Random``, so the same pattern and seed
   give the same string.

``Xeger`` reads Python's regex syntax; the ``patterns`` pass has already made every
pattern one Rust's engine reads, and :func:`python_syntax` translates what Rust and
Python spell differently (``\\p{L}`` classes, ``(?<name>...)`` groups). ``Xeger`` is
subclassed for determinism, readability and bounds: a negated class picks from a sorted
alphabet (upstream, from a ``set``, whose order follows the hash seed), ``.`` and negations
stand for printable ASCII without control characters, repeats are capped so that ``.*``
does not give 100 characters, and a candidate is abandoned as soon as it is longer than
the string may be (``maxLength``, else :data:`MAX_TEXT`), or before it is built where its
repeats must make it longer: ``([a-z]{1000}){1000}`` costs nothing.

The search past ``preferred`` depends only on the pattern, the lengths and the seed, and
is cached on them (:func:`search`), failures included: a pattern no candidate satisfies,
shared by many properties, is searched once.
"""

from __future__ import annotations

import random
import re
import string
from functools import lru_cache
from typing import Any

from rstr.xeger import Xeger

from generator.normalize.patterns import matches

# Plain strings tried first; the first that matches (and fits the lengths) wins.
PLAIN = ("a", "0", "000000000000", "a-1", "A", "a_1", "2024-01-01", "x@y.z", "")
SEEDS = 24  # generated candidates tried per pattern before giving up
REPEAT_CAP = 6  # extra repeats beyond a quantifier's minimum
MAX_TEXT = 10_000  # the longest string built (for a pattern or not), whatever maxLength says
VISIBLE = string.ascii_letters + string.digits + string.punctuation + " "

# Unicode property classes Python's parser lacks, as ASCII subsets of them: a string
# built from the subset matches the class.
_PROPERTIES = {
    "L": "A-Za-z",
    "Letter": "A-Za-z",
    "Lu": "A-Z",
    "Uppercase_Letter": "A-Z",
    "Ll": "a-z",
    "Lowercase_Letter": "a-z",
    "N": "0-9",
    "Nd": "0-9",
    "Number": "0-9",
    "Decimal_Number": "0-9",
    "P": r"!-/:-@\[-`{-~",
    "Punctuation": r"!-/:-@\[-`{-~",
    "Z": " ",
    "Zs": " ",
    "Alphabetic": "A-Za-z",
    "Alpha": "A-Za-z",
}
_PROPERTY = re.compile(r"\\([pP])\{(\^?)([A-Za-z_]+)\}|\\([pP])([LNPZ])")


def python_syntax(pattern: str) -> str:
    """``pattern`` rewritten where Rust's regex syntax says something Python's parser does
    not read; the rewrite matches a subset of what the original matches."""

    def prop(m: re.Match[str]) -> str:
        kind = m.group(1) or m.group(4)
        name = m.group(3) or m.group(5)
        negated = (kind == "P") != bool(m.group(2))
        ascii_class = _PROPERTIES.get(name)
        if ascii_class is None:
            return "a" if not negated else "0"  # unknown class: a letter, most likely
        return f"[{'^' if negated else ''}{ascii_class}]"

    text = _PROPERTY.sub(prop, pattern)
    return text.replace("(?<", "(?P<").replace("(?P<=", "(?<=").replace("(?P<!", "(?<!")


class _TooLong(Exception):
    """A candidate outgrew its limit: no use finishing it."""


class _Generator(Xeger):
    """``Xeger`` made deterministic under any hash seed, with readable characters; a
    candidate longer than ``limit`` is abandoned (:class:`_TooLong`)."""

    def __init__(self, seed: int, limit: int = MAX_TEXT) -> None:
        super().__init__(
            random.Random(seed), printable=VISIBLE, whitespace=" ", nonword=string.punctuation + " "
        )
        self.limit = limit
        self._cases = {
            **self._cases,
            "not_literal": lambda x: self._random.choice(VISIBLE.replace(chr(x), "")),
        }

    def _handle_in(self, value: Any) -> Any:
        candidates = list(dict.fromkeys(c for state in value for c in self._handle_state(state)))
        if candidates and candidates[0] is False:
            excluded = set(candidates[1:])
            candidates = [c for c in VISIBLE if c not in excluded]
        return self._random.choice(sorted(candidates)) if candidates else ""

    def _handle_repeat(self, start_range: int, end_range: int, value: Any) -> str:
        if start_range * value.getwidth()[0] > self.limit:
            raise _TooLong  # (at least that long: no need to build it)
        end = min(end_range, start_range + REPEAT_CAP)
        times = self._random.randint(start_range, max(start_range, end))
        pieces: list[str] = []
        length = 0
        for _ in range(min(times, MAX_TEXT + 1)):  # (more: too long, or empty pieces)
            piece = "".join(self._handle_state(s) for s in value)
            length += len(piece)
            if length > self.limit:
                raise _TooLong
            pieces.append(piece)
        return "".join(pieces)


def _fits(text: str, min_len: int, max_len: int | None) -> bool:
    return len(text) >= min_len and (max_len is None or len(text) <= max_len)


def matching_string(
    pattern: str, min_len: int = 0, max_len: int | None = None, preferred: str = "", seed: int = 0
) -> str | None:
    """A string pydantic accepts for ``pattern`` (``""``: any) within the lengths, or None;
    ``preferred`` first if it qualifies, then :func:`search`'s."""
    if preferred and _fits(preferred, min_len, max_len) and matches(pattern, preferred):
        return preferred
    return search(pattern, min_len, max_len, seed)


@lru_cache(maxsize=4096)
def search(pattern: str, min_len: int = 0, max_len: int | None = None, seed: int = 0) -> str | None:
    """The plain candidates, then up to :data:`SEEDS` generated ones, each at most
    ``maxLength`` (or :data:`MAX_TEXT`) long: the first pydantic accepts, or None (cached,
    None too)."""
    limit = MAX_TEXT if max_len is None else min(max_len, MAX_TEXT)
    if min_len > limit:
        return None
    plain = [s * max(min_len, 1) for s in PLAIN if s] + list(PLAIN)
    for text in plain:
        if _fits(text, min_len, max_len) and matches(pattern, text):
            return text
    try:
        source = python_syntax(pattern)
        re.compile(source)
    except (re.error, ValueError, OverflowError, RecursionError):
        return None
    for attempt in range(SEEDS):
        try:
            text = _Generator(seed * SEEDS + attempt, limit).xeger(source)
        except _TooLong:
            continue
        except (KeyError, IndexError, ValueError, OverflowError, RecursionError):
            return None  # a construct Xeger cannot build (e.g. a backreference it lost)
        if _fits(text, min_len, max_len) and matches(pattern, text):
            return text
    return None
