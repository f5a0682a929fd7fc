"""A ``pattern`` neither regex engine compiles but that is no broken regex (Java's
``\\p{Print}``, a class past Rust's size limit) is dropped with a warning, through the CLI;
the spec generates. A malformed one (``(``) is still refused: exit 2, one line, pointer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.normalize import patterns
from tests.conftest import describe, error_lines, run_cli, write_json

SPEC = Path(__file__).resolve().parents[1] / "golden" / "uncompilable-pattern" / "spec.json"
NOTE = "#/components/schemas/Note/properties/"


def test_the_spec_generates_and_each_pattern_is_dropped_with_a_warning(tmp_path: Path) -> None:
    proc = run_cli("generate", "--spec", SPEC, "--out", tmp_path / "pkg", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    for field in ("title", "body"):
        assert f"dropped (at {NOTE}{field}/pattern)" in proc.stderr + proc.stdout
    models = (tmp_path / "pkg" / "models.py").read_text(encoding="utf-8")
    assert 'pattern="^[a-z0-9-]+$"' in models  # the one that compiles stays


@pytest.mark.parametrize(
    "pattern", ["\\p{Print}", "\\p{javaLowerCase}", "[^\\p{C}]{1,2048}", "\\e", "(?X)a", "\\Q.\\E"]
)
def test_dialects_and_limits_are_dropped(pattern: str) -> None:
    assert patterns.pattern_error(pattern) is not None
    doc = json.loads(SPEC.read_text(encoding="utf-8"))
    doc["components"]["schemas"]["Note"]["properties"]["title"]["pattern"] = pattern
    result = patterns.run(doc, {})
    assert "pattern" not in result.spec["components"]["schemas"]["Note"]["properties"]["title"]
    assert [d.kind for d in result.diagnostics] == ["drop", "drop"]


def test_a_malformed_pattern_still_refuses(tmp_path: Path) -> None:
    doc = json.loads(SPEC.read_text(encoding="utf-8"))
    doc["components"]["schemas"]["Note"]["properties"]["slug"]["pattern"] = "([a-z]"
    write_json(tmp_path / "spec.json", doc)
    proc = run_cli("generate", "--spec", "spec.json", "--out", "out/pkg", cwd=tmp_path)
    assert proc.returncode == 2, describe(proc)
    (line,) = error_lines(proc.stderr)
    assert line.endswith(f"(at {NOTE}slug/pattern)") and "invalid regular expression" in line
