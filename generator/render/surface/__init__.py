"""The generated client's public surface, shared by the client and the docs renderers:
the resource tree (:mod:`.resources`), the methods with their parameters and return types
(:mod:`.methods`) and the credentials (:mod:`.auth`), all from the config's settings
(:class:`generator.config.ApiSettings`). The docs show exactly what the client defines,
so both read it here.
"""

from generator.render.surface.auth import auth_context
from generator.render.surface.methods import Method, Param
from generator.render.surface.resources import Resource, build_resources

__all__ = [
    "Method",
    "Param",
    "Resource",
    "auth_context",
    "build_resources",
]
