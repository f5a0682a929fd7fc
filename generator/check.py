"""The drift check: is the generated output exactly what generation would produce?

Fast path: the manifest's generator fingerprint, options and input hashes match, and
every file on disk hashes to what the manifest records (no file missing, none extra):
clean, without loading the spec. Otherwise, and always with ``full``, the output is
generated in memory and compared byte for byte with the disk, stray files included.

A drifted API is reported summary first (:func:`summary`): each file that differs with
its ``+added -removed`` line counts (or ``missing``, ``extra``), the files that come from
the generator alone (its runtime modules and the package's config, the same for every
spec) apart from the ones generated from the spec, then what changed in the API
(:func:`semantic_changes`). The unified diff follows only on request (``--diff``,
``--diff-lines N``).

Only the fast path runs when nothing changed: this module imports nothing heavy at its
top (the pipeline, difflib and the renderers come with the first drift).
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.config import ApiConfig
from generator.errors import one_line
from generator.manifest import fast_check, listed_files
from generator.tree import MANIFEST_NAME, builtin_templates, read_manifest

if TYPE_CHECKING:
    from generator.model_worker import ModelRenderer
    from generator.pipeline import Stage
    from generator.progress import Board, Progress

# the groups of a drifted API's files, in the order the summary gives them
SPEC = "the spec changed (files generated from it):"
GENERATOR = "the generator changed (its runtime and config files, the same for every spec):"
RECORD = "the record of what the package was made from:"


@dataclass(frozen=True)
class FileDrift:
    """One file that differs: ``state`` is ``changed`` (``added``/``removed`` lines),
    ``binary``, ``missing`` (generation writes it, the disk lacks it) or ``extra``."""

    name: str
    state: str = "changed"
    added: int = 0
    removed: int = 0
    group: str = SPEC

    def counts(self) -> str:
        return f"+{self.added} -{self.removed}" if self.state == "changed" else self.state


@dataclass(frozen=True)
class Drift:
    api: str
    clean: bool
    changed: tuple[str, ...] = ()
    diff: str = ""
    fast: bool = False
    files: tuple[FileDrift, ...] = ()
    semantic: str | None = None  # what changed in the API (see semantic_changes)


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


def noop_check(names: Sequence[str]) -> bool:
    """``apismith check [API...]``, without options, when the manifests vouch for every
    API: print what the command prints then (a line per API) and say True. Else False,
    having printed nothing: the command then runs as usual and reports what this could not
    tell (drift, an error). :mod:`generator.entry` calls it before importing click, which
    would be a fifth of a no-op check."""
    from generator.selection import select_configs

    try:
        configs = select_configs(names, None, None, None, None, None)
        if not all(fast_clean(cfg) is not None for cfg in configs):
            return False
    except Exception:  # the command reports it
        return False
    text = "".join(f"{cfg.name}: up to date ({cfg.out})\n" for cfg in configs)
    try:  # (what click.echo would print differently: ANSI escapes it strips, an error)
        text.encode(sys.stdout.encoding, sys.stdout.errors or "strict")
    except (UnicodeError, LookupError, TypeError):
        return False
    if "\x1b" in text:
        return False
    sys.stdout.write(text)
    return True


def compare(
    config: ApiConfig, *, models: ModelRenderer | None = None, stage: Stage | None = None
) -> Drift:
    """Generate the output in memory and compare it with the disk, byte for byte, stray
    files included (``models``, ``stage``: as for :func:`generator.pipeline.generate`)."""
    from generator.pipeline import generate

    expected = generate(config, models, stage=stage).files
    on_disk = set(listed_files(config.out))
    files: list[FileDrift] = []
    chunks: list[str] = []
    real_out = config.out.resolve()
    runtime = runtime_names(config)
    for name in sorted(on_disk | set(expected)):
        want = expected.get(name)
        actual = _generated_file(config.out / name, real_out) if want is not None else None
        if actual == want and want is not None:
            continue
        text, entry = _diff(config.out, name, actual, want)
        group = RECORD if name == MANIFEST_NAME else GENERATOR if name in runtime else SPEC
        files.append(FileDrift(name, entry.state, entry.added, entry.removed, group))
        chunks.append(text)
    changed = tuple(f.name for f in files)
    semantic = _semantic(config, expected, real_out) if _openapi(config) in changed else None
    return Drift(
        config.name, not files, changed, "".join(chunks), files=tuple(files), semantic=semantic
    )


def runtime_names(config: ApiConfig) -> frozenset[str]:
    """The files of the output that do not depend on the spec: the client's runtime
    modules (``templates/runtime/*.py``) and the mock's (``RUNTIME_FILES``), copied as they
    are, and the package's ``ruff.toml`` and ``py.typed`` (under ``<package>/`` with
    ``meta``). A drift there comes from the generator (or from a hand edit)."""
    from generator.render.server import RUNTIME_FILES

    names = {p.name for p in (builtin_templates() / "runtime").glob("*.py")}
    names |= {*RUNTIME_FILES, "ruff.toml", "py.typed"}
    prefix = f"{config.package}/" if config.meta else ""
    return frozenset(prefix + name for name in names)


def _openapi(config: ApiConfig) -> str:
    return f"{config.package}/openapi.json" if config.meta else "openapi.json"


def _semantic(config: ApiConfig, expected: Mapping[str, bytes], real_out: Path) -> str | None:
    """:func:`semantic_changes` between the package's ``openapi.json`` (the normalized spec
    it was generated from) and the one generated now; None when either is no JSON object."""
    name = _openapi(config)
    old_bytes = _generated_file(config.out / name, real_out)
    new_bytes = expected.get(name)
    try:
        old = json.loads(old_bytes) if old_bytes is not None else None
        new = json.loads(new_bytes) if new_bytes is not None else None
    except ValueError:
        return None
    if not isinstance(old, dict) or not isinstance(new, dict):
        return None
    return semantic_changes(old, new, config)


def semantic_changes(
    old_openapi: dict[str, Any], new_openapi: dict[str, Any], config: ApiConfig
) -> str | None:
    """What changed in the API between two normalized specs (the package's committed
    ``openapi.json`` and the one generated now), as the text of
    :func:`generator.diff.format_changes` (breaking, warning, info), for the summary;
    None when nothing did. A failure here is one line of the report, never the check's:
    the drift is reported whatever the comparison makes of the two specs."""
    from generator.diff import format_changes, spec_changes

    try:
        changes = spec_changes(old_openapi, new_openapi, config)
    except Exception as exc:  # (an old package's spec the IR no longer reads, say)
        return one_line(f"(not listed: {type(exc).__name__}: {exc})")
    return format_changes(changes, fmt="text").rstrip("\n") if changes else None


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


def _diff(out: Path, name: str, actual: bytes | None, want: bytes | None) -> tuple[str, FileDrift]:
    """The unified diff of one file that differs, and its :class:`FileDrift`."""
    import difflib

    shown = f"{out.as_posix()}/{name}"
    if want is None:
        text = f"--- {shown}\n+++ /dev/null\n@@ file is not generated (extra file) @@\n"
        return text, FileDrift(name, "extra")
    if actual is None:
        text = f"--- /dev/null\n+++ {shown}\n@@ file is missing (or not a regular file) @@\n"
        return text, FileDrift(name, "missing")
    try:
        a = actual.decode().splitlines(keepends=True)
        b = want.decode().splitlines(keepends=True)
    except UnicodeDecodeError:
        text = f"Binary files {shown} (on disk) and {shown} (expected) differ\n"
        return text, FileDrift(name, "binary")
    lines = list(difflib.unified_diff(a, b, f"{shown} (on disk)", f"{shown} (generated)"))
    body = lines[2:]  # after the ---/+++ header
    added = sum(line.startswith("+") for line in body)
    removed = sum(line.startswith("-") for line in body)
    text = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
    if not text:
        text = f"--- {shown}\n+++ {shown}\n@@ differs only in bytes difflib cannot show @@\n"
    return text, FileDrift(name, "changed", added, removed)


def check_task(config: ApiConfig, models: Any, stage: Callable[[str], None], *, full: bool) -> Any:
    """:func:`check_api` as a task of :func:`generator.parallel.run_parallel` (in a worker
    process: ``models`` is the worker's renderer, ``stage`` reports its progress)."""
    return check_api(config, full=full, models=models, stage=stage)


# --- the report ------------------------------------------------------------------------------


def summary(drift: Drift, out: Path) -> str:
    """The summary of a drifted API: a line for it, then its files by group, each with its
    line counts, then what changed in the API (when known)."""
    count = len(drift.files)
    lines = [f"{drift.api}: {count} file{'s differ' if count != 1 else ' differs'} ({out})"]
    width = max((len(f.name) for f in drift.files), default=0)
    for group in (SPEC, GENERATOR, RECORD):
        entries = [f for f in drift.files if f.group == group]
        if entries:
            lines.append(f"  {group}")
            lines += [f"    {f.name.ljust(width)}  {f.counts()}" for f in entries]
    if drift.semantic:
        lines.append("  what changed in the API:")
        lines += [f"    {line}" if line else "" for line in drift.semantic.splitlines()]
    return "\n".join(lines) + "\n"


def diff_command(params: Mapping[str, Any]) -> str:
    """``apismith check --diff`` with the selection arguments of this check (``params``:
    the check command's, by name), to run from the current directory."""
    argv = ["apismith", "check", "--diff"]
    for key in ("config", "spec", "out", "package", "root", "templates", "ref_root", "full"):
        value = params.get(key)
        flag = "--" + key.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is not None and value is not False:
            argv += [flag, str(value)]
    return shlex.join([*argv, *params.get("apis", ())])


def head(diff: str, limit: int | None, command: str) -> str:
    """``diff`` whole (``limit`` None), or its first ``limit`` lines and a line saying how
    many more there are and the command that prints them."""
    if limit is None:
        return diff
    lines = diff.splitlines(keepends=True)
    if len(lines) <= limit:
        return diff
    rest = len(lines) - limit
    more = f"... {rest} more line{'s' * (rest != 1)} of diff: run `{command}` for the full diff\n"
    return "".join(lines[:limit]) + more


def used_overrides(out: Path) -> bool:
    """Whether the package at ``out`` records template overrides among its inputs."""
    inputs = (read_manifest(out) or {}).get("inputs") or []
    return any(isinstance(row, dict) and row.get("role") == "template" for row in inputs)


def run_check(
    configs: Sequence[ApiConfig],
    params: Mapping[str, Any],
    *,
    echo: Callable[..., Any],
) -> list[ApiConfig]:
    """``apismith check`` of ``configs`` (``params``: the command's options by name),
    printing its report with ``echo`` (``click.echo``); the configs that drifted."""
    from generator.progress import Progress

    quiet = bool(params.get("quiet"))
    limit = params.get("diff_lines")
    show_diff = bool(params.get("diff")) or limit is not None
    command = diff_command(params)
    drifted = []
    progress = Progress.for_command(quiet=quiet)
    results = check_all(
        configs, full=bool(params.get("full")), jobs=params.get("jobs"), progress=progress
    )
    for cfg, result in zip(configs, results):
        if result.clean:
            echo(f"{cfg.name}: up to date ({cfg.out})")
            continue
        drifted.append(cfg)
        if not quiet:
            echo(summary(result, cfg.out), nl=False)
            if show_diff:
                echo(head(result.diff, limit, command), nl=False)
        for name in result.changed:
            echo(f"{cfg.name}: drifted: {cfg.out / name}", err=True)
        if cfg.templates is None and used_overrides(cfg.out):
            echo(
                f"{cfg.name}: note: it was generated with template overrides;"
                " pass --templates DIR (or set templates in its config)",
                err=True,
            )
    if drifted and not quiet and not show_diff:
        echo(f"run `{command}` for the full diff")
    return drifted
