"""Progress on a terminal, for ``apismith generate`` and ``apismith check``.

One status line on stderr (``apismith: sgp: docs (3s)``), redrawn in place (``\\r`` and
clear to the end of the line). It is drawn only

- when stderr is a terminal (never into a file or a pipe),
- once the run has taken ``APISMITH_PROGRESS_AFTER`` seconds (2 by default, so that a fast
  run prints nothing extra; tests set 0),
- and never under ``--quiet``.

While it is on, ``sys.stdout`` and ``sys.stderr`` are wrapped so that every write first
erases the line (it comes back below the new output at the next redraw): the summary lines,
warnings and notes print the same bytes as without it. A thread draws it, at most ten times
a second and once a second for the clock; the command's own thread only updates the text
(:meth:`Progress.show`, cheap), at the pipeline's stage boundaries.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from generator.config import ApiConfig

AFTER_ENV = "APISMITH_PROGRESS_AFTER"
DEFAULT_AFTER = 2.0
INTERVAL = 0.1  # at most ten redraws a second
TICK = 1.0  # redraw at least this often while on (the clock)
CLEAR = "\r\x1b[K"  # to the line's start, erase to its end


def _after_from_env() -> float:
    try:
        return max(0.0, float(os.environ.get(AFTER_ENV, DEFAULT_AFTER)))
    except ValueError:
        return DEFAULT_AFTER


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


class Progress:
    """The status line. ``enabled=None``: on when ``stream`` (stderr) is a terminal.
    Use it as a context manager around the work; :meth:`show` sets the text."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        enabled: bool | None = None,
        after: float | None = None,
    ) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self.enabled = _is_terminal(self._stream) if enabled is None else enabled
        self._after = _after_from_env() if after is None else after
        self._start = time.monotonic()
        self._text = ""
        self._drawn = False  # the line is on the screen
        self._dirty = False  # the screen does not show the current text
        self._last = float("-inf")  # when it was last drawn
        self._cond = threading.Condition()
        self._stop = False
        self._thread: threading.Thread | None = None
        self._guards: list[_Guarded] = []
        self._saved: tuple[Any, Any] | None = None

    @classmethod
    def for_command(cls, *, quiet: bool) -> Progress:
        """The progress of a command: off under ``--quiet``, else on for a terminal."""
        return cls(enabled=False) if quiet else cls()

    def show(self, text: str) -> None:
        """Set the status text (drawn now if it is due, else by the thread soon)."""
        if not self.enabled:
            return
        with self._cond:
            if text == self._text:
                return
            self._text, self._dirty = text, True
            if self._thread is not None and self._due(time.monotonic()):
                self._draw()
            self._cond.notify()

    def __enter__(self) -> Progress:
        if self.enabled and self._thread is None:
            self._stop = False
            self._saved = (sys.stdout, sys.stderr)
            self._guards = [_Guarded(sys.stdout, self), _Guarded(sys.stderr, self)]
            sys.stdout, sys.stderr = self._guards
            self._thread = threading.Thread(target=self._loop, name="apismith-progress")
            self._thread.daemon = True
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop drawing and erase the line (idempotent)."""
        thread = self._thread
        if thread is None:
            return
        with self._cond:
            self._stop = True
            self._cond.notify()
        thread.join()
        with self._cond:
            self._erase()
            if self._saved is not None:
                sys.stdout, sys.stderr = self._saved
            self._thread, self._saved, self._guards = None, None, []

    # --- the drawing thread (and the guarded writes); all under self._cond ---------------

    def _due(self, now: float) -> bool:
        return (
            bool(self._text)
            and now >= self._start + self._after
            and now >= self._last + INTERVAL
            and all(guard.at_line_start for guard in self._guards)
        )

    def _loop(self) -> None:
        with self._cond:
            while not self._stop:
                now = time.monotonic()
                wake = max(self._start + self._after, self._last + INTERVAL)
                if now < wake:
                    self._cond.wait(wake - now)
                    continue
                if (self._dirty or now >= self._last + TICK) and self._due(now):
                    self._draw()
                self._cond.wait(TICK)

    def _draw(self) -> None:
        now = time.monotonic()
        line = f"{self._text} ({now - self._start:.0f}s)"
        width = _width(self._stream) - 1
        if len(line) > width:
            line = line[: max(0, width - 3)] + "..."
        self._stream.write(CLEAR + line)
        self._stream.flush()
        self._drawn, self._dirty, self._last = True, False, now

    def _erase(self) -> None:
        if self._drawn:
            self._stream.write(CLEAR)
            self._stream.flush()
            self._drawn, self._dirty = False, True

    def _write(self, guard: _Guarded, text: Any) -> Any:
        if not text:
            return guard.real.write(text)
        with self._cond:
            self._erase()
            written = guard.real.write(text)
            if isinstance(text, str):
                guard.at_line_start = text.endswith("\n")
            self._cond.notify()
            return written


class _Guarded:
    """``sys.stdout`` or ``sys.stderr`` while the progress line is on: every write
    erases the line first; everything else is the stream's own."""

    def __init__(self, real: TextIO, progress: Progress) -> None:
        self.real = real
        self.at_line_start = True
        self._progress = progress

    def write(self, text: Any) -> Any:
        return self._progress._write(self, text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def _width(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


class Board:
    """The progress line of a run over several APIs (``verb``: ``generate``, ``check``)."""

    def __init__(self, progress: Progress, configs: Sequence[ApiConfig], verb: str) -> None:
        self._progress = progress
        self._names = [c.name for c in configs]
        self._verb = verb
        self._running: dict[int, str] = {}
        self._done = 0

    def update(self, index: int, label: str | None) -> None:
        """API ``index`` begins stage ``label`` (None: it is done)."""
        if label is None:
            self._running.pop(index, None)
            self._done += 1
        else:
            self._running[index] = label
        running = ", ".join(
            f"{self._names[i]}: {label}" for i, label in sorted(self._running.items())
        )
        self._progress.show(
            f"apismith: {self._verb} {self._done}/{len(self._names)} APIs done"
            + (f"; {running}" if running else "")
        )

    def serial(self, index: int, stage: str | None = None) -> Callable[[str], None]:
        """The stage callback of API ``index`` in a serial run (and shows ``stage``)."""
        total = len(self._names)
        where = self._names[index] + (f" [{index + 1}/{total}]" if total > 1 else "")
        verb = "checking " if self._verb == "check" else ""

        def show(label: str) -> None:
            self._progress.show(f"apismith: {verb}{where}: {label}")

        if stage is not None:
            show(stage)
        return show


NO_PROGRESS = Progress(enabled=False)
"""A progress that never draws (library calls, tests)."""

__all__ = ["AFTER_ENV", "NO_PROGRESS", "Board", "Progress"]
