"""``models.py``: datamodel-code-generator on the normalized spec (:mod:`.dcg`), its
output's source rewrites (:mod:`.fixups`), and the one interface the pipeline uses,
:class:`ModelRenderer`: it renders in a forked process while the main process renders
everything else (:mod:`.worker`).

Only :mod:`.worker` is imported with this package: ``generator.entry`` forks the worker as
soon as the process starts, before the rest (DCG's wrappers, the normalize passes they
use) is imported; the other names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from generator.render.models.worker import ModelRenderer, PendingModels

if TYPE_CHECKING:
    from generator.render.models.dcg import render_models
    from generator.render.models.fixups import defined_names

__all__ = ["ModelRenderer", "PendingModels", "defined_names", "render_models"]


def __getattr__(name: str) -> Any:
    if name == "render_models":
        from generator.render.models.dcg import render_models

        return render_models
    if name == "defined_names":
        from generator.render.models.fixups import defined_names

        return defined_names
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
