"""The drift check: is the generated output exactly what generation would produce?

Fast path: the manifest's generator fingerprint, options and input hashes match, and
every file on disk hashes to what the manifest records (no file missing, none extra):
clean, without loading the spec. Otherwise, and always with ``full``, the output is
generated in memory and compared byte for byte with the disk, stray files included, and
every difference printed as a unified diff.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.config import ApiConfig
from generator.manifest import fast_check, listed_files

if TYPE_CHECKING:
    from generator.model_worker import ModelRenderer
    from generator.pipeline import Stage
    from generator.progress import Board, Progress


@dataclass(frozen=True)
class Drift:
    api: str
    clean: bool
    changed: tuple[str, ...] = ()
    diff: str = ""
    fast: bool = False


def check_api(
    config: ApiConfig,
    *,
    full: bool = False,
    models: ModelRenderer | None = None,
    stage: Stage | None = None,
) -> Drift:
    """The drift of one API: :func:`fast_clean` (unless ``full``), else :func:`compare`."""
    if not full:
        clean = fast_clean(config)
        if clean is not None:
            return clean
    return compare(config, models=models, stage=stage)


def fast_clean(config: ApiConfig) -> Drift | None:
    """A clean drift when the manifest vouches for the output (nothing generated), else
    None (the output must be generated to tell)."""
    clean, _suspects = fast_check(
        config.out, config.spec, config.options(), config.overlays, config.templates
    )
    return Drift(config.name, True, fast=True) if clean else None


def compare(
    config: ApiConfig, *, models: ModelRenderer | None = None, stage: Stage | None = None
) -> Drift:
    """Generate the output in memory and compare it with the disk, byte for byte, stray
    files included (``models``, ``stage``: as for :func:`generator.pipeline.generate`)."""
    from generator.pipeline import generate

    expected = generate(config, models, stage=stage).files
    on_disk = set(listed_files(config.out))
    changed: list[str] = []
    chunks: list[str] = []
    real_out = config.out.resolve()
    for name in sorted(on_disk | set(expected)):
        want = expected.get(name)
        actual = _generated_file(config.out / name, real_out) if want is not None else None
        if actual == want and want is not None:
            continue
        changed.append(name)
        chunks.append(_diff(config.out, name, actual, want))
    return Drift(config.name, not changed, tuple(changed), "".join(chunks))


def check_all(
    configs: Sequence[ApiConfig], *, full: bool, jobs: int | None, progress: Progress
) -> Iterator[Drift]:
    """:func:`check_api` of every config, in config order (an error raised at its turn).
    The fast checks run first, here; the APIs they cannot vouch for are generated in
    parallel when there are several (``jobs``: as ``--jobs``), with ``progress`` shown."""
    from generator.progress import Board

    fast: list[Drift | Exception | None] = []
    for cfg in configs:
        try:
            fast.append(None if full else fast_clean(cfg))
        except Exception as exc:  # raised at its turn, as a serial run would
            fast.append(exc)
    slow = [cfg for cfg, clean in zip(configs, fast) if clean is None]
    compared = _compare_serially(slow, Board(progress, slow, "check"), progress)
    if len(slow) > 1:  # (a no-op check imports none of it)
        from generator.parallel import jobs_for, run_parallel

        workers = jobs_for(len(slow), jobs)
        if workers > 1:
            task = partial(check_task, full=True)
            compared = run_parallel(task, slow, workers, progress, verb="check")
    try:
        for clean in fast:
            if isinstance(clean, Exception):
                raise clean
            yield clean if clean is not None else next(compared)
    finally:
        compared.close()  # the workers and the progress line end before an error prints


def _compare_serially(
    configs: Sequence[ApiConfig], board: Board, progress: Progress
) -> Generator[Drift, None, None]:
    with progress:
        for i, cfg in enumerate(configs):
            yield compare(cfg, stage=board.serial(i))


def _generated_file(path: Path, real_out: Path) -> bytes | None:
    """The bytes of ``path``, a file generation writes, or None when it is no regular file
    inside the output folder (a symlink, or under a symlinked folder): the diff shows only
    what apismith could have written, never a file elsewhere (a CI log is public)."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        if not path.resolve().is_relative_to(real_out):
            return None
        return path.read_bytes()
    except OSError:
        return None


def _diff(out: Path, name: str, actual: bytes | None, want: bytes | None) -> str:
    shown = f"{out.as_posix()}/{name}"
    if want is None:
        return f"--- {shown}\n+++ /dev/null\n@@ file is not generated (extra file) @@\n"
    if actual is None:
        return f"--- /dev/null\n+++ {shown}\n@@ file is missing (or not a regular file) @@\n"
    try:
        a = actual.decode().splitlines(keepends=True)
        b = want.decode().splitlines(keepends=True)
    except UnicodeDecodeError:
        return f"Binary files {shown} (on disk) and {shown} (expected) differ\n"
    lines = difflib.unified_diff(a, b, f"{shown} (on disk)", f"{shown} (generated)")
    text = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
    return text or f"--- {shown}\n+++ {shown}\n@@ differs only in bytes difflib cannot show @@\n"


def check_task(config: ApiConfig, models: Any, stage: Callable[[str], None], *, full: bool) -> Any:
    """:func:`check_api` as a task of :func:`generator.parallel.run_parallel` (in a worker
    process: ``models`` is the worker's renderer, ``stage`` reports its progress)."""
    return check_api(config, full=full, models=models, stage=stage)
