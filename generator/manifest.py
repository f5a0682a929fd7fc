"""The manifest: what a generated package was made from, and what it holds.

``generated/<package>/MANIFEST.json`` records

- ``inputs``: a sha256 for the spec, the config and each overlay;
- ``generator``: apismith's version, a sha256 of its own source and templates, and the
  versions of the tools that shape the output (datamodel-code-generator, ruff);
- ``files``: a sha256 for every other file of the package.

``apismith check`` compares these with the disk before doing any real work (its fast
path): inputs unchanged and every file's hash matching means nothing drifted.

This module must stay cheap to import: the fast path imports nothing heavy.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from generator import __version__

MANIFEST_NAME = "MANIFEST.json"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    return sha256_bytes(path.read_bytes())


@lru_cache(maxsize=1)
def generator_fingerprint() -> dict[str, str]:
    """apismith's version, a hash of its source and templates, and its tools' versions."""
    from importlib.metadata import PackageNotFoundError, version

    from generator.render.templates import builtin_templates

    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    files = [(f"generator/{p.relative_to(package).as_posix()}", p) for p in package.rglob("*.py")]
    templates = builtin_templates()
    files += [
        (f"templates/{p.relative_to(templates).as_posix()}", p)
        for p in templates.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    ]
    for name, path in sorted(files):
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    tools: dict[str, str] = {}
    for dist in ("datamodel-code-generator", "ruff"):
        try:
            tools[dist] = version(dist)
        except PackageNotFoundError:  # pragma: no cover
            tools[dist] = "missing"
    return {"version": __version__, "sha256": digest.hexdigest(), **tools}


def input_hashes(inputs: tuple[tuple[str, Path], ...], base: Path | None) -> list[dict[str, str]]:
    """``[{role, path, sha256}]`` for each input file; paths relative to ``base``."""
    rows = []
    for role, path in inputs:
        shown = path.name
        if base is not None:
            try:
                shown = path.resolve().relative_to(base.resolve()).as_posix()
            except ValueError:
                shown = path.name
        rows.append({"role": role, "path": shown, "sha256": sha256_file(path)})
    return rows


def build_manifest(
    inputs: list[dict[str, str]], files: Mapping[str, bytes], generator: Mapping[str, str]
) -> bytes:
    data = {
        "generator": dict(generator),
        "inputs": inputs,
        "files": {name: sha256_bytes(files[name]) for name in sorted(files)},
    }
    return (json.dumps(data, indent=2, sort_keys=True) + "\n").encode()


def read_manifest(out: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def listed_files(out: Path) -> list[str]:
    """Every file under ``out`` (relative, posix), skipping caches."""
    if not out.is_dir():
        return []
    return sorted(
        p.relative_to(out).as_posix()
        for p in out.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith((".pyc", ".pyo"))
    )


def fast_check(
    out: Path, inputs: list[dict[str, str]], generator: Mapping[str, str]
) -> tuple[bool, list[str]]:
    """(clean, suspects): clean when the manifest matches inputs, generator and every file.

    ``suspects`` names the files whose hash differs, that are missing, or that are extra.
    """
    manifest = read_manifest(out)
    if manifest is None:
        return False, [MANIFEST_NAME]
    suspects: list[str] = []
    recorded: dict[str, str] = manifest.get("files", {})
    on_disk = set(listed_files(out)) - {MANIFEST_NAME}
    for name in sorted(on_disk | set(recorded)):
        path = out / name
        if name not in recorded or not path.is_file() or sha256_file(path) != recorded[name]:
            suspects.append(name)
    same_inputs = manifest.get("inputs") == inputs and manifest.get("generator") == dict(generator)
    return same_inputs and not suspects, suspects
