"""``generator.file_writer``: the staging folder written by a helper process while the
import check runs, with the same bytes and the same errors as writing it in-process."""

from __future__ import annotations

import errno
import io
import os
import sys
from pathlib import Path

import pytest

from generator import file_writer
from generator.file_writer import FileWriter, records, serve, write_files

FILES = {
    "__init__.py": b"from . import models\n",
    "models.py": b"X = 1\r\n\x00\xff binary, and a newline at the end\n",
    "empty.py": b"",
    "docs/api.md": "# h\u00e9llo \u2603\n".encode(),
    "_mock/pets.py": b"T = 1\n" * 100_000,  # 600 KB: more than one pipe's worth
    "resources/__init__.py": b"",
    "resources/caf\u00e9.py": b"Y = 2\n",
}


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_the_helper_writes_the_bytes_writing_them_here_would(tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    write_files(str(here), FILES)
    writer = FileWriter(str(there), FILES)
    assert writer._proc is not None  # the helper ran (this is not the in-process fallback)
    writer.wait()
    assert tree(there) == tree(here) == dict(sorted(FILES.items()))
    assert oct((there / "models.py").stat().st_mode & 0o777) == oct(
        (here / "models.py").stat().st_mode & 0o777
    )


def test_chunks_carry_every_record_in_name_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_writer, "CHUNK", 64)
    chunks = list(records(FILES))
    assert 1 < len(chunks) < len(FILES)  # a chunk ends after the record that fills it
    stream = io.BytesIO(b"".join(chunks))
    seen: list[str] = []
    while header := stream.readline():
        name_size, data_size = (int(n) for n in header.split())
        seen.append(stream.read(name_size).decode())
        assert stream.read(data_size) == FILES[seen[-1]]
    assert seen == sorted(FILES)


def test_a_write_error_is_raised_as_writing_here_would_raise_it(tmp_path: Path) -> None:
    (tmp_path / "docs").write_text("a file where a folder goes")
    with pytest.raises(OSError) as here:
        write_files(str(tmp_path), FILES)
    writer = FileWriter(str(tmp_path), FILES)
    with pytest.raises(OSError) as there:
        writer.wait()
    assert there.value.errno == here.value.errno in (errno.EEXIST, errno.ENOTDIR)
    assert there.value.filename == here.value.filename
    assert there.value.strerror == here.value.strerror


def test_without_a_usable_interpreter_the_files_are_written_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for executable in ("", "/bin/true", str(tmp_path / "missing-python")):
        folder = tmp_path / f"out{len(executable)}"
        folder.mkdir()
        monkeypatch.setattr(sys, "executable", executable)
        writer = FileWriter(str(folder), FILES)
        writer.wait()
        assert tree(folder) == dict(sorted(FILES.items())), executable


def test_stop_ends_the_helper_and_is_idempotent(tmp_path: Path) -> None:
    writer = FileWriter(str(tmp_path), FILES)
    proc = writer._proc
    assert proc is not None, "the helper process did not start"
    pid = proc.pid
    writer.stop()
    assert proc.returncode is not None  # reaped: it has ended
    with pytest.raises(ProcessLookupError):  # and no process has its pid any more
        os.kill(pid, 0)
    assert proc.stdin.closed and proc.stdout.closed
    writer.stop()
    writer.wait()  # nothing left to wait for


def test_a_record_cut_short_writes_nothing_of_it(tmp_path: Path) -> None:
    data = b"".join(records({"a.py": b"A\n", "b.py": b"B" * 100}))
    report = io.StringIO()
    assert serve(str(tmp_path), io.BytesIO(data[:-10]), report) == 3
    assert tree(tmp_path) == {"a.py": b"A\n"} and not report.getvalue()
    assert serve(str(tmp_path), io.BytesIO(data), report) == 0
    assert report.getvalue() == "done 2\n"


@pytest.mark.parametrize("name", ["../outside.py", "/abs.py", "a//b.py", "./a.py", "a\\b.py", ""])
def test_a_name_outside_the_folder_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="not a file name inside the package"):
        FileWriter(str(tmp_path / "in"), {name: b"x"})
    with pytest.raises(ValueError):
        write_files(str(tmp_path / "in"), {name: b"x"})
    raw = name.encode()
    assert serve(str(tmp_path), io.BytesIO(b"%d 1\n%bx" % (len(raw), raw)), io.StringIO()) == 2
    assert not (tmp_path / "outside.py").exists() and not Path("/abs.py").exists()
