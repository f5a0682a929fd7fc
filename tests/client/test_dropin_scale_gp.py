"""Our ``SgpClient`` as a drop-in for scale-gp's ``SGPClient`` (issue 13).

The call lines of ``tests/client/dropin/scale_gp_lines.py`` (lists, retrieves, creates,
updates, deletes, nested resources, streams, raw and streaming responses), written as a
scale-gp user writes them, run unchanged with both clients against ``apismith serve sgp``
(``tests/client/dropin/run_lines.py``). Both run in the SDK venv of
``tests/server/sdk_calls/harness.py`` (``scale-gp==0.1.0a62`` from PyPI, with the httpx and
pydantic our package needs; ours imported from ``generated/``).

Ours must pass every line scale-gp passes, and send what scale-gp sent for it (method,
path, query, JSON body: a line that passes by calling another endpoint does not count).
scale-gp itself must pass nearly all lines: a line it fails is a fault of the mock (or of
the spec the mock serves) or of the line.
A second test type-checks every line against scale-gp's own annotations (mypy, with the
SDK venv's packages), so that each is a valid scale-gp call.

    .venv/bin/python -m pytest tests/client/test_dropin_scale_gp.py -m slow
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.client.dropin.scale_gp_lines import LINES
from tests.conftest import GENERATED, REPO_ROOT
from tests.server.conftest import running
from tests.server.sdk_calls.harness import sdk_env, sdk_python
from tests.server.test_official_sdks import apismith_command

pytestmark = pytest.mark.slow  # the SDK venv (built once, cached), a server, two runs

DROPIN = Path(__file__).resolve().parent / "dropin"
VENV = "openai-scale-gp"  # a key of harness.VENVS
SIDES = ("scale_gp", "apismith")
MIN_LINES = 40
KINDS = {"list", "retrieve", "create", "update", "delete", "nested", "stream", "raw"}
MIN_SCALE_GP_SHARE = 0.9  # of the lines, that scale-gp must pass against the mock
RUN_TIMEOUT = 600.0


@pytest.fixture(scope="module")
def sdk_venv() -> Callable[[], Path]:
    return cache(lambda: sdk_python(VENV))


def run_side(python: Path, side: str, url: str) -> list[dict[str, Any]]:
    """Every line's result with the client ``side``; a line the runner did not report
    (it crashed, or timed out): failed, with the runner's last words."""
    argv = [python, DROPIN / "run_lines.py", "--client", side, "--base-url", url]
    argv += ["--generated", GENERATED]
    try:
        proc = subprocess.run(
            [str(a) for a in argv],
            cwd=tempfile.gettempdir(),
            env=sdk_env(),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
        out, why = proc.stdout, (proc.stderr.strip().splitlines() or ["no output"])[-1]
    except subprocess.TimeoutExpired as exc:
        partial = exc.stdout or b""  # bytes, even with text=True
        out = partial.decode(errors="replace") if isinstance(partial, bytes) else partial
        why = f"the runner did not finish within {RUN_TIMEOUT:.0f} s"
    found = {}
    for text in out.splitlines():
        try:
            result = json.loads(text)
        except json.JSONDecodeError:  # something else printed to stdout
            continue
        found[result["index"]] = result
    missing = {"ok": False, "error_type": "NotRun", "error": why}
    return [
        found.get(i) or {"index": i, "code": line.code, **missing} for i, line in enumerate(LINES)
    ]


def drop_in(theirs: dict[str, Any], ours: dict[str, Any]) -> dict[str, Any]:
    """``ours``, failed when it passed but sent other requests than ``theirs``."""
    if ours["ok"] and ours["requests"] != theirs["requests"]:
        error = f"sent {ours['requests']}, scale-gp sent {theirs['requests']}"
        return {**ours, "ok": False, "error_type": "RequestDiffers", "error": error}
    return ours


def cause(result: dict[str, Any]) -> str:
    """A failure's likely cause, to group the report by."""
    error, kind = result["error"], result["error_type"]
    if kind == "RequestDiffers":
        return "passes, but calls another endpoint or sends other arguments"
    if kind == "AttributeError":
        if "'function' object has no attribute" in error:
            return "sub-resource is a method on ours, not a resource"
        if m := re.search(r"(\w+)' object has no attribute '(with_\w+_response)'", error):
            return f"missing {m[2]} ({'client' if m[1] == 'SgpClient' else 'resource'} level)"
        if m := re.search(r"'SgpClient' object has no attribute '(\w+)'", error):
            return f"missing client attribute: c.{m[1]}"
        return "missing method or sub-resource"
    if kind == "TypeError":
        if "positional argument" in error:
            return "path parameter not positional"
        if "unexpected keyword argument" in error:
            return "keyword argument not accepted"
    return kind


def table(results: dict[str, list[dict[str, Any]]], indexes: list[int]) -> list[str]:
    by_cause: dict[str, list[str]] = defaultdict(list)
    for i in indexes:
        ours = results["apismith"][i]
        by_cause[cause(ours)].append(f"    [{i}] {LINES[i].code}\n        {ours['error'][:300]}")
    return [f"  {name} ({len(rows)}):\n" + "\n".join(rows) for name, rows in by_cause.items()]


def test_lines_cover_the_issue() -> None:
    assert len(LINES) >= MIN_LINES
    assert {line.kind for line in LINES} >= KINDS
    assert len({line.code for line in LINES}) == len(LINES), "a line is there twice"


def test_ours_passes_every_line_scale_gp_passes(
    sdk_venv: Callable[[], Path], tmp_path: Path
) -> None:
    python = sdk_venv()
    with running([*apismith_command(), "serve", "sgp"], REPO_ROOT, tmp_path / "server.log") as url:
        results = {side: run_side(python, side, url) for side in SIDES}
    theirs = results["scale_gp"]
    ours = results["apismith"] = [drop_in(t, o) for t, o in zip(theirs, results["apismith"])]
    sgp_fails = [r for r in theirs if not r["ok"]]
    regressions = [r["index"] for r in theirs if r["ok"] and not ours[r["index"]]["ok"]]
    problems = []
    if len(theirs) - len(sgp_fails) < MIN_SCALE_GP_SHARE * len(LINES):
        rows = [
            f"  [{r['index']}] {r['code']}\n    {r['error_type']}: {r['error']}" for r in sgp_fails
        ]
        problems.append(
            f"scale-gp itself fails {len(sgp_fails)} of {len(LINES)} lines against the mock:\n"
            + "\n".join(rows)
        )
    if regressions:
        problems.append(
            f"ours fails {len(regressions)} of the {len(theirs) - len(sgp_fails)} lines "
            f"scale-gp passes ({len(LINES)} lines), by cause:\n"
            + "\n".join(table(results, regressions))
        )
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)


def test_lines_are_valid_scale_gp_calls(sdk_venv: Callable[[], Path], tmp_path: Path) -> None:
    """mypy, with the SDK venv's packages, on a function holding every line with ``c`` an
    ``SGPClient``: a wrong method name, a missing required argument or a wrong type fails."""
    pytest.importorskip("mypy")
    body = ["    seen: list[Any] = []"]
    for i, line in enumerate(LINES):
        code = line.code.replace(" r = ", f" r{i} = ")
        try:
            compile(code, "<line>", "eval")
            code = f"r{i} = {code}"
        except SyntaxError:  # a statement
            pass
        body.append(f"    {code}  # line {i}")
    source = "from typing import Any\n\nfrom scale_gp import SGPClient\n\n\n"
    source += "def lines(c: SGPClient) -> None:\n" + "\n".join(body) + "\n"
    module = tmp_path / "scale_gp_lines_typed.py"
    module.write_text(source, encoding="utf-8")
    argv = [sys.executable, "-m", "mypy", "--python-executable", sdk_venv(), "--no-incremental"]
    argv += ["--follow-imports=silent", "--cache-dir", tmp_path / ".mypy_cache", module]
    proc = subprocess.run(
        [str(a) for a in argv], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
