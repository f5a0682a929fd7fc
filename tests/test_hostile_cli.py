"""Command lines that used to destroy input or shadow modules (issue 22, finding 8), run
from apismith's wheel: exit 2 with one line, nothing deleted, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import error_lines, small_spec, write_json
from tests.e2e_support import Measured, Venv, run_measured


def _generate(venv: Venv, cwd: Path, *args: str) -> Measured:
    return run_measured([venv.bin("apismith"), "generate", *args], cwd=cwd)


def _refused(proc: Measured, fragment: str) -> None:
    assert proc.returncode == 2, proc.describe()
    lines = error_lines(proc.stderr)
    assert len(lines) == 1 and fragment in lines[0], proc.describe()
    assert "Traceback" not in proc.stderr


def test_a_spec_inside_out_is_never_deleted(tmp_path: Path, wheel_apismith: Venv) -> None:
    write_json(tmp_path / "pets.json", small_spec())
    made = _generate(wheel_apismith, tmp_path, "--spec", "pets.json", "--out", "OUT")
    assert made.returncode == 0, made.describe()
    spec = tmp_path / "OUT" / "pets.json"
    spec.write_bytes((tmp_path / "pets.json").read_bytes())
    for extra in ((), ("--force",)):
        proc = _generate(
            wheel_apismith, tmp_path, "--spec", "OUT/pets.json", "--out", "OUT", *extra
        )
        _refused(proc, "inside the output folder")
        assert spec.is_file(), "the input spec was deleted"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--out", "o/typing"), "would shadow"),
        (("--out", "o/httpx"), "would shadow"),
        (("--out", "o/pydantic"), "would shadow"),
        (("--out", "o/json"), "would shadow"),
        (("--out", "o/pkg", "--package", "fastapi"), "would shadow"),
        (("--out", "o/\ufb01le"), "NFKC"),
        (("--out", "o/pkg", "--package", "\ufb01le"), "NFKC"),
    ],
)
def test_names_that_shadow_or_are_not_nfkc_are_refused(
    tmp_path: Path, wheel_apismith: Venv, args: tuple[str, ...], fragment: str
) -> None:
    write_json(tmp_path / "pets.json", small_spec())
    proc = _generate(wheel_apismith, tmp_path, "--spec", "pets.json", *args)
    _refused(proc, fragment)
    assert not (tmp_path / "o").exists()


def test_userinfo_is_redacted_from_messages(tmp_path: Path, wheel_apismith: Venv) -> None:
    """A spec whose server URL carries a password, broken so that the error names it."""
    doc = small_spec()
    doc["servers"] = [{"url": "https://alice:hunter2@api.example.com/v1"}]
    doc["paths"]["https://alice:hunter2@api.example.com/steal"] = {}
    write_json(tmp_path / "pets.json", doc)
    proc = _generate(wheel_apismith, tmp_path, "--spec", "pets.json", "--out", "o/pkg")
    _refused(proc, "a path must start with '/'")
    assert "hunter2" not in proc.stdout + proc.stderr
    assert "***@" in proc.stderr
