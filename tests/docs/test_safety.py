"""Spec text is untrusted: Markdown from the spec is kept, but no raw HTML, script, event
attribute, dangerous link or page-structure break reaches the site."""

from __future__ import annotations

import re
from pathlib import Path

import markdown as md
import pytest

from generator.config import ApiConfig
from generator.ir import build_ir
from generator.normalize import normalize
from generator.render.docs import render_docs
from generator.render.docs.text import cell, code, inline, markdown
from generator.render.settings import bind_settings

EXTENSIONS = ["tables", "admonition", "toc", "pymdownx.superfences"]
HOSTILE = (
    "Intro <script>alert(1)</script> and <img src=x onerror=alert(2)>.\n\n"
    "[click](javascript:alert(3)) [data](data:text/html;base64,PHNjcmlwdD4=) "
    "[rel](../../etc/passwd) [ok](https://example.com)\n\n"
    "![img](https://evil.example/x.png)\n\n"
    'Para {: onclick="alert(4)" }\n\n'
    "[ref]: javascript:alert(5)\n\n"
    "# Top heading\n\n"
    "Setext\n===\n\n"
    "Pipe | in | text and `code <b>kept</b>` here.\n\n"
    "```html\n<script>in a fence</script>\n```\n"
    "<!-- comment -->\n"
)


def html(text: str) -> str:
    return md.markdown(text, extensions=EXTENSIONS)


def test_markdown_keeps_markdown_and_drops_html() -> None:
    out = html(markdown(HOSTILE, 4))
    assert "<script" not in out.replace("&lt;script", "")
    assert not re.search(r"<img|<[^>]*\s(onerror|onclick)=|<!--", out)
    assert not re.search(r'href="(javascript|data|\.\./)', out)
    assert 'href="https://example.com"' in out
    assert "<code>code &lt;b&gt;kept&lt;/b&gt;</code>" in out  # code is verbatim
    assert "<pre" in out and "fence" in out  # fenced code stays code (highlighted)
    assert "<p>Setext\n===" in out.replace("&#61;", "=")  # no setext heading
    assert "<h4" in out and not re.search(r"<h[1-3]", out)  # pushed below the page's


def test_unclosed_fence_runs_to_the_end() -> None:
    text = markdown("```\nnever closed\n\nstill code", 4)
    assert text == "<pre><code>never closed\n\nstill code</code></pre>"


def test_inline_and_cell_stay_on_one_line() -> None:
    assert "\n" not in inline("a\n\n# b\n- c")
    assert cell("a | b `c | d`") == "a \\| b <code>c &#124; d</code>"
    assert inline("# not a heading").startswith("\\#")
    assert code("a ` b") == "<code>a &#96; b</code>" and code("max_tokens") == "`max_tokens`"


def test_a_hostile_spec_renders_safe_pages(tmp_path: Path) -> None:
    evil = "<script>alert('x')</script> [x](javascript:alert(1)) {: onclick=alert(1) } | `|`"
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "Evil <b>API</b>", "version": "1", "description": evil},
        "tags": [{"name": "things", "description": evil}],
        "paths": {
            "/things/{id}": {
                "get": {
                    "tags": ["things"],
                    "operationId": "get_thing",
                    "summary": "Get <script>x</script> | thing",
                    "description": evil,
                    "parameters": [
                        {
                            "name": "id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                            "description": evil,
                        },
                    ],
                    "responses": {
                        "200": {
                            "description": evil,
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Thing"}
                                }
                            },
                        }
                    },
                }
            }
        },
        "components": {
            "schemas": {
                "Thing": {
                    "type": "object",
                    "description": evil,
                    "required": ["kind"],
                    "properties": {
                        "kind": {"const": "<script>", "description": evil},
                        "mode": {"enum": ["a|b", "`c`", "<i>"], "default": "a|b"},
                    },
                }
            }
        },
    }
    normalized = normalize(spec)
    api = build_ir(normalized.spec)
    config = ApiConfig(
        name="evil", package="evil", title="Evil <b>API</b>", spec=tmp_path / "s.json", out=tmp_path
    )
    files = render_docs(api, config, bind_settings(config, api))
    for rel, text in files.items():
        if not rel.endswith(".md"):
            continue
        out = html(text)
        assert "<script" not in out, rel
        assert not re.search(r"<[^>]*\sonclick=|href=\"javascript", out), rel
        assert "<b>API</b>" not in out, rel
    # table rows keep their column count despite the pipes
    page = files["docs/pages/things.md"]
    columns = 0
    for line in page.splitlines():
        if line.startswith("| field |"):
            columns = line.count("|")
        if line.startswith("| `mode`"):
            assert len(re.split(r"(?<!\\)\|(?=(?:[^`]*`[^`]*`)*[^`]*$)", line)) == columns + 1
    assert 'site_name: "Evil bAPI/b API reference"' in files["docs/mkdocs.yml"]


@pytest.mark.parametrize("bad", ["javascript:alert(1)", "JAVASCRIPT:x", " data:x", "vbscript:x"])
def test_dangerous_link_targets_lose_their_link(bad: str) -> None:
    out = html(markdown(f"[t]({bad})"))
    assert "href" not in out
