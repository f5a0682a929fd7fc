"""Valid JSON instances of IR types: the generated mock service's answers and the docs'
examples (shared by both renderers).

Computed at generation time, so the mock module holds plain literals (deterministic,
readable, no schema walking at run time). :class:`Synthesizer` builds minimal instances
(required fields only), or with ``full=True`` realistic ones: every field, arrays of 1-3
items, plausible strings and numbers drawn from a seed, the spec's own examples where
they conform (:func:`conforms`). Either is held to a :class:`Budget` (:func:`budget_for`);
what cannot be built within it is an :class:`OverBudget` error.
"""

from __future__ import annotations

from generator.render.examples.budget import Budget, budget_for
from generator.render.examples.common import FORMATS as _FORMATS
from generator.render.examples.common import MockError, OverBudget
from generator.render.examples.conform import conforms
from generator.render.examples.synth import Synthesizer

__all__ = [
    "Budget",
    "MockError",
    "OverBudget",
    "Synthesizer",
    "_FORMATS",
    "budget_for",
    "conforms",
]
