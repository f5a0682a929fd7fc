"""Find golden cases, generate them in memory, compare and write their expected output.

``expected/`` holds every generated file except ``MANIFEST.json`` (it hashes the
generator's own source, so it changes with every edit), plus ``diagnostics.txt``: one
``Diagnostic.line()`` per line, in the order the pipeline reports them.
"""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

from generator.config import ApiConfig, adhoc_config, load_config
from generator.tree import MANIFEST_NAME
from generator.pipeline import Generated, generate

GOLDEN_DIR = Path(__file__).resolve().parent
SPEC_NAMES = ("spec.json", "spec.yaml", "spec.yml")
CONFIG_NAME = "apismith.toml"
EXPECTED = "expected"
DIAGNOSTICS = "diagnostics.txt"
HINT = "run `make golden` if the change is intended"


def case_names() -> list[str]:
    """Every case directory (one holding a spec file), sorted."""
    return sorted(
        p.name
        for p in GOLDEN_DIR.iterdir()
        if p.is_dir() and any((p / s).is_file() for s in SPEC_NAMES)
    )


def case_dir(case: str) -> Path:
    return GOLDEN_DIR / case


def spec_path(case: str) -> Path:
    for name in SPEC_NAMES:
        path = case_dir(case) / name
        if path.is_file():
            return path
    raise FileNotFoundError(f"golden case {case!r} has no {' or '.join(SPEC_NAMES)}")


def case_config(case: str) -> ApiConfig:
    """The case's ``apismith.toml`` if it has one, else an ad-hoc config."""
    config_file = case_dir(case) / CONFIG_NAME
    if config_file.is_file():
        return load_config(config_file)
    package = "golden_" + case.replace("-", "_")
    return adhoc_config(spec_path(case), case_dir(case) / EXPECTED, package=package)


def generate_case(case: str) -> Generated:
    return generate(case_config(case))


def expected_files(generated: Generated) -> dict[str, bytes]:
    """What ``expected/`` holds for a generation result."""
    files = {name: data for name, data in generated.files.items() if name != MANIFEST_NAME}
    files[DIAGNOSTICS] = "".join(d.line() + "\n" for d in generated.diagnostics).encode()
    return files


def read_expected(case: str) -> dict[str, bytes]:
    root = case_dir(case) / EXPECTED
    if not root.is_dir():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def write_expected(case: str, files: dict[str, bytes]) -> list[str]:
    """Make ``expected/`` hold exactly ``files``; return the names that changed."""
    root = case_dir(case) / EXPECTED
    old = read_expected(case)
    changed = sorted(n for n in set(old) | set(files) if old.get(n) != files.get(n))
    for name in sorted(set(old) - set(files)):
        (root / name).unlink()
    for name in sorted(files):
        if old.get(name) != files[name]:
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(files[name])
    for cache in root.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)
    for directory in sorted((p for p in root.rglob("*") if p.is_dir()), reverse=True):
        if not any(directory.iterdir()):
            directory.rmdir()
    return changed


def _lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return [f"<{len(data)} bytes of binary data>\n"]


def diff_files(expected: dict[str, bytes], actual: dict[str, bytes], limit: int = 80) -> str:
    """A unified diff of two file sets (expected -> actual), cut to ``limit`` lines."""
    lines: list[str] = []
    for name in sorted(set(expected) | set(actual)):
        old, new = expected.get(name), actual.get(name)
        if old == new:
            continue
        if old is None:
            lines.append(f"+++ only in the generated output: {name}\n")
        elif new is None:
            lines.append(f"--- only in expected/: {name}\n")
        body = list(
            difflib.unified_diff(
                _lines(old),
                _lines(new),
                fromfile=f"expected/{name}",
                tofile=f"generated/{name}",
            )
        )
        if old is not None and new is not None and not body:
            body = [f"{name}: same text, different bytes (line endings?)\n"]
        lines.extend(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in body
        )
    text = "".join(lines).splitlines()
    if len(text) > limit:
        text = text[:limit] + [f"... ({len(text) - limit} more diff lines)"]
    return "\n".join(text)
