"""Stage 6, the only one with effects: write a generated package, all or nothing.

Files go to a temporary directory beside the target. The package is imported from
there (:func:`verify_import`); only when that succeeds is the temporary directory
swapped in for the target. A failure leaves the previous output untouched.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import shutil
import sys
import tempfile
import traceback
from collections.abc import Mapping
from pathlib import Path

from generator.errors import ApismithError

_COUNTER = itertools.count()


def preload_runtime(*, server: bool = True) -> None:
    """Import what generated packages import (pydantic, httpx, fastapi when installed).

    The CLI calls this while the model worker is busy, so that the import check costs
    only the generated modules' own work."""
    names = ("pydantic", "httpx", "fastapi", "fastapi.responses") if server else ("pydantic",)
    for name in names:
        if importlib.util.find_spec(name.split(".")[0]) is not None:
            importlib.import_module(name)


def verify_import(package_dir: Path) -> None:
    """Import the package at ``package_dir`` under a private name, then forget it.

    Runs in-process (the generator has already imported pydantic, so this costs only the
    models' own build). The server modules are imported too when fastapi is installed.
    The generated code has no import-time side effects besides
    defining classes.
    """
    name = f"_apismith_verify_{next(_COUNTER)}"
    spec = importlib.util.spec_from_file_location(
        name, package_dir / "__init__.py", submodule_search_locations=[str(package_dir)]
    )
    if spec is None or spec.loader is None:  # pragma: no cover
        raise ApismithError(f"cannot import generated package at {package_dir}", exit_code=1)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    if (package_dir / "server.py").exists() and importlib.util.find_spec("fastapi") is None:
        raise ApismithError(
            "the server modules need fastapi, which apismith depends on: reinstall apismith"
            ' (pip install apismith), or leave "server" out of the config\'s outputs',
            exit_code=1,
        )
    try:
        spec.loader.exec_module(module)
        if (package_dir / "server.py").exists():
            importlib.import_module(f"{name}.server")
            if (package_dir / "mock.py").exists():
                importlib.import_module(f"{name}.mock")
    except Exception as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = Path(frame.filename).name
        raise ApismithError(
            f"generated code does not import: {type(exc).__name__}: {exc}".splitlines()[0]
            + f" ({where}:{frame.lineno})",
            exit_code=1,
        ) from None
    finally:
        sys.dont_write_bytecode = saved
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]


def write_package(
    out: Path, files: Mapping[str, bytes], *, package: str = "", verify: bool = True
) -> None:
    """Replace ``out`` with exactly ``files``, after checking the package imports.

    ``package`` is the package's folder within ``out`` ("" when ``out`` is the package)."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; the package should not be
    try:
        for name in sorted(files):
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(files[name])
        init = f"{package}/__init__.py" if package else "__init__.py"
        if verify and init in files:
            verify_import(staging / package if package else staging)
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            os.rename(out, old / out.name)
        os.rename(staging, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
