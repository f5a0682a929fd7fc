"""The generated client: ``_client.py`` and ``_runtime.py`` (see ``docs/client.md``)."""

from generator.render.client.render import client_names, render_client

__all__ = ["client_names", "render_client"]
