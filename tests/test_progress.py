"""The progress line: drawn on a terminal only (a pseudo-terminal here), after the
threshold (``APISMITH_PROGRESS_AFTER``; 0 in these tests), never under ``--quiet``, and
never a byte of difference in what the commands print."""

from __future__ import annotations

import io
import os
import pty
import re
import shutil
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path

import pytest

from generator.progress import CLEAR, Progress
from tests.conftest import REPO_ROOT, cli_env, describe, run_cli

GOLDEN = REPO_ROOT / "tests" / "golden"
NOW = {"APISMITH_PROGRESS_AFTER": "0"}  # draw from the start


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run_on_pty(
    *args: str | Path, cwd: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], str]:
    """The CLI with stderr on a pseudo-terminal (raw: no newline translation) and stdout
    on a pipe; returns the process (its ``stderr`` empty) and what the terminal got."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    proc = subprocess.Popen(
        [sys.executable, "-m", "generator", *map(str, args)],
        cwd=cwd,
        env=cli_env(env),
        stdout=subprocess.PIPE,
        stderr=slave,
        text=True,
    )
    os.close(slave)
    chunks: list[bytes] = []

    def read() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every writer has closed it
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read)
    reader.start()
    stdout, _ = proc.communicate(timeout=300)
    reader.join(10)
    os.close(master)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, "")
    return done, b"".join(chunks).decode()


def _without_progress(terminal: str) -> str:
    """What the terminal got, the progress lines taken out: each is drawn after a CLEAR
    and erased by the next one, which then leads the next line or the next output."""
    return re.sub(r"\r\x1b\[K[^\r\n]*?(?=\r\x1b\[K)", "", terminal).replace(CLEAR, "")


def _project(root: Path, names: tuple[str, ...] = ("discriminator",)) -> Path:
    root.mkdir()
    entries = []
    for name in names:
        (root / name).mkdir()
        shutil.copy(GOLDEN / name / "spec.json", root / name / "spec.json")
        entries.append(
            f'[tool.apismith.apis.{name}]\nspec = "{name}/spec.json"\nout = "out/{name}"'
        )
    (root / "pyproject.toml").write_text("\n".join(entries) + "\n")
    return root


def test_generate_draws_progress_on_a_terminal_and_prints_the_same(tmp_path: Path) -> None:
    plain = run_cli("generate", cwd=_project(tmp_path / "a"), env=NOW)
    assert plain.returncode == 0, describe(plain)
    assert CLEAR not in plain.stderr and "\r" not in plain.stderr  # not a terminal: silent
    proc, terminal = _run_on_pty("generate", cwd=_project(tmp_path / "b"), env=NOW)
    assert proc.returncode == 0, terminal
    assert proc.stdout == plain.stdout
    assert CLEAR + "apismith: discriminator: " in terminal  # the API and its stage
    assert re.search(r"apismith: discriminator: (load|normalize|models|ir|client)", terminal)
    assert terminal.endswith(CLEAR) or terminal.endswith("\n")  # erased at the end
    assert _without_progress(terminal) == plain.stderr


def test_several_apis_in_parallel_show_the_count(tmp_path: Path) -> None:
    names = ("discriminator", "names")
    plain = run_cli("generate", "--jobs", "2", cwd=_project(tmp_path / "a", names), env=NOW)
    proc, terminal = _run_on_pty(
        "generate", "--jobs", "2", cwd=_project(tmp_path / "b", names), env=NOW
    )
    assert proc.returncode == plain.returncode == 0, terminal
    assert proc.stdout == plain.stdout
    assert "apismith: generate 0/2 APIs done; " in terminal
    assert _without_progress(terminal) == plain.stderr


def test_quiet_draws_nothing_and_prints_only_warnings(tmp_path: Path) -> None:
    proc, terminal = _run_on_pty("generate", "--quiet", cwd=_project(tmp_path / "a"), env=NOW)
    assert proc.returncode == 0, terminal
    assert proc.stdout == "" and CLEAR not in terminal and "\r" not in terminal
    plain = run_cli("generate", "-q", cwd=_project(tmp_path / "b", ("tuple-items",)))
    assert plain.returncode == 0 and plain.stdout == "", describe(plain)
    assert plain.stderr and all(
        line.startswith("tuple-items: [") for line in plain.stderr.splitlines()
    ), describe(plain)  # its warnings, each after the API's name


def test_nothing_is_drawn_before_the_threshold(tmp_path: Path) -> None:
    env = {"APISMITH_PROGRESS_AFTER": "60"}
    proc, terminal = _run_on_pty("generate", cwd=_project(tmp_path / "a"), env=env)
    assert proc.returncode == 0 and CLEAR not in terminal, terminal


def test_check_draws_progress_and_quiet_silences_it(tmp_path: Path) -> None:
    root = _project(tmp_path / "a")
    assert run_cli("generate", cwd=root).returncode == 0
    plain = run_cli("check", "--full", cwd=root, env=NOW)
    proc, terminal = _run_on_pty("check", "--full", cwd=root, env=NOW)
    assert proc.returncode == plain.returncode == 0, terminal
    assert proc.stdout == plain.stdout and "apismith: checking discriminator: " in terminal
    _, quiet = _run_on_pty("check", "--full", "--quiet", cwd=root, env=NOW)
    assert quiet == ""


# --- the line itself --------------------------------------------------------------------------


def _terminal_stderr(monkeypatch: pytest.MonkeyPatch) -> _Terminal:
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    return term


def test_the_line_is_erased_before_other_output_and_at_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    term = _terminal_stderr(monkeypatch)
    progress = Progress(after=0)
    with progress:
        assert sys.stderr is not term  # wrapped
        progress.show("apismith: x: load")
        assert term.getvalue().startswith(CLEAR + "apismith: x: load (")
        print("a warning", file=sys.stderr)  # through the wrapper: the line goes first
        assert term.getvalue().endswith(CLEAR + "a warning\n")
    assert sys.stderr is term
    text = term.getvalue()
    assert text.endswith("a warning\n") or text.endswith(CLEAR), repr(text)
    assert _without_progress(text) == "a warning\n"


def test_redraws_are_throttled(monkeypatch: pytest.MonkeyPatch) -> None:
    term = _terminal_stderr(monkeypatch)
    progress = Progress(after=0)
    start = time.monotonic()
    with progress:
        for i in range(20000):
            progress.show(f"stage {i}")
    draws = term.getvalue().count("stage ")
    assert 1 <= draws <= (time.monotonic() - start) * 10 + 3, draws


def test_off_without_a_terminal_or_when_disabled() -> None:
    for progress in (Progress(io.StringIO(), after=0), Progress(_Terminal(), enabled=False)):
        saved = sys.stderr
        with progress:
            assert sys.stderr is saved  # nothing wrapped
            progress.show("x")
        assert not progress.enabled


def test_a_partial_line_is_not_drawn_over(monkeypatch: pytest.MonkeyPatch) -> None:
    term = _terminal_stderr(monkeypatch)
    progress = Progress(after=0)
    with progress:
        sys.stderr.write("half a line")
        progress.show("apismith: x: load")
        time.sleep(0.3)
        assert term.getvalue() == "half a line"  # the thread waits for its end
        sys.stderr.write("\n")
        deadline = time.monotonic() + 600  # a hang guard: the redraw is waited for
        while not term.getvalue().startswith("half a line\n" + CLEAR):
            assert time.monotonic() < deadline, repr(term.getvalue())
            time.sleep(0.01)
        assert term.getvalue().startswith("half a line\n" + CLEAR + "apismith: x: load")
