"""``apismith check``'s report of a drift: a summary first (each file with its +/- line
counts, ``missing`` or ``extra``; the generator's runtime and config files apart from the
files generated from the spec; the manifest apart), what changed in the API (the
:func:`generator.check.semantic_changes` hook), and the unified diff only with ``--diff``
or ``--diff-lines N`` (else a line naming the command that prints it)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from generator import check as check_module
from generator.check import (
    GENERATOR,
    RECORD,
    SPEC,
    Drift,
    FileDrift,
    diff_command,
    head,
    semantic_changes,
    summary,
)
from generator.cli import main
from tests.conftest import describe, run_cli, small_spec, write_json

HINT = "run `apismith check --diff` for the full diff"
SEMANTIC = "  what changed in the API:\n"


def pets_spec(**extra: Any) -> dict[str, Any]:
    """:func:`small_spec` with one operation, so that the package has a client, a server
    and a mock, and their runtime modules."""
    spec = small_spec()
    spec["components"]["schemas"]["Pet"]["properties"].update(extra)
    spec["paths"] = {
        "/pets/{pet_id}": {
            "get": {
                "operationId": "get_pet",
                "tags": ["pets"],
                "parameters": [
                    {"name": "pet_id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": {
                        "description": "The pet.",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
                        },
                    }
                },
            }
        }
    }
    return spec


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("check-summary")
    write_json(root / "specs" / "pets" / "openapi.json", pets_spec())
    (root / "specs" / "pets.toml").write_text(
        '[api]\npackage = "pets"\ntitle = "Pets"\nspec = "pets/openapi.json"\n', encoding="utf-8"
    )
    proc = run_cli("generate", cwd=root)
    assert proc.returncode == 0, describe(proc)
    assert (root / "generated" / "pets" / "_runtime.py").is_file(), "no client runtime"
    return root


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(template, root)
    return root


def package(project: Path) -> Path:
    return project / "generated" / "pets"


def groups(stdout: str) -> dict[str, dict[str, str]]:
    """The summary's files by heading: ``{heading: {file: counts}}``."""
    found: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in stdout.splitlines():
        if line.startswith("    ") and current is not None:
            name, counts = line.split(None, 1)
            current[name] = counts.strip()
        elif line.strip() in (SPEC, GENERATOR, RECORD):
            current = found.setdefault(line.strip(), {})
        else:
            current = None
    return found


def semantic_block(stdout: str) -> str:
    """The lines under ``what changed in the API:`` (empty when there is none)."""
    if SEMANTIC not in stdout:
        return ""
    block = stdout.split(SEMANTIC, 1)[1].splitlines()
    return "\n".join(line for line in block if line.startswith("    ") or not line)


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def change_spec(project: Path) -> None:
    colour = {"type": "string", "description": "Fur colour."}
    write_json(project / "specs" / "pets" / "openapi.json", pets_spec(colour=colour))


def test_counts_and_runtime_files_apart(project: Path) -> None:
    out = package(project)
    append(out / "models.py", "# one\n# two\n")  # generation would remove 2 lines
    append(out / "_runtime.py", "# mine\n")
    lines = (out / "ruff.toml").read_text(encoding="utf-8").splitlines(keepends=True)
    (out / "ruff.toml").write_text("".join(lines[:-1]) + "# not " + lines[-1], encoding="utf-8")
    (out / "py.typed").unlink()
    (out / "notes.py").write_text("# mine\n", encoding="utf-8")
    proc = run_cli("check", cwd=project)
    assert proc.returncode == 1, describe(proc)
    first = proc.stdout.splitlines()[0]
    assert first == f"pets: 5 files differ ({out})", describe(proc)
    assert groups(proc.stdout) == {
        SPEC: {"models.py": "+0 -2", "notes.py": "extra"},
        GENERATOR: {
            "_runtime.py": "+0 -1",
            "py.typed": "missing",
            "ruff.toml": "+1 -1",
        },
    }, describe(proc)
    assert proc.stdout.index(SPEC) < proc.stdout.index(GENERATOR)
    assert proc.stdout.endswith(HINT + "\n") and "@@" not in proc.stdout, describe(proc)
    # every drifted file is still named on stderr, for scripts
    drifted = {line.rsplit("/", 1)[1] for line in proc.stderr.splitlines() if "drifted:" in line}
    assert drifted == {"models.py", "notes.py", "_runtime.py", "py.typed", "ruff.toml"}
    assert "apismith generate pets" in proc.stderr.splitlines()[-1]


def test_a_changed_spec_touches_no_runtime_file(project: Path) -> None:
    change_spec(project)
    proc = run_cli("check", cwd=project)
    assert proc.returncode == 1, describe(proc)
    found = groups(proc.stdout)
    assert set(found) == {SPEC, RECORD}, describe(proc)
    assert found[RECORD] == {"MANIFEST.json": found[RECORD]["MANIFEST.json"]}
    assert {"models.py", "openapi.json"} <= set(found[SPEC]), describe(proc)
    added, removed = found[SPEC]["models.py"].split()
    assert int(added) >= 1 and removed.startswith("-"), describe(proc)
    # what changed in the API (generator.diff): the new field of the operation's answer
    assert "colour" in semantic_block(proc.stdout), describe(proc)


def test_diff_prints_the_whole_diff(project: Path) -> None:
    change_spec(project)
    proc = run_cli("check", "--diff", cwd=project)
    assert proc.returncode == 1, describe(proc)
    summary_end = proc.stdout.index("\n--- ")
    assert SPEC in proc.stdout[:summary_end], describe(proc)
    diff = proc.stdout[summary_end + 1 :]
    assert "@@" in diff and any(
        line.startswith("+") and "colour" in line for line in diff.splitlines()
    ), describe(proc)
    assert HINT not in proc.stdout and "more lines of diff" not in proc.stdout


def test_diff_lines_prints_the_first_lines(project: Path) -> None:
    change_spec(project)
    whole = run_cli("check", "--diff", cwd=project).stdout
    diff = whole[whole.index("\n--- ") + 1 :].splitlines(keepends=True)
    proc = run_cli("check", "--diff-lines", "5", cwd=project)
    assert proc.returncode == 1, describe(proc)
    shown = proc.stdout[proc.stdout.index("\n--- ") + 1 :].splitlines(keepends=True)
    assert shown[:5] == diff[:5], describe(proc)
    assert shown[5:] == [
        f"... {len(diff) - 5} more lines of diff: run `apismith check --diff` for the full diff\n"
    ], describe(proc)
    # enough lines: the whole diff, and nothing more
    proc = run_cli("check", "--diff-lines", str(len(diff)), cwd=project)
    assert proc.stdout == whole, describe(proc)
    assert run_cli("check", "--diff-lines", "-1", cwd=project).returncode == 2


def test_quiet_prints_no_summary(project: Path) -> None:
    append(package(project) / "models.py", "# mine\n")
    proc = run_cli("check", "--quiet", cwd=project)
    assert proc.returncode == 1 and proc.stdout == "", describe(proc)
    assert "drifted:" in proc.stderr, describe(proc)


def test_semantic_changes_are_given_both_specs(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook gets the package's ``openapi.json`` and the one generated now (JSON
    objects), and what it returns follows the file summary."""
    seen: list[tuple[dict[str, Any], dict[str, Any], str]] = []

    def hook(old: dict[str, Any], new: dict[str, Any], config: Any) -> str:
        seen.append((old, new, config.name))
        return "Pet: new field colour\n  (a string)"

    committed = json.loads((package(project) / "openapi.json").read_text(encoding="utf-8"))
    change_spec(project)
    monkeypatch.setattr(check_module, "semantic_changes", hook)
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["check"], catch_exceptions=False)
    assert result.exit_code == 1, result.output
    ((old, new, name),) = seen
    assert name == "pets" and old == committed
    assert "colour" in new["components"]["schemas"]["Pet"]["properties"]
    assert "colour" not in old["components"]["schemas"]["Pet"]["properties"]
    block = SEMANTIC + "    Pet: new field colour\n      (a string)\n"
    assert block in result.output, result.output
    assert result.output.index(RECORD) < result.output.index(block)


def test_no_semantic_changes_without_a_changed_openapi_json(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[object] = []
    monkeypatch.setattr(check_module, "semantic_changes", lambda *a: calls.append(a))
    append(package(project) / "models.py", "# mine\n")
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["check"], catch_exceptions=False)
    assert result.exit_code == 1 and calls == [], result.output


# --- the pieces ------------------------------------------------------------------------------


def test_the_api_changes_come_from_generator_diff(monkeypatch: pytest.MonkeyPatch) -> None:
    import generator.diff

    config = SimpleNamespace(base_url=None)
    monkeypatch.setattr(generator.diff, "spec_changes", lambda old, new, cfg: [])
    assert semantic_changes({"a": 1}, {"a": 2}, config) is None  # type: ignore[arg-type]

    def broken(old: object, new: object, cfg: object) -> list[object]:
        raise KeyError("paths\nand more")

    monkeypatch.setattr(generator.diff, "spec_changes", broken)
    said = semantic_changes({"a": 1}, {"a": 2}, config)  # type: ignore[arg-type]
    assert said == "(not listed: KeyError: 'paths\\nand more')"


def test_summary_layout() -> None:
    drift = Drift(
        "pets",
        False,
        ("MANIFEST.json", "_runtime.py", "models.py", "resources/old.py"),
        files=(
            FileDrift("MANIFEST.json", "changed", 2, 2, RECORD),
            FileDrift("_runtime.py", "changed", 1, 0, GENERATOR),
            FileDrift("models.py", "changed", 12, 3, SPEC),
            FileDrift("resources/old.py", "extra", group=SPEC),
        ),
        semantic="Pet: new field colour",
    )
    assert summary(drift, Path("vendor/pets")) == (
        "pets: 4 files differ (vendor/pets)\n"
        f"  {SPEC}\n"
        "    models.py         +12 -3\n"
        "    resources/old.py  extra\n"
        f"  {GENERATOR}\n"
        "    _runtime.py       +1 -0\n"
        f"  {RECORD}\n"
        "    MANIFEST.json     +2 -2\n"
        "  what changed in the API:\n"
        "    Pet: new field colour\n"
    )


def test_diff_command_repeats_the_selection() -> None:
    assert diff_command({"apis": ()}) == "apismith check --diff"
    params = {
        "apis": ("pets",),
        "root": Path("my repo"),
        "full": True,
        "quiet": True,
        "diff_lines": 3,
    }
    assert diff_command(params) == "apismith check --diff --root 'my repo' --full pets"


def test_head() -> None:
    diff = "".join(f"line {i}\n" for i in range(4))
    assert head(diff, None, "cmd") == diff
    assert head(diff, 4, "cmd") == diff
    assert head(diff, 1, "cmd") == "line 0\n... 3 more lines of diff: run `cmd` for the full diff\n"
    assert head(diff, 3, "cmd").endswith("... 1 more line of diff: run `cmd` for the full diff\n")
