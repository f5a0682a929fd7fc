"""``models.py``: datamodel-code-generator on the normalized spec (:mod:`.dcg`), its
output's source rewrites (:mod:`.fixups`), and the forked process that renders it while
the main process renders everything else (:mod:`.worker`)."""

from __future__ import annotations

from generator.render.models.dcg import render_models
from generator.render.models.fixups import defined_names
from generator.render.models.worker import ModelWorker, start_early, take_worker

__all__ = ["ModelWorker", "defined_names", "render_models", "start_early", "take_worker"]
