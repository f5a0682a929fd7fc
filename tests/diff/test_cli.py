"""``apismith diff`` end to end: exit codes with --fail-on, FILE@REV against a git
repository, --since in a project, and bad input (exit 2, one line)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from generator.cli import main
from tests.conftest import describe, error_lines, run_cli

CASES = Path(__file__).resolve().parent / "cases"


def spec(paths: dict[str, Any], schemas: dict[str, Any] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {"openapi": "3.1.0", "info": {"title": "Shop", "version": "1"}}
    doc["paths"] = paths
    if schemas:
        doc["components"] = {"schemas": schemas}
    return doc


def thing(required: list[str], **properties: Any) -> dict[str, Any]:
    props = {"name": {"type": "string"}, **properties}
    return {"type": "object", "required": required, "properties": props}


def create(schema: str = "Thing") -> dict[str, Any]:
    body = {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}}
    return {
        "post": {
            "operationId": "createThing",
            "requestBody": {"required": True, **body},
            "responses": {"204": {"description": "done"}},
        }
    }


def listing(operation_id: str) -> dict[str, Any]:
    return {"get": {"operationId": operation_id, "responses": {"204": {"description": "ok"}}}}


def write(path: Path, doc: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def diff(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["diff", *map(str, args)], catch_exceptions=False)


def git(repo: Path, *args: str) -> None:
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "-C", str(repo), *identity, *args], check=True, capture_output=True)


# --- exit codes -------------------------------------------------------------------------------


def test_a_removed_operation_fails_with_fail_on_breaking() -> None:
    folder = CASES / "operations"
    result = diff(folder / "old.yaml", folder / "new.yaml", "--no-surface", "--fail-on", "breaking")
    assert result.exit_code == 1, result.output
    assert "DELETE /things/{id}: operation removed [operation-removed]" in result.stdout


def test_a_new_required_request_field_fails(tmp_path: Path) -> None:
    """Through the real entry point (``python -m generator``), in a subprocess."""
    old = write(tmp_path / "old.yaml", spec({"/things": create()}, {"Thing": thing(["name"])}))
    new_thing = thing(["name", "sku"], sku={"type": "string"})
    new = write(tmp_path / "new.yaml", spec({"/things": create()}, {"Thing": new_thing}))
    proc = run_cli("diff", old, new, "--no-surface", "--fail-on", "breaking", cwd=tmp_path)
    assert proc.returncode == 1, describe(proc)
    line = "POST /things request.body.sku: new required property [request-property-added-required]"
    assert line in proc.stdout.splitlines()[1], describe(proc)
    assert proc.stderr == ""


def test_additive_changes_pass_fail_on_breaking(tmp_path: Path) -> None:
    old = write(tmp_path / "old.yaml", spec({"/things": listing("listThings")}))
    new = write(
        tmp_path / "new.yaml",
        spec({"/things": listing("listThings"), "/widgets": listing("listWidgets")}),
    )
    result = diff(old, new, "--no-surface", "--fail-on", "breaking")
    assert result.exit_code == 0, result.output
    assert "  GET /widgets: operation added [operation-added]" in result.stdout.splitlines()
    assert diff(old, new, "--no-surface", "--fail-on", "warning").exit_code == 0
    assert diff(old, old, "--no-surface").stdout == "no changes\n"


def test_fail_on_warning_counts_warnings(tmp_path: Path) -> None:
    folder = CASES / "servers"
    assert diff(folder / "old.yaml", folder / "new.yaml", "--no-surface").exit_code == 0
    result = diff(folder / "old.yaml", folder / "new.yaml", "--no-surface", "--fail-on", "warning")
    assert result.exit_code == 1


# --- the Python surface -----------------------------------------------------------------------


def test_a_removed_method_and_a_required_parameter_break_the_python_side(tmp_path: Path) -> None:
    verbose = {"name": "verbose", "in": "query", "schema": {"type": "boolean"}}
    ident = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
    get = {"operationId": "getThing", "responses": {"204": {"description": "ok"}}}
    delete = {"operationId": "deleteThing", "responses": {"204": {"description": "gone"}}}
    old_item = {"parameters": [ident], "get": {**get, "parameters": [verbose]}, "delete": delete}
    new_item = {
        "parameters": [ident],
        "get": {**get, "parameters": [{**verbose, "required": True}]},
    }
    old = write(tmp_path / "old.yaml", spec({"/things/{id}": old_item}))
    new = write(tmp_path / "new.yaml", spec({"/things/{id}": new_item}))
    result = diff(old, new, "--format", "json")
    assert result.exit_code == 0, result.output
    python = {(c["rule"], c["location"], c["level"]) for c in json.loads(result.stdout)
              if c["side"] == "python"}  # fmt: skip
    assert python == {
        ("python-method-removed", "resources.things.ThingsResource.delete", "breaking"),
        (
            "python-parameter-became-required",
            "resources.things.ThingsResource.retrieve(verbose)",
            "breaking",
        ),
    }


# --- git revisions ----------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose ``api/openapi.yaml`` lost an operation and gained a required body
    field in its second commit; its schemas live in ``api/schemas.yaml`` ($ref)."""
    root = tmp_path / "repo"
    ref = {"$ref": "schemas.yaml#/Thing"}
    body = {"required": True, "content": {"application/json": {"schema": ref}}}
    done = {"204": {"description": "ok"}}
    post = {"operationId": "createThing", "requestBody": body, "responses": done}
    paths = {"/things": {"post": post}, "/gadgets": listing("listGadgets")}
    write(root / "api" / "openapi.yaml", spec(paths))
    write(root / "api" / "schemas.yaml", {"Thing": thing(["name"])})
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "v1")
    del paths["/gadgets"]
    write(root / "api" / "openapi.yaml", spec(paths))
    write(root / "api" / "schemas.yaml", {"Thing": thing(["name", "sku"], sku={"type": "string"})})
    git(root, "commit", "-qam", "v2")
    return root


def test_a_file_at_a_revision(repo: Path) -> None:
    file = repo / "api" / "openapi.yaml"
    expected = [
        "breaking:",
        "  GET /gadgets: operation removed [operation-removed]",
        "  POST /things request.body.sku: new required property [request-property-added-required]",
    ]
    for new in (f"{file}", f"{file}@HEAD"):
        result = diff(f"{file}@HEAD~1", new, "--no-surface")
        assert result.exit_code == 0, result.output
        assert result.stdout.splitlines()[:3] == expected
    assert diff(f"{file}@HEAD", file, "--no-surface").stdout == "no changes\n"


def test_since_compares_every_configured_api(repo: Path) -> None:
    (repo / "pyproject.toml").write_text(
        '[tool.apismith.apis.shop]\nspec = "api/openapi.yaml"\nout = "generated/shop"\n'
        "[tool.apismith.apis.shop.client]\nname = 'Store'\n",
        encoding="utf-8",
    )
    result = diff("--since", "HEAD~1", "--root", repo, "--fail-on", "breaking")
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert "  GET /gadgets: operation removed [operation-removed]" in lines
    assert "  python: resources.gadgets: resource module removed [python-resource-removed]" in lines
    added = "python: resources.things.ThingsResource.create(sku): new required parameter"
    assert any(line.startswith(f"  {added}") for line in lines), result.stdout
    result = diff("--since", "HEAD", "shop", "--root", repo, "--no-surface")
    assert (result.exit_code, result.stdout) == (0, "no changes\n")
    assert not (repo / "generated").exists()


def test_since_names_a_new_api_and_prefixes_locations(repo: Path) -> None:
    (repo / "pyproject.toml").write_text(
        '[tool.apismith.apis.shop]\nspec = "api/openapi.yaml"\nout = "generated/shop"\n'
        '[tool.apismith.apis.extra]\nspec = "extra/openapi.yaml"\nout = "generated/extra"\n',
        encoding="utf-8",
    )
    write(repo / "extra" / "openapi.yaml", spec({"/x": listing("listX")}))
    result = diff("--since", "HEAD~1", "--root", repo, "--no-surface", "--format", "json")
    assert result.exit_code == 0, result.output
    found = {(c["rule"], c["location"]) for c in json.loads(result.stdout)}
    assert ("api-added", f"{repo / 'extra' / 'openapi.yaml'}") in found
    assert ("operation-removed", "shop: GET /gadgets") in found


# --- bad input --------------------------------------------------------------------------------


def test_a_missing_file_is_one_line_exit_2(tmp_path: Path) -> None:
    old = write(tmp_path / "old.yaml", spec({"/things": listing("listThings")}))
    proc = run_cli("diff", old, tmp_path / "nope.yaml", "--no-surface", cwd=tmp_path)
    assert proc.returncode == 2, describe(proc)
    assert error_lines(proc.stderr) == [
        f"apismith: error: {tmp_path / 'nope.yaml'}: file not found"
    ]
    assert proc.stdout == ""


@pytest.mark.parametrize(
    ("rev", "message"),
    [
        ("nope", "unknown git revision 'nope'"),
        ("HEAD~5", "unknown git revision 'HEAD~5'"),
        ("--output=x", "'--output=x' is not a git revision"),
    ],
)
def test_a_bad_revision_is_one_line_exit_2(repo: Path, rev: str, message: str) -> None:
    file = repo / "api" / "openapi.yaml"
    result = diff(f"{file}@{rev}", file, "--no-surface")
    assert result.exit_code == 2
    assert result.stderr == f"apismith: error: {file}@{rev}: {message}\n"


def test_other_bad_input(tmp_path: Path, repo: Path) -> None:
    file = repo / "api" / "openapi.yaml"
    outside = write(tmp_path / "elsewhere" / "x.yaml", spec({}))
    cases = {
        (f"{repo / 'api' / 'gone.yaml'}@HEAD", str(file)): "no such file at revision HEAD",
        (f"{outside}@HEAD", str(file)): "is not in a git repository",
        ("https://example.com/a.yaml", str(file)): "a spec by URL is read by",
        (str(file),): "give OLD and NEW",
    }
    for args, message in cases.items():
        result = diff(*args, "--no-surface")
        assert result.exit_code == 2, (args, result.output)
        assert message in result.stderr, (args, result.stderr)
    broken = tmp_path / "broken.yaml"
    broken.write_text("openapi: [\n", encoding="utf-8")
    result = diff(file, broken, "--no-surface")
    assert result.exit_code == 2 and len(error_lines(result.stderr)) == 1, result.stderr
