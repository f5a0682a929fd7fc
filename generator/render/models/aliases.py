"""The ``[models.aliases]`` block at the end of ``models.py``: more names for model
classes (an official SDK's, say), bound once the module defines the classes::

    # Other names of the models above ([models.aliases] of the API's config).
    ApplicationDeployment = ApplicationDeploymentResponse

An alias is the class itself, not a subclass: ``isinstance`` and ``mypy`` treat the two
names alike. The targets and names were checked against the IR
(:func:`generator.render.settings.bind_settings`); here, against what the rendered
module binds (its imports and definitions), which the IR does not know.
"""

from __future__ import annotations

from collections.abc import Mapping

from generator.errors import ApismithError
from generator.render.models.fixups import defined_names, imported_names

HEADING = "# Other names of the models above ([models.aliases] of the API's config).\n"


def alias_block(source: str, aliases: Mapping[str, str], where: str | None) -> str:
    """The block to append to ``models.py`` (``source``), unformatted; empty without
    aliases. The pipeline formats it on its own: a block of top-level assignments formats
    the same alone as at the end of the module."""
    if not aliases:
        return ""
    classes, type_aliases = defined_names(source)
    taken = classes | type_aliases | set(imported_names(source))
    for alias, target in sorted(aliases.items()):
        if alias in taken:
            raise ApismithError(
                f"config: [models] aliases.{alias}: models.py already binds {alias!r}",
                file=where,
            )
        if target not in classes:
            raise ApismithError(
                f"config: [models] aliases.{alias}: models.py has no class {target!r}",
                file=where,
            )
    lines = [f"{alias} = {target}\n" for alias, target in sorted(aliases.items())]
    return HEADING + "".join(lines)
