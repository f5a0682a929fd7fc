"""Write a package's files into its staging folder from a helper process, while the import
check runs here.

Creating a file costs a few syscalls, and a package has one module per resource: on a
disk-backed folder, writing a mid-size API's 140 files took 5 to 75 ms, about as long as
importing them. :class:`FileWriter` starts this module as a script (``python -I -S``:
only the standard library), sends it the files through a pipe and returns at once; the
import check reads the same bytes from memory meanwhile
(:class:`generator.import_check.PackageSources`). :meth:`FileWriter.wait` returns once every
file is written, or raises the ``OSError`` that writing them here would have raised.
Where the helper cannot run (no usable ``sys.executable``), the files are written here
instead: the same bytes either way.

The pipe carries one record per file, ``b"<name length> <data length>\\n"``, then the name
(UTF-8, relative, ``/``-separated, no ``..``) and the data. At the end of its input the
helper reports ``done <count>``; a record cut short (this process died) ends it without
writing that file. Only that report counts as success: anything else (an interpreter that
is not Python, say) and the files are written here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from typing import IO, Any

CHUNK = 4 << 20  # bytes sent per write: one syscall (with the GIL released) each
PIPE_SIZE = 1 << 20  # asked of the pipe (F_SETPIPE_SZ), where the OS allows it


def check_names(files: Mapping[str, bytes]) -> None:
    """Refuse a file name that is not a relative path inside the folder (a bug: the
    generator makes every name)."""
    bad = [name for name in files if not _safe(name)]
    if bad:
        raise ValueError(f"not a file name inside the package: {bad[0]!r}")


def write_files(folder: str, files: Mapping[str, bytes]) -> None:
    """Write ``files`` (names relative to ``folder``) in name order, making each folder
    once."""
    check_names(files)
    made = {folder}
    for name in sorted(files):
        put(folder, name, files[name], made)


def put(folder: str, name: str, data: bytes, made: set[str]) -> None:
    """Write one file, making its folder first unless it is in ``made`` (then added)."""
    path = os.path.join(folder, name)
    parent = os.path.dirname(path)
    if parent not in made:
        os.makedirs(parent, exist_ok=True)
        made.add(parent)
    with open(path, "wb") as fh:
        fh.write(data)


def records(files: Mapping[str, bytes]) -> Iterator[bytes]:
    """The pipe's bytes for ``files``, in chunks of about :data:`CHUNK`."""
    chunk: list[bytes] = []
    size = 0
    for name in sorted(files):
        raw, data = name.encode(), files[name]
        chunk += [b"%d %d\n" % (len(raw), len(data)), raw, data]
        size += len(raw) + len(data) + 16
        if size >= CHUNK:
            yield b"".join(chunk)
            chunk, size = [], 0
    if chunk:
        yield b"".join(chunk)


def _read(stream: IO[bytes], size: int) -> bytes | None:
    data = stream.read(size)
    return data if len(data) == size else None


def _safe(name: str) -> bool:
    parts = name.split("/")
    return "\0" not in name and "\\" not in name and all(p not in ("", ".", "..") for p in parts)


def serve(folder: str, stream: IO[bytes], report: IO[str]) -> int:
    """The helper: write the files read from ``stream`` into ``folder`` and report
    ``done <count>``; on an ``OSError``, report it (``errno<TAB>strerror<TAB>filename``)
    and return 1."""
    made = {folder}
    count = 0
    while header := stream.readline():
        try:
            name_size, data_size = (int(n) for n in header.split())
        except ValueError:
            return 2
        raw = _read(stream, name_size)
        data = _read(stream, data_size) if raw is not None else None
        if raw is None or data is None:
            return 3  # cut short: the generator has gone
        name = raw.decode()
        if not _safe(name):
            return 2
        try:
            put(folder, name, data, made)
        except OSError as exc:
            where = exc.filename or os.path.join(folder, name)
            report.write(f"{exc.errno or 0}\t{exc.strerror or exc}\t{where}\n")
            report.flush()
            return 1
        count += 1
    report.write(f"done {count}\n")
    report.flush()
    return 0


class FileWriter:
    """Writes ``files`` (names relative to ``folder``) into ``folder``, in a helper process
    when it can: call :meth:`wait` (done) or :meth:`stop` (abandoned) afterwards."""

    def __init__(self, folder: str, files: Mapping[str, bytes]) -> None:
        import subprocess
        import threading

        check_names(files)
        self._folder, self._files = folder, files
        self._proc: Any = None
        self._feeder: threading.Thread | None = None
        if not sys.executable or getattr(sys, "frozen", False):  # no interpreter to run
            write_files(folder, files)
            return
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", os.path.abspath(__file__), folder],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                bufsize=0,
            )
        except (OSError, ValueError):  # no usable interpreter: write them here, now
            write_files(folder, files)
            return
        _widen(self._proc.stdin)
        self._feeder = threading.Thread(target=self._feed, daemon=True)
        self._feeder.start()

    def _feed(self) -> None:
        stdin = self._proc.stdin
        try:
            for chunk in records(self._files):
                view = memoryview(chunk)
                while view:
                    view = view[stdin.write(view) :]
        except OSError:  # the helper has gone: wait() says why
            pass
        finally:
            try:
                stdin.close()
            except OSError:
                pass

    def wait(self) -> None:
        """Return once every file is written; raise what writing them failed with."""
        if self._proc is None:
            return
        assert self._feeder is not None
        self._feeder.join()
        report = self._proc.stdout.read().decode(errors="replace")
        self._proc.stdout.close()
        code = self._proc.wait()
        self._proc = None
        if code == 0 and report == f"done {len(self._files)}\n":
            return
        fields = report.rstrip("\n").split("\t")
        if code == 1 and len(fields) == 3 and fields[0].isdigit():
            raise OSError(int(fields[0]), fields[1], fields[2])
        write_files(self._folder, self._files)  # the helper did not run: write them here

    def stop(self) -> None:
        """Abandon the writing: end the helper and wait for it (idempotent)."""
        if self._proc is None:
            return
        self._proc.kill()
        if self._feeder is not None:
            self._feeder.join()
        self._proc.stdout.close()
        self._proc.wait()
        self._proc = None


def _widen(pipe: Any) -> None:
    """Ask for a larger pipe buffer (Linux): fewer round trips between the processes."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    if hasattr(fcntl, "F_SETPIPE_SZ"):
        try:
            fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        except OSError:  # above the system's limit (fs.pipe-max-size): the default stays
            pass


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: end quietly, as the generator does
    sys.exit(serve(sys.argv[1], sys.stdin.buffer, sys.stdout))
