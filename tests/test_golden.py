"""Golden tests: every case under ``tests/golden/`` generates exactly its ``expected/``.

The expected output is committed; regenerate it with ``make golden`` after an intended
change and review the diff. Besides the byte comparison, the generated packages must
import (in a fresh interpreter, every model fully built) and their committed models must
pass ``ruff check``, ``ruff format --check`` and ``mypy --strict``.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.pipeline import Generated
from generator.write import write_package
from tests.golden.harness import (
    EXPECTED,
    HINT,
    case_config,
    case_dir,
    case_names,
    diff_files,
    expected_files,
    generate_case,
    read_expected,
)

CASES = case_names()


@functools.cache
def generated(case: str) -> Generated:
    """One generation per case and test process (the comparison and import tests share it)."""
    return generate_case(case)


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "APISMITH_DEBUG")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def tail(text: str, lines: int) -> str:
    """The last ``lines`` lines of a process's output."""
    kept = text.rstrip().splitlines()
    cut = len(kept) - lines
    return "\n".join(([f"... ({cut} lines before)"] if cut > 0 else []) + kept[-lines:])


def test_cases_exist() -> None:
    assert len(CASES) >= 10, CASES


@pytest.mark.parametrize("case", CASES)
def test_golden_output(case: str) -> None:
    expected = read_expected(case)
    assert expected, f"{case}: no {case_dir(case) / EXPECTED}; {HINT}"
    actual = expected_files(generated(case))
    same = actual == expected
    assert same, (
        f"{case}: generated output differs from tests/golden/{case}/{EXPECTED}/; {HINT}\n"
        + diff_files(expected, actual)
    )


# Import the package under its own name in a fresh interpreter, with every pydantic
# warning an error, then fully build every model and type alias (a forward reference that
# never resolves only fails here, not at import).
IMPORT_CHECK = """
import importlib, sys, warnings
warnings.simplefilter("error")
from pydantic import BaseModel, TypeAdapter
name = sys.argv[1]
package = importlib.import_module(name)
models = importlib.import_module(name + ".models")
built = 0
for attr, value in sorted(vars(models).items()):
    if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == models.__name__:
        value.model_rebuild(force=True)
        value.model_json_schema()
        built += 1
    elif type(value).__name__ == "TypeAliasType" and getattr(value, "__module__", None) == models.__name__:
        TypeAdapter(value).json_schema()
        built += 1
print(f"{name}: {built} models and aliases built")
"""


@pytest.mark.parametrize("case", CASES)
def test_golden_imports(case: str, tmp_path: Path) -> None:
    result = generated(case)
    package = result.config.package
    write_package(tmp_path / package, result.files, verify=False)
    proc = subprocess.run(
        [sys.executable, "-c", IMPORT_CHECK, package],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    ok = proc.returncode == 0
    message = f"{case}: generated package {package} does not import cleanly:\n"
    assert ok, message + tail(proc.stderr + proc.stdout, 40)


@pytest.fixture(scope="module")
def expected_packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every case's committed ``expected/`` package files copied into ``<tmp>/<package>/``."""
    root = tmp_path_factory.mktemp("golden-packages")
    for case in CASES:
        source = case_dir(case) / EXPECTED
        if not (source / "models.py").is_file():
            continue
        target = root / case_config(case).package
        target.mkdir()
        for path in sorted(source.rglob("*")):
            name = path.relative_to(source)
            if name.parts[0] != "docs" and (path.suffix == ".py" or path.name == "py.typed"):
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target / name)  # the package and its resources/
    if not any(root.iterdir()):
        pytest.fail(f"no golden case has an expected/models.py; {HINT}")
    return root


CHECKS = ("mypy-strict", "ruff-check", "ruff-format")


def check_command(check: str, root: Path, work: Path) -> list[str]:
    """The command line of one check over every package under ``root``."""
    from generator.format import ruff_binary

    if check == "ruff-check":
        return [ruff_binary(), "check", "--isolated", "--no-cache", "."]
    if check == "ruff-format":
        return [ruff_binary(), "format", "--isolated", "--no-cache", "--check", "."]
    # mypy once over all packages together; an empty config so the repo's is not used
    config = work / "mypy.ini"
    config.write_text("[mypy]\n", encoding="utf-8")
    packages = sorted(p.name for p in root.iterdir() if p.is_dir())
    return [
        sys.executable, "-m", "mypy", "--strict", "--python-version", "3.10",
        "--config-file", str(config), "--cache-dir", str(work / "cache"), *packages,
    ]  # fmt: skip


@pytest.mark.parametrize("check", CHECKS)
def test_golden_models_lint(check: str, expected_packages: Path, tmp_path: Path) -> None:
    command = check_command(check, expected_packages, tmp_path)
    proc = subprocess.run(
        command,
        cwd=expected_packages,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    ok = proc.returncode == 0
    assert ok, (
        f"{check} fails on the committed golden models (in tests/golden/*/{EXPECTED}/):\n"
        + tail(proc.stdout + proc.stderr, 80)
    )
