"""Stage 5: format Python sources with ruff (``check --fix`` then ``format``); ruff also
formats the Python code blocks of Markdown files, so the generated docs go through it too.

Runs ruff in isolated mode with its defaults, so the result does not depend on any
ruff configuration around the output directory: generated code then passes
``ruff check`` and ``ruff format --check`` under default settings anywhere.

The output is also a fixed point of ``black`` at its defaults: where black and ruff format
would break a line differently, the templates write a shape both keep, with the layout
helpers of :mod:`generator.render.layout` (``tests/test_formatters.py`` checks it).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from generator.errors import ApismithError
from generator.file_writer import write_files

RUFF_ARGS = ("--isolated", "--target-version", "py310")


@functools.cache
def ruff_binary() -> str:
    """The ruff executable (found once: its locator reads ``sysconfig``, whose first use is
    not thread-safe; :class:`Formatting` looks it up before starting its thread)."""
    from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

    return str(find_ruff_bin())


def format_python(files: Mapping[str, str]) -> dict[str, str]:
    """Format every ``*.py`` and ``*.md`` entry of ``files`` (relative path -> text); others
    pass through."""
    return {name: data.decode() for name, data in format_files(files).items()}


def format_files(files: Mapping[str, str], *, threads: int | None = None) -> dict[str, bytes]:
    """:func:`format_python`, as the UTF-8 bytes that get written: a generated package's
    text held as ``str`` takes up to four bytes a character (one non-ASCII character is
    enough), which on GitHub's spec is 40 MiB held while the models render, instead of 20.
    ``threads``: how many ruff may use (default: one a core); the same bytes either way."""
    py = {name: text for name, text in files.items() if name.endswith((".py", ".md"))}
    if not py:
        return {name: text.encode() for name, text in files.items()}
    if len(files) == 1 and len(py) == 1:  # one file (the models): through ruff's stdin
        [(name, text)] = py.items()
        return {name: _run_ruff_on_text(name, text, threads)}
    scratch = scratch_dir(sum(map(len, py.values())))
    try:
        formatted = _run_ruff(py, threads, scratch)
    except OSError:
        if scratch is None:
            raise
        formatted = _run_ruff(py, threads, None)  # /dev/shm filled up meanwhile
    return {
        name: formatted[name] if name in formatted else text.encode()
        for name, text in files.items()
    }


SHM = "/dev/shm"


def scratch_dir(size: int) -> str | None:
    """Where ruff's copies of the files go: ``/dev/shm`` (memory) when it is there, has
    room for them and ``TMPDIR`` does not say otherwise, else the temporary directory.
    The files are written, rewritten by ruff and read back, hundreds of them for a large
    API; on some disks that took longer than ruff itself."""
    if os.environ.get("TMPDIR") or not os.path.isdir(SHM) or not os.access(SHM, os.W_OK):
        return None
    try:
        stats = os.statvfs(SHM)
    except OSError:
        return None
    return SHM if stats.f_bavail * stats.f_frsize > 2 * size + (64 << 20) else None


SCRATCH_PREFIX = "apismith-fmt-"


def remove_stale_scratch(scratch: str) -> None:
    """Remove the copies a killed run left in ``scratch`` (``/dev/shm`` is memory, and
    lasts until a reboot): the folders named after a process that no longer runs."""
    try:
        names = os.listdir(scratch)
    except OSError:
        return
    for name in names:
        pid = name[len(SCRATCH_PREFIX) :].split("-", 1)[0]
        if not (name.startswith(SCRATCH_PREFIX) and pid.isdigit()) or process_running(int(pid)):
            continue
        shutil.rmtree(os.path.join(scratch, name), ignore_errors=True)


def process_running(pid: int) -> bool:
    """Whether process ``pid`` exists (this one does; another user's counts)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: another user's, and it exists
        return True
    return True


_CHECK = ("check", "--fix-only", "--exit-zero", "--quiet", "--extend-select", "I", *RUFF_ARGS)
_FORMAT = ("format", "--quiet", *RUFF_ARGS)


def _ruff(
    args: tuple[str, ...], threads: int | None, **run: Any
) -> subprocess.CompletedProcess[Any]:
    """One ruff command, raising when it fails (generated code ruff cannot read is a bug)."""
    env = {**os.environ, "RAYON_NUM_THREADS": str(threads)} if threads else None
    proc = subprocess.run([ruff_binary(), *args], capture_output=True, check=False, env=env, **run)
    if proc.returncode != 0:
        err = proc.stderr or proc.stdout
        text = err.decode(errors="replace") if isinstance(err, bytes) else err
        first = text.strip().splitlines()
        raise ApismithError(
            f"ruff {args[0]} failed on generated code: {first[0] if first else '?'}", exit_code=1
        )
    return proc


def _run_ruff_on_text(name: str, text: str, threads: int | None) -> bytes:
    """``check --fix`` then ``format`` on one file's ``text``, through ruff's stdin: no
    folder, no files (the model worker's one module)."""
    data = text.encode()
    for args in (_CHECK, _FORMAT):
        data = _ruff((*args, "--stdin-filename", name, "-"), threads, input=data).stdout
    return bytes(data)


def _run_ruff(py: Mapping[str, str], threads: int | None, scratch: str | None) -> dict[str, bytes]:
    """``check --fix`` then ``format`` on copies of ``py`` in a folder under ``scratch``."""
    if scratch is not None:
        remove_stale_scratch(scratch)
    with tempfile.TemporaryDirectory(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=scratch) as tmp:
        root = Path(tmp)
        write_files(tmp, {name: text.encode() for name, text in py.items()})
        for args in (_CHECK, _FORMAT):
            _ruff((*args, "."), threads, cwd=root, text=True)
        return {name: (root / name).read_bytes() for name in py}


class Formatting:
    """:func:`~generator.format.format_files` on a thread of its own: ruff runs in
    subprocesses, so this process goes on rendering meanwhile (the same bytes as
    formatting the files later)."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self._result: dict[str, bytes] = {}
        self._error: BaseException | None = None
        ruff_binary()  # here, not in the thread (see there)
        self._thread = threading.Thread(target=self._run, args=(dict(files),), daemon=True)
        self._thread.start()

    def _run(self, files: dict[str, str]) -> None:
        try:
            self._result = format_files(files)
        except BaseException as exc:  # handed to the caller by files()
            self._error = exc

    def files(self) -> dict[str, bytes]:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result
