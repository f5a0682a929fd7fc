"""The site's navigation follows the client's resource tree (issue 27): a page per top-level
resource, titled after its name (or its tag's OpenAPI 3.2 ``summary``), no title twice;
sub-resources are sections of their page (``Variants › Reports``); every operation opens
with its client call, then its HTTP line, and shows its samples in tabs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.config import ApiConfig
from generator.ir import build_ir
from generator.normalize import normalize
from generator.render.docs import render_docs
from generator.render.docs.operations import resource_title
from generator.render.settings import bind_settings
from tests.docs.support import SERVED, fences, rendered, section


def nav(files: dict[str, str]) -> list[tuple[str, str]]:
    """(title, page) of every nav entry, sections flattened."""

    class Loader(yaml.SafeLoader):
        """YAML, with mkdocs.yml's Python names read as None."""

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda *_: None)
    site = yaml.load(files["docs/mkdocs.yml"], Loader=Loader)
    out: list[tuple[str, str]] = []

    def walk(entries: list[dict[str, Any]]) -> None:
        for entry in entries:
            ((title, target),) = entry.items()
            if isinstance(target, list):
                walk(target)
            else:
                out.append((title, target))

    walk(site["nav"])
    return out


def test_resource_titles_are_words() -> None:
    assert resource_title("chat_completions") == "Chat Completions"
    assert resource_title("variants") == "Variants"
    assert resource_title("llm") == "LLM"
    assert resource_title("deployment_packages") == "Deployment Packages"


@pytest.mark.parametrize("name", sorted(SERVED))
def test_nav_titles_are_unique_per_page(name: str) -> None:
    entries = nav(rendered(name).files)
    titles = [t for t, _ in entries]
    assert len(titles) == len(set(titles)), titles
    assert len({p for _, p in entries}) == len(entries)
    for title, _ in entries:  # words, capitalized: no "package deployments"
        assert title[:1].isupper(), title


def test_sgp_nav_is_the_clients() -> None:
    """Before issue 27: "Applications" 7 times, "Knowledge Bases", "Models" and "Users"
    twice each, "package deployments" beside "ChatThreads" (titles of tags)."""
    entries = dict(nav(rendered("sgp").files))
    assert entries["Application Variant Reports"] == "application_variant_reports.md"
    assert entries["Knowledge Base Data Sources"] == "knowledge_base_data_sources.md"
    assert entries["Model Groups"] == "model_groups.md"
    assert entries["User Preferences"] == "user_preferences.md"
    assert entries["Deployment Packages"] == "deployment_packages.md"
    assert entries["Chat Threads"] == "chat_threads.md"
    assert entries["Models"] == "models.md" and entries["Models reference"] != "models.md"


def test_sub_resources_are_sections_of_their_page() -> None:
    page = rendered("sgp").page("evaluation_datasets.md")
    part = section(page, "res-evaluation_datasets-test_cases-history")
    assert part.startswith(
        '<a id="res-evaluation_datasets-test_cases-history"></a>\n\n## Test Cases › History\n'
    )
    assert "`client.evaluation_datasets.test_cases.history`" in part
    # the page's table of contents lists the sections and their operations
    assert "- [Test Cases › History](#res-evaluation_datasets-test_cases-history)" in page


@pytest.mark.parametrize("name", sorted(SERVED))
def test_every_operation_opens_with_its_call_and_has_sample_tabs(name: str) -> None:
    r = rendered(name)
    for page, text in r.pages.items():
        for anchor in re.findall(r'<a id="(op-[^"]+)"></a>', text):
            part = section(text, anchor)
            ((_, call),) = fences(part, "py")
            ((_, line),) = fences(part, "http")[:1]
            assert call.startswith("client.") and " " in line, (page, anchor)
            labels = re.findall(r'^=== "([^"]+)"$', part.split("Response:", 1)[0], re.M)
            assert labels[:2] == ["Python", "Python (async)"], (page, anchor, labels)
            assert labels[-2:] == ["curl", "HTTP"] or labels[-3:] == [
                "curl",
                "curl (streaming)",
                "HTTP",
            ], (page, anchor, labels)
            streaming = "Python (streaming)" in labels
            assert streaming == ("curl (streaming)" in labels)
            http = fences(part, "http")[-1][1]
            assert http.split("\n", 2)[1].startswith("Host: "), http


def test_sgp_chat_completions_samples() -> None:
    part = section(rendered("sgp").page("chat_completions.md"), "op-post_v2_chat_completions")
    python = [code for _, code in fences(part, "python")]
    assert len(python) == 3  # sync, async, streaming
    assert "await client.chat_completions.create(" in python[1]
    assert "stream=True" in python[2]
    http = fences(part, "http")[-1][1]
    assert http.startswith("POST /v4/chat-completions HTTP/1.1\n")
    assert "x-api-key: <$SGP_API_KEY>" in http and '"model": ' in http
    assert 'class="apismith-try-it' in part or "Try it" not in part


def _spec(tags: list[dict[str, str]]) -> dict[str, Any]:
    def op(oid: str, tag: str) -> dict[str, Any]:
        return {"operationId": oid, "tags": [tag], "responses": {"200": {"description": "OK"}}}

    return {
        "openapi": "3.2.0",
        "info": {"title": "Nest", "version": "1"},
        "tags": tags,
        "paths": {
            "/things": {"get": op("listThings", "things")},
            "/widgets": {"get": op("listWidgets", "widgets")},
        },
    }


def _render(tmp_path: Path, spec: dict[str, Any]) -> dict[str, str]:
    api = build_ir(normalize(spec).spec)
    config = ApiConfig(name="nest", package="nest", title=None, spec=tmp_path / "s", out=tmp_path)
    return render_docs(api, config, bind_settings(config, api))


def test_a_tag_summary_titles_its_page(tmp_path: Path) -> None:
    tags = [{"name": "things", "summary": "Things Of The World"}, {"name": "widgets"}]
    titles = [t for t, _ in nav(_render(tmp_path, _spec(tags)))]
    assert "Things Of The World" in titles and "Widgets" in titles


def test_clashing_tag_summaries_fall_back_to_the_names(tmp_path: Path) -> None:
    tags = [{"name": "things", "summary": "Stuff"}, {"name": "widgets", "summary": "Stuff"}]
    titles = [t for t, _ in nav(_render(tmp_path, _spec(tags)))]
    assert "Stuff" not in titles and {"Things", "Widgets"} <= set(titles)
    home = [{"name": "things", "summary": "Home"}, {"name": "widgets"}]
    titles = [t for t, _ in nav(_render(tmp_path, _spec(home)))]
    assert titles.count("Home") == 1 and "Things" in titles
