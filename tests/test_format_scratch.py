"""Where ``generator.format`` puts ruff's copies of the files (``scratch_dir``), and that
the bytes do not depend on it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator import format as fmt

FILES = {
    "__init__.py": "import sys\nimport os\n\n\nx = {'a':1}\n",
    "sub/deeper/mod.py": "def f( a,b ):\n  return a+b\n",
    "README.md": "# t\n\n```python\ny = [1,2]\n```\n",
    "data.json": '{"kept": "as is"}',
    "empty.py": "",
}


def test_dev_shm_when_it_has_room_and_tmpdir_is_unset(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The rule, on a stand-in folder (a machine without a writable /dev/shm runs it too);
    where the real one is writable, it is taken."""
    monkeypatch.delenv("TMPDIR", raising=False)
    if os.path.isdir(fmt.SHM) and os.access(fmt.SHM, os.W_OK):
        assert fmt.scratch_dir(1000) == fmt.SHM
    monkeypatch.setattr(fmt, "SHM", str(tmp_path))
    assert fmt.scratch_dir(1000) == str(tmp_path)
    assert fmt.scratch_dir(1 << 50) is None  # no room: the temporary directory
    monkeypatch.setattr(fmt, "SHM", str(tmp_path / "missing"))
    assert fmt.scratch_dir(1000) is None  # none: the temporary directory


def test_tmpdir_is_honoured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert fmt.scratch_dir(1000) is None


def test_the_same_bytes_wherever_the_copies_go(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("TMPDIR", raising=False)
    first = fmt.format_files(FILES)
    monkeypatch.setattr(fmt, "SHM", str(tmp_path / "missing"))
    second = fmt.format_files(FILES)
    assert first == second
    assert first["data.json"] == FILES["data.json"].encode()
    assert first["empty.py"] == b""
    assert first["sub/deeper/mod.py"] == b"def f(a, b):\n    return a + b\n"
    assert first["__init__.py"].startswith(b"import os\nimport sys\n")


def test_a_scratch_that_fails_falls_back_to_the_temporary_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")  # as /dev/shm filling up meanwhile: an OSError
    monkeypatch.setattr(fmt, "scratch_dir", lambda size: str(not_a_folder))
    assert fmt.format_files(FILES)["sub/deeper/mod.py"] == b"def f(a, b):\n    return a + b\n"


def test_copies_a_killed_run_left_are_removed_and_no_others(tmp_path: Path) -> None:
    import subprocess
    import sys

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    stale = tmp_path / f"{fmt.SCRATCH_PREFIX}{dead.stdout.strip()}-abc"
    live = tmp_path / f"{fmt.SCRATCH_PREFIX}{os.getpid()}-def"
    old_style = tmp_path / f"{fmt.SCRATCH_PREFIX}xyz"  # not named after a process: kept
    other = tmp_path / "someone-elses"
    for folder in (stale, live, old_style, other):
        (folder / "sub").mkdir(parents=True)
        (folder / "sub" / "f.py").write_text("x = 1\n")
    fmt.remove_stale_scratch(str(tmp_path))
    assert not stale.exists()
    assert live.exists() and old_style.exists() and other.exists()
