"""Many APIs at once: ``apismith generate`` and ``check`` over several APIs use every core.

:class:`ApiPool` starts ``jobs`` worker processes (``fork`` on Linux, ``spawn`` elsewhere),
each with its own :class:`~generator.render.models.ModelRenderer`; a worker takes one API at
a time and sends back its whole result (for ``generate``, the files in memory, import-checked
from memory; nothing is written where the output goes). Results are handed over in
config order, whatever order they finish in, so the output is the same bytes as a serial
run: the parent writes every package itself (``write_package``, atomic), in config order.
On Linux the parent imports what the workers need before they fork (:func:`_warm_up`).

Errors too: the error reported is that of the first failing API in config order (the one
a serial run stops at), with the same one-line message, and the APIs after it are not
waited for. The biggest specs are handed out first, so that a long one does not start last.

The stage each worker is at goes to the parent as it begins, for the progress line.
With one API (or ``--jobs 1``, or ``APISMITH_WORKERS=0``) nothing of this runs.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import signal
import sys
import time
import traceback
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any

from generator.config import ApiConfig
from generator.errors import ApismithError
from generator.progress import NO_PROGRESS, Board, Progress

if TYPE_CHECKING:
    from generator.model_worker import ModelRenderer
    from generator.pipeline import Generated

Task = Callable[..., Any]  # (config, models, stage) -> a picklable result


def cpu_count() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def jobs_for(apis: int, jobs: int | None) -> int:
    """How many APIs run at once: ``jobs`` (default: every core), at most one per API;
    1 (a serial run, no pool) for one API, or with ``APISMITH_WORKERS=0``."""
    if apis < 2 or os.environ.get("APISMITH_WORKERS", "1") == "0":
        return 1
    return max(1, min(jobs if jobs is not None else cpu_count(), apis))


# --- the tasks --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Built:
    """A generated API on its way to be written. ``imported``: its import check already
    ran (in a worker, from a temporary copy of the files), taking ``seconds``; ``error``:
    how it failed (the write then runs the check again, to fail as a serial run does). A
    worker's :class:`~generator.pipeline.Generated` comes without its normalized spec."""

    result: Generated
    imported: bool = False
    error: ApismithError | None = None
    seconds: float = 0.0


def generate_task(config: ApiConfig, models: Any, stage: Callable[[str], None]) -> Built:
    """Generate one API, then import-check it (here, so that the checks run in parallel
    too; the parent writes without importing again)."""
    from generator.bytecode import Compiled
    from generator.normalize import Normalized
    from generator.pipeline import generate

    result = generate(config, models, stage=stage)
    stage("import check")
    start = time.perf_counter()
    try:
        _import_check(result)
        error = None
    except ApismithError as exc:
        error = exc
    # no need to send the spec (or the code compiled ahead) back
    light = replace(result, normalized=Normalized({}, ()), compiled=Compiled())
    return Built(light, True, error, time.perf_counter() - start)


def _import_check(result: Generated) -> None:
    """``write_package``'s import check, on the files in memory (nothing is written here)."""
    from generator.import_check import verify_import
    from generator.write import target_path

    package = result.config.package if result.config.meta else ""
    if (f"{package}/__init__.py" if package else "__init__.py") not in result.files:
        return  # as write_package: no package, nothing to import
    verify_import(
        target_path(result.config.out),
        result.files,
        package=package,
        compiled=result.compiled,
        probes=result.probes,
    )


def _warm_up(configs: Sequence[ApiConfig]) -> None:
    """Import, once and before the workers fork, what each of them would import: the
    pipeline, datamodel-code-generator, and what the import check needs."""
    import datamodel_code_generator
    import datamodel_code_generator.config  # noqa: F401

    import generator.pipeline  # noqa: F401
    from generator.import_check import preload_runtime
    from generator.render.models import dcg  # noqa: F401

    preload_runtime(server=any("server" in c.outputs for c in configs))


# --- errors across the process boundary -------------------------------------------------------


@dataclass(frozen=True)
class _Failure:
    """An exception of a worker, as the parent re-raises it."""

    error: BaseException | None  # when it pickles (ApismithError, RecursionError, ...)
    type_name: str
    text: str
    trace: str

    def exception(self) -> BaseException:
        exc = self.error or type(self.type_name, (Exception,), {})(self.text)
        if os.environ.get("APISMITH_DEBUG"):
            exc.__cause__ = _WorkerTraceback(self.trace)
        return exc


class _WorkerTraceback(Exception):
    def __str__(self) -> str:
        return "\n" + str(self.args[0])


def _failure(exc: Exception) -> _Failure:
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    error: BaseException | None = exc
    try:
        if type(pickle.loads(pickle.dumps(exc))) is not type(exc):
            error = None
    except Exception:
        error = None
    return _Failure(error, type(exc).__name__, str(exc), trace)


# --- the worker process -----------------------------------------------------------------------


def _exit(*_: object) -> None:
    sys.exit(1)


def _serve(conn: Connection, task: Task, fork_models: bool) -> None:
    """A worker: run ``task`` on each ``(index, config)`` received, until ``None``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent takes Ctrl-C, and ends us
    if hasattr(signal, "SIGPIPE"):  # the parent gone: end quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    from generator.model_worker import ModelRenderer

    with ModelRenderer(fork=fork_models) as models:
        # ended by the parent: with cleanups (temporary folders, the models' process);
        # set after the models' process started, which keeps the default
        signal.signal(signal.SIGTERM, _exit)
        while True:
            try:
                item = conn.recv()
            except (EOFError, OSError):
                return
            if item is None:
                return
            index, config = item

            def stage(label: str, index: int = index) -> None:
                conn.send(("stage", index, label))

            try:
                message = ("done", index, task(config, models, stage))
            except Exception as exc:
                message = ("error", index, _failure(exc))
            conn.send(message)


@dataclass
class _Worker:
    process: Any
    conn: Connection
    index: int | None = None  # the API it works on
    name: str = ""


class ApiPool:
    """``jobs`` worker processes that run ``task`` on one API at a time. Each worker has
    its own model renderer, in a process of its own when there are cores to spare
    (the first ``fork_models`` workers; the others render in-process). The biggest
    spec goes to the first worker. Use it as a context manager."""

    def __init__(self, task: Task, jobs: int, *, fork_models: int = 0) -> None:
        method = "fork" if sys.platform.startswith("linux") else "spawn"
        ctx: Any = multiprocessing.get_context(method)
        self._workers: list[_Worker] = []
        gc.freeze()  # forked workers then copy fewer pages (the collector writes to them)
        for number in range(jobs):
            parent, child = ctx.Pipe()
            process = ctx.Process(
                target=_serve,
                args=(child, task, number < fork_models),
                name="apismith-api",
                daemon=False,
            )
            process.start()
            child.close()
            self._workers.append(_Worker(process, parent))
        gc.unfreeze()

    def __enter__(self) -> ApiPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(abort=exc[0] is not None)

    def close(self, *, abort: bool = False) -> None:
        """End the workers: politely when they are idle, else (``abort``) at once."""
        for worker in self._workers:
            if abort or worker.index is not None:
                worker.process.terminate()
            else:
                try:
                    worker.conn.send(None)
                except OSError:
                    worker.process.terminate()
        for worker in self._workers:
            worker.process.join(5)
            if worker.process.is_alive():  # pragma: no cover - a stuck worker
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self._workers = []

    def results(
        self, configs: Sequence[ApiConfig], on_stage: Callable[[int, str | None], None]
    ) -> Iterator[Any]:
        """The task's result for each config, in config order (each as soon as it and
        every one before it are in). A failure is raised at its turn; the APIs after it
        are dropped (close the pool then, or leave the ``with``)."""
        queue = sorted(range(len(configs)), key=lambda i: -_size(configs[i]))
        outcomes: dict[int, tuple[str, Any]] = {}
        for turn in range(len(configs)):
            while turn not in outcomes:
                self._hand_out(queue, configs)
                self._receive(outcomes, on_stage)
                failed = [i for i, (kind, _) in outcomes.items() if kind == "error"]
                if failed:  # an error there wins over anything after it
                    queue[:] = [i for i in queue if i < min(failed)]
            kind, value = outcomes.pop(turn)
            if kind == "error":
                raise value.exception()
            yield value

    def _hand_out(self, queue: list[int], configs: Sequence[ApiConfig]) -> None:
        for worker in self._workers:
            if worker.index is None and queue:
                worker.index = queue.pop(0)
                worker.name = configs[worker.index].name
                worker.conn.send((worker.index, configs[worker.index]))

    def _receive(
        self, outcomes: dict[int, tuple[str, Any]], on_stage: Callable[[int, str | None], None]
    ) -> None:
        busy = {worker.conn: worker for worker in self._workers if worker.index is not None}
        if not busy:  # pragma: no cover - cannot happen: the turn's API is always handed out
            raise RuntimeError("no API in the works")
        for conn in wait(list(busy)):
            worker = busy[conn]  # type: ignore[index]
            assert worker.index is not None
            kind: str
            index: int
            value: Any
            try:
                kind, index, value = worker.conn.recv()
            except (EOFError, OSError):
                kind, index, value = "error", worker.index, _died(worker)
            if kind == "stage":
                on_stage(index, value)
                continue
            outcomes[index] = (kind, value)
            worker.index = None
            on_stage(index, None)


def _died(worker: _Worker) -> _Failure:
    worker.process.join(1)
    code = worker.process.exitcode
    why = f"exit code {code}" if code is not None else "still running"
    text = f"{worker.name}: the worker process ended without an answer ({why})"
    return _Failure(RuntimeError(text), "RuntimeError", text, "")


def _size(config: ApiConfig) -> int:
    try:
        return config.spec.stat().st_size
    except OSError:
        return 0


# --- the runs ---------------------------------------------------------------------------------


def run_parallel(
    task: Task,
    configs: Sequence[ApiConfig],
    jobs: int,
    progress: Progress = NO_PROGRESS,
    *,
    verb: str = "generate",
) -> Generator[Any, None, None]:
    """``task``'s result for every config, in config order, from ``jobs`` workers; the
    progress line shows what each is at (it is entered here, once the workers are
    started: no fork while its thread runs)."""
    # as many workers as there are spare cores render their models in a process of their
    # own, at least one (the serial path's overlap, for the biggest spec, which goes first)
    fork_models = max(1, cpu_count() - jobs)
    board = Board(progress, configs, verb)
    with ApiPool(task, jobs, fork_models=fork_models) as pool, progress:
        yield from pool.results(configs, board.update)


def generate_all(
    configs: Sequence[ApiConfig],
    jobs: int,
    progress: Progress = NO_PROGRESS,
    *,
    early: ModelRenderer | None = None,
) -> list[Built]:
    """Every config generated, in config order: serially with one model renderer
    (``early``, the one ``generator.entry`` started, else a new one) when ``jobs`` is 1,
    else in ``jobs`` workers, import checks included (``early`` is closed: its worker
    would only compete with them)."""
    if jobs > 1:
        if early is not None:
            early.close()
        if sys.platform.startswith("linux"):  # the workers fork: they start warm
            _warm_up(configs)
        return list(run_parallel(generate_task, configs, jobs, progress))
    from generator.model_worker import ModelRenderer

    board = Board(progress, configs, "generate")
    with early or ModelRenderer() as models, progress:
        from generator.pipeline import generate

        return [Built(generate(c, models, stage=board.serial(i))) for i, c in enumerate(configs)]


def write_all(
    built: Sequence[Built],
    progress: Progress = NO_PROGRESS,
    *,
    force: bool = False,
    verbose: bool = False,
    timings: bool = False,
    quiet: bool = False,
) -> None:
    """Write every API (``write_package``: atomic, import check included unless it ran
    already), in config order, each followed by its report; none is written when any is
    refused."""
    from generator.write import write_package

    for item in built:
        _check_result(item.result, force=force)
    board = Board(progress, [item.result.config for item in built], "generate")
    with progress:
        for index, item in enumerate(built):
            board.serial(index, "write" if item.imported else "write and import check")
            start = time.perf_counter()
            cfg = item.result.config
            package = cfg.package if cfg.meta else ""
            verify = not item.imported or item.error is not None
            write_package(
                cfg.out,
                item.result.files,
                package=package,
                verify=verify,
                force=force,
                compiled=item.result.compiled,
                probes=item.result.probes,
            )
            seconds = time.perf_counter() - start
            laps: tuple[tuple[str, float], ...] = (("write (with import check)", seconds),)
            if item.imported:
                laps = (("import check", item.seconds), ("write", seconds))
            _report(item.result, laps, verbose=verbose, timings=timings, quiet=quiet)


def _check_result(result: Generated, *, force: bool) -> None:
    """Refuse a result with unaccounted schemas, or whose target is a user's directory."""
    from generator.write import check_inputs, check_target

    if result.summary.unaccounted:
        raise ApismithError(
            f"{result.config.name}: schemas without a model: "
            + ", ".join(result.summary.unaccounted),
            exit_code=1,
        )
    cfg = result.config
    check_inputs(cfg.out, (cfg.spec, *cfg.overlays, cfg.templates, cfg.config_file))
    check_target(cfg.out, force=force)  # a user's directory: before any write


def _report(
    result: Generated,
    laps: tuple[tuple[str, float], ...],
    *,
    verbose: bool,
    timings: bool,
    quiet: bool,
) -> None:
    """The timings (with ``--timings``), the summary line and the findings of one API;
    under ``--quiet``, the warnings only, each after the API's name."""
    import click

    name = result.config.name
    if timings:
        for stage, seconds in (*result.timings, *laps):
            click.echo(f"  {stage:<28} {seconds * 1000:8.1f} ms", err=True)
    if not quiet:
        click.echo(result.summary.line(name))
    shown = (
        result.diagnostics
        if verbose
        else [d for d in result.diagnostics if d.kind in ("warning", "drop")]
    )
    lead = f"{name}: " if quiet else "  "
    for diag in shown[: None if verbose else 20]:
        click.echo(f"{lead}{diag.line()}", err=True)
    if not verbose and len(shown) > 20:
        click.echo(f"{lead}... {len(shown) - 20} more warnings (-v lists them all)", err=True)


__all__ = [
    "ApiPool",
    "Built",
    "cpu_count",
    "generate_all",
    "jobs_for",
    "run_parallel",
    "write_all",
]
