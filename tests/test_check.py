"""The drift check (``apismith check``) on a tiny project in a temp dir: clean output passes;
any edited, extra or missing file, or a changed spec, fails with exit 1 and names the file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import (
    REPO_ROOT,
    cli_env,
    describe,
    error_lines,
    run_cli,
    small_spec,
    write_json,
)
from tests.e2e_support import run_measured

PACKAGE_FILES = ["__init__.py", "models.py", "openapi.json", "py.typed", "MANIFEST.json"]


def make_project(root: Path) -> Path:
    """A project with one configured API (specs/pets.toml); generated; returns its root."""
    write_json(root / "specs" / "pets" / "openapi.json", small_spec())
    (root / "specs" / "pets.toml").write_text(
        '[api]\npackage = "pets"\ntitle = "Pets"\nspec = "pets/openapi.json"\n', encoding="utf-8"
    )
    proc = run_cli("generate", cwd=root)
    assert proc.returncode == 0, describe(proc)
    assert (root / "generated" / "pets" / "models.py").is_file()
    return root


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("check-template"))


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Path:
    """A private copy of the generated project."""
    root = tmp_path / "project"
    shutil.copytree(template, root)
    return root


def flip_one_byte(path: Path) -> None:
    """Change exactly one byte (an ASCII letter in the middle becomes another); append one
    byte to an empty file."""
    data = bytearray(path.read_bytes())
    if not data:
        path.write_bytes(b"\n")
        return
    middle = len(data) // 2
    index = next(i for i in [*range(middle, len(data)), *range(middle)] if chr(data[i]).isalpha())
    data[index] = ord("x") if data[index] != ord("x") else ord("y")
    path.write_bytes(bytes(data))


def assert_drift(text: str, proc: subprocess.CompletedProcess[str], *names: str) -> None:
    """Each of ``names`` appears in ``text`` (some of the process's output)."""
    for name in names:
        assert name in text, f"{name} not named\n{describe(proc)}"


def test_clean_project_passes(project: Path) -> None:
    proc = run_cli("check", cwd=project)
    assert proc.returncode == 0, describe(proc)
    assert "up to date" in proc.stdout
    assert proc.stderr == ""


@pytest.mark.parametrize("name", PACKAGE_FILES)
def test_one_byte_edit_is_caught(project: Path, name: str) -> None:
    target = project / "generated" / "pets" / name
    before = target.read_bytes()
    flip_one_byte(target)
    assert target.read_bytes() != before
    proc = run_cli("check", cwd=project)
    assert proc.returncode == 1, describe(proc)
    assert "Traceback" not in proc.stderr
    drifted = [line for line in error_lines(proc.stderr) if "drifted:" in line]
    assert any(line.endswith(f"/{name}") for line in drifted), describe(proc)
    # the check never repairs anything
    assert target.read_bytes() != before


def test_extra_file_is_caught(project: Path) -> None:
    (project / "generated" / "pets" / "notes.py").write_text("# mine\n", encoding="utf-8")
    proc = run_cli("check", cwd=project)
    assert proc.returncode == 1, describe(proc)
    assert_drift(proc.stdout + proc.stderr, proc, "notes.py")


@pytest.mark.parametrize("name", ["models.py", "py.typed", "MANIFEST.json"])
def test_deleted_file_is_caught(project: Path, name: str) -> None:
    (project / "generated" / "pets" / name).unlink()
    proc = run_cli("check", cwd=project)
    assert proc.returncode == 1, describe(proc)
    assert_drift(proc.stdout + proc.stderr, proc, name)


def test_changed_spec_is_caught_with_a_summary_and_a_diff(project: Path) -> None:
    spec_path = project / "specs" / "pets" / "openapi.json"
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    spec["components"]["schemas"]["Pet"]["properties"]["colour"] = {
        "type": "string",
        "description": "Fur colour.",
    }
    write_json(spec_path, spec)
    proc = run_cli("check", cwd=project)
    assert proc.returncode == 1, describe(proc)
    # a summary, and the command that prints the diff instead of the diff
    assert "@@" not in proc.stdout, describe(proc)
    assert_drift(proc.stdout, proc, "models.py", "openapi.json", "MANIFEST.json")
    assert proc.stdout.endswith("run `apismith check --diff` for the full diff\n"), describe(proc)
    assert_drift(proc.stderr, proc, "models.py", "openapi.json", "MANIFEST.json")
    # --diff adds the unified diff
    proc = run_cli("check", "--diff", cwd=project)
    assert proc.returncode == 1, describe(proc)
    out = proc.stdout
    assert "--- " in out and "+++ " in out and "@@" in out, describe(proc)
    added = [line for line in out.splitlines() if line.startswith("+") and "colour" in line]
    assert added, f"the diff does not show the new field\n{describe(proc)}"
    # --quiet leaves the summary and the diff out but still fails and names the files
    quiet = run_cli("check", "--quiet", cwd=project)
    assert quiet.returncode == 1 and quiet.stdout == "", describe(quiet)
    assert_drift(quiet.stderr, quiet, "models.py")


def test_changed_config_is_caught(project: Path) -> None:
    config = project / "specs" / "pets.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('"Pets"', '"Pet store"'))
    proc = run_cli("check", cwd=project)
    assert proc.returncode == 1, describe(proc)


def test_check_from_a_repo_that_vendors_the_output(tmp_path: Path) -> None:
    """Another repo keeps only the spec and the generated package, in its own layout."""
    upstream = tmp_path / "upstream"
    write_json(upstream / "pets.json", small_spec())
    made = run_cli(
        "generate", "--spec", "pets.json", "--out", "build/pets", "--package", "pets", cwd=upstream
    )
    assert made.returncode == 0, describe(made)

    vendor = tmp_path / "vendor"
    (vendor / "contracts").mkdir(parents=True)
    shutil.copy(upstream / "pets.json", vendor / "contracts" / "pets.json")
    shutil.copytree(upstream / "build" / "pets", vendor / "src" / "thirdparty" / "pets")
    args = ["--spec", "contracts/pets.json", "--out", "src/thirdparty/pets", "--package", "pets"]

    proc = run_cli("check", *args, cwd=vendor)
    assert proc.returncode == 0, describe(proc)

    # the same check from an unrelated directory, with absolute paths
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    absolute = [
        "--spec",
        str(vendor / "contracts" / "pets.json"),
        "--out",
        str(vendor / "src" / "thirdparty" / "pets"),
        "--package",
        "pets",
    ]
    proc = run_cli("check", *absolute, cwd=elsewhere)
    assert proc.returncode == 0, describe(proc)

    models = vendor / "src" / "thirdparty" / "pets" / "models.py"
    models.write_text(models.read_text(encoding="utf-8") + "\n# local patch\n", encoding="utf-8")
    proc = run_cli("check", "--diff", *args, cwd=vendor)
    assert proc.returncode == 1, describe(proc)
    assert_drift(proc.stdout + proc.stderr, proc, "models.py", "local patch")


def test_check_without_generated_output(project: Path) -> None:
    shutil.rmtree(project / "generated")
    proc = run_cli("check", cwd=project)
    assert proc.returncode == 1, describe(proc)
    assert "Traceback" not in proc.stderr
    assert_drift(proc.stderr, proc, "models.py")


def test_noop_check_on_the_repo_is_fast(record_property: Callable[[str, object], None]) -> None:
    """On the committed tree the check is up to date (exit 0) and takes the fast path: the
    manifests vouch for every API, nothing is regenerated. Bounded in CPU time (a
    regeneration costs well over 10 CPU-s; the fast path about 0.5), not wall-clock time."""
    proc = run_measured(
        [sys.executable, "-m", "generator", "check", "--quiet"],
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT)},
    )
    record_property("cpu_seconds", round(proc.cpu_seconds, 3))
    print(f"apismith check on the repo: exit {proc.returncode}, {proc.cpu_seconds:.2f} CPU-s")
    assert "Traceback" not in proc.stderr, proc.describe()
    assert proc.returncode == 0, proc.describe()
    assert proc.cpu_seconds < 5, proc.describe()


# what the fast path may import: none of the pipeline, nor what it runs on
NOT_ON_THE_FAST_PATH = (
    "generator.normalize",
    "generator.load",
    "generator.ir",
    "generator.render",
    "generator.pipeline",
    "generator.format",
    "jinja2",
    "datamodel_code_generator",
    "pydantic",
    "httpx",
    "fastapi",
    "difflib",
    "importlib.metadata",
)


def importtime_check(project: Path, *args: str) -> tuple[set[str], str]:
    """The modules ``apismith check ARGS`` imports in ``project`` (up to date), and its
    output. What it imports is read from ``python -X importtime``."""
    for _attempt in range(3):  # (an edit of apismith's own source meanwhile is drift)
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "generator", "check", *args],
            cwd=project,
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if proc.returncode == 0:
            break
        assert run_cli("generate", cwd=project).returncode == 0
    assert proc.returncode == 0 and "up to date" in proc.stdout, describe(proc)
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert {"generator.check", "generator.manifest"} <= imported, describe(proc)
    return imported, proc.stdout


def heavy(imported: set[str]) -> list[str]:
    return sorted(
        name
        for name in imported
        for banned in NOT_ON_THE_FAST_PATH
        if name == banned or name.startswith(banned + ".")
    )


@pytest.mark.parametrize("args", [[], ["pets"], ["--jobs", "1"]], ids=["plain", "named", "option"])
def test_the_fast_path_imports_nothing_heavy(project: Path, args: list[str]) -> None:
    """A no-op check reads the config, the manifest and hashes; the pipeline (and
    jinja2, datamodel-code-generator, pydantic) is imported only once something differs.
    Without options, the check is answered before click is imported (generator.entry);
    with any, it goes through the command, and prints the same. No clock is asserted."""
    imported, stdout = importtime_check(project, *args)
    assert not heavy(imported), f"the fast path imported {heavy(imported)}"
    assert ("click" in imported) == bool(args and args[0].startswith("-")), sorted(imported)
    assert stdout == f"pets: up to date ({project / 'generated' / 'pets'})\n"


def test_tool_versions_are_the_ones_importlib_metadata_gives() -> None:
    """The fingerprint's tool versions are read from the ``.dist-info`` folders without
    importing ``importlib.metadata`` (a tenth of a no-op check): the same answers."""
    from importlib.metadata import version

    from generator.manifest import dist_version

    for dist in ("datamodel-code-generator", "ruff", "pydantic", "click", "PyYAML", "Jinja2"):
        assert dist_version(dist) == version(dist), dist
    assert dist_version("no-such-distribution-for-apismith") == "missing"
