"""Normalization pass `defaults` (stub: returns the spec unchanged)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from generator.normalize.diagnostics import PassResult

NAME = "defaults"


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    return PassResult(spec=copy.deepcopy(dict(spec)))
