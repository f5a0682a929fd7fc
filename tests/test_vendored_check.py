"""Vendoring without the upstream config: recorded options, ``[tool.apismith]``, every input
hashed (``$ref``'d files, template overrides), ``check --full`` and stray files, and hints
that name a command that works where it is printed. Fast, with a small spec; the wheel-based
end-to-end version is tests/test_vendoring.py.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from generator.config import load_config
from generator.manifest import generator_fingerprint, generator_sources, listed_files
from tests.conftest import GENERATED, SPECS, describe, run_cli, small_spec, write_json

CONFIG = """[api]
package = "pets"
title = "Pet store"
spec = "pets/openapi.json"
outputs = ["models", "docs"]

[passes]
tuples = false
"""


def pets_spec(with_ref: bool = False) -> dict[str, object]:
    spec = small_spec()
    if with_ref:
        spec["components"]["schemas"]["Owner"] = {"$ref": "schemas/owner.json"}  # type: ignore[index]
    return spec


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An upstream project (specs/pets.toml with non-default options), generated."""
    root = tmp_path_factory.mktemp("upstream")
    write_json(root / "specs" / "pets" / "openapi.json", pets_spec(with_ref=True))
    write_json(
        root / "specs" / "pets" / "schemas" / "owner.json",
        {"type": "object", "properties": {"name": {"type": "string"}}},
    )
    (root / "specs" / "pets.toml").write_text(CONFIG, encoding="utf-8")
    proc = run_cli("generate", cwd=root)
    assert proc.returncode == 0, describe(proc)
    return root


@pytest.fixture
def consumer(upstream: Path, tmp_path: Path) -> Path:
    """Another repo: the spec (and the file it $refs) and the package, nothing else."""
    root = tmp_path / "consumer"
    shutil.copytree(upstream / "specs" / "pets", root / "api")
    shutil.copytree(upstream / "generated" / "pets", root / "vendor" / "pets")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "consumer"\nversion = "0"\n\n'
        '[tool.apismith.apis.pets]\nspec = "api/openapi.json"\nout = "vendor/pets"\n',
        encoding="utf-8",
    )
    return root


ADHOC = ["--spec", "api/openapi.json", "--out", "vendor/pets"]


def test_options_are_recorded_without_machine_paths(upstream: Path) -> None:
    manifest = json.loads((upstream / "generated" / "pets" / "MANIFEST.json").read_text())
    options = manifest["options"]
    assert options["title"] == "Pet store" and options["outputs"] == ["models", "docs"]
    assert options["passes"] == {"tuples": False}
    assert str(upstream) not in json.dumps(manifest)
    roles = [(row["role"], row.get("path")) for row in manifest["inputs"]]
    assert roles == [("spec", None), ("ref", "schemas/owner.json")]


@pytest.mark.parametrize("args", [[], ADHOC, ["pets"]])
def test_vendored_check_needs_no_upstream_config(consumer: Path, args: list[str]) -> None:
    for full in ([], ["--full"]):
        proc = run_cli("check", *full, *args, cwd=consumer)
        assert proc.returncode == 0, describe(proc)


def test_generate_keeps_recorded_options(consumer: Path) -> None:
    spec_path = consumer / "api" / "openapi.json"
    spec = json.loads(spec_path.read_text())
    spec["info"]["version"] = "2.0.0"
    write_json(spec_path, spec)
    proc = run_cli("check", cwd=consumer)
    assert proc.returncode == 1, describe(proc)
    # the hint is a command that works here
    assert "run `apismith generate pets`" in proc.stderr, describe(proc)
    for args in (ADHOC, []):
        proc = run_cli("generate", *args, cwd=consumer)
        assert proc.returncode == 0, describe(proc)
        init = (consumer / "vendor" / "pets" / "__init__.py").read_text()
        assert "Pet store (API version 2.0.0)" in init
        assert not (consumer / "vendor" / "pets" / "_client.py").exists()  # outputs kept
        assert run_cli("check", "--full", cwd=consumer).returncode == 0
    # --fresh forgets them
    proc = run_cli("generate", *ADHOC, "--fresh", cwd=consumer)
    assert proc.returncode == 0, describe(proc)
    init = (consumer / "vendor" / "pets" / "__init__.py").read_text()
    assert "Pets (API version 2.0.0)" in init


def test_a_referenced_file_is_an_input(consumer: Path) -> None:
    owner = consumer / "api" / "schemas" / "owner.json"
    write_json(owner, {"type": "object", "properties": {"name": {"type": "integer"}}})
    proc = run_cli("check", cwd=consumer)
    assert proc.returncode == 1, describe(proc)
    assert "models.py" in proc.stderr


def test_full_check_trusts_no_manifest(consumer: Path) -> None:
    package = consumer / "vendor" / "pets"
    models = package / "models.py"
    models.write_text(models.read_text() + "# patched\n")
    manifest = json.loads((package / "MANIFEST.json").read_text())
    manifest["files"]["models.py"] = hashlib.sha256(models.read_bytes()).hexdigest()
    (package / "MANIFEST.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    assert run_cli("check", cwd=consumer).returncode == 0  # the fast path trusts it
    proc = run_cli("check", "--full", cwd=consumer)
    assert proc.returncode == 1, describe(proc)
    assert f"{package}/models.py" in proc.stderr


def test_stray_bytecode_is_reported(consumer: Path) -> None:
    package = consumer / "vendor" / "pets"
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "models.cpython-311.pyc").write_bytes(b"cache")
    (package / "docs" / "__pycache__").mkdir()
    (package / "docs" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"no x.py")
    (package / "evil.pyc").write_bytes(b"\0")
    assert listed_files(package) == sorted(
        [*(set(listed_files(package)) - {"evil.pyc", "docs/__pycache__/x.cpython-311.pyc"})]
        + ["docs/__pycache__/x.cpython-311.pyc", "evil.pyc"]
    )
    assert "__pycache__/models.cpython-311.pyc" not in listed_files(package)
    for full in ([], ["--full"]):
        proc = run_cli("check", *full, cwd=consumer)
        assert proc.returncode == 1, describe(proc)
        assert "evil.pyc" in proc.stderr and "docs/__pycache__/x.cpython-311.pyc" in proc.stderr


def test_template_overrides_are_inputs(consumer: Path) -> None:
    overrides = consumer / "templates"
    overrides.mkdir()
    header = overrides / "header.py.jinja"
    builtin = (Path(__file__).parent.parent / "templates" / "header.py.jinja").read_text()
    header.write_text(builtin + "# our header\n")
    (overrides / "heder.py.jinja").write_text("typo\n")
    pyproject = consumer / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + 'templates = "templates"\n')
    proc = run_cli("generate", cwd=consumer)
    assert proc.returncode == 0, describe(proc)
    assert "'heder.py.jinja' matches no built-in template" in proc.stderr, describe(proc)
    assert "did you mean 'header.py.jinja'" in proc.stderr
    assert "# our header" in (consumer / "vendor" / "pets" / "models.py").read_text()
    assert run_cli("check", cwd=consumer).returncode == 0
    # the same output checked without the overrides: drift, and a note saying why
    proc = run_cli("check", *ADHOC, cwd=consumer)
    assert proc.returncode == 1 and "template overrides" in proc.stderr, describe(proc)
    header.write_text(builtin + "# our new header\n")
    proc = run_cli("check", cwd=consumer)
    assert proc.returncode == 1, describe(proc)
    header.write_text(builtin + "{% if %}\n")
    proc = run_cli("check", "--full", cwd=consumer)
    assert proc.returncode == 2, describe(proc)
    (line,) = proc.stderr.splitlines()
    assert "templates/header.py.jinja:7:" in line and "internal error" not in line, line


def test_fingerprint_names_each_source_once() -> None:
    names = [name for name, _path in generator_sources()]
    assert len(names) == len(set(names))
    assert "templates/runtime/_runtime.py" in names
    assert not [n for n in names if n.startswith("generator/templates/")]
    assert all(n.startswith(("generator/", "templates/")) for n in names)


@pytest.mark.parametrize("api", ["llm-engine", "sgp", "sgp-chat-request"])
def test_committed_manifests_record_options_and_fingerprint(api: str) -> None:
    config = load_config(SPECS / f"{api}.toml")
    manifest = json.loads((GENERATED / config.package / "MANIFEST.json").read_text())
    assert manifest["generator"] == generator_fingerprint()
    assert manifest["options"] == json.loads(json.dumps(config.options()))
