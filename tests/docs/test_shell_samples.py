"""The curl samples in the docs are commands a person copies into a shell: spec text in
them (a path, an API-key header's name) never runs (issue 22: a spec cannot make
generated code, docs included, run anything)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import describe, run_cli, write_json
from tests.docs.support import fences


def _spec(marker: Path) -> dict[str, object]:
    evil = f"$(touch {marker})`touch {marker}`"
    item = {"name": "item_id", "in": "path", "required": True, "schema": {"type": "string"}}
    query = {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Shell", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "components": {
            "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": f"X{evil}"}}
        },
        "security": [{"key": []}],
        "paths": {
            f"/items/{evil}/{{item_id}}": {
                "get": {
                    "operationId": "getItem",
                    "parameters": [item, {**query, "example": evil}],
                    "responses": {"200": {"description": "OK"}},
                }
            }
        },
    }  # fmt: skip


def test_copied_curl_samples_run_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    write_json(tmp_path / "shell.json", _spec(marker))
    proc = run_cli("generate", "--spec", "shell.json", "--out", "out/shell", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    pages = "\n".join(p.read_text() for p in (tmp_path / "out/shell/docs").rglob("*.md"))
    samples = [code for _, code in fences(pages, "sh") if code.startswith("curl -X ")]
    assert samples, "no curl sample in the docs"
    for sample in samples:
        # curl is a shell function that prints its arguments: the words as the shell saw them
        script = f'curl() {{ printf "%s\\n" "$@"; }}\n{sample}\n'
        ran = subprocess.run(
            ["bash", "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=60,
            env={"PATH": "/usr/bin:/bin", "SHELL_BASE_URL": "http://h", "SHELL_API_KEY": "k"},
        )  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        assert not marker.exists(), f"the sample ran the spec's command:\n{sample}"
        assert "$(touch" in ran.stdout or "%24%28touch" in ran.stdout, ran.stdout
