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
