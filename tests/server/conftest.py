"""Helpers of the server tests: importing the committed packages' server modules, and a
mock server running under uvicorn on 127.0.0.1 with a free port (tests run in parallel)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import httpx
import pytest

from tests.conftest import GENERATED, cli_env

pytest.importorskip("fastapi")

SERVED = {"llm-engine": "llm_engine", "sgp": "sgp"}  # APIs with operations

# Headers that satisfy each API's security (presence only: the mock accepts any value).
AUTH_HEADERS: dict[str, dict[str, str]] = {
    "llm_engine": {"Authorization": "Bearer test-token"},
    "sgp": {"x-api-key": "test-key"},
}


# How long a server may take to start before the test calls it hung: a guard against a
# hang only, never a measure of speed (a loaded machine starts servers slowly, and the
# suite must pass beside two CPU hogs); a server that exits fails at once.
HANG_GUARD = 600.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_modules(package: str) -> tuple[ModuleType, ModuleType]:
    """``<package>.server`` and ``<package>.mock`` of the committed package."""
    import importlib

    if str(GENERATED) not in sys.path:
        sys.path.insert(0, str(GENERATED))
    return importlib.import_module(f"{package}.server"), importlib.import_module(f"{package}.mock")


@contextmanager
def running(
    args: list[str], cwd: Path, log: Path, env: Mapping[str, str] | None = None
) -> Iterator[str]:
    """Start a server process (``args`` get ``--host``/``--port``; output goes to ``log``,
    a file, so that the server never blocks on a full pipe); yield its base URL; stop it."""
    port = free_port()
    out = log.open("w", encoding="utf-8")
    proc = subprocess.Popen(
        [*args, "--host", "127.0.0.1", "--port", str(port)],
        cwd=cwd,
        env=cli_env(env),
        stdout=out,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + HANG_GUARD
        while True:
            if proc.poll() is not None:
                text = log.read_text(encoding="utf-8")
                pytest.fail(f"server exited with {proc.returncode}:\n{text[-3000:]}")
            try:
                httpx.get(f"{url}/openapi.json", timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    pytest.fail(f"server did not start within {HANG_GUARD:.0f} s (a hang)")
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()
            proc.wait()
        out.close()
