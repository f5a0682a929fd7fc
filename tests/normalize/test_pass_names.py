"""The constant list of pass names (what a config reads) is the passes that run."""

from __future__ import annotations

from generator.normalize import ALWAYS, PASSES
from generator.normalize.pass_names import PASS_NAMES


def test_pass_names_are_the_passes_in_order() -> None:
    assert PASS_NAMES == tuple(p.name for p in PASSES)
    assert not set(PASS_NAMES) & {p.name for p in ALWAYS}  # those cannot be switched off
