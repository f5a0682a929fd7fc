"""Shared helpers for the end-to-end tests: the repo root, the CLI in a subprocess, real
payload cases, and importing a generated package from any directory.

Tests that run the CLI never write into the repo's ``generated/`` or ``specs/``: they pass
``--out`` into ``tmp_path`` (tests run in parallel under pytest-xdist).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SPECS = REPO_ROOT / "specs"
GENERATED = REPO_ROOT / "generated"
PAYLOADS = REPO_ROOT / "tests" / "real_payloads.jsonl"

# The committed packages: config stem -> package name.
PACKAGES = {"llm-engine": "llm_engine", "sgp": "sgp", "sgp-chat-request": "sgp_chat_request"}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: takes more than ~20 s (deselect with -m 'not slow')")


# --- the CLI in a subprocess ---------------------------------------------------------------


def cli_env(extra: Mapping[str, str] | None = None, *, repo_on_path: bool = True) -> dict[str, str]:
    """The environment of a CLI subprocess: no APISMITH_DEBUG (we test the friendly output)."""
    env = {k: v for k, v in os.environ.items() if k not in ("APISMITH_DEBUG", "PYTHONPATH")}
    if repo_on_path:
        # works with or without the editable install
        env["PYTHONPATH"] = str(REPO_ROOT)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra or {})
    return env


def run_cli(
    *args: str | Path,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """``python -m generator ARGS`` in ``cwd``; never raises on a non-zero exit."""
    return subprocess.run(
        [sys.executable, "-m", "generator", *map(str, args)],
        cwd=cwd,
        env=cli_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run_python(
    code: str, *args: str, cwd: Path, env: Mapping[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``python -c CODE ARGS`` in ``cwd`` with a clean environment (repo not on the path)."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=cli_env(env, repo_on_path=False),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def describe(proc: subprocess.CompletedProcess[str]) -> str:
    """A readable dump of a finished process, for assertion messages."""
    return (
        f"exit {proc.returncode}\n--- stdout ---\n{proc.stdout[-4000:]}"
        f"\n--- stderr ---\n{proc.stderr[-4000:]}"
    )


def error_lines(stderr: str) -> list[str]:
    """The non-empty lines of stderr."""
    return [line for line in stderr.splitlines() if line.strip()]


def write_json(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative posix path -> bytes), skipping caches."""
    if not root.exists():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


# --- a tiny spec, for tests that need any valid input -------------------------------------


def small_spec() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Pets", "version": "1.2.3"},
        "paths": {},
        "components": {
            "schemas": {
                "Pet": {
                    "type": "object",
                    "description": "A pet.",
                    "properties": {
                        "name": {"type": "string", "description": "The pet's name."},
                        "kind": {"type": "string", "enum": ["cat", "dog"]},
                        "age": {"type": "integer", "minimum": 0},
                        "born": {"type": "string", "format": "date-time"},
                    },
                    "required": ["name"],
                }
            }
        },
    }


# --- importing a generated package -----------------------------------------------------------


def import_package(package_dir: Path, name: str) -> ModuleType:
    """Import the package at ``package_dir`` as ``name`` (kept in ``sys.modules``)."""
    if name in sys.modules:
        module = sys.modules[name]
        if Path(str(module.__file__)).resolve().parent == package_dir.resolve():
            return module
        raise RuntimeError(f"{name} already imported from {module.__file__}")
    spec = importlib.util.spec_from_file_location(
        name, package_dir / "__init__.py", submodule_search_locations=[str(package_dir)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]
        raise
    return module


# --- real payloads ---------------------------------------------------------------------------


def load_payload_cases() -> list[dict[str, Any]]:
    """Every case of ``tests/real_payloads.jsonl``, in file order."""
    with PAYLOADS.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _params(cases: Sequence[dict[str, Any]]) -> list[Any]:
    return [pytest.param(case, id=case["id"]) for case in cases]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``real_case``: a spec_valid payload case; ``invalid_case``: a spec_valid false one."""
    if "real_case" in metafunc.fixturenames or "invalid_case" in metafunc.fixturenames:
        cases = load_payload_cases()
    if "real_case" in metafunc.fixturenames:
        metafunc.parametrize("real_case", _params([c for c in cases if c["spec_valid"]]))
    if "invalid_case" in metafunc.fixturenames:
        metafunc.parametrize("invalid_case", _params([c for c in cases if not c["spec_valid"]]))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def wheel_apismith(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A venv with apismith installed from its wheel (:func:`tests.e2e_support.wheel_venv`),
    shared by the xdist workers of the run."""
    from tests.e2e_support import wheel_venv

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    return wheel_venv(shared / "shared")
