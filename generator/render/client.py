"""Render the generated client (stub: renders nothing yet)."""

from __future__ import annotations

from generator.config import ApiConfig
from generator.ir import Api


def render_client(
    api: Api, config: ApiConfig, header: str, templates: str | None
) -> dict[str, str]:
    """Relative path -> Python source of every client file of the package."""
    return {}
