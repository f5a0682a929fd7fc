"""``models.py``: datamodel-code-generator on the normalized spec (:mod:`.dcg`) and its
output's source rewrites (:mod:`.fixups`). The pipeline runs them in a forked process
while the main process renders everything else (:mod:`generator.model_worker`, which
also formats the module there: a step of the pipeline, not of this stage).

Importing this package imports neither: ``generator.entry`` forks the worker as soon as
the process starts, before DCG's wrappers and the normalize passes they use are imported;
the names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from generator.render.models.dcg import render_models
    from generator.render.models.fixups import defined_names

__all__ = ["defined_names", "render_models"]


def __getattr__(name: str) -> Any:
    if name == "render_models":
        from generator.render.models.dcg import render_models

        return render_models
    if name == "defined_names":
        from generator.render.models.fixups import defined_names

        return defined_names
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
