"""Golden refusals: each ``tests/golden/refusals/<case>.yaml`` is input that is not an API
description apismith can generate from (issue 23's "wrong input that exits 0": a YAML file
that is neither OpenAPI nor JSON Schema, ``path:`` typed for ``paths:``). ``apismith
generate`` must exit 2, write nothing, and print exactly ``<case>.txt``: one line naming
the file and the JSON pointer, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, describe, run_cli

REFUSALS = REPO_ROOT / "tests" / "golden" / "refusals"
CASES = sorted(p.stem for p in REFUSALS.glob("*.yaml"))


def test_every_refusal_has_its_expected_line() -> None:
    assert CASES == sorted(p.stem for p in REFUSALS.glob("*.txt")), CASES
    assert len(CASES) >= 2


@pytest.mark.parametrize("case", CASES)
def test_the_refusal_is_exactly_its_golden_line(case: str, tmp_path: Path) -> None:
    spec = tmp_path / f"{case}.yaml"
    spec.write_bytes((REFUSALS / f"{case}.yaml").read_bytes())
    proc = run_cli("generate", "--spec", spec.name, "--out", "out", cwd=tmp_path)
    assert proc.returncode == 2, describe(proc)
    expected = (REFUSALS / f"{case}.txt").read_text(encoding="utf-8")
    assert proc.stderr == expected, describe(proc)
    assert not (tmp_path / "out").exists()
