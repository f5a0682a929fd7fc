"""The import check: a generated package is imported before the generator reports success.

:func:`verify_import` imports the package under a private name, from its files as held in
memory (:class:`PackageSources`: the bytes that are being written, not what is on disk
yet), so that writing them (:mod:`generator.file_writer`, another process) and importing
them happen at once. Every module is imported: the package root, ``models.py``, the
client's resource modules (which the client loads lazily) and, when fastapi is installed,
``server.py``, ``mock.py`` and their ``_server/*.py`` and ``_mock/*.py``. The generated
code has no import-time side effects besides defining classes.

A module compiled ahead while the models rendered (:mod:`generator.bytecode`) is taken as
compiled when its source is byte for byte the one compiled. A failure is one line naming
the module, line, model and field (:func:`import_failure`).
"""

from __future__ import annotations

import ast
import gc
import importlib.abc
import importlib.util
import itertools
import re
import sys
import traceback
from collections.abc import Mapping, Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

from generator.bytecode import Compiled, compiled_code
from generator.errors import ApismithError

_COUNTER = itertools.count()


def preload_runtime(*, server: bool = True) -> None:
    """Import what generated packages import (pydantic, httpx, fastapi when installed).

    The model renderer starts this in a thread while its worker renders, so that the import
    check costs only the generated modules' own work."""
    names = ("pydantic", "httpx", "fastapi", "fastapi.responses") if server else ("pydantic",)
    if "httpx" not in sys.modules:
        # httpx imports its command line (``httpx.main``: rich, pygments and click) when
        # those are installed, and with apismith they are: a third of its import time, for
        # something no generated package uses. Marked absent, httpx defines a stand-in.
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    for name in names:
        if importlib.util.find_spec(name.split(".")[0]) is not None:
            importlib.import_module(name)


class PackageSources(importlib.abc.MetaPathFinder, importlib.abc.SourceLoader):
    """Finds and loads the modules of the package imported as ``name`` from ``sources``
    (``.py`` files by their path in the package), as if they were the files in
    ``package_dir``: ``__file__``, tracebacks and relative imports are as from there. A
    module of the package that is not in ``sources`` is not found (never looked for on
    disk). ``compiled`` code is taken for the files it holds (names with ``prefix``)."""

    def __init__(
        self,
        name: str,
        package_dir: Path,
        sources: Mapping[str, bytes],
        compiled: Compiled,
        prefix: str,
    ) -> None:
        self.name = name
        self.package_dir = package_dir
        self.sources = sources
        self.compiled = compiled
        self.prefix = prefix
        self._paths: dict[str, str] = {}  # file path -> its name in the package
        self._files: dict[str, str] = {}  # module -> its file path
        self._folders = {n.rsplit("/", 1)[0] for n in sources if "/" in n}

    def relative(self, path: str) -> str | None:
        """The name in the package of the file at ``path`` (None: not one of its files)."""
        return self._paths.get(path)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != self.name and not fullname.startswith(self.name + "."):
            return None
        inner = fullname[len(self.name) + 1 :].replace(".", "/")
        init = f"{inner}/__init__.py" if inner else "__init__.py"
        folder = self.package_dir / inner if inner else self.package_dir
        if init in self.sources:
            return self._spec(fullname, init, [str(folder)])
        if inner and f"{inner}.py" in self.sources:
            return self._spec(fullname, f"{inner}.py", None)
        if inner in self._folders:  # a folder without __init__.py: a namespace package
            spec = ModuleSpec(fullname, None, is_package=True)
            spec.submodule_search_locations = [str(folder)]
            return spec
        raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)

    def _spec(self, fullname: str, name: str, folders: list[str] | None) -> ModuleSpec | None:
        path = str(self.package_dir / name)
        self._paths[path], self._files[fullname] = name, path
        return importlib.util.spec_from_file_location(
            fullname, path, loader=self, submodule_search_locations=folders
        )

    def get_filename(self, fullname: str) -> str:
        path = self._files.get(fullname)
        if path is None:
            raise ImportError(f"not a module of the package: {fullname}", name=fullname)
        return path

    def get_data(self, path: str) -> bytes:
        name = self._paths.get(str(path))
        if name is None:
            raise OSError(f"not a file of the package: {path}")
        return self.sources[name]

    def source_to_code(  # type: ignore[override]  # SourceLoader's, not InspectLoader's
        self, data: Any, path: Any, *, _optimize: int = -1
    ) -> Any:
        name = self._paths.get(str(path))
        if name is not None:
            code = compiled_code(self.compiled, self.prefix + name, bytes(data), str(path))
            if code is not None:
                return code
        return compile(data, path, "exec", dont_inherit=True, optimize=_optimize)


def package_sources(package_dir: Path) -> dict[str, bytes]:
    """The ``.py`` files under ``package_dir`` as :func:`verify_import` takes them."""
    return {
        p.relative_to(package_dir).as_posix(): p.read_bytes()
        for p in sorted(package_dir.rglob("*.py"))
        if p.is_file()
    }


def verify_import(
    root: Path,
    files: Mapping[str, bytes] | None = None,
    *,
    package: str = "",
    compiled: Compiled | None = None,
) -> None:
    """Import the package at ``root/package`` whose files are ``files`` (names relative
    to ``root``; by default, the ``.py`` files there on disk) under a private name, then
    forget it. ``compiled``: the modules compiled while the models rendered (names
    relative to ``root``, :func:`generator.bytecode.compile_ahead`).

    Runs in-process (the generator has already imported pydantic, so this costs only the
    generated modules' own work)."""
    package_dir = root / package if package else root
    prefix = f"{package}/" if package else ""
    if files is None:
        sources: Mapping[str, bytes] = package_sources(package_dir)
    else:
        sources = {
            n[len(prefix) :]: data
            for n, data in files.items()
            if n.startswith(prefix) and n.endswith(".py")
        }
    if "__init__.py" not in sources:  # pragma: no cover - callers check
        raise ApismithError(f"cannot import generated package at {package_dir}", exit_code=1)
    if "server.py" in sources and importlib.util.find_spec("fastapi") is None:
        raise ApismithError(
            "the server modules need fastapi, which apismith depends on: reinstall apismith"
            ' (pip install apismith), or leave "server" out of the config\'s outputs',
            exit_code=1,
        )
    name = f"_apismith_verify_{next(_COUNTER)}"
    finder = PackageSources(name, package_dir, sources, compiled or Compiled(), prefix)
    sys.meta_path.insert(0, finder)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    collecting = gc.isenabled()
    gc.disable()  # defining thousands of models: collecting meanwhile cost a third of this
    try:
        importlib.import_module(name)
        _import_modules(name, sources)
    except Exception as exc:
        raise ApismithError(
            f"generated code does not import: {import_failure(exc, finder)}", exit_code=1
        ) from None
    finally:
        if collecting:
            gc.enable()
        sys.dont_write_bytecode = saved
        sys.meta_path.remove(finder)
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]


def _import_modules(name: str, sources: Mapping[str, bytes]) -> None:
    """Import the modules of the package imported as ``name`` that its root does not."""

    def stems(folder: str) -> list[str]:
        return sorted(
            n[len(folder) + 1 : -3]
            for n in sources
            if n.startswith(folder + "/") and n.count("/") == 1 and n != f"{folder}/__init__.py"
        )

    # the models, which the package root may import only on first use
    if "models.py" in sources:
        importlib.import_module(f"{name}.models")
    # the client's resource modules, which it imports only on first use
    for stem in stems("resources"):
        importlib.import_module(f"{name}.resources.{stem}")
    if "server.py" in sources:
        importlib.import_module(f"{name}.server")
        if "mock.py" in sources:
            importlib.import_module(f"{name}.mock")
        # the server's and the mock's resource modules (server.py and mock.py import them
        # all; named here so that a failure names its module)
        for folder in ("_server", "_mock"):
            for stem in stems(folder):
                importlib.import_module(f"{name}.{folder}.{stem}")


_FIELD = re.compile(r'Field "([^"]+)"')


def import_failure(exc: BaseException, finder: PackageSources) -> str:
    """One line on why importing the generated package failed, naming where in it: the
    module and line, the model being defined there and, for a pydantic schema error, the
    field (``models.py:12: class Chat, field "role": SchemaError: error: unclosed ...``)."""
    frames = traceback.StackSummary.extract(
        traceback.walk_tb(exc.__traceback__), lookup_lines=False
    )
    places = [(f.filename, f.lineno) for f in frames]
    if isinstance(exc, SyntaxError):  # raised by compiling the module: no frame in it
        places.append((str(exc.filename), exc.lineno))
    inside = [(n, line) for path, line in places if (n := finder.relative(path)) is not None]
    if inside:
        name, line = inside[-1]
        model = _class_at(finder.sources[name], line or 0)
    else:
        name, line, model = Path(places[-1][0]).name, places[-1][1], None
    where = f"{name}:{line}"
    if model:
        where += f": class {model}"
    text = str(exc)
    field = _FIELD.search(text)
    if field:
        where += f', field "{field.group(1)}"'
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    why = next((line for line in reversed(lines) if line.startswith("error:")), None)
    reason = why or (lines[0] if lines else "")
    return (
        f"{where}: {type(exc).__name__}: {reason}" if reason else f"{where}: {type(exc).__name__}"
    )


def _class_at(source: bytes, line: int) -> str | None:
    """The innermost class whose body holds ``line`` in the module ``source``."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.lineno <= line <= (node.end_lineno or 0):
            if found is None or node.lineno >= found.lineno:
                found = node
    return found.name if found else None
