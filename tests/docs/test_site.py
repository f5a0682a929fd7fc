"""The generated site builds with ``mkdocs build --strict`` (no warning, no broken link or
anchor: validation is set to warn in mkdocs.yml, and strict turns warnings into errors)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import cli_env
from tests.docs.support import APIS, rendered, tables, write

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
        assert "stylesheets/extra.css" in html.read_text(encoding="utf-8"), page
    assert (site / "stylesheets" / "extra.css").is_file()


def _rule(css: str, selector: str) -> str:
    """The declarations of the rule whose selector list ends with ``selector``."""
    m = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", css)
    assert m, selector
    return m.group(1)


@pytest.mark.parametrize("name", sorted(APIS))
def test_tables_leave_the_description_room(name: str) -> None:
    """At 1280 px mkdocs-material leaves ~690 px for a page's content. Its 5rem minimum per
    header made six columns (~790 px with padding) overflow, so every column sat at its
    minimum, and the description, whose words alone can wrap, got ~100 px. Now: no header
    minimum, no column that no row fills, and the last column keeps 16rem (the table
    scrolls sideways before it is squeezed)."""
    files = rendered(name).files
    site = files["docs/mkdocs.yml"].splitlines()
    assert '  - "stylesheets/extra.css"' in site[site.index("extra_css:") + 1]
    css = files["docs/pages/stylesheets/extra.css"]
    assert "min-width: 0;" in _rule(css, "table:not([class]) th")
    width = re.search(r"min-width:\s*([\d.]+)rem", _rule(css, "td:last-child"))
    assert width and float(width.group(1)) >= 12
    for page, text in rendered(name).pages.items():
        for rows in tables(text):
            columns = list(rows[0]) if rows else []
            if "type" in columns:  # a field or parameter table
                assert columns[-1] == "description", page
                for sparse in ("default", "constraints"):
                    if sparse in columns:
                        assert any(r[sparse] for r in rows), (page, columns)
    if name == "sgp":
        op = rendered(name).page("chat_completions.md").split("##### 200", 1)[1]
        assert list(tables(op)[0][0]) == ["field", "type", "required", "description"]


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


def test_an_emoji_title_builds(tmp_path: Path) -> None:
    """An emoji in ``info.title`` written as a JSON surrogate pair (``"\\ud83d\\ude00"``):
    `apismith docs` builds the site, which shows the emoji (mkdocs.yml once held the pair,
    two lone surrogates to YAML, and mkdocs failed writing them)."""
    from tests.conftest import describe, run_cli, small_spec

    doc = small_spec()
    doc["info"]["title"] = "Pets \U0001f600 API"
    text = json.dumps(doc)  # ASCII: the emoji as a surrogate pair
    assert "\\ud83d\\ude00" in text
    spec = tmp_path / "pets.json"
    spec.write_text(text, encoding="ascii")
    made = run_cli("generate", "--spec", spec, "--out", "vendor/pets", cwd=tmp_path)
    assert made.returncode == 0, describe(made)
    quiet = {"NO_MKDOCS_2_WARNING": "1"}
    built = run_cli("docs", "--out", "vendor/pets", "--site-dir", "site", cwd=tmp_path, env=quiet)
    assert built.returncode == 0, describe(built)
    assert built.stderr.count("Traceback") == 0, describe(built)
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "<title>Pets \U0001f600 API API reference</title>" in page
    assert ">Pets \U0001f600 API<" in page  # the heading
