"""schemathesis against the running mock server of each API, with the normalized spec.

Positive data for every operation; checks: response schema, status code and content type
conformance, and no server errors. A bounded number of examples per operation keeps the
two runs (in parallel under xdist) well under 3 minutes on 2 cores.

The spec given to schemathesis is ``generated/<package>/openapi.json`` as it is, with no
operation left out: the normalized spec documents the streaming operations'
``text/event-stream`` answers itself (the ``streams`` pass).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import GENERATED, describe
from tests.server.conftest import AUTH_HEADERS, SERVED, running

pytest.importorskip("schemathesis")

MAX_EXAMPLES = 3


@pytest.mark.slow
@pytest.mark.parametrize("package", sorted(SERVED.values()))
def test_schemathesis(package: str, tmp_path: Path) -> None:
    import subprocess

    spec_file = GENERATED / package / "openapi.json"
    st = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or "schemathesis"
    auth = AUTH_HEADERS[package].items()
    headers = [arg for name, value in auth for arg in ("-H", f"{name}: {value}")]
    server = [sys.executable, "-m", f"{package}.server"]
    env = {"PYTHONPATH": str(GENERATED)}
    with running(server, cwd=GENERATED, log=tmp_path / "server.log", env=env) as url:
        proc = subprocess.run(
            [
                st,
                "run",
                str(spec_file),
                "--url",
                url,
                *headers,
                "--mode",
                "positive",
                "--phases",
                "examples,fuzzing",
                "--max-examples",
                str(MAX_EXAMPLES),
                "--checks",
                "not_a_server_error,status_code_conformance,"
                "content_type_conformance,response_schema_conformance",
                # one worker: with threads, CPython 3.11's ast.parse (hypothesis describes
                # its strategies with it) can fail ("AST constructor recursion depth
                # mismatch"), a race outside this project
                "--workers",
                "1",
                "--seed",
                "1",
                "--suppress-health-check",
                "all",
                "--no-color",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert proc.returncode == 0, describe(proc)
