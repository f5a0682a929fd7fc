"""Running the official SDKs' call scripts (this folder's ``*_calls.py``) against a mock:
the SDKs' venvs, cached outside the repo, the scripts in them, and their JSON reports.

Used by ``tests/server/test_official_sdks.py`` (against ``apismith serve``) and by
``bench/mock_vs_prism.py`` (against ``apismith serve`` and Prism, side by side). This
module runs in apismith's interpreter; the scripts run in the SDKs' venvs and import
nothing from the repo.

The venvs live in ``$APISMITH_TEST_CACHE`` (default ``~/.cache/apismith-tests``), one per
requirement list, named by a hash of the list and the interpreter's version, so a change
of either builds a new one and reruns reuse it. Building takes a file lock (parallel test
workers, a test beside the benchmark) and ends by writing ``.complete``: a venv without it
(an interrupted build) is built again.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# Requirement lists, one venv each. scale-llm-engine needs openai<2, so it has its own.
VENVS: dict[str, tuple[str, ...]] = {
    "openai-scale-gp": ("openai>=2,<3", "scale-gp==0.1.0a62"),
    "llmengine": ("scale-llm-engine==0.0.0b45",),
}


@dataclass(frozen=True)
class Sdk:
    name: str
    venv: str  # a key of VENVS
    script: str  # a file of this folder
    api: str  # the apismith API it calls (`apismith serve API`)
    checks: tuple[str, ...]  # the checks the script reports, in order


_OPENAI = (
    "chat.completions.create",
    "chat.completions.create stream",
    "completions.create",
    "completions.create stream",
)

SDKS: dict[str, Sdk] = {
    "openai": Sdk(
        "openai",
        "openai-scale-gp",
        "openai_calls.py",
        "llm-engine",
        tuple(f"openai {c}{s}" for s in ("", " [strict]") for c in _OPENAI),
    ),
    "llmengine": Sdk(
        "llmengine",
        "llmengine",
        "llmengine_calls.py",
        "llm-engine",
        tuple(
            f"llmengine {c}"
            for c in (
                "Completion.create",
                "Completion.acreate",
                "Completion.create stream",
                "Model.list",
                "File.list",
                "FineTune.list",
            )
        ),
    ),
    "scale-gp": Sdk(
        "scale-gp",
        "openai-scale-gp",
        "scale_gp_calls.py",
        "sgp",
        tuple(
            f"scale-gp {c}"
            for c in (
                "chat_completions.create",
                "chat_completions.create stream",
                "completions.create",
                "completions.create stream",
                "evaluations.update",
                "knowledge_bases.list",
                "models.list",
                "evaluations.list",
            )
        ),
    ),
}

PIP_TIMEOUT = 900.0  # one pip install of an SDK and its dependencies
SCRIPT_TIMEOUT = 300.0  # one script, all its calls (each call: 60 s at most)
CHECK_TIMEOUT = 60.0

# Variables an SDK reads that must not leak into the scripts from the caller's shell (pip's
# own settings and proxies stay: pip may need them).
_DROP_PREFIXES = ("OPENAI_", "SGP_", "LLM_ENGINE_", "SCALE_", "PYTHON")
_DROP = {"VIRTUAL_ENV", "APISMITH_DEBUG"}


def cache_root() -> Path:
    return Path(os.environ.get("APISMITH_TEST_CACHE") or Path.home() / ".cache/apismith-tests")


def sdk_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A clean environment for pip and the scripts: no SDK settings, no repo on the path."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in _DROP and k.upper() not in _DROP and not k.startswith(_DROP_PREFIXES)
    }
    no_proxy = ",".join(filter(None, [env.get("NO_PROXY", env.get("no_proxy")), "127.0.0.1"]))
    env["NO_PROXY"] = env["no_proxy"] = no_proxy  # the mocks are local
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["LLM_ENGINE_DISABLE_VERSION_CHECK"] = "true"  # else importing llmengine asks PyPI
    env.update(extra or {})
    return env


def venv_dir(name: str) -> Path:
    requirements = VENVS[name]
    key = json.dumps([sys.implementation.name, sys.version_info[:2], requirements])
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    return cache_root() / "sdk-venvs" / f"{name}-{digest}"


def _run(argv: Sequence[str | Path], timeout: float) -> None:
    proc = subprocess.run(
        [str(a) for a in argv],
        cwd=tempfile.gettempdir(),
        env=sdk_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"{' '.join(map(str, argv))}: exit {proc.returncode}\n"
            f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )


def sdk_python(name: str) -> Path:
    """The interpreter of the venv ``name`` (a key of :data:`VENVS`), built if needed."""
    root = venv_dir(name)
    python = root / "bin" / "python"
    if (root / ".complete").is_file():
        return python
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.with_name(root.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if (root / ".complete").is_file():  # built by another process meanwhile
            return python
        shutil.rmtree(root, ignore_errors=True)
        _run([sys.executable, "-m", "venv", root], timeout=PIP_TIMEOUT)
        _run([python, "-m", "pip", "install", "-q", *VENVS[name]], timeout=PIP_TIMEOUT)
        frozen = subprocess.run(
            [python, "-m", "pip", "freeze"], capture_output=True, text=True, timeout=120
        ).stdout
        (root / ".complete").write_text(frozen, encoding="utf-8")
    return python


def run_calls(sdk: Sdk, python: Path, base_url: str) -> dict[str, Any]:
    """Run ``sdk``'s script with ``python`` against ``base_url``; its report, with every
    check of ``sdk.checks`` (one the script did not report: failed, with why)."""
    argv = [str(python), str(HERE / sdk.script), base_url, "--check-timeout", str(CHECK_TIMEOUT)]
    problem = None
    report: dict[str, Any] = {"sdk": sdk.name, "versions": {}, "checks": []}
    try:
        proc = subprocess.run(
            argv,
            cwd=tempfile.gettempdir(),
            env=sdk_env(),
            capture_output=True,
            text=True,
            timeout=SCRIPT_TIMEOUT,
            check=False,
        )
        try:
            report = json.loads(proc.stdout)
        except json.JSONDecodeError:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            problem = f"the script failed (exit {proc.returncode}): {tail}"
    except subprocess.TimeoutExpired:
        problem = f"the script did not finish within {SCRIPT_TIMEOUT:.0f} s"
    found = {c["name"]: c for c in report.get("checks", [])}
    report["checks"] = [
        found.get(name)
        or {"name": name, "ok": False, "error": problem or "not reported by the script"}
        for name in sdk.checks
    ] + [c for name, c in found.items() if name not in sdk.checks]
    return report


def failures(report: Mapping[str, Any]) -> list[str]:
    return [f"{c['name']}: {c['error']}" for c in report["checks"] if not c["ok"]]


# --- servers ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(
    argv: Sequence[str | Path],
    port: int,
    log: Path,
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    startup: float = 90.0,
) -> Iterator[str]:
    """Start ``argv`` (a server that listens on 127.0.0.1:``port``; output to ``log``),
    wait until it answers HTTP (any status), yield its URL; stop it (its process group)."""
    import httpx

    url = f"http://127.0.0.1:{port}"
    out = log.open("w", encoding="utf-8")
    proc = subprocess.Popen(
        [str(a) for a in argv],
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own group: stopped below, whatever stops the caller
    )
    try:
        deadline = time.monotonic() + startup
        while True:
            if proc.poll() is not None:
                tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
                raise RuntimeError(f"{argv[0]} exited with {proc.returncode}:\n{tail}")
            try:
                httpx.get(url + "/", timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{argv[0]} did not start within {startup:.0f} s") from None
                time.sleep(0.25)
        yield url
    finally:
        _stop(proc)
        out.close()


def _stop(proc: subprocess.Popen[Any]) -> None:
    """SIGTERM to the server's process group (while its leader lives, the group is surely
    the one started here), then SIGKILL to the server if it is still there."""
    import signal

    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:  # pragma: no cover
            pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
