"""Render the generated client: ``_client.py`` (from ``templates/client/_client.py.jinja``),
one module per top-level resource, ``resources/<attr>.py`` (``resource.py.jinja``), with
``resources/__init__.py`` (``resources_init.py.jinja``), and the runtime modules
(``templates/runtime/*.py``: ``_runtime.py``, which the client imports, and its sections
``_types.py``, ``_errors.py``, ...), each copied as is below the header.

The client's surface (the resource tree, the methods and the credentials) is computed in
:mod:`generator.render.surface`, shared with the docs, from the config's settings
(:class:`generator.config.ApiSettings`); :mod:`.context` makes it ready to print, with
the import lines each module's code needs (:mod:`.imports`).
"""

from __future__ import annotations

from generator.config import ApiConfig
from generator.ir import Api
from generator.render.client.context import (
    client_context,
    resource_context,
    resources_init_context,
)
from generator.render.client.imports import RESOURCES_PACKAGE
from generator.render.client.params import render_params
from generator.render.settings import ApiSettings
from generator.render.surface.auth import auth_context
from generator.render.surface.inputs import names_of
from generator.render.surface.resources import Resource, build_resources
from generator.render.templates import render
from generator.render.webhooks import WEBHOOK_SECRET, render_webhooks
from generator.tree import builtin_templates


def render_client(
    api: Api, config: ApiConfig, settings: ApiSettings, header: str, templates: str | None
) -> dict[str, str]:
    """Relative path -> Python source of every client file of the package (none for an API
    without operations and webhooks); with webhooks, ``webhooks.py``
    (:mod:`generator.render.webhooks`) and the client's ``webhooks`` attribute."""
    if not api.operations and not api.webhooks:
        return {}
    cfg = settings
    client = f"{cfg.name}Client"
    root, tables = build_resources(api, cfg, client)
    base_url = config.base_url or (api.servers[0].url if api.servers else None)
    context = client_context(
        root,
        auth_context(api, cfg),
        header=header,
        title=config.title,
        base_url=base_url,
        env_base_url=cfg.env("base_url"),
        webhooks=webhooks_attribute(root) if api.webhooks else None,
    )
    files = {"_client.py": render("client/_client.py.jinja", context, templates)}
    init = resources_init_context(root, header=header, title=config.title)
    files[f"{RESOURCES_PACKAGE}/__init__.py"] = render(
        "client/resources_init.py.jinja", init, templates
    )
    for top in root.children.values():
        module = resource_context(top, tables, header=header, title=config.title)
        files[f"{RESOURCES_PACKAGE}/{top.module}.py"] = render(
            "client/resource.py.jinja", module, templates
        )
    files.update(runtime_files(header))
    if names_of(api):  # the TypedDicts of what requests send (``_params.py``)
        files["_params.py"] = render_params(api, header, templates)
    files.update(
        render_webhooks(
            api,
            header=header,
            title=config.title or api.title,
            secret_env=cfg.env(WEBHOOK_SECRET),
            api_error=True,
            templates=templates,
        )
    )
    return files


def webhooks_attribute(root: Resource) -> str:
    """The client's attribute of its ``Webhooks``: ``webhooks``, else (a resource has the
    name) ``webhook_events``, else that with a number."""
    name, n = "webhooks", 2
    while name in root.children:
        name, n = ("webhook_events" if n == 2 else f"webhook_events_{n}"), n + 1
    return name


def runtime_files(header: str) -> dict[str, str]:
    """File name -> source of every runtime module (``templates/runtime/*.py``)."""
    folder = builtin_templates() / "runtime"
    return {
        path.name: f"{header}\n{path.read_text(encoding='utf-8')}"
        for path in sorted(folder.glob("*.py"))
    }


def client_names(api: Api, settings: ApiSettings) -> list[str]:
    """The client classes ``__init__.py`` exports (none for an API without operations and
    webhooks)."""
    if not api.operations and not api.webhooks:
        return []
    return [f"{settings.name}Client", f"Async{settings.name}Client"]
