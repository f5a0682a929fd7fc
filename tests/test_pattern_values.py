"""Example strings for patterns (generator/render/pattern_values.py): every value is one
pydantic accepts, and the same under any hash seed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.normalize.patterns import matches
from generator.render.pattern_values import matching_string, python_syntax

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
