"""The official SDKs from PyPI against ``apismith serve`` (issue 12): openai 2.x on
llm-engine's OpenAI-compatible ``/v2`` routes, scale-llm-engine (``llmengine``) on
llm-engine, scale-gp (``SGPClient``) on sgp.

Each SDK runs in a venv of its own (built once, cached outside the repo: see
``tests/server/sdk_calls/harness.py``) the calls of ``tests/server/sdk_calls/*_calls.py``;
every call must succeed and return data its user can read. The same scripts run against
Prism in ``bench/mock_vs_prism.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.server.conftest import running
from tests.server.sdk_calls.harness import SDKS, failures, run_calls, sdk_python

pytestmark = pytest.mark.slow  # a venv build on the first run; then ~10 s per SDK


def apismith_command() -> list[str]:
    """The real CLI: the ``apismith`` script beside this interpreter (the .venv's)."""
    script = Path(sys.executable).with_name("apismith")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "generator"]


@pytest.fixture(scope="session")
def sdk_venvs() -> Callable[[str], Path]:
    """The SDK venvs' interpreters, by venv name; each built (or found in the cache) when
    first asked for."""
    return cache(sdk_python)


@pytest.mark.parametrize("sdk", sorted(SDKS))
def test_official_sdk_calls(sdk: str, sdk_venvs: Callable[[str], Path], tmp_path: Path) -> None:
    spec = SDKS[sdk]
    python = sdk_venvs(spec.venv)
    command = [*apismith_command(), "serve", spec.api]
    with running(command, cwd=REPO_ROOT, log=tmp_path / "server.log") as url:
        report = run_calls(spec, python, url)
    failed = failures(report)
    versions = ", ".join(f"{k} {v}" for k, v in report.get("versions", {}).items())
    summary = f"{len(failed)} of {len(report['checks'])} calls failed ({versions})"
    if failed:
        pytest.fail("\n".join([summary, *failed]), pytrace=False)
