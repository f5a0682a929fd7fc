"""Render the generated server (stub: renders nothing yet)."""

from __future__ import annotations

from generator.config import ApiConfig
from generator.ir import Api


def render_server(
    api: Api, config: ApiConfig, header: str, templates: str | None
) -> dict[str, str]:
    """Relative path -> Python source of every server file of the package."""
    return {}
