"""scale-gp's own test suite as the judge of our drop-in client (issue 25).

``bench/scale_gp_suite.py`` runs scale-gp 0.1.0a62's ``tests/api_resources`` against
``apismith serve sgp``: unchanged with the official client (A), and adapted mechanically to
ours (B). Ours must pass every test the official client passes, except the failures that
``tests/data/scale_gp_suite_allowed.json`` explains (our spec is older than scale-gp: no
such route or parameter); an allow-list entry that explains no failure any more must go.
The sdist, a venv with the wheel and the suite's test dependencies, and the runs live in
the harness's cache (``~/.cache/apismith-scale-gp``); the test skips when the package
registry cannot be reached for what is not cached yet.

    .venv/bin/python -m pytest tests/client/test_scale_gp_suite.py -m slow
    .venv/bin/python bench/scale_gp_suite.py        # the same, with the full report
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.slow  # a venv (built once, cached), two runs of ~4,800 tests

# A guard against a vacuous comparison (the official client passed 2,283 at 61e53e9): far
# fewer means the harness or the mock broke, not that ours got better.
MIN_A_PASSED = 2000
# Measured 2026-12-06: A passes 2,283; B passes 2,100 of them; the 183 others are each on
# the allow-list (tests/data/scale_gp_suite_allowed.json: our spec is older than scale-gp
# 0.1.0a62 and lacks the route, the parameter or the type), none unexplained.


def _load() -> ModuleType:
    path = REPO_ROOT / "bench" / "scale_gp_suite.py"
    spec = importlib.util.spec_from_file_location("bench_scale_gp_suite", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    suite = _load()
    try:
        return suite.run_suite(jobs=2)
    except suite.RegistryUnreachable as exc:
        pytest.skip(f"the package registry is unreachable: {str(exc)[:300]}")


def test_official_client_passes_the_suite(report: dict[str, Any]) -> None:
    """The judge itself works: the official client passes most of the suite against our
    mock, and the adaptation ran (every rewrite fired; see bench/scale_gp_adapt.py)."""
    assert report["compare"]["passed_A"] >= MIN_A_PASSED, report["sides"]["A"]["counts"]
    assert all(report["adaptation"]["rewrites"].values()), report["adaptation"]["rewrites"]


def test_allow_list_is_current(report: dict[str, Any]) -> None:
    assert not report["compare"]["stale_allowed"], "allow-list entries that explain no failure"


def test_ours_passes_every_test_scale_gp_passes(report: dict[str, Any]) -> None:
    cmp = report["compare"]
    rows = [r for f in cmp["families"] for r in f["classes"] if not r["allowed"]]
    summary = [f"{r['count']} {r['class'][:200]} (e.g. {r['examples'][0]})" for r in rows[:10]]
    assert not cmp["unexplained"], (
        f"B passes {cmp['intersection']} of the {cmp['passed_A']} tests A passes; "
        f"{len(cmp['unexplained'])} of the others are not on the allow-list:\n" + "\n".join(summary)
    )
