"""Every operation and every model appears in the docs, with what the issue asks for."""

from __future__ import annotations

import json
import re

import pytest

from generator.config import load_config
from generator.render.settings import bind_settings
from generator.render.surface import build_resources
from tests.conftest import SPECS
from tests.docs.support import APIS, SERVED, fences, plain, rendered, section, tables


@pytest.mark.parametrize("name", sorted(APIS))
def test_every_model_has_a_section(name: str) -> None:
    r = rendered(name)
    page = r.page("models-reference.md")
    anchors = re.findall(r'<a id="model-([^"]+)"></a>', page)
    assert anchors == [m.name for m in r.api.models]
    for m in r.api.models:
        text = section(page, f"model-{m.name}")
        if m.kind == "object" and m.fields:
            rows = [row for t in tables(text) for row in t]
            ordered = [f.name for f in m.fields if f.required]
            ordered += [f.name for f in m.fields if not f.required]
            assert [plain(row["field"]) for row in rows] == ordered  # required first
        if m.kind == "enum":
            assert "Available options" in text


@pytest.mark.parametrize("name", sorted(SERVED))
def test_every_operation_has_a_section_and_a_client_method(name: str) -> None:
    r = rendered(name)
    pages = r.pages
    everything = "\n".join(pages.values())
    api_page = pages["client-methods.md"]
    config = load_config(SPECS / f"{name}.toml")
    cfg = bind_settings(config, r.api)
    root, _ = build_resources(r.api, cfg, f"{cfg.name}Client")
    calls: dict[str, str] = {}

    def walk(node, path):  # type: ignore[no-untyped-def]
        for m in node.methods:
            calls[m.op.python_name] = ".".join(("client", *path, m.name))
        for attr, child in node.children.items():
            walk(child, (*path, attr))

    walk(root, ())
    for op in r.api.operations:
        anchor = f"op-{op.python_name}"
        assert everything.count(f'<a id="{anchor}"></a>') == 1, anchor
        page = next(p for p, t in pages.items() if f'<a id="{anchor}"></a>' in t)
        text = section(pages[page], anchor)
        # the section opens with the client call, then the HTTP line
        call = fences(text, "py")[0][1]
        assert call.startswith(f"{calls[op.python_name]}(")  # the real client method
        assert fences(text, "http")[0][1] == f"{op.method.upper()} {op.path}"
        assert text.index("```py\n") < text.index("```http\n") < text.index("#### Samples")
        assert f"{page}#{anchor}" in api_page
        python = fences(text, "python")
        assert python and all(calls[op.python_name] in code for _, code in python)
        assert fences(text, "sh")
        for resp in op.responses:
            assert re.search(rf"^##### {re.escape(resp.status)}\b", text, re.M), resp.status
        params = [row for t in tables(text) for row in t if "in" in row]
        shown = [p for p in op.parameters if p.location != "cookie"]
        assert [plain(p["name"]) for p in params] == [
            p.name for p in sorted(shown, key=lambda p: not p.required)
        ]
    for streamed in cfg.streaming:  # every streaming method has a streaming sample
        anchor = f"op-{r.api.operation(streamed).python_name}"
        page = next(p for p, t in pages.items() if f'"{anchor}"' in t)
        assert "for chunk in" in section(pages[page], anchor)


@pytest.mark.parametrize("name", sorted(SERVED))
def test_index(name: str) -> None:
    r = rendered(name)
    index = r.page("index.md")
    assert r.api.version in index
    assert "## Authentication" in index and fences(index, "python") and fences(index, "sh")
    mermaid = fences(index, "mermaid")
    assert mermaid and mermaid[0][1].startswith("classDiagram")
    nodes = re.findall(r"^    class (\w+)$", mermaid[0][1], re.M)
    assert 2 <= len(nodes) and set(nodes) <= {m.name for m in r.api.models}
    resources = index.split("\n## Resources\n", 1)[1].split("\n## ", 1)[0]
    linked = set(re.findall(r"^- \[[^\]]+\]\(([^)]+)\), `client", resources, re.M))
    assert linked == {
        p for p in r.pages if p not in ("index.md", "models-reference.md", "client-methods.md")
    }


def test_merged_and_aliased_models_are_explained() -> None:
    r = rendered("llm-engine")
    page = r.page("models-reference.md")
    merged = section(page, "model-ChatCompletionMessageToolCalls")
    assert "ChatCompletionMessageToolCalls-Input" in merged and "Merged" in merged
    aliased = section(page, "model-BatchCompletionsJob")
    assert "`model_config` → `model_config_`" in aliased
    row = next(row for t in tables(aliased) for row in t if plain(row["field"]) == "model_config")
    assert "model_config_" in row["description"]


def test_sgp_chat_request_has_models_only() -> None:
    r = rendered("sgp-chat-request")
    assert set(r.pages) == {"index.md", "models-reference.md"}
    assert "client-methods" not in r.files["docs/mkdocs.yml"]


@pytest.mark.parametrize("name", sorted(APIS))
def test_render_is_deterministic(name: str) -> None:
    from tests.docs.support import rendered as cached

    first = cached(name).files
    cached.cache_clear()
    assert cached(name).files == first
    json.dumps(first)  # plain strings
