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


def test_building_the_site_never_dirties_the_package(tmp_path: Path) -> None:
    """`apismith docs` and a plain `mkdocs build` in docs/ write the site beside the
    package, so that the drift check stays green."""
    from tests.conftest import describe, run_cli, small_spec, write_json

    spec = write_json(tmp_path / "pets.json", small_spec())
    made = run_cli("generate", "--spec", spec, "--out", "vendor/pets", cwd=tmp_path)
    assert made.returncode == 0, describe(made)
    built = run_cli("docs", "--out", "vendor/pets", cwd=tmp_path)
    assert built.returncode == 0, describe(built)
    assert (tmp_path / "vendor" / "pets-site" / "index.html").is_file(), describe(built)
    plain = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=tmp_path / "vendor" / "pets" / "docs",
        env=cli_env({"NO_MKDOCS_2_WARNING": "1"}),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert plain.returncode == 0, plain.stdout + plain.stderr
    check = run_cli("check", "--full", "--spec", spec, "--out", "vendor/pets", cwd=tmp_path)
    assert check.returncode == 0, describe(check)
