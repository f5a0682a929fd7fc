"""How a generation keeps its peak memory down (the main process's and the model
worker's, summed): files held compressed while the worker runs, freed memory given back
to the system, and the garbage collector kept off data that lives until the end."""

from __future__ import annotations

import gc
import os
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager


class Held:
    """Files held compressed (zlib's fastest level) while the models render.

    Peak memory is this process's and the model worker's, summed, and the worker is at
    its largest just before it returns. GitHub's package (20 MB of formatted sources and
    a 12 MB ``openapi.json``) is about 3 MB this way; compressing it takes about 0.1 s of
    a wait that is otherwise idle."""

    def __init__(self, files: Mapping[str, bytes], *, compress: bool = True) -> None:
        """``compress=False``: held as they are (nothing to wait for, so no memory to save)."""
        self._compressed = compress
        self._files = {n: zlib.compress(d, 1) if compress else d for n, d in files.items()}

    def files(self) -> dict[str, bytes]:
        if not self._compressed:
            return dict(self._files)
        return {name: zlib.decompress(data) for name, data in self._files.items()}


# Below this resident size, what a collection would give back is not worth its time (13 to
# 18 ms on a mid-size spec, spent just as the models come in).
GIVE_BACK_ABOVE = 256 << 20


def resident_bytes() -> int | None:
    """This process's resident memory now (Linux's ``/proc/self/statm``), or None."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def give_back_memory() -> None:
    """Return what this process has freed to the system: a collection, then glibc's
    ``malloc_trim`` (elsewhere, the collection only)."""
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass


@contextmanager
def collector_for_large_data() -> Iterator[None]:
    """Python's cyclic garbage collector, tuned for a generation: collections of the
    youngest objects less often, and what :func:`_generate` calls ``gc.freeze()`` on (the
    spec as read, normalized, the IR: alive until the end) left out of every collection.
    On GitHub's 13 MB spec, the default settings spent about 3.5 s of the main process's
    7 s before the model wait re-traversing the long-lived spec; this spends about 0.5,
    at the same peak memory. Everything frozen is unfrozen (collectable) again at the end."""
    thresholds = gc.get_threshold()
    gc.set_threshold(2000, *thresholds[1:])
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
