"""Issue 27's field layout: parameters and fields are blocks in the seed page's order (name,
type, badges, description), nested fields collapsible, long enums and defaults collapsed
and never repeated, Markdown in descriptions rendered (no raw ``| --- |``), identifiers
never broken (the stylesheet), spec text escaped once."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import markdown as md

from generator.config import ApiConfig
from generator.ir import build_ir
from generator.normalize import normalize
from generator.render.docs import render_docs
from generator.render.docs.tables import MAX_SHOWN, Tables, default_md, values_md
from generator.render.settings import bind_settings
from tests.docs.support import rendered, section, tables

EXTENSIONS = ["tables", "md_in_html", "attr_list", "def_list", "pymdownx.details"]
MANY = [f"v{i}" for i in range(40)]
HOSTILE = "</div></details><script>alert(1)</script> <img src=x onerror=alert(2)>"
SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Shop", "version": "1"},
    "paths": {
        "/orders": {
            "post": {
                "operationId": "createOrder",
                "tags": ["orders"],
                "parameters": [
                    {"name": "dry_run", "in": "query", "schema": {"type": "boolean"}},
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Order"}}
                    },
                },
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
    "components": {
        "schemas": {
            "Item": {
                "type": "object",
                "required": ["sku"],
                "properties": {
                    "sku": {"type": "string", "description": HOSTILE},
                    "size": {"enum": MANY},
                },
            },
            "Order": {
                "type": "object",
                "required": ["items"],
                "properties": {
                    "items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}},
                    "note": {"type": "string", "default": "x" * 120},
                    "count": {"type": "integer", "minimum": 1, "maximum": 9, "default": 1},
                    "limits": {
                        "type": "string",
                        "description": "Per family:\n| family | max |\n| --- | --- |\n| a | 1 |",
                    },
                },
            },
        }
    },
}


def _pages(tmp_path: Path) -> dict[str, str]:
    api = build_ir(normalize(SPEC).spec)
    config = ApiConfig(
        name="shop", package="shop", title="Shop", spec=tmp_path / "s.json", out=tmp_path
    )
    return render_docs(api, config, bind_settings(config, api))


def _html(text: str) -> str:
    return md.markdown(text, extensions=EXTENSIONS)


def test_fields_are_blocks_in_the_seed_order(tmp_path: Path) -> None:
    page = _pages(tmp_path)["docs/pages/orders.md"]
    assert "|---|" not in page  # no field table left
    html = _html(page)
    head = re.search(r'<p class="api-head">.*?count.*?</p>', html)
    assert head is not None
    parts = re.findall(r'class="api-(name|type|badge api-\w+)"', head.group(0))
    assert parts == [
        "name",
        "type",
        "badge api-default",
        "badge api-constraint",
    ]  # name, type, badges; the description beneath
    assert '<span class="api-badge api-in">query</span>' in html
    # the item's fields, indented and collapsible under their parent
    nested = re.search(r'<details class="api-children">\s*<summary>(.*?)</summary>', html)
    assert nested is not None and "<code>items[]</code>" in nested.group(1)


def test_long_enums_and_defaults_are_collapsed_once(tmp_path: Path) -> None:
    pages = _pages(tmp_path)
    html = _html(pages["docs/pages/orders.md"])
    size = html.split("<code>size</code>", 1)[1].split('<div class="api-field">', 1)[0]
    assert "string enum" in size and size.count('<code>"v0"</code>') == 1
    shown, more = size.split('<details class="api-more">', 1)
    assert all(f'"v{i}"' in shown for i in range(MAX_SHOWN))
    assert f'"v{MAX_SHOWN}"' not in shown and f"{len(MANY) - MAX_SHOWN} more" in more
    assert values_md("Options", ["a"]) == 'Options: `"a"`'
    long = default_md(True, "x" * 120)
    assert long.startswith('<details class="api-more"') and "<pre><code>" in long
    assert default_md(True, 1) == "`1`"


def test_markdown_in_descriptions_renders(tmp_path: Path) -> None:
    html = _html(_pages(tmp_path)["docs/pages/orders.md"])
    assert "<th>family</th>" in html
    assert not re.search(r"\|\s*-{3,}\s*\|", re.sub(r"<[^>]+>", "", html))


def test_spec_text_is_escaped_once_in_blocks(tmp_path: Path) -> None:
    html = _html(_pages(tmp_path)["docs/pages/models-reference.md"])
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_sgp_chat_page_has_no_raw_pipes_and_keeps_facts() -> None:
    page = section(rendered("sgp").page("chat_completions.md"), "op-post_v2_chat_completions")
    html = _html(page)
    text = re.sub(r"<[^>]+>", "", html)
    assert not re.search(r"\|\s*-{3,}\s*\|", text)
    assert "<th>Model API family</th>" in html  # max_tokens' table, inside its block
    body = {r["field"]: r for t in tables(page.split("### Request body", 1)[1]) for r in t}
    assert body["`model`"]["type"] == "string enum"
    assert body["`model`"]["description"].count("<details") == 1


def test_identifiers_never_break_in_the_stylesheet() -> None:
    css = rendered("sgp").files["docs/pages/stylesheets/extra.css"]
    rules = dict(re.findall(r"([^{}]+)\{([^{}]*)\}", re.sub(r"/\*.*?\*/", "", css, flags=re.S)))
    rules = {k.strip(): v for k, v in rules.items()}
    assert "white-space: nowrap" in rules[".md-typeset :not(pre) > code"]
    assert "overflow-wrap: anywhere" in rules[".md-typeset .api-desc"]
    assert "overflow-wrap: normal" in rules[".md-typeset .api-head"]
    anywhere = [k for k, v in rules.items() if "anywhere" in v]
    assert anywhere == [".md-typeset .api-desc"]  # only descriptions break anywhere


def test_field_tables_are_gone_from_every_page() -> None:
    for name in ("sgp", "llm-engine"):
        tables_ = Tables(rendered(name).api)
        assert tables_  # one render's cache builds
        for page, text in rendered(name).pages.items():
            assert "| field |" not in text and "| name | in |" not in text, page
