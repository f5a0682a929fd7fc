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

import multiprocessing
import os
from collections.abc import Callable, Mapping
from typing import Any

from generator.errors import ApismithError


def _warm() -> None:
    import signal

    # if the main process dies (a kill, say), end quietly instead of printing a
    # BrokenPipeError traceback when the result cannot be sent back
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    import datamodel_code_generator
    import datamodel_code_generator.config  # noqa: F401

    from generator.render.models import dcg  # noqa: F401


def _render(spec: Mapping[str, Any], header: str) -> str:
    from generator.render.models.dcg import render_models

    return render_models(spec, header)


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
        if not fork or os.environ.get("APISMITH_WORKERS", "1") == "0":
            return
        if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover
            return
        self._pool = multiprocessing.get_context("fork").Pool(1, initializer=_warm)

    def start(
        self, spec: Mapping[str, Any], header: str, *, lap: Lap, server: bool = True
    ) -> PendingModels:
        """Start rendering the models of ``spec``. In-process, they render now (stage
        ``render.models``); with a worker, the wait first imports what the import check of
        the output will need (``server``: fastapi too; stage ``preload``)."""
        if self._pool is None:
            text = _render(spec, header)
            lap("render.models")
            return PendingModels(lambda: text, lap)
        pending = self._pool.apply_async(_render, (spec, header))

        def result() -> str:
            try:
                text: str = pending.get()
            except ApismithError:
                raise
            except Exception as exc:
                raise ApismithError(
                    f"model rendering failed: {type(exc).__name__}: {exc}".splitlines()[0],
                    exit_code=1,
                ) from None
            return text

        return PendingModels(result, lap, preload_server=server)

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
    """The text of ``models.py``, on its way."""

    def __init__(
        self, result: Callable[[], str], lap: Lap, *, preload_server: bool | None = None
    ) -> None:
        self._result = result
        self._lap = lap
        self._preload_server = preload_server  # None: rendered in-process, nothing to wait for

    def wait(self) -> str:
        """The text. While the worker still renders, this process imports what the import
        check of the output needs (pydantic, httpx, fastapi), so that it costs only the
        generated modules' own work."""
        if self._preload_server is None:
            text = self._result()
            self._lap("join")
            return text
        from generator.write import preload_runtime

        preload_runtime(server=self._preload_server)
        self._lap("preload")
        text = self._result()
        self._lap("render.models (wait)")
        return text
