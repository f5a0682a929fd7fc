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

Importing is not enough for the server: FastAPI checks a route only when it is added to
an app. So the app is built too (``create_mock_app()``: ``create_app`` serving the mock
service, each route added and checked), and the mock is sent one request per operation,
in-process (through ``httpx.ASGITransport``: no socket): the requests the server renderer
made from the spec (``probes``, :mod:`generator.render.server.probes`). A package whose
app does not build, or whose mock crashes on an operation or answers it with a 5xx other
than 501 (an operation the mock cannot answer, already warned about), or whose router
finds no route for it (a 404 or 405 of its own), fails the check (exit 1: the generator
made code that does not work), naming the operation. Another 4xx is not a failure (the
probe's values may not satisfy every constraint). It costs the app's build and about
a millisecond a request: on SGP's 184 operations, 0.8 to 1.3 s of CPU beside the
import's 1.2 s.
"""

from __future__ import annotations

import ast
import asyncio
import gc
import importlib.abc
import importlib.util
import itertools
import re
import sys
import threading
import traceback
from collections.abc import Mapping, Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

from generator.bytecode import Compiled, compiled_code
from generator.errors import ApismithError

_COUNTER = itertools.count()

# One request to the mock (see :mod:`generator.render.server.probes`, which makes them):
# (operation, method, path and query, headers, body, content type).
Probe = tuple[str, str, str, tuple[tuple[str, str], ...], bytes | None, str | None]


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
    probes: Sequence[Probe] = (),
) -> None:
    """Import the package at ``root/package`` whose files are ``files`` (names relative
    to ``root``; by default, the ``.py`` files there on disk) under a private name, build
    its apps and send its mock the ``probes``, then forget it. ``compiled``: the modules
    compiled while the models rendered (names relative to ``root``,
    :func:`generator.bytecode.compile_ahead`).

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
        try:
            importlib.import_module(name)
            _import_modules(name, sources)
        except Exception as exc:
            raise ApismithError(
                f"generated code does not import: {import_failure(exc, finder)}", exit_code=1
            ) from None
        if "mock.py" in sources:
            exercise_apps(name, finder, probes)
    finally:
        if collecting:
            gc.enable()
        sys.dont_write_bytecode = saved
        sys.meta_path.remove(finder)
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]


def exercise_apps(name: str, finder: PackageSources, probes: Sequence[Probe]) -> None:
    """Build the mock's app of the package imported as ``name`` (``create_mock_app()``,
    which is ``create_app`` serving the mock service) and send it every probe (see the
    module docstring); ApismithError when one fails."""
    try:  # create_mock_app() is create_app(MockService(...)): the server's app, built once
        app = sys.modules[f"{name}.mock"].create_mock_app()
    except Exception as exc:
        raise ApismithError(
            f"generated server app does not build: {import_failure(exc, finder)}", exit_code=1
        ) from None
    failure = _run(_send(app, probes))
    if failure is not None:
        raise ApismithError(f"generated mock fails: {failure}", exit_code=1)


async def _send(app: Any, probes: Sequence[Probe]) -> str | None:
    """Send ``app`` each probe in turn: the first failure, described, or None."""
    import httpx

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=True)
    async with httpx.AsyncClient(transport=transport) as client:
        for operation, method, url, headers, body, content_type in probes:
            sent = dict(headers)
            if content_type is not None:
                sent["content-type"] = content_type
            where = f"{operation} ({method} {url.split('?', 1)[0]})"
            try:
                # the path as it stands, never read as a URL (``//host/x``)
                response = await client.request(
                    method, "http://mock" + url, headers=sent, content=body
                )
            except Exception as exc:
                return f"{where} raises {type(exc).__name__}: {_first_lines(str(exc))}"
            if response.status_code >= 500 and response.status_code != 501:
                text = _first_lines(response.text)
                return f"{where} answers {response.status_code}" + (f": {text}" if text else "")
            if _unrouted(response, url):
                return f"{where} reaches no route ({response.status_code})"
    return None


_NO_ROUTE = {404: '{"detail":"Not Found"}', 405: '{"detail":"Method Not Allowed"}'}


def _unrouted(response: Any, url: str) -> bool:
    """Whether the app's router found no route for a probe (Starlette's own 404 or 405;
    not where a path value holds an encoded ``/``, which the router decodes)."""
    expected = _NO_ROUTE.get(response.status_code)
    return expected is not None and response.text == expected and "%2F" not in url.upper()


def _first_lines(text: str, count: int = 3, width: int = 300) -> str:
    """The first ``count`` non-blank lines of ``text``, joined, at most ``width`` long."""
    lines = [line.strip() for line in text.splitlines() if line.strip()][:count]
    joined = "; ".join(lines)
    return joined if len(joined) <= width else joined[: width - 3] + "..."


def _run(coroutine: Any) -> Any:
    """``asyncio.run(coroutine)``, in a thread of its own when this one runs a loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    found: list[Any] = []
    thread = threading.Thread(target=lambda: found.append(asyncio.run(coroutine)))
    thread.start()
    thread.join()
    return found[0] if found else "the probes did not run"


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
