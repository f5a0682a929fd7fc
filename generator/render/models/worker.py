"""Overlap the slow model rendering with everything else, on a second core.

datamodel-code-generator takes most of a generation (about 1.2 s of its own work plus
0.35 s to import on the LLM Engine spec). :class:`ModelWorker` forks one worker process
at start-up, which imports it while the main process loads and normalizes the spec; the
main process then renders the IR, client, server and spec while the worker renders the
models. Results are the same bytes as a serial run: the worker calls the same pure
function on the same input.

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


class ModelWorker:
    """One forked process that renders ``models.py`` on request."""

    def __init__(self) -> None:
        self._pool: Any = None
        if os.environ.get("APISMITH_WORKERS", "1") == "0":
            return
        if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover
            return
        self._pool = multiprocessing.get_context("fork").Pool(1, initializer=_warm)

    def render_models(self, spec: Mapping[str, Any], header: str) -> Callable[[], str]:
        """Start rendering; the returned function waits for and returns the text."""
        if self._pool is None:
            text = _render(spec, header)
            return lambda: text
        pending = self._pool.apply_async(_render, (spec, header))

        def wait() -> str:
            try:
                result: str = pending.get()
            except ApismithError:
                raise
            except Exception as exc:
                raise ApismithError(
                    f"model rendering failed: {type(exc).__name__}: {exc}".splitlines()[0],
                    exit_code=1,
                ) from None
            return result

        return wait

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def __enter__(self) -> ModelWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_EARLY: ModelWorker | None = None


def start_early() -> None:
    """Fork the worker before the CLI imports anything heavy (``generator.entry``)."""
    global _EARLY
    if _EARLY is None:
        _EARLY = ModelWorker()


def take_worker() -> ModelWorker:
    """The worker started early, else a new one."""
    global _EARLY
    worker, _EARLY = _EARLY, None
    return worker if worker is not None else ModelWorker()
