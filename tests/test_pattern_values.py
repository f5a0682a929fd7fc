"""Example strings for patterns (generator/render/pattern_values.py): every value is one
pydantic accepts, and the same under any hash seed; the search is bounded and cached."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.normalize.patterns import matches
from generator.render.pattern_values import (
    MAX_TEXT,
    _Generator,
    _TooLong,
    matching_string,
    python_syntax,
    search,
)

ROOT = Path(__file__).resolve().parents[1]
PATTERNS = [
    "^arn:aws:.*$",
    "^[A-Z]{2}\\d{4}$",
    "^\\p{L}+$",
    "^\\p{Lu}\\p{Ll}+ \\P{L}$",
    "^(?<year>\\d{4})-(?<month>\\d{2})$",
    "^[^a-z0-9]{3}$",
    "^sk-[A-Za-z0-9]{32}$",
    "^projects/[^/]+/locations/[^/]+$",
    "^(v1|v2)\\.[a-f0-9]{8}$",
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_values_match_in_pydantic(pattern: str) -> None:
    value = matching_string(pattern)
    assert value is not None
    assert matches(pattern, value)
    assert all(c.isprintable() for c in value)


def test_plain_candidates_come_first() -> None:
    assert matching_string("^[a-z0-9-]+$") == "a"
    assert matching_string("", 3) == "aaa"
    assert matching_string("^\\d+$", preferred="12") == "12"


def test_lengths_are_honoured_or_none() -> None:
    value = matching_string("^[a-f]+$", 5, 7)
    assert value is not None and 5 <= len(value) <= 7
    assert matching_string("^ab$", 3) is None


def test_impossible_or_unreadable_patterns_give_none() -> None:
    assert matching_string("^a$", 0, 0) is None
    assert matching_string("\\p{Greek}{3}") is None or matches("\\p{Greek}{3}", "x") is False


def test_python_syntax() -> None:
    assert python_syntax("\\p{L}\\P{N}\\pL") == "[A-Za-z][^0-9][A-Za-z]"
    assert python_syntax("(?<n>a)(?<=a)(?<!b)") == "(?P<n>a)(?<=a)(?<!b)"


def test_the_same_under_every_hash_seed() -> None:
    code = (
        "from generator.render.pattern_values import matching_string as m\n"
        f"print([m(p) for p in {PATTERNS!r}])\n"
    )
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr
        outputs.add(run.stdout)
    assert len(outputs) == 1


# --- bounds and the cache (issue 22, finding 6) ------------------------------------------------


def test_the_search_is_cached_per_pattern_and_lengths() -> None:
    """Past ``preferred`` (each property's own), the search depends on the pattern, the
    lengths and the seed only: dozens of properties sharing a pattern no candidate
    satisfies search it once."""
    pattern = "^([a-z]{100}){100}$"
    search.cache_clear()
    for i in range(40):
        assert matching_string(pattern, 0, 50, preferred=f"p{i}-{i * 7}") is None
    info = search.cache_info()
    assert (info.misses, info.hits) == (1, 39)
    assert matching_string(pattern, 0, 51) is None and search.cache_info().misses == 2


def test_candidates_stop_at_the_longest_string_allowed() -> None:
    """A candidate longer than ``maxLength`` (else ``MAX_TEXT``) is abandoned as it grows:
    nested repeats cost their first characters, not their product."""
    with pytest.raises(_TooLong):
        _Generator(0, limit=50).xeger("([a-z]{100}){100}")
    assert _Generator(0, limit=10_000).xeger("a{5000}") == "a" * 5000
    assert search("^a{5000}$") == "a" * 5000
    assert search(f"^a{{{MAX_TEXT + 1}}}$") is None  # longer than any string built
    assert _Generator(0, limit=20).xeger("(a{0}){1000000000}b") == "b"  # empty pieces end
    assert search("^a$", MAX_TEXT + 1) is None


def test_preferred_is_judged_before_the_search() -> None:
    search.cache_clear()
    assert matching_string("^[a-z]+-\\d+$", 0, None, "name-417") == "name-417"
    assert search.cache_info().misses == 0
    assert matching_string("^[a-z]+-\\d+$", 0, 5, "name-417") == search("^[a-z]+-\\d+$", 0, 5)
