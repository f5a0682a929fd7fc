"""The manifest: what a generated package was made from, and what it holds.

``MANIFEST.json`` (in the package directory; at the project root with ``--meta``) records

- ``generator``: apismith's version, its fingerprint (a sha256 over the canonical list of
  its sources and templates, see :func:`generator_fingerprint`), and the versions of the
  tools that shape the output (datamodel-code-generator, ruff);
- ``options``: the effective config, without machine paths (:meth:`ApiConfig.options`), so
  that ``apismith check --spec S --out P`` needs nothing else;
- ``inputs``: a sha256 for the spec, for every file reached from it by ``$ref`` (path
  relative to the spec's folder), for each overlay and for each template override;
- ``files``: a sha256 for every other file of the output.

``apismith check`` compares these with the disk before doing any real work (its fast
path). ``apismith check --full`` trusts none of it and regenerates.

This module must stay cheap to import: the fast path imports nothing heavy.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from generator import __version__
from generator.tree import MANIFEST_NAME, builtin_templates, read_manifest, tree_files

MANIFEST_FORMAT = 2


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    return sha256_bytes(path.read_bytes())


def generator_sources() -> list[tuple[str, Path]]:
    """The canonical list of apismith's own inputs: ``(name, path)``, sorted by name.

    ``generator/**/*.py`` and every file of the built-in templates, each named by its
    place in the source tree (``generator/cli.py``, ``templates/header.py.jinja``), so that
    the list is the same for an editable install, a wheel (which ships the templates as
    ``generator/templates/``) and an sdist, wherever it is installed. (Walked once with
    ``os.walk``, not resolved file by file: this runs in every generation.)
    """
    package = Path(__file__).resolve().parent
    templates = builtin_templates().resolve()
    inside = (
        templates.relative_to(package).as_posix() + "/"
        if templates.is_relative_to(package)
        else None
    )
    files = {
        f"generator/{name}": path
        for name, path in tree_files(package)
        if name.endswith(".py") and not (inside and name.startswith(inside))
    }
    files.update((f"templates/{name}", path) for name, path in tree_files(templates))
    return sorted(files.items())


@lru_cache(maxsize=1)
def generator_fingerprint() -> dict[str, str]:
    """apismith's version, a hash of its source and templates, and its tools' versions."""
    digest = hashlib.sha256()
    for name, path in generator_sources():
        data = path.read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode() + data)
    tools = {dist: dist_version(dist) for dist in ("datamodel-code-generator", "ruff")}
    return {"version": __version__, "sha256": digest.hexdigest(), **tools}


def dist_version(dist: str) -> str:
    """The installed version of ``dist`` (``"missing"`` if none), as
    ``importlib.metadata.version`` gives it. The common case, a plain ``.dist-info``
    folder in a folder of ``sys.path``, is read here: importing ``importlib.metadata``
    (email, zipfile, csv...) would be a tenth of a no-op ``apismith check``."""
    found = _dist_info_version(dist)
    if found is not None:
        return found
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:  # pragma: no cover
        return "missing"


def _dist_info_version(dist: str) -> str | None:
    """The ``Version`` of the first ``<dist>-*.dist-info/METADATA`` along ``sys.path``,
    the order ``importlib.metadata`` searches; None whenever it would have to look
    further (a zip file, an ``.egg-info``, two candidates in one folder, no such folder)."""
    wanted = re.sub(r"[-_.]+", "_", dist).lower()
    for entry in sys.path:
        try:
            children = os.listdir(entry or ".")
        except OSError:
            if os.path.isfile(entry):  # a zip file on sys.path
                return None
            continue
        matches = [
            child
            for child in children
            if child.lower().endswith((".dist-info", ".egg-info"))
            and re.sub(r"[-_.]+", "_", child.lower().rpartition(".")[0].partition("-")[0]) == wanted
        ]
        if not matches:
            continue
        if len(matches) > 1 or not matches[0].endswith(".dist-info"):
            return None
        return _metadata_version(Path(entry or ".") / matches[0] / "METADATA")
    return None


def _metadata_version(path: Path) -> str | None:
    try:
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                if not line.strip():
                    break  # the headers end here
                key, _, value = line.partition(":")
                if key.strip().lower() == "version":
                    return value.strip()
    except (OSError, UnicodeDecodeError):
        return None
    return None


def input_hashes(
    spec: Path,
    refs: tuple[Path, ...] = (),
    overlays: tuple[Path, ...] = (),
    templates: Path | None = None,
) -> list[dict[str, str]]:
    """``[{role, path, sha256}]`` for each input file (the spec's path is not recorded:
    a consumer may keep it under any name). Raises OSError for a missing file."""
    rows = [{"role": "spec", "sha256": sha256_file(spec)}]
    rows += [{"role": "ref", "path": _relative(p, spec), "sha256": sha256_file(p)} for p in refs]
    rows += [
        {"role": "overlay", "path": _relative(p, spec), "sha256": sha256_file(p)} for p in overlays
    ]
    if templates is not None:
        rows += [
            {"role": "template", "path": name, "sha256": sha256_file(path)}
            for name, path in tree_files(templates)
        ]
    return rows


def _relative(path: Path, spec: Path) -> str:
    return Path(os.path.relpath(path.resolve(), spec.resolve().parent)).as_posix()


def build_manifest(
    generator: Mapping[str, str],
    options: Mapping[str, Any],
    inputs: list[dict[str, str]],
    files: Mapping[str, bytes],
) -> bytes:
    data = {
        "format": MANIFEST_FORMAT,
        "generator": dict(generator),
        "options": dict(options),
        "inputs": inputs,
        "files": {name: sha256_bytes(files[name]) for name in sorted(files)},
    }
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    return (text + "\n").encode()


def is_cache(name: str) -> bool:
    """Python's own bytecode cache of a module: ``[dir/]__pycache__/<module>.<tag>.pyc``
    (judged by name only; :func:`listed_files` also asks that the module exists)."""
    parts = name.split("/")
    return len(parts) >= 2 and parts[-2] == "__pycache__" and parts[-1].endswith((".pyc", ".pyo"))


def listed_files(out: Path) -> list[str]:
    """Every file under ``out`` (relative, posix) but the bytecode caches of its modules.

    A sourceless ``.pyc`` (``evil.pyc``, or ``__pycache__/evil.cpython-311.pyc`` without an
    ``evil.py``) is listed: Python imports it, so it is a stray file like any other.
    """
    if not out.is_dir():
        return []
    names = []
    for dirpath, dirnames, filenames in os.walk(out):
        here = Path(dirpath)
        # a symlinked folder is not walked into, but is listed: it is not generated
        names += [
            (here / d).relative_to(out).as_posix() for d in dirnames if (here / d).is_symlink()
        ]
        dirnames[:] = sorted(d for d in dirnames if not (here / d).is_symlink())
        for filename in filenames:
            rel = (here / filename).relative_to(out).as_posix()
            if is_cache(rel) and (here.parent / f"{filename.split('.', 1)[0]}.py").is_file():
                continue
            names.append(rel)
    return sorted(names)


def _current_inputs(
    recorded: list[dict[str, str]],
    spec: Path,
    overlays: tuple[Path, ...],
    templates: Path | None,
) -> list[dict[str, str]] | None:
    """The inputs as they are now, for the files the manifest names; None if one is gone."""
    refs = tuple(
        spec.parent / row["path"]
        for row in recorded
        if row.get("role") == "ref" and isinstance(row.get("path"), str)
    )
    try:
        return input_hashes(spec, refs, overlays, templates)
    except OSError:
        return None


def fast_check(
    out: Path,
    spec: Path,
    options: Mapping[str, Any],
    overlays: tuple[Path, ...] = (),
    templates: Path | None = None,
) -> tuple[bool, list[str]]:
    """(clean, suspects): clean when the manifest matches the generator, the options, the
    inputs and every file. ``suspects`` names the files whose hash differs, that are
    missing, or that are extra. The manifest itself is trusted: ``check --full`` is not.
    """
    manifest = read_manifest(out)
    if manifest is None or manifest.get("format") != MANIFEST_FORMAT:
        return False, [MANIFEST_NAME]
    suspects: list[str] = []
    recorded_files = manifest.get("files")
    recorded: dict[str, str] = recorded_files if isinstance(recorded_files, dict) else {}
    on_disk = set(listed_files(out)) - {MANIFEST_NAME}
    for name in sorted(on_disk | set(recorded)):
        path = out / name
        if name not in recorded or not path.is_file() or sha256_file(path) != recorded[name]:
            suspects.append(name)
    inputs = manifest.get("inputs")
    same = (
        manifest.get("generator") == generator_fingerprint()
        and manifest.get("options") == json.loads(json.dumps(options, default=str))
        and isinstance(inputs, list)
        and _current_inputs(inputs, spec, overlays, templates) == inputs
    )
    return same and not suspects, suspects
