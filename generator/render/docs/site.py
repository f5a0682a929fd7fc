"""Render the generated API reference: Markdown pages and a ``mkdocs.yml`` (docs/docs.md).

Layout, relative to the package directory::

    docs/mkdocs.yml            the site (mkdocs + mkdocs-material, search)
    docs/pages/index.md        title, version, base URLs, auth, resources, a model diagram
    docs/pages/<resource>.md   one page per top-level client resource, its sub-resources as
                               sections (``## Variants › Reports``); each operation opens
                               with its client call and HTTP line, then its samples in
                               tabs (Python sync/async/streaming, curl, raw HTTP) beside
                               the response examples, its reference, and "Try it"
    docs/pages/models-reference.md   every model, with field tables and cross-links
    docs/pages/client-methods.md     every client method: client.x.y.create(...) -> Model
    docs/pages/stylesheets/extra.css the site's table widths (mkdocs.yml ``extra_css``)

The nav lists the resource pages in the client's order, each titled after its resource's
name (``chat_completions`` -> "Chat Completions") or its tag's OpenAPI 3.2 ``summary``; no
title is used twice (:func:`.operations.build_resource_docs`).

(``mkdocs`` refuses a ``docs_dir`` that is the directory of ``mkdocs.yml``, hence
``pages/``.) An API without operations gets the index, the models page and the site.

The context is computed in :mod:`.operations` (resource pages), :mod:`.models` (the models
page and the diagram) and :mod:`.index`, from the IR and the client's surface
(:mod:`generator.render.surface`); spec text is made safe in :mod:`.text`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from generator.config import ApiConfig
from generator.ir import Api
from generator.normalize.diagnostics import Diagnostic
from generator.render.docs.index import index_context
from generator.render.docs.models import build_model_docs
from generator.render.docs.operations import build_resource_docs
from generator.render.docs.tables import MODELS_PAGE, Tables
from generator.render.docs.try_it import SCRIPT, try_it_script
from generator.render.meta import toml_string
from generator.render.settings import ApiSettings
from generator.render.surface import build_resources
from generator.render.templates import render

DOCS_DIR = "docs"
PAGES_DIR = "pages"
API_PAGE = "client-methods.md"  # hyphenated, as MODELS_PAGE: never a resource page
STYLESHEET = "stylesheets/extra.css"  # under the pages: mkdocs copies it into the site


def site_dir(config: ApiConfig) -> str:
    """Where ``mkdocs build`` writes the site, relative to ``docs/mkdocs.yml``: beside the
    output directory, never inside it (a file there would be drift)."""
    up = "../" * (3 if config.meta else 2)
    return f"{up}{config.package}-site"


def docs_context(
    api: Api, config: ApiConfig, settings: ApiSettings, diagnostics: Sequence[Diagnostic] = ()
) -> dict[str, Any]:
    """Everything the docs templates receive, page by page."""
    cfg = settings if api.operations else None
    tables = Tables(api)  # this render's: dropped with it
    resources = []
    if cfg is not None:
        client_class = f"{cfg.name}Client"
        root, _ = build_resources(api, cfg, client_class)
        base_url = config.base_url or (api.servers[0].url if api.servers else "")
        resources = build_resource_docs(tables, root, cfg, config.package, client_class, base_url)
    models = build_model_docs(tables, resources, diagnostics)
    index = index_context(api, config, cfg, resources)
    title = " ".join((config.title or api.title or config.package).split())
    return {
        "index": index,
        "resources": resources,
        "models": models,
        # mkdocs.yml's strings: a TOML basic string is a YAML double-quoted one too; it writes
        # an emoji as itself, where JSON's "\ud83d\ude00" reads as two lone surrogates in YAML
        # (and mkdocs fails writing them)
        "site": {
            # the theme may not escape it: no markup characters
            "site_name": toml_string(re.sub(r"[<>&\"'`]", "", f"{title} API reference")),
            "docs_dir": PAGES_DIR,
            "site_dir": toml_string(site_dir(config)),
            "resources": [
                {"title": toml_string(r.nav_title), "page": toml_string(r.page)} for r in resources
            ],
            "has_api": bool(resources),
            "extra_css": toml_string(STYLESHEET),
        },
    }


def render_docs(
    api: Api,
    config: ApiConfig,
    settings: ApiSettings,
    templates: str | None = None,
    diagnostics: Sequence[Diagnostic] = (),
) -> dict[str, str]:
    """Relative path (under the package) -> text of every docs file.

    ``diagnostics`` are the normalization findings: merges and renames are explained on the
    models page."""
    ctx = docs_context(api, config, settings, diagnostics)
    base = f"{DOCS_DIR}/{PAGES_DIR}"
    out: dict[str, str] = {
        f"{DOCS_DIR}/mkdocs.yml": render("docs/mkdocs.yml.jinja", ctx["site"], templates),
        f"{base}/index.md": render("docs/index.md.jinja", ctx["index"], templates),
        f"{base}/{MODELS_PAGE}": render(
            "docs/models.md.jinja", {"models": ctx["models"]}, templates
        ),
        f"{base}/{STYLESHEET}": render("docs/extra.css.jinja", {}, templates),
        f"{base}/{SCRIPT}": try_it_script(api, templates),
    }
    for resource in ctx["resources"]:
        out[f"{base}/{resource.page}"] = render(
            "docs/resource.md.jinja", {"resource": resource}, templates
        )
    if ctx["resources"]:
        out[f"{base}/{API_PAGE}"] = render(
            "docs/api.md.jinja", {"resources": ctx["resources"]}, templates
        )
    return dict(sorted(out.items()))
