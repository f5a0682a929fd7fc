"""Render the generated FastAPI server: ``server.py`` (service protocol, base service,
security, ``create_router``, ``create_app``), ``mock.py`` (a schema-valid mock service) and
``_mock_engine.py`` (the mock's runtime: stateful mode and fault injection, copied as is
from ``templates/server/_mock_engine.py``).

APIs without operations (e.g. a bare JSON Schema) get no server. The context is computed
in :mod:`generator.render.server.context` (routes in :mod:`.routes`, security in
:mod:`.security`); see ``docs/server.md``.
"""

from __future__ import annotations

from generator.config import ApiConfig, ApiSettings
from generator.ir import Api
from generator.normalize.diagnostics import Diagnostic
from generator.render.server.context import build_context, mock_data
from generator.render.templates import builtin_templates, render

__all__ = ["mock_data", "render_server"]


def render_server(
    api: Api, config: ApiConfig, settings: ApiSettings, header: str, templates: str | None
) -> tuple[dict[str, str], tuple[Diagnostic, ...]]:
    """Relative path -> Python source of every server file of the package, and a warning
    per operation the mock cannot answer (it answers 501 there; generation goes on)."""
    if not api.operations:
        return {}, ()
    ctx = build_context(api, config, settings)
    context: dict[str, object] = {"header": header, "ctx": ctx}
    engine = (builtin_templates() / "server" / "_mock_engine.py").read_text(encoding="utf-8")
    files = {
        "server.py": render("server/server.py.jinja", context, templates),
        "mock.py": render("server/mock.py.jinja", context, templates),
        "_mock_engine.py": f"{header}\n{engine}",
    }
    return files, ctx.diagnostics
