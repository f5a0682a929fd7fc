"""When the spec changes (issue 26): in a consumer's repo, one optional response field added
to the vendored LLM Engine spec. ``apismith check`` says what changed before any diff, and
the regeneration rewrites only the files whose content depends on the field: no file
changes in its header alone (headers carry no hash: MANIFEST.json has it)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, SPECS, describe, run_cli
from tests.e2e_support import git, git_commit_all, git_init

FIELD = "forwarder_max_concurrency_v2"
SCHEMA = "GetModelEndpointV1Response"
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)


def _consumer(root: Path) -> Path:
    """A consumer repo that vendors the LLM Engine package and its spec, committed."""
    api = root / "api"
    api.mkdir(parents=True)
    for name in ("openapi.json", "mock-data.overlay.yaml"):
        shutil.copy2(SPECS / "llm-engine" / name, api / name)
    shutil.copytree(
        REPO_ROOT / "generated" / "llm_engine",
        root / "vendor" / "llm_engine",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    (root / "pyproject.toml").write_text(
        '[project]\nname = "consumer"\nversion = "0"\n\n'
        '[tool.apismith.apis.llm]\nspec = "api/openapi.json"\nout = "vendor/llm_engine"\n',
        encoding="utf-8",
    )
    git_init(root)
    git_commit_all(root, "vendor llm_engine")
    return api / "openapi.json"


def _add_field(spec_path: Path) -> None:
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    properties = spec["components"]["schemas"][SCHEMA]["properties"]
    properties[FIELD] = {"type": "integer", "title": "Forwarder Max Concurrency V2"}
    spec_path.write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")


def _changed_lines(diff: str) -> set[int]:
    """The old-side line numbers a unified diff (``-U0``) touches, 1-based."""
    lines: set[int] = set()
    for match in HUNK.finditer(diff):
        start, count = int(match.group(1)), int(match.group(2) or "1")
        lines.update(range(start, start + max(count, 1)))
    return lines


@pytest.mark.slow
def test_one_optional_field_rewrites_only_what_depends_on_it(tmp_path: Path) -> None:
    root = tmp_path / "consumer"
    spec_path = _consumer(root)
    clean = run_cli("check", cwd=root)
    assert clean.returncode == 0, describe(clean)
    _add_field(spec_path)

    drift = run_cli("check", cwd=root)
    assert drift.returncode == 1, describe(drift)
    out = drift.stdout
    # first the files with their +/- counts, then the API change naming the field, and no
    # diff unless asked for
    summary, _, changes = out.partition("what changed in the API:")
    assert re.search(r"^\s+models\.py\s+\+1 -0$", summary, re.M), describe(drift)
    assert "the generator changed" not in summary, describe(drift)
    assert f".{FIELD}: property added [response-property-added]" in changes, describe(drift)
    assert "\n@@ " not in out and "apismith check --diff" in out, describe(drift)

    regen = run_cli("generate", cwd=root)
    assert regen.returncode == 0, describe(regen)
    package = "vendor/llm_engine/"
    names = git("diff", "--name-only", cwd=root).stdout.split()
    changed = sorted(n.removeprefix(package) for n in names if n.startswith(package))
    assert "models.py" in changed and "MANIFEST.json" in changed, changed
    # every changed file but the manifest has the field in what it added
    for name in changed:
        if name == "MANIFEST.json":
            continue
        diff = git("diff", "-U0", "--", package + name, cwd=root).stdout
        added = [ln for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("++")]
        assert any(FIELD in ln for ln in added), (name, diff[:2000])
        assert _changed_lines(diff) - {1, 2}, f"{name} changed only in its header"
    # the runtime, the client and the resources that do not return the model are untouched
    for untouched in ("_base_client.py", "_client.py", "ruff.toml", "__init__.py"):
        assert untouched not in changed, changed
    assert len(changed) <= 10, changed
    again = run_cli("check", cwd=root)
    assert again.returncode == 0, describe(again)
