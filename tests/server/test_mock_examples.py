"""The mock answers with the spec's own examples when it has them, else a synthesized
minimal instance (the specs of both real APIs have no response examples)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import describe, run_cli, run_python

pytest.importorskip("fastapi")

SPEC = Path(__file__).with_name("examples-spec.json")


def test_mock_uses_spec_examples(tmp_path: Path) -> None:
    out = tmp_path / "pets"
    proc = run_cli("generate", "--spec", str(SPEC), "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from fastapi.testclient import TestClient\n"
        "from pets.server import create_app\n"
        "from pets.mock import MockService\n"
        "client = TestClient(create_app(MockService()))\n"
        "print(client.get('/pets/1').json(), client.get('/owners').json())\n"
    )
    proc = run_python(code, str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    # a media-type example, and a schema-level one
    assert "{'name': 'Rex', 'age': 3} {'id': 'owner-7'}" in proc.stdout, proc.stdout


def test_serve_out_of_a_package_made_with_an_overlay_reads_its_own_spec() -> None:
    """``apismith serve --out generated/llm_engine --seed 1`` makes its data from the
    package's ``openapi.json``, which has the config's overlay applied already: the
    overlay (recorded relative to the original spec) is not looked for beside it."""
    from generator.serve import MockSettings, mock_data, resolve
    from tests.conftest import REPO_ROOT

    name, package_dir, config = resolve(
        None, REPO_ROOT / "generated" / "llm_engine", None, None, None
    )
    assert config.overlays == () and config.spec == package_dir / "openapi.json"
    answers, _chunks = mock_data(config, MockSettings(seed=1))
    assert answers, name
