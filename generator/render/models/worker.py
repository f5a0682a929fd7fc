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
import multiprocessing
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

from generator.errors import ApismithError
from generator.memory import give_back_memory


def _warm() -> None:
    import signal

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


class ModelRenderer:
    """Renders ``models.py``: in one forked worker process when it can, else in-process.

    Create it as early as possible (``generator.entry`` does, before click is imported): the
    worker imports datamodel-code-generator meanwhile. :meth:`start` hands it a spec and
    returns a :class:`PendingModels`, whose :meth:`~PendingModels.wait` gives the text. One
    renderer serves any number of generations; close it (or use ``with``) when done.
    ``fork=False`` (or ``APISMITH_WORKERS=0``, or no ``fork``) renders in-process."""

    def __init__(self, *, fork: bool = True) -> None:
        self._pool: Any = None
        self._fork = (
            fork
            and os.environ.get("APISMITH_WORKERS", "1") != "0"
            and "fork" in multiprocessing.get_all_start_methods()
        )
        if self._fork:
            self._pool = self._new_pool()

    @staticmethod
    def _new_pool() -> Any:
        return multiprocessing.get_context("fork").Pool(1, initializer=_warm)

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
        if self._pool is None:  # the last generation's worker has gone (a later API)
            self._pool = self._new_pool()
        pending = self._pool.apply_async(_render, (model_input(spec), header))

        def result() -> bytes:
            try:
                data: bytes = pending.get()
            except ApismithError:
                raise
            except Exception as exc:
                raise ApismithError(
                    f"model rendering failed: {type(exc).__name__}: {exc}".splitlines()[0],
                    exit_code=1,
                ) from None
            finally:
                # done with the worker: its memory (DCG's, several times the spec's) goes
                # now, not at exit; a next generation forks a new one
                self.close()
            return data

        return PendingModels(result, lap, preload_server=server, ready=pending.ready)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

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
        memory it has freed (peak memory is this process's and the worker's, summed)."""
        if self._preload_server is None:
            data = self._result()
            self._lap("join")
            return data
        if not self.ready():
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
