"""Stage 6, the only one with effects: write a generated package, all or nothing.

Files go to a staging folder beside the target, written by a helper process
(:mod:`generator.file_writer`) while the package is imported from the same bytes in memory
(:func:`generator.import_check.verify_import`). Only when both succeed is the staging
folder swapped in for the target, atomically on Linux (``renameat2(RENAME_EXCHANGE)``).
A failure, or a kill at any moment, leaves the previous output in place (after the
two-rename fallback, the next run puts it back: :func:`recover`).

The target is never something apismith did not write: a directory without an apismith
``MANIFEST.json``, or a file, is refused unless ``force`` (:func:`check_target`).

Leftovers are named ``.<name>.apismith-staging-<pid>-<n>`` and
``.<name>.apismith-old-<pid>-<n>`` beside the target; no other folder is ever touched.
``APISMITH_NO_RENAME_EXCHANGE=1`` forces the two-rename fallback (a test hook).
"""

from __future__ import annotations

import ctypes
import errno
import itertools
import os
import re
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from generator.bytecode import Compiled
from generator.errors import ApismithError
from generator.file_writer import FileWriter
from generator.format import process_running
from generator.import_check import verify_import
from generator.manifest import listed_files
from generator.tree import MANIFEST_NAME, read_manifest

_LEFTOVER_COUNTER = itertools.count()

NO_EXCHANGE_ENV = "APISMITH_NO_RENAME_EXCHANGE"
AT_FDCWD = -100
RENAME_EXCHANGE = 2

# Called between the two renames of the fallback swap; tests set it to simulate a kill.
_between_renames: Callable[[], None] | None = None


def write_package(
    out: Path,
    files: Mapping[str, bytes],
    *,
    package: str = "",
    verify: bool = True,
    force: bool = False,
    compiled: Compiled | None = None,
    probes: Sequence[Any] = (),
) -> None:
    """Replace ``out`` with exactly ``files``, after checking the package imports (taking
    the modules ``compiled`` ahead, :mod:`generator.bytecode`) and that its mock answers
    the ``probes`` (:func:`generator.import_check.verify_import`).

    ``package`` is the package's folder within ``out`` ("" when ``out`` is the package).
    ``out`` must be missing, empty, or an earlier apismith output (it has an apismith
    ``MANIFEST.json``); anything else is refused unless ``force`` (:func:`check_target`).

    The files go to a staging folder beside ``out``; once the package imports from there,
    staging and ``out`` trade places in one atomic ``renameat2(RENAME_EXCHANGE)`` where
    the OS has it (Linux), or in two renames where not. The old tree is then deleted. Any
    leftover of an interrupted run is repaired first (:func:`recover`).
    """
    out = target_path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ApismithError(
            f"cannot make the output's folder: {exc.strerror}", file=str(out)
        ) from None
    try:
        _write(
            out,
            files,
            package=package,
            verify=verify,
            force=force,
            compiled=compiled,
            probes=probes,
        )
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise ApismithError(
            f"cannot write the output: {exc.strerror or exc}{where}", file=str(out), exit_code=1
        ) from None


def _write(
    out: Path,
    files: Mapping[str, bytes],
    *,
    package: str,
    verify: bool,
    force: bool,
    compiled: Compiled | None,
    probes: Sequence[Any] = (),
) -> None:
    with _parent_lock(out.parent) as locked:
        recover(out, locked=locked)
        check_target(out, force=force)
        strays = _strays(out)
        staging = _reserve(out, "staging", create=True)
        try:
            init = f"{package}/__init__.py" if package else "__init__.py"
            writer = FileWriter(str(staging), files)
            try:
                if verify and init in files:  # the files as they are written meanwhile
                    verify_import(staging, files, package=package, compiled=compiled, probes=probes)
                writer.wait()
            finally:
                writer.stop()
            if strays:
                shown = ", ".join(strays[:5]) + (
                    f" and {len(strays) - 5} more" if len(strays) > 5 else ""
                )
                _say(f"{out}: deleting {len(strays)} file(s) not in its manifest: {shown}")
            old = _swap(staging, out)
        except BaseException:
            _remove(staging)
            raise
        if old is not None:
            _remove(old)


def _say(message: str) -> None:
    print(f"apismith: note: {message}", file=sys.stderr, flush=True)


def target_path(out: Path) -> Path:
    """``out`` made absolute, its parents resolved; a final symlink is followed only when
    it points at a directory (then that directory is the target)."""
    out = Path(os.path.abspath(out))
    if out.is_symlink() and out.is_dir():
        return out.resolve()
    return out.parent.resolve() / out.name


def is_apismith_output(out: Path) -> bool:
    """Whether ``out`` holds a ``MANIFEST.json`` that apismith wrote (an object with
    ``files`` and ``generator``)."""
    manifest = read_manifest(out)
    return manifest is not None and "files" in manifest and "generator" in manifest


def check_target(out: Path, *, force: bool = False) -> None:
    """Refuse (exit 2) to replace what apismith did not write: a directory that is neither
    empty nor an apismith output, or anything that is not a directory. ``force`` allows
    both (the directory's contents, or the file, are deleted)."""
    out = target_path(out)
    if force or not os.path.lexists(out):
        return
    if out.is_symlink():
        what = "a symlink to no directory"
    elif not out.is_dir():
        what = "a file, not an apismith output directory"
    else:
        try:
            empty = not any(out.iterdir())
        except OSError as exc:
            raise ApismithError(
                f"cannot list the output directory: {exc.strerror}", file=str(out)
            ) from None
        if empty or is_apismith_output(out):
            return
        what = f"a directory apismith did not write (no apismith {MANIFEST_NAME})"
    raise ApismithError(
        f"{what}: not replacing it; pass --force to replace it (deleting what is there)",
        file=str(out),
    )


def check_inputs(out: Path, inputs: Iterable[Path | None]) -> None:
    """Refuse (exit 2, even with ``--force``) to write ``out`` when one of the ``inputs``
    (the spec, an overlay, the config, the template folder) is inside it: replacing the
    folder would delete it."""
    target = target_path(out)
    for path in inputs:
        if path is not None and target_path(path).is_relative_to(target):
            raise ApismithError(
                f"an input is inside the output folder {out.as_posix()}, which generation"
                " replaces (deleting it): move it, or choose another --out",
                file=str(path),
            )


def repair_target(out: Path) -> None:
    """Repair the leftovers of an interrupted write beside ``out`` (:func:`recover`). The
    CLI calls this before generating, so that a run that fails still puts a missing output
    back. Also refuses (exit 2) an output whose folder cannot be made."""
    out = target_path(out)
    if not out.parent.is_dir():
        existing = next(p for p in out.parents if os.path.lexists(p))
        if not existing.is_dir():
            raise ApismithError(
                f"cannot make the output's folder: {existing} is a file", file=str(out)
            )
        return
    try:
        with _parent_lock(out.parent) as locked:
            recover(out, locked=locked)
    except OSError as exc:
        raise ApismithError(
            f"cannot repair the output: {exc.strerror or exc}", file=str(out), exit_code=1
        ) from None


def _strays(out: Path) -> list[str]:
    """Files of an existing apismith output that its manifest does not list."""
    manifest = read_manifest(out) if out.is_dir() and not out.is_symlink() else None
    if manifest is None or not isinstance(manifest.get("files"), dict):
        return []
    known = set(manifest["files"]) | {MANIFEST_NAME}
    return [name for name in listed_files(out) if name not in known]


def _leftover_pattern(out: Path) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(out.name)}\.apismith-(staging|old)-(\d+)-(\d+)")


def _reserve(out: Path, kind: str, *, create: bool) -> Path:
    """A fresh ``.<name>.apismith-<kind>-<pid>-<n>`` path beside ``out`` (made when
    ``create``)."""
    while True:
        path = out.parent / f".{out.name}.apismith-{kind}-{os.getpid()}-{next(_LEFTOVER_COUNTER)}"
        if create:
            try:
                path.mkdir()
            except FileExistsError:
                continue
            return path
        if not os.path.lexists(path):
            return path


def recover(out: Path, *, locked: bool = True, say: Callable[[str], None] = _say) -> list[str]:
    """Repair what an interrupted write left beside ``out``; return what was done.

    If ``out`` is missing and an ``.apismith-old-*`` copy exists (a kill between the two
    renames of the fallback swap), the newest copy is put back. Every other leftover
    staging or old folder is deleted. Each action is one line through ``say``. Without
    the parent lock (``locked=False``), folders of live processes are left alone.
    """
    out = target_path(out)
    pattern = _leftover_pattern(out)
    try:
        names = os.listdir(out.parent)
    except OSError:
        return []
    leftovers: list[tuple[str, Path]] = []
    for name in sorted(names):
        match = pattern.fullmatch(name)
        if match is None:
            continue
        if not locked and process_running(int(match.group(2))):
            continue
        leftovers.append((match.group(1), out.parent / name))
    done: list[str] = []
    olds = [path for kind, path in leftovers if kind == "old"]
    if olds and not os.path.lexists(out):
        newest = max(olds, key=lambda p: p.lstat().st_ctime_ns)
        os.rename(newest, out)
        done.append(f"restored {out} from {newest.name}, left by an interrupted run")
        leftovers = [(k, p) for k, p in leftovers if p != newest]
    for _, path in leftovers:
        _remove(path)
        done.append(f"removed {path}, left by an interrupted run")
    for line in done:
        say(line)
    return done


@contextmanager
def _parent_lock(parent: Path) -> Iterator[bool]:
    """Hold an exclusive ``flock`` on the parent folder (no lock file is made), so that
    one write at a time works beside it; yields whether the lock is held."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield False
        return
    try:
        fd = os.open(parent, os.O_RDONLY)
    except OSError:  # pragma: no cover
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:  # pragma: no cover - a filesystem without flock
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


_RENAMEAT2: Any = None


def _renameat2() -> Any:
    """libc's ``renameat2`` (glibc >= 2.28), or None."""
    global _RENAMEAT2
    if _RENAMEAT2 is None:
        try:
            fn = ctypes.CDLL(None, use_errno=True).renameat2
            fn.argtypes = [
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_uint,
            ]
            fn.restype = ctypes.c_int
            _RENAMEAT2 = fn
        except (AttributeError, OSError):
            _RENAMEAT2 = False
    return _RENAMEAT2 or None


def exchange(a: Path, b: Path) -> bool:
    """Atomically trade ``a`` and ``b`` (both must exist); False where the OS or the
    filesystem cannot (or ``APISMITH_NO_RENAME_EXCHANGE=1``)."""
    if os.environ.get(NO_EXCHANGE_ENV) == "1" or not sys.platform.startswith("linux"):
        return False
    fn = _renameat2()
    if fn is None:
        return False
    if fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _swap(staging: Path, out: Path) -> Path | None:
    """Put ``staging`` at ``out``; return where the old ``out`` now is (None if none)."""
    if not os.path.lexists(out):
        os.rename(staging, out)
        return None
    if exchange(staging, out):
        return staging
    old = _reserve(out, "old", create=False)
    os.rename(out, old)
    if _between_renames is not None:
        _between_renames()
    try:
        os.rename(staging, out)
    except BaseException:
        os.rename(old, out)
        raise
    return old
