"""Refresh the golden outputs: ``python -m tests.diff.update [CASE...]`` rewrites
``tests/diff/cases/<case>/expected.txt`` from what ``apismith diff`` prints now (every
case when none is named), and the rule table of ``docs/diff.md`` from
``generator.diff.rules``. Review the result with ``git diff`` before committing it."""

from __future__ import annotations

import sys
from pathlib import Path

from generator.diff.rules import rules_table
from tests.diff.support import CASES, case_names, case_output

DOCS = Path(__file__).resolve().parents[2] / "docs" / "diff.md"
TABLE_HEADER = "| rule | level | side |"


def with_table(text: str) -> str:
    """``text`` (docs/diff.md) with its rule table replaced by the current one."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(TABLE_HEADER))
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return "".join(lines[:start]) + rules_table() + "".join(lines[end:])


def main(names: list[str]) -> None:
    for name in names or case_names():
        target = CASES / name / "expected.txt"
        text = case_output(name)
        changed = not target.is_file() or target.read_text(encoding="utf-8") != text
        target.write_text(text, encoding="utf-8", newline="\n")
        print(f"{name}: {'updated' if changed else 'unchanged'}")
    docs = DOCS.read_text(encoding="utf-8")
    if with_table(docs) != docs:
        DOCS.write_text(with_table(docs), encoding="utf-8", newline="\n")
        print("docs/diff.md: rule table updated")


if __name__ == "__main__":
    main(sys.argv[1:])
