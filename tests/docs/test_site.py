"""The generated site builds with ``mkdocs build --strict`` (no warning, no broken link or
anchor: validation is set to warn in mkdocs.yml, and strict turns warnings into errors)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import cli_env
from tests.docs.support import APIS, rendered, write

pytest.importorskip("mkdocs")
pytest.importorskip("material")


@pytest.mark.parametrize("name", sorted(APIS))
def test_mkdocs_build_strict(name: str, tmp_path: Path) -> None:
    root = write(rendered(name).files, tmp_path / "pkg")
    site = tmp_path / "site"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(root / "docs" / "mkdocs.yml"),
            "-d",
            str(site),
        ],
        cwd=tmp_path,
        env=cli_env({"NO_MKDOCS_2_WARNING": "1"}),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-5000:]
    assert "WARNING" not in output, output[-5000:]
    assert (site / "index.html").is_file()
    assert (site / "search" / "search_index.json").is_file()
    pages = [p for p in rendered(name).pages if p.endswith(".md")]
    for page in pages:
        html = site / ("index.html" if page == "index.md" else f"{page[:-3]}/index.html")
        assert html.is_file(), page
