"""The golden cases: ``cases/<case>/{old,new}.yaml`` give exactly ``expected.txt`` (the
text report), and together they exercise every rule (the few Python rules no generated
package shows are covered by ``test_surface.py`` with hand-written packages, and the new
API of ``--since`` by ``test_cli.py``).

Refresh them with ``python -m tests.diff.update`` and review the ``git diff``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.diff.rules import RULES
from tests.diff.support import CASES, case_names, case_output

HERE = Path(__file__).resolve().parent
RULE_IN_REPORT = re.compile(r"\[([a-z0-9-]+)\]$", re.MULTILINE)


@pytest.mark.parametrize("name", case_names())
def test_case_output_is_golden(name: str) -> None:
    expected = (CASES / name / "expected.txt").read_bytes()
    assert case_output(name).encode() == expected, f"refresh: python -m tests.diff.update {name}"


def test_every_rule_has_a_case() -> None:
    reported: set[str] = set()
    for name in case_names():
        reported |= set(RULE_IN_REPORT.findall((CASES / name / "expected.txt").read_text()))
    # and the few no golden case can show: checked by name in these tests
    by_hand = " ".join((HERE / name).read_text() for name in ("test_surface.py", "test_cli.py"))
    missing = sorted(r.id for r in RULES if r.id not in reported and f'"{r.id}"' not in by_hand)
    assert not missing, f"rules no case shows: {missing}"
    assert reported <= {r.id for r in RULES}


def test_every_case_has_its_expected_output() -> None:
    folders = sorted(p.name for p in CASES.iterdir() if p.is_dir())
    assert folders == case_names()
    assert all((CASES / name / "expected.txt").is_file() for name in folders)
