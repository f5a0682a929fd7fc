"""Render the generated FastAPI server and its mock, one module per top-level resource
(the client's resources, see :mod:`.modules`):

- ``server.py`` (``templates/server/server.py.jinja``): the entry point, ``Service`` and
  ``BaseService`` composed of the resources' classes, ``create_router`` (the routes in the
  spec's order), ``create_app``, ``main``;
- ``_server/<module>.py`` (``server_resource.py.jinja``; named as the client's
  ``resources/<module>.py``): a resource's part of ``Service``
  and ``BaseService``, and its routes; ``_server/__init__.py`` (``server_init.py.jinja``):
  what they share (the credentials, the presence checks, the server-sent events);
- ``mock.py`` (``mock.py.jinja``): ``MockService`` composed likewise and
  ``create_mock_app``; ``_mock/<module>.py`` (``mock_resource.py.jinja``): a resource's
  mock tables and methods; ``_mock/__init__.py`` (``mock_init.py.jinja``): the tables
  merged;
- ``_mock_engine.py``: the mock's runtime (stateful mode), with ``_mock_faults.py`` (fault
  injection and declared error bodies), ``_mock_records.py`` (records as answers) and
  ``_mock_pages.py`` (pages that end), copied as they are from ``templates/server/``.

- ``webhook_receiver.py`` (``webhook_receiver.py.jinja``, :mod:`.webhooks`): for an API
  with webhooks, a FastAPI receiver stub (``WebhooksService``, ``create_webhooks_router``)
  and a sample payload of each webhook, with ``webhooks.py``, which reads deliveries.

APIs without operations (e.g. a bare JSON Schema) get no server, only the webhook
receiver when they have webhooks. The context is computed
in :mod:`generator.render.server.context` (routes in :mod:`.routes`, the parameters
FastAPI cannot declare itself in :mod:`.params`, operations told apart by a constant in
:mod:`.dispatch`, security in :mod:`.security`, the modules in :mod:`.modules`); see
``docs/server.md``. :func:`server_probes` (:mod:`.probes`) makes the requests the import
check sends the mock.
"""

from __future__ import annotations

from generator.config import ApiConfig
from generator.ir import Api
from generator.normalize.diagnostics import Diagnostic
from generator.render.server.context import build_context, mock_data
from generator.render.server.modules import MOCK_PACKAGE, SERVER_PACKAGE
from generator.render.server.probes import server_probes
from generator.render.server.webhooks import render_receiver
from generator.render.settings import ApiSettings
from generator.render.templates import render
from generator.tree import builtin_templates

__all__ = ["MOCK_PACKAGE", "SERVER_PACKAGE", "mock_data", "render_server", "server_probes"]

# copied as they are
RUNTIME_FILES = ("_mock_engine.py", "_mock_faults.py", "_mock_pages.py", "_mock_records.py")


def render_server(
    api: Api, config: ApiConfig, settings: ApiSettings, header: str, templates: str | None
) -> tuple[dict[str, str], tuple[Diagnostic, ...]]:
    """Relative path -> Python source of every server file of the package, and a warning
    per operation the mock cannot answer (it answers 501 there; generation goes on)."""
    receiver, receiver_warnings = render_receiver(
        api,
        settings,
        header=header,
        title=config.title or api.title,
        api_error="client" in config.outputs,
        templates=templates,
    )
    if not api.operations:
        return receiver, receiver_warnings
    ctx = build_context(api, config, settings)
    context: dict[str, object] = {"header": header, "ctx": ctx}
    runtime = {
        name: (builtin_templates() / "server" / name).read_text(encoding="utf-8")
        for name in RUNTIME_FILES
    }
    files = {
        "server.py": render("server/server.py.jinja", context, templates),
        f"{SERVER_PACKAGE}/__init__.py": render("server/server_init.py.jinja", context, templates),
        "mock.py": render("server/mock.py.jinja", context, templates),
        f"{MOCK_PACKAGE}/__init__.py": render("server/mock_init.py.jinja", context, templates),
        **{name: f"{header}\n{text}" for name, text in runtime.items()},
    }
    for m in ctx.modules:
        module = {**context, "m": m}
        files[f"{SERVER_PACKAGE}/{m.module}.py"] = render(
            "server/server_resource.py.jinja", module, templates
        )
        files[f"{MOCK_PACKAGE}/{m.module}.py"] = render(
            "server/mock_resource.py.jinja", module, templates
        )
    return {**files, **receiver}, (*ctx.diagnostics, *receiver_warnings)
