"""The drift check: is the generated output exactly what generation would produce?

Fast path: the manifest's generator fingerprint, options and input hashes match, and
every file on disk hashes to what the manifest records (no file missing, none extra):
clean, without loading the spec. Otherwise, and always with ``full``, the output is
generated in memory and compared byte for byte with the disk, stray files included, and
every difference printed as a unified diff.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from generator.config import ApiConfig
from generator.manifest import fast_check, listed_files


@dataclass(frozen=True)
class Drift:
    api: str
    clean: bool
    changed: tuple[str, ...] = ()
    diff: str = ""
    fast: bool = False


def check_api(config: ApiConfig, *, full: bool = False) -> Drift:
    if not full:
        clean, _suspects = fast_check(
            config.out, config.spec, config.options(), config.overlays, config.templates
        )
        if clean:
            return Drift(config.name, True, fast=True)
    from generator.pipeline import generate

    expected = generate(config).files
    on_disk = set(listed_files(config.out))
    changed: list[str] = []
    chunks: list[str] = []
    for name in sorted(on_disk | set(expected)):
        path = config.out / name
        actual = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        want = expected.get(name)
        if actual == want and want is not None:
            continue
        changed.append(name)
        chunks.append(_diff(config.out, name, actual, want))
    return Drift(config.name, not changed, tuple(changed), "".join(chunks))


def _diff(out: Path, name: str, actual: bytes | None, want: bytes | None) -> str:
    shown = f"{out.as_posix()}/{name}"
    if want is None:
        return f"--- {shown}\n+++ /dev/null\n@@ file is not generated (extra file) @@\n"
    if actual is None:
        return f"--- /dev/null\n+++ {shown}\n@@ file is missing (or not a regular file) @@\n"
    try:
        a = actual.decode().splitlines(keepends=True)
        b = want.decode().splitlines(keepends=True)
    except UnicodeDecodeError:
        return f"Binary files {shown} (on disk) and {shown} (expected) differ\n"
    lines = difflib.unified_diff(a, b, f"{shown} (on disk)", f"{shown} (generated)")
    text = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
    return text or f"--- {shown}\n+++ {shown}\n@@ differs only in bytes difflib cannot show @@\n"
