"""Each docs template documents its context in its leading comment, and the renderer
passes exactly what is documented (StrictUndefined catches anything missing)."""

from __future__ import annotations

import re

import pytest

from generator.config import load_config
from generator.render.docs import docs_context
from generator.render.settings import bind_settings
from generator.tree import builtin_templates
from tests.conftest import SPECS
from tests.docs.support import rendered

DOCS = builtin_templates() / "docs"


def documented(template: str) -> str:
    text = (DOCS / template).read_text(encoding="utf-8")
    m = re.match(r"\{#(.*?)#\}", text, re.S)
    assert m, f"{template} has no leading context comment"
    return m.group(1)


@pytest.mark.parametrize("name", ["llm-engine", "sgp-chat-request"])
def test_every_context_key_is_documented(name: str) -> None:
    r = rendered(name)
    config = load_config(SPECS / f"{name}.toml")
    ctx = docs_context(r.api, config, bind_settings(config, r.api))
    passed = {
        "index.md.jinja": set(ctx["index"]),
        "mkdocs.yml.jinja": set(ctx["site"]),
        "models.md.jinja": {"models"},
        "resource.md.jinja": {"resource"},
        "api.md.jinja": {"resources"},
        "extra.css.jinja": set(),  # a stylesheet: no context
        "try-it.js.jinja": {"schemes"},  # generator/render/docs/try_it.py: try_it_script
    }
    assert {p.name for p in DOCS.glob("*.jinja")} == set(passed)
    for template, keys in passed.items():
        comment = documented(template)
        for key in keys:
            assert re.search(rf"\b{key}\b", comment), f"{template}: {key} undocumented"
    for resource in ctx["resources"]:
        for op in resource.ops:
            for attr in (
                "anchor",
                "signature",
                "returns",
                "params",
                "body",
                "responses",
                "http_line",
                "samples",
                "examples",
                "try_it",
            ):
                assert attr in documented("resource.md.jinja")
                getattr(op, attr)
