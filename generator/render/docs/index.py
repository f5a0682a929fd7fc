"""The docs' index page: title, version, base URLs, auth (credentials, samples, schemes),
the resources and the diagram."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from generator.config import ApiConfig
from generator.ir import Api
from generator.render.docs.auth import curl_option, scheme_md
from generator.render.docs.models import diagram
from generator.render.docs.operations import ResourceDoc
from generator.render.docs.text import cell, code, inline, markdown
from generator.render.meta import code_fence
from generator.render.settings import ApiSettings
from generator.render.surface import auth_context


def _client_sample(config: ApiConfig, cfg: ApiSettings, credentials: list[dict[str, str]]) -> str:
    """Python: a client from the environment, and one given its credentials explicitly."""
    client_class = f"{cfg.name}Client"
    env_base = cfg.env("base_url")
    return "\n".join(
        [
            "import os",
            "",
            f"from {config.package} import {client_class}",
            "",
            "# from the environment: "
            + ", ".join(c["env"] for c in credentials)
            + f", {cfg.env('base_url')}",
            f"client = {client_class}()",
            "",
            "# or explicitly",
            f"client = {client_class}(",
            *(f'    {c["param"]}=os.environ["{c["env"]}"],' for c in credentials[:1]),
            f'    base_url=os.environ.get("{env_base}", {config.base_url or ""!r}),',
            ")",
        ]
    )


def _curl_lines(api: Api, cfg: ApiSettings) -> list[str]:
    """A curl command per security scheme, with the credential from the environment."""
    url = f'"${cfg.env("base_url")}/..."'
    options = (curl_option(scheme, cfg) for scheme in api.security_schemes)
    return [f"curl {option} {url}" for option in options if option is not None]


def _auth_doc(api: Api, config: ApiConfig, cfg: ApiSettings) -> dict[str, Any]:
    """The index's auth section: credentials, samples and the spec's schemes."""
    ctx = auth_context(api, cfg)
    credentials = [
        {"param": c["param"], "env": c["env"], "doc": inline(c["doc"])} for c in ctx["credentials"]
    ]
    schemes = [
        {
            "name": code(s.name),
            "kind": s.kind,
            "where": scheme_md(s),
            "description": cell(s.description),
        }
        for s in api.security_schemes
    ]
    python = _client_sample(config, cfg, credentials)
    curl = "\n".join(_curl_lines(api, cfg))
    return {
        "credentials": credentials,
        "explicit": ", ".join(f'{c["param"]}="..."' for c in credentials),
        "python": python,
        "curl": curl,
        "fence": code_fence(python, curl),  # longer than any backtick run in the samples
        "schemes": schemes,
        "env_base_url": cfg.env("base_url"),
        "client": f"{cfg.name}Client",
    }


def index_context(
    api: Api, config: ApiConfig, cfg: ApiSettings | None, resources: Sequence[ResourceDoc]
) -> dict[str, Any]:
    base_urls: list[dict[str, str]] = []
    if config.base_url:
        base_urls.append({"url": config.base_url, "description": "default of the client"})
    for s in api.servers:
        if s.url != config.base_url:
            base_urls.append({"url": s.url, "description": inline(s.description)})
    return {
        "title": inline(config.title or api.title),
        "version": api.version,
        "version_code": code(api.version) if api.version else "",
        "description": markdown(api.description, 2),
        "base_urls": [{"url": code(b["url"]), "description": b["description"]} for b in base_urls],
        "auth": _auth_doc(api, config, cfg) if cfg is not None else None,
        "resources": resources,
        "diagram": diagram(api),
        "model_count": len(api.models),
        "operation_count": len(api.operations),
        "package": config.package,
    }
