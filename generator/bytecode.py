"""The generated modules compiled ahead, while the models still render, for the import check.

The import check (:func:`generator.import_check.verify_import`) imports every module of the
output, and compiling them is a good part of it: GitHub's package has 15 MB of Python
besides ``models.py``. The main process is idle while the model worker renders, so it
compiles them then (:func:`compile_ahead`, stopping as soon as the models are in), and the
import check takes each compiled module instead of compiling it again
(:func:`compiled_code`). A module is taken only when the file it would compile is byte for
byte the one compiled ahead (same size and CRC-32); anything else compiles as usual.
For a large package the compiled code is held marshalled and compressed, so that it adds
little to the peak memory of that wait (:data:`PACK_ABOVE`).
"""

from __future__ import annotations

import marshal
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

try:
    from _imp import _fix_co_filename  # type: ignore[attr-defined]  # importlib's, for .pyc
except ImportError:  # pragma: no cover - not CPython: compile at import time instead
    _fix_co_filename = None


# Above this much source, compiled code is held marshalled and compressed (GitHub's 15 MB
# of modules compile to several times that); below, as code objects, which the import check
# then takes without unpacking them (5 to 20 ms on a mid-size spec, at its end).
PACK_ABOVE = 8 << 20


@dataclass(frozen=True)
class Compiled:
    """Code objects by file name (as in the generated files), each with the size and
    CRC-32 of the source it was compiled from: marshalled and compressed (``bytes``) for a
    large package, else as they are."""

    modules: Mapping[str, tuple[int, int, Any]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.modules)


def compile_ahead(
    files: Mapping[str, bytes], done: Callable[[], bool], *, prefix: str = ""
) -> Compiled:
    """Compile the ``*.py`` files but ``models.py`` (which is not there yet), the largest
    first, until ``done()`` (the models are in: compiling goes back to the import check).
    ``prefix``: where the files go in the output (``<package>/`` for an installable
    project), as the names are recorded."""
    if _fix_co_filename is None:  # pragma: no cover
        return Compiled()
    names = sorted(
        (n for n in files if n.endswith(".py") and n.rsplit("/", 1)[-1] != "models.py"),
        key=lambda n: (-len(files[n]), n),
    )
    pack = sum(len(files[n]) for n in names) > PACK_ABOVE
    modules: dict[str, tuple[int, int, Any]] = {}
    for name in names:
        if done():
            break
        data = files[name]
        try:
            code = compile(data, name, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            continue  # the import check reports it, with its line
        held = zlib.compress(marshal.dumps(code), 1) if pack else code
        modules[prefix + name] = (len(data), zlib.crc32(data), held)
    return Compiled(modules)


def compiled_code(compiled: Compiled, name: str, data: bytes, path: str) -> Any:
    """The code compiled ahead for the file ``name`` (as recorded), when ``data`` is byte for
    byte what was compiled, with ``path`` as its file name; else None."""
    entry = compiled.modules.get(name)
    if entry is None or _fix_co_filename is None:
        return None
    size, crc, held = entry
    if len(data) != size or zlib.crc32(data) != crc:
        return None
    code = marshal.loads(zlib.decompress(held)) if isinstance(held, bytes) else held
    _fix_co_filename(code, path)
    return code
