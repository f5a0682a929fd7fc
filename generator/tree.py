"""Files of apismith's own trees: where the built-in templates are, a folder's files in a
stable order (the manifest's fingerprint and the templates' overrides read both), and a
generated package's ``MANIFEST.json`` as it was written (the config reads the options it
records; :mod:`generator.manifest` makes it)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

MANIFEST_NAME = "MANIFEST.json"


def builtin_templates() -> Path:
    """``generator/templates`` in a wheel; ``<repo>/templates`` in a source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "templates", here.parent / "templates"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("apismith templates directory not found")  # pragma: no cover


def tree_files(root: Path) -> list[tuple[str, Path]]:
    """Every file under ``root`` as (relative posix name, path), sorted; caches skipped."""
    if not root.is_dir():
        return []
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        # (tool caches, .ruff_cache and the like, are no part of a tree: a wheel has none)
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and d[:1] != ".")
        for name in filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if not name.endswith((".pyc", ".pyo")):
                found.append((rel, path))
    return sorted(found)


def read_manifest(out: Path) -> dict[str, Any] | None:
    """The manifest of the package at ``out`` (None: none, or not a JSON object)."""
    try:
        data = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
