"""A cloned repository's configuration is data (issue 22, finding 5).

Each case is a consumer git repository, cloned, whose ``[tool.apismith]`` (or vendored
manifest, or template folder) was written by someone else: a malicious template override,
``ref_root = "/"`` with a ``$ref`` to a file outside, paths that leave the repository,
symlinks out of it. ``apismith generate`` and ``apismith check``, run from apismith's
wheel in the clone, must run no code (the marker file never appears), print no file from
outside the repository (the secret never shows), and end in exit 2 with one line, or in a
clean result that contains nothing from outside.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import error_lines, write_json
from tests.e2e_support import Measured, Venv, git, git_commit_all, git_init, run_measured

SECRET = "S3CRET-5f4dcc3b5aa765d61d83-config"
PETS = {
    "openapi": "3.1.0",
    "info": {"title": "Pets", "version": "1.0.0"},
    "paths": {
        "/pets/{pet_id}": {
            "get": {
                "operationId": "getPet",
                "parameters": [
                    {
                        "name": "pet_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "integer"},
                    }
                ],
                "responses": {
                    "200": {
                        "description": "OK",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
                        },
                    }
                },
            }
        }
    },
    "components": {
        "schemas": {
            "Pet": {"type": "object", "properties": {"id": {"type": "integer"}}},
        }
    },
}
ENTRY = '[tool.apismith.apis.pets]\nspec = "api/pets.json"\nout = "vendor/pets"\n'


def _world(tmp: Path) -> tuple[Path, Path]:
    """tmp/secret.json and tmp/secret.txt (outside every repository), and an upstream
    repository at tmp/upstream with a vendored, up-to-date package; returns (upstream,
    marker path)."""
    write_json(tmp / "secret.json", {"Secret": {"type": "string", "description": SECRET}})
    (tmp / "secret.txt").write_text(SECRET + "\n")
    upstream = tmp / "upstream"
    (upstream / "api").mkdir(parents=True)
    write_json(upstream / "api" / "pets.json", PETS)
    (upstream / "pyproject.toml").write_text(ENTRY)
    return upstream, tmp / "PWNED"


def _clone(tmp: Path, upstream: Path) -> Path:
    git_init(upstream)
    git_commit_all(upstream, "the malicious change")
    clone = tmp / "clone"
    cloned = git("clone", "-q", str(upstream), str(clone), cwd=tmp)
    assert cloned.returncode == 0, cloned.stderr
    return clone


def _run(venv: Venv, clone: Path, *args: str) -> Measured:
    return run_measured([venv.bin("apismith"), *args], cwd=clone)


def _assert_safe(proc: Measured, tmp: Path, *, refused: str | None) -> None:
    output = proc.stdout + proc.stderr
    assert SECRET not in output, f"an outside file was printed\n{proc.describe()}"
    assert not (tmp / "PWNED").exists(), f"the config ran code\n{proc.describe()}"
    assert "Traceback" not in output and "internal error" not in output, proc.describe()
    if refused is not None:
        assert proc.returncode == 2, proc.describe()
        lines = error_lines(proc.stderr)
        assert len(lines) == 1 and refused in lines[0], proc.describe()
    for path in (tmp / "clone").rglob("*"):
        if path.is_file() and not path.is_symlink() and ".git" not in path.parts:
            assert SECRET.encode() not in path.read_bytes(), f"{path} holds the secret"


def _template_override(upstream: Path, marker: Path) -> None:
    (upstream / "tpl").mkdir()
    payload = f"{{{{ cycler.__init__.__globals__.os.system('touch {marker}') }}}}\n"
    (upstream / "tpl" / "header.py.jinja").write_text("# header\n" + payload)
    (upstream / "pyproject.toml").write_text(ENTRY + 'templates = "tpl"\n')


CASES = {
    # the override's code is sandboxed: refused, nothing runs
    "template-code": (_template_override, "templates are sandboxed"),
    # the leak: a ref_root of / and a $ref two folders up
    "ref-root-slash": (
        lambda up, _m: (
            (up / "pyproject.toml").write_text(ENTRY + 'ref_root = "/"\n'),
            write_json(up / "api" / "pets.json", _with_ref("../../secret.json#/Secret")),
        ),
        "ref_root '/' is outside",
    ),
    "ref-root-parent": (
        lambda up, _m: (up / "pyproject.toml").write_text(ENTRY + 'ref_root = ".."\n'),
        "is outside",
    ),
    "out-outside": (
        lambda up, _m: (up / "pyproject.toml").write_text(
            ENTRY.replace('"vendor/pets"', '"../elsewhere/pets"')
        ),
        "out '",
    ),
    "spec-outside": (
        lambda up, _m: (up / "pyproject.toml").write_text(
            ENTRY.replace('"api/pets.json"', '"../secret.json"')
        ),
        "spec '",
    ),
    "templates-outside": (
        lambda up, _m: (up / "pyproject.toml").write_text(ENTRY + 'templates = "/tmp"\n'),
        "templates '/tmp' is outside",
    ),
    "overlay-outside": (
        lambda up, _m: (up / "pyproject.toml").write_text(ENTRY + 'overlays = ["../secret.txt"]\n'),
        "overlays '",
    ),
    "spec-symlink-out": (
        lambda up, _m: (
            (up / "api" / "pets.json").unlink(),
            (up / "api" / "pets.json").symlink_to("../../secret.json"),
        ),
        "is outside",
    ),
    # a $ref with no ref_root stays inside the spec's folder, as ever
    "ref-dotdot": (
        lambda up, _m: write_json(up / "api" / "pets.json", _with_ref("../../secret.json#/Secret")),
        "leaves the spec's folder",
    ),
    # an overlay inside the repository that adds a reference outside it
    "overlay-adds-ref": (
        lambda up, _m: (
            (up / "overlay.yaml").write_text(
                "overlay: 1.0.0\nactions:\n  - target: $.components.schemas.Pet\n"
                "    update: {properties: {s: {$ref: '../secret.json#/Secret'}}}\n"
            ),
            (up / "pyproject.toml").write_text(ENTRY + 'overlays = ["overlay.yaml"]\n'),
        ),
        "an overlay may only add references inside the document",
    ),
}


def _with_ref(target: str) -> dict[str, object]:
    doc = json.loads(json.dumps(PETS))
    doc["components"]["schemas"]["Pet"]["properties"]["secret"] = {"$ref": target}
    return doc


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("command", ["generate", "check"])
def test_cloned_config_runs_no_code_and_prints_no_outside_file(
    tmp_path: Path, wheel_apismith: Venv, case: str, command: str
) -> None:
    upstream, marker = _world(tmp_path)
    setup, refused = CASES[case]
    setup(upstream, marker)
    clone = _clone(tmp_path, upstream)
    proc = _run(wheel_apismith, clone, command)
    _assert_safe(proc, tmp_path, refused=refused)
    assert not (tmp_path / "elsewhere").exists()


def test_check_prints_no_file_under_a_symlinked_folder(
    tmp_path: Path, wheel_apismith: Venv
) -> None:
    """The vendored package's docs/ folder is a symlink out of the repository, to a
    folder whose pages are secret: check reports the drift without printing them."""
    upstream, _marker = _world(tmp_path)
    made = _run(wheel_apismith, upstream, "generate")
    assert made.returncode == 0, made.describe()
    docs = upstream / "vendor" / "pets" / "docs"
    assert list(docs.rglob("*.md"))
    outside = tmp_path / "outside-docs"
    shutil.copytree(docs, outside)
    for path in outside.rglob("*.md"):
        path.write_text(SECRET + "\n")
    shutil.rmtree(docs)
    docs.symlink_to(outside, target_is_directory=True)
    clone = _clone(tmp_path, upstream)
    proc = _run(wheel_apismith, clone, "check", "--full")
    assert proc.returncode == 1, proc.describe()
    _assert_safe(proc, tmp_path, refused=None)
    assert "drifted" in proc.stderr


def test_recorded_overlays_outside_are_refused(tmp_path: Path, wheel_apismith: Venv) -> None:
    """A vendored MANIFEST.json is data too: overlays it records must stay inside."""
    upstream, _marker = _world(tmp_path)
    made = _run(wheel_apismith, upstream, "generate")
    assert made.returncode == 0, made.describe()
    manifest_path = upstream / "vendor" / "pets" / "MANIFEST.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["options"]["overlays"] = ["../../secret.txt"]
    manifest_path.write_text(json.dumps(manifest))
    clone = _clone(tmp_path, upstream)
    for command in ("generate", "check"):
        proc = (
            _run(wheel_apismith, clone, command, "--full")
            if command == "check"
            else _run(wheel_apismith, clone, command)
        )
        _assert_safe(proc, tmp_path, refused="overlays '")


def test_command_line_flags_may_still_widen(tmp_path: Path, wheel_apismith: Venv) -> None:
    """What a config may not do, the user's own command line may: --ref-root."""
    upstream, _marker = _world(tmp_path)
    inside = tmp_path / "repo-secret.json"
    write_json(inside, {"Extra": {"type": "string", "description": "from the flag"}})
    write_json(upstream / "api" / "pets.json", _with_ref("../../repo-secret.json#/Extra"))
    clone = _clone(tmp_path, upstream)
    refused = _run(wheel_apismith, clone, "generate")
    assert refused.returncode == 2, refused.describe()
    widened = _run(wheel_apismith, clone, "generate", "--ref-root", str(tmp_path))
    assert widened.returncode == 0, widened.describe()
    models = (clone / "vendor" / "pets" / "models.py").read_text()
    assert "from the flag" in models
