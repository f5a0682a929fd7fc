"""``bench/spec_history.py`` and ``bench/spec_history_calls.py`` (issue 26): their pure parts
on tiny inputs (diff-line counting, the header-only check, ``apismith diff`` counts, the
table, the choice of operations to call). Nothing is downloaded or generated."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import REPO_ROOT

BENCH = REPO_ROOT / "bench"


def _load(name: str) -> ModuleType:
    if str(BENCH) not in sys.path:  # spec_history_calls imports corpus_deep
        sys.path.append(str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


history = _load("spec_history")
calls = _load("spec_history_calls")


def test_numstat_counts_files_lines_and_areas() -> None:
    text = (
        "3\t1\tgenerated/pkg/models.py\n"
        "-\t-\tgenerated/pkg/logo.png\n"
        "10\t0\tgenerated/pkg/docs/pages/a.md\n"
        "2\t2\tgenerated/pkg/_mock/users.py\n"
    )
    stats = history.parse_numstat(text)
    assert (stats["files"], stats["added"], stats["removed"]) == (4, 15, 3)
    assert stats["by_area"] == {
        "docs": [1, 10, 0],
        "mock": [1, 2, 2],
        "models": [1, 3, 1],
        "other": [1, 0, 0],
    }
    assert history.parse_numstat("")["files"] == 0


U0 = """\
diff --git a/generated/pkg/a.py b/generated/pkg/a.py
index 1..2 100644
--- a/generated/pkg/a.py
+++ b/generated/pkg/a.py
@@ -1 +1 @@
-# old header
+# new header
diff --git a/generated/pkg/b.py b/generated/pkg/b.py
--- a/generated/pkg/b.py
+++ b/generated/pkg/b.py
@@ -2 +2 @@
-# header line 2
+# header line two
@@ -10,2 +10,3 @@
-x = 1
+x = 2
diff --git a/generated/pkg/c.py b/generated/pkg/c.py
--- a/generated/pkg/c.py
+++ b/generated/pkg/c.py
@@ -2,0 +3 @@
+import os
diff --git a/generated/pkg/e.py b/generated/pkg/e.py
new file mode 100644
--- /dev/null
+++ b/generated/pkg/e.py
@@ -0,0 +1 @@
+x = 1
diff --git a/generated/pkg/d.py b/generated/pkg/d.py
--- a/generated/pkg/d.py
+++ b/generated/pkg/d.py
@@ -1,2 +1,2 @@
-# a
-# b
+# c
+# d
"""


def test_header_only_files() -> None:
    # a: line 1 only; b: also line 10; c: a line inserted as line 3; e: a new file;
    # d: lines 1-2
    assert history.header_only_files(U0) == ["generated/pkg/a.py", "generated/pkg/d.py"]
    assert history.header_only_files("") == []


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_diff_stats_on_a_tiny_repository(tmp_path: Path) -> None:
    package = tmp_path / "generated" / "pkg"
    package.mkdir(parents=True)
    (package / "a.py").write_text("# header 1\n# header 2\nx = 1\n")
    (package / "b.py").write_text("# header\n\ny = 1\n")
    history.init_repo(tmp_path)
    (package / "a.py").write_text("# header one\n# header 2\nx = 1\n")
    (package / "b.py").write_text("# header\n\ny = 2\n")
    (package / "c.py").write_text("z = 1\n")
    stats = history.git_diff_stats(tmp_path, "generated")
    assert (stats["files"], stats["added"], stats["removed"]) == (3, 3, 2)
    assert (stats["new_files"], stats["deleted_files"]) == (1, 0)
    assert stats["header_only"] == 1
    assert stats["header_only_examples"] == ["generated/pkg/a.py"]


def test_classify_apismith_diff_reports() -> None:
    changes = [
        {"level": "breaking", "rule": "r"},
        {"level": "info", "rule": "r"},
        {"level": "info", "rule": "s"},
    ]
    assert calls.classify(changes) == {"breaking": 1, "warning": 0, "info": 2}
    assert calls.classify([]) == {"breaking": 0, "warning": 0, "info": 0}
    summary = {"summary": {"breaking": 2, "warning": 1, "info": 0}, "changes": []}
    assert calls.classify(summary) == {"breaking": 2, "warning": 1, "info": 0}
    assert calls.classify({"changes": changes[:1]})["breaking"] == 1
    assert calls.classify("nothing") is None


def _row(**over: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "old": "1.0",
        "new": "1.1",
        "spec_lines": {"added": 1200, "removed": 3},
        "regenerate": {"wall_s": 2.04, "cpu_s": 3.16, "returncode": 0},
        "git_diff": {"files": 4, "added": 50, "removed": 7, "header_only": 0},
        "apismith_diff": {"breaking": 1, "warning": 0, "info": 9},
        "calls": {
            "strict": {"calls": 10, "ok": 8, "errors": {"APIResponseValidationError": 2}},
            "lenient": {"calls": 10, "ok": 10, "errors": {}},
            "baseline": {"strict": {"calls": 10, "ok": 10, "errors": {}}},
        },
    }
    return {**row, **over}


def test_render_table() -> None:
    failed = _row(regenerate={"wall_s": 1.0, "cpu_s": 1.0, "returncode": 2, "error": "x\nboom"})
    table = history.render_table(
        [_row(), _row(apismith_diff="n/a", calls={"error": "t\nlate"}), failed]
    )
    lines = table.splitlines()
    assert lines[0].startswith("| old → new | spec lines ± | regenerate (s, CPU) |")
    assert lines[2] == (
        "| 1.0 → 1.1 | +1,200 −3 | 2.0 (3.2 CPU) | 4 | +50 −7 | 0 | 1/0/9 "
        "| 8/10; 10/10 (new client: 10/10) (APIResponseValidationError ×2) |"
    )
    assert "| n/a | error: late |" in lines[3]
    assert lines[4].startswith("| 1.0 → 1.1 | +1,200 −3 | failed: boom |")
    assert all(line.count("|") == lines[0].count("|") for line in lines)


def test_select_puts_changed_operations_first_then_spreads() -> None:
    keys = [("GET", f"/p{i:02d}") for i in range(20)]
    changed = {("GET", "/p15"), ("GET", "/p03")}
    assert calls.select(keys, changed, None) == sorted(keys, key=lambda k: k[1])
    chosen = calls.select(keys, changed, 5)
    assert chosen[:2] == [("GET", "/p03"), ("GET", "/p15")]
    assert len(chosen) == 5 and len(set(chosen)) == 5
    assert chosen[2:] == [("GET", "/p00"), ("GET", "/p07"), ("GET", "/p13")]
    assert calls.select(keys, changed, 5) == chosen  # deterministic


def _spec(leaf: dict[str, Any]) -> dict[str, Any]:
    ok = {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}}
    return {
        "paths": {
            "/a": {"get": {"responses": ok}},
            "/b": {"get": {"responses": {"204": {"description": "none"}}}},
        },
        "components": {
            "schemas": {
                "A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}},
                "B": leaf,
            }
        },
    }


def test_changed_operations_follow_refs() -> None:
    old = _spec({"type": "string", "enum": ["x"]})
    new = _spec({"type": "string", "enum": ["x", "y"]})
    assert calls.changed_operations(old, new) == {("GET", "/a")}
    assert calls.changed_operations(old, old) == set()
    moved = _spec({"type": "string", "enum": ["x"]})
    moved["paths"]["/b"]["get"]["responses"]["204"]["description"] = "nothing"
    assert calls.changed_operations(old, moved) == {("GET", "/b")}


def test_render_variants() -> None:
    ok = {"strict": {"calls": 3, "ok": 3, "errors": {}}}
    bad = {"strict": {"calls": 3, "ok": 2, "errors": {"APIResponseValidationError": 1}}}
    variants = {
        "required-only": {"old": bad, "new": ok},
        "seed 1": {"old": ok, "new": {"error": "x"}},
    }
    row = _row(diff_ops={"breaking": ["GET /a", "GET /z"], "warning": []})
    row["calls"] = {**row["calls"], "variants": variants, "chosen": ["GET /a", "GET /b"]}
    lines = calls.render_variants([row, _row()]).splitlines()
    assert len(lines) == 3  # a row without variants is left out
    assert lines[2] == (
        "| 1.0 → 1.1 | 1/0 | 2/3 (APIResponseValidationError ×1) | 3/3 | 3/3 | error: x |"
    )
    assert all(line.count("|") == lines[0].count("|") for line in lines)


def test_operations_of_diff_changes() -> None:
    changes = [
        {"level": "breaking", "location": "GET /app response.200.body.owner"},
        {"level": "breaking", "location": "GET /app response.200.body.id"},
        {"level": "warning", "location": "POST /x request.body.kind"},
        {"level": "info", "location": "GET /y response.200.body.new"},
        {"level": "warning", "location": "models.User.name"},  # the Python side
    ]
    assert calls.operations_of(changes) == {"breaking": ["GET /app"], "warning": ["POST /x"]}
