"""Shared by the diff tests: the golden cases (``cases/<case>/{old,new}.yaml`` and the
text output they give, ``expected.txt``) and a spec pair written into a folder.

A case whose name starts with ``surface-`` also generates both Python packages and
compares them (two generations); the others compare the specs only.
"""

from __future__ import annotations

from pathlib import Path

from generator.diff import format_changes
from generator.diff.command import collect

CASES = Path(__file__).resolve().parent / "cases"


def case_names() -> list[str]:
    """Every golden case, by folder name."""
    return sorted(p.name for p in CASES.iterdir() if (p / "old.yaml").is_file())


def case_output(name: str) -> str:
    """The text report of case ``name``, as ``apismith diff old.yaml new.yaml`` prints it
    (``--no-surface`` unless the case is a ``surface-`` one)."""
    folder = CASES / name
    specs = (str(folder / "old.yaml"), str(folder / "new.yaml"))
    changes = collect(specs, None, None, None, surface=name.startswith("surface-"))
    return format_changes(changes, "text")
