"""Render the generated client: ``_client.py`` (from ``templates/client/_client.py.jinja``)
and ``_runtime.py`` (``templates/runtime/_runtime.py``, copied as is).

The client's surface (the resource tree, the methods and the credentials) is computed in
:mod:`generator.render.surface`, shared with the docs, from the config's settings
(:class:`generator.config.ApiSettings`); :mod:`.context` makes it ready to print, with
the import lines its code needs.
"""

from __future__ import annotations

from generator.config import ApiConfig, ApiSettings
from generator.ir import Api
from generator.render.client.context import client_context
from generator.render.surface.auth import auth_context
from generator.render.surface.resources import build_resources
from generator.render.templates import builtin_templates, render


def render_client(
    api: Api, config: ApiConfig, settings: ApiSettings, header: str, templates: str | None
) -> dict[str, str]:
    """Relative path -> Python source of every client file of the package (none for an API
    without operations)."""
    if not api.operations:
        return {}
    cfg = settings
    client = f"{cfg.name}Client"
    root, tables = build_resources(api, cfg, client)
    base_url = config.base_url or (api.servers[0].url if api.servers else None)
    context = client_context(
        root,
        tables,
        auth_context(api, cfg),
        header=header,
        title=config.title,
        base_url=base_url,
        env_prefix=cfg.env_prefix,
    )
    source = render("client/_client.py.jinja", context, templates)
    runtime_source = (builtin_templates() / "runtime" / "_runtime.py").read_text(encoding="utf-8")
    return {"_client.py": source, "_runtime.py": f"{header}\n{runtime_source}"}


def client_names(api: Api, settings: ApiSettings) -> list[str]:
    """The client classes ``__init__.py`` exports (none for an API without operations)."""
    if not api.operations:
        return []
    return [f"{settings.name}Client", f"Async{settings.name}Client"]
