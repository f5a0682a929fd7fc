"""The command line, in subprocesses: help, version, normalize, and friendly usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator import __version__
from generator.cli import main
from tests.conftest import (
    SPECS,
    describe,
    error_lines,
    run_cli,
    small_spec,
    tree_bytes,
    write_json,
)

COMMANDS = sorted(main.commands)


def test_every_documented_command_exists() -> None:
    assert {"generate", "check", "normalize"} <= set(COMMANDS)


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_group_help(flag: str, tmp_path: Path) -> None:
    proc = run_cli(flag, cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.startswith("Usage:"), describe(proc)
    for command in COMMANDS:
        assert command in proc.stdout, f"{command} missing from the help\n{proc.stdout}"
    assert proc.stderr == ""


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help(command: str, tmp_path: Path) -> None:
    proc = run_cli(command, "--help", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.startswith("Usage:") and command in proc.stdout.splitlines()[0]
    assert "--" in proc.stdout  # lists its options
    assert proc.stderr == ""


def test_version(tmp_path: Path) -> None:
    proc = run_cli("--version", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.strip() == f"apismith, version {__version__}", describe(proc)


def test_normalize_prints_json_and_a_summary(tmp_path: Path) -> None:
    proc = run_cli("normalize", SPECS / "sgp" / "openapi.json", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    spec = json.loads(proc.stdout)
    assert spec["openapi"].startswith("3.1")
    assert len(spec["components"]["schemas"]) > 100
    lines = error_lines(proc.stderr)
    assert lines, describe(proc)
    assert lines[-1].startswith("normalize: "), describe(proc)
    assert "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == [], "normalize wrote files"


def test_normalize_with_a_pass_disabled(tmp_path: Path) -> None:
    write_json(tmp_path / "pets.json", small_spec())
    proc = run_cli("normalize", "pets.json", "--disable", "names", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert "Pet" in json.loads(proc.stdout)["components"]["schemas"]
    bad = run_cli("normalize", "pets.json", "--disable", "no-such-pass", cwd=tmp_path)
    assert bad.returncode == 2, describe(bad)
    lines = error_lines(bad.stderr)
    assert len(lines) == 1 and "no-such-pass" in lines[0], describe(bad)


def test_normalize_bad_spec_is_one_line(tmp_path: Path) -> None:
    proc = run_cli("normalize", "missing.json", cwd=tmp_path)
    assert proc.returncode == 2, describe(proc)
    lines = error_lines(proc.stderr)
    assert len(lines) == 1 and "missing.json" in lines[0], describe(proc)
    assert proc.stdout == ""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with one configured API, so that unknown names are looked up here."""
    write_json(tmp_path / "specs" / "pets" / "openapi.json", small_spec())
    (tmp_path / "specs" / "pets.toml").write_text(
        '[api]\npackage = "pets"\nspec = "pets/openapi.json"\n', encoding="utf-8"
    )
    return tmp_path


@pytest.mark.parametrize("command", ["generate", "check"])
def test_unknown_api_name_is_one_line(project: Path, command: str) -> None:
    proc = run_cli(command, "no-such-api", cwd=project)
    assert proc.returncode != 0, describe(proc)
    lines = error_lines(proc.stderr)
    assert len(lines) == 1, describe(proc)
    assert "no-such-api" in lines[0] and "pets" in lines[0], describe(proc)
    assert "Traceback" not in proc.stderr
    assert not (project / "generated").exists()


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["generate", "--spec", "specs/pets/openapi.json"], id="spec-without-out"),
        pytest.param(
            ["generate", "pets", "--spec", "specs/pets/openapi.json", "--out", "x"],
            id="spec-and-name",
        ),
        pytest.param(["generate", "--config", "specs/nope.toml"], id="missing-config"),
    ],
)
def test_usage_mistakes_are_one_line(project: Path, args: list[str]) -> None:
    before = tree_bytes(project)
    proc = run_cli(*args, cwd=project)
    assert proc.returncode == 2, describe(proc)
    assert len(error_lines(proc.stderr)) == 1, describe(proc)
    assert "Traceback" not in proc.stderr
    assert tree_bytes(project) == before


def test_no_project_found_is_one_line(tmp_path: Path) -> None:
    proc = run_cli("generate", cwd=tmp_path)
    assert proc.returncode == 2, describe(proc)
    lines = error_lines(proc.stderr)
    assert len(lines) == 1 and "specs/*.toml" in lines[0], describe(proc)


def test_generate_by_name_in_a_project(project: Path) -> None:
    proc = run_cli("generate", "pets", cwd=project)
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.startswith("pets: 1 schemas -> 1 classes"), describe(proc)
    assert (project / "generated" / "pets" / "models.py").is_file()
    again = run_cli("check", "pets", cwd=project)
    assert again.returncode == 0, describe(again)


def test_a_spec_by_url_is_read_by_generate_only(tmp_path: Path) -> None:
    """``check`` reads the vendored copy ``generate --spec URL`` keeps (tests/test_spec_url.py):
    a URL is refused in one line naming it (``Path`` would have made it ``http:/h/x``)."""
    url = "http://127.0.0.1:8790/tasks.yaml"
    proc = run_cli("check", "--spec", url, "--out", "o", cwd=tmp_path)
    assert proc.returncode == 2, describe(proc)
    assert proc.stderr.startswith(f"apismith: error: {url}: a spec by URL is read by")
    assert proc.stderr.count("\n") == 1 and not (tmp_path / "o").exists()
