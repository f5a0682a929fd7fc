"""``models.py``: datamodel-code-generator on the normalized spec (:mod:`.dcg`), its
output's source rewrites (:mod:`.fixups`), and the one interface the pipeline uses,
:class:`ModelRenderer`: it renders in a forked process while the main process renders
everything else (:mod:`.worker`)."""

from __future__ import annotations

from generator.render.models.dcg import render_models
from generator.render.models.fixups import defined_names
from generator.render.models.worker import ModelRenderer, PendingModels

__all__ = ["ModelRenderer", "PendingModels", "defined_names", "render_models"]
