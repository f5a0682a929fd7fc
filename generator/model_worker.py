"""Overlap the slow model rendering with everything else, on a second core.

datamodel-code-generator takes most of a generation (about 1.2 s of its own work plus
0.35 s to import on the LLM Engine spec). :class:`ModelRenderer` forks one worker process
at start-up, which imports it while the main process loads and normalizes the spec; the
main process then renders the IR, client, server and spec while the worker renders the
models. Results are the same bytes as a serial run: the worker calls the same pure
function on the same input. :class:`ModelRenderer` is the whole interface: the pipeline
asks it for the models of a spec and later waits for them; how is its business.

Where ``fork`` is unavailable (or ``APISMITH_WORKERS=0``), everything runs in-process.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import threading
from collections.abc import Callable, Mapping
from typing import Any

from generator.errors import ApismithError
from generator.memory import GIVE_BACK_ABOVE, give_back_memory, resident_bytes


def _warm() -> None:
    # if the main process dies (a kill, say), end quietly instead of printing a
    # BrokenPipeError traceback when the result cannot be sent back
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    import datamodel_code_generator
    import datamodel_code_generator.config  # noqa: F401

    from generator.render.models import dcg  # noqa: F401

    # what is imported by now lives as long as the worker: keep the collector off it
    gc.freeze()


def models_module(spec: Mapping[str, Any], header: str, *, owned: bool = False) -> bytes:
    """``models.py``, rendered and formatted (``owned``: see :func:`.dcg.render_models`)."""
    from generator.format import format_files
    from generator.render.models.dcg import render_models

    return format_files({"models.py": render_models(spec, header, owned=owned)})["models.py"]


def _render(spec: Mapping[str, Any], header: str) -> bytes:
    """In the worker: ``spec`` is its own unpickled copy, reshaped in place. The cyclic
    collector is off: DCG allocates millions of objects that live until it returns, and
    collecting among them cost about a tenth of its time on GitHub's spec. It stays off:
    the worker renders one spec and is ended once it has sent the module back, and turning
    the collector on again had cost a collection over all that DCG left, before the module
    was sent (40 ms on a mid-size spec, bigredcloud.com)."""
    gc.disable()
    return models_module(spec, header, owned=True)


Lap = Callable[[str], None]  # records the time of a stage (``Stopwatch.lap``)


class _Fork:
    """The worker: a process forked at once (``os.fork``, a pipe each way: a pool's queues
    and threads had cost 20 ms of start-up on both sides of the fork), which imports DCG,
    then reads its one task, renders it and sends the result back. Threads here feed the
    task and collect the result, so that neither this process nor the worker waits on a
    full pipe, and :meth:`ready` is a flag (no system call: those wait for the interpreter
    lock while another thread imports)."""

    def __init__(self) -> None:
        task_read, self._task = os.pipe()
        self._results, result_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the worker
            os.close(self._task)
            os.close(self._results)
            _serve(task_read, result_write)  # never returns
        os.close(task_read)
        os.close(result_write)
        self._received = threading.Event()
        self._data = b""
        self._threads: list[threading.Thread] = []

    def send(self, spec: Mapping[str, Any], header: str) -> None:
        """Hand the worker its task (once); the pipe's end is closed by the feeding thread."""
        payload = pickle.dumps((spec, header), protocol=pickle.HIGHEST_PROTOCOL)
        task, self._task = self._task, -1
        for target, args in ((_write_all, (task, payload)), (self._receive, ())):
            thread = threading.Thread(target=target, args=args, daemon=True)
            thread.start()
            self._threads.append(thread)

    def _receive(self) -> None:
        try:
            self._data = _read_all(self._results)
        except OSError:  # pragma: no cover - the pipe closed under it: no result
            self._data = b""
        self._received.set()

    def ready(self) -> bool:
        return self._received.is_set()

    def result(self) -> tuple[str, Any]:
        """What the worker sent: ``("ok", module)``, ``("refused", ApismithError)`` or
        ``("failed", message)``, also when it ended without sending anything."""
        self._received.wait()
        try:
            outcome: tuple[str, Any] = pickle.loads(self._data)
        except Exception:  # nothing, or cut short: the worker died (killed, out of memory)
            return ("failed", "the model worker ended without a result")
        return outcome

    def close(self) -> None:
        """End the worker (done or not) and wait for it and the threads."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:  # pragma: no cover - reaped already
            pass
        os.waitpid(self.pid, 0)
        for thread in self._threads:  # the pipes' other ends are gone: both threads end
            thread.join()
        for fd in (self._task, self._results):
            if fd >= 0:
                os.close(fd)
        self._task = self._results = -1


def _read_all(fd: int) -> bytes:
    """Everything ``fd`` gives until its other end is closed."""
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    """Write ``data`` to ``fd``, then close it (the end of input, for the reader)."""
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view[: 1 << 20]) :]
    except OSError:  # the reader has gone: what it sent (or did not) says why
        pass
    finally:
        os.close(fd)


def _serve(task: int, results: int) -> None:
    """The worker process: render the one task read from ``task``, write the result to
    ``results``, and exit (without the parent's exit handlers and buffers)."""
    outcome: tuple[str, Any]
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the worker quietly
        _warm()
        spec, header = pickle.loads(_read_all(task))
        outcome = ("ok", _render(spec, header))
    except ApismithError as exc:
        outcome = ("refused", exc)
    except BaseException as exc:  # DCG's own failure (or its import's): one line
        outcome = ("failed", f"{type(exc).__name__}: {exc}")
    try:
        _write_all(results, pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL))
    finally:
        os._exit(0)


class ModelRenderer:
    """Renders ``models.py``: in one forked worker process when it can, else in-process.

    Create it as early as possible (``generator.entry`` does, before click is imported): the
    worker imports datamodel-code-generator meanwhile. :meth:`start` hands it a spec and
    returns a :class:`PendingModels`, whose :meth:`~PendingModels.wait` gives the text. One
    renderer serves any number of generations; close it (or use ``with``) when done.
    ``fork=False`` (or ``APISMITH_WORKERS=0``, or no ``fork``) renders in-process."""

    def __init__(self, *, fork: bool = True) -> None:
        self._worker: _Fork | None = None
        self._fork = fork and os.environ.get("APISMITH_WORKERS", "1") != "0" and hasattr(os, "fork")
        if self._fork:
            self._worker = _Fork()

    def start(
        self, spec: Mapping[str, Any], header: str, *, lap: Lap, server: bool = True
    ) -> PendingModels:
        """Start rendering (and formatting) the models of ``spec``. In-process, they render
        now (stage ``render.models``); with a worker, the caller then starts the imports the
        import check of the output will need (:meth:`PendingModels.preload`; ``server``:
        fastapi too), once it has imported what it needs itself."""
        from generator.render.models.dcg import model_input

        if not self._fork:
            data = models_module(model_input(spec), header)
            lap("render.models")
            return PendingModels(lambda: data, lap)
        if self._worker is None:  # the last generation's worker has gone (a later API)
            self._worker = _Fork()
        worker = self._worker
        worker.send(model_input(spec), header)

        def result() -> bytes:
            try:
                kind, value = worker.result()
            finally:
                # done with the worker: its memory (DCG's, several times the spec's) goes
                # now, not at exit; a next generation forks a new one
                self.close()
            if kind == "ok":
                return bytes(value)
            if kind == "refused" and isinstance(value, ApismithError):
                raise value
            message = f"model rendering failed: {value}".splitlines()[0]
            raise ApismithError(message, exit_code=1)

        return PendingModels(result, lap, preload_server=server, ready=worker.ready)

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def __enter__(self) -> ModelRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PendingModels:
    """The formatted ``models.py``, on its way."""

    def __init__(
        self,
        result: Callable[[], bytes],
        lap: Lap,
        *,
        preload_server: bool | None = None,
        ready: Callable[[], bool] | None = None,
    ) -> None:
        self._result = result
        self._lap = lap
        self._ready = ready
        self._preload_server = preload_server  # None: rendered in-process, nothing to wait for
        self._preload: threading.Thread | None = None

    def ready(self) -> bool:
        """Whether the module is in (:meth:`wait` returns at once)."""
        return self._ready is None or self._ready()

    def preload(self) -> None:
        """Import, in a thread, what the import check of the output needs (pydantic, httpx,
        fastapi) while the worker renders: most of it overlaps this process's waits for
        subprocesses (ruff) and for the worker. :meth:`settle` waits for it. Call it once
        this process has imported its own modules: an import meanwhile (its file system
        calls release the interpreter lock) waits for the thread to give the lock back."""
        if self._preload_server is None or self._preload is not None:
            return
        import sysconfig

        from generator.import_check import preload_runtime

        # sysconfig's first use is not thread-safe, and this process's other threads (ruff's
        # locator, generator.format) use it too: set it up here, before the thread starts
        sysconfig.get_config_vars()

        self._preload = threading.Thread(
            target=preload_runtime, kwargs={"server": self._preload_server}, daemon=True
        )
        self._preload.start()

    def wait(self) -> bytes:
        """The module. While the worker still renders, this process first gives back the
        memory it has freed (peak memory is this process's and the worker's, summed), when
        it holds enough for that to matter (:data:`~generator.memory.GIVE_BACK_ABOVE`)."""
        if self._preload_server is None:
            data = self._result()
            self._lap("join")
            return data
        if not self.ready() and (resident_bytes() or GIVE_BACK_ABOVE) >= GIVE_BACK_ABOVE:
            give_back_memory()
        data = self._result()
        self._lap("render.models (wait)")
        return data

    def settle(self) -> None:
        """Wait for the imports :meth:`preload` started (stage ``preload``, when they take
        longer than what the caller did meanwhile)."""
        if self._preload is not None:
            self._preload.join()
            self._preload = None
            self._lap("preload")
