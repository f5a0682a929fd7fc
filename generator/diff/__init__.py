"""``apismith diff``: what changed between two versions of an API spec, classified
``breaking``, ``warning`` or ``info`` by the rules of :mod:`generator.diff.rules`, and
what changed in the generated Python package (:mod:`generator.diff.surface`).

Both versions are normalized and built into the IR with the same config; the two IRs are
compared (:mod:`.compare`, :mod:`.schemas`). For the drift check, :func:`spec_changes`
compares two normalized spec dicts (a generated package's ``openapi.json`` is the
normalized spec it was generated from) and :func:`format_changes` prints the result.

Importing this package is cheap: the IR, the normalize passes and griffe are imported by
the functions that use them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from generator.diff.change import LEVELS, Change, Level, ordered
from generator.diff.report import FORMATS, format_changes

if TYPE_CHECKING:
    from generator.config import ApiConfig


def spec_changes(
    old_spec: Mapping[str, Any], new_spec: Mapping[str, Any], config: ApiConfig
) -> list[Change]:
    """Every change from ``old_spec`` to ``new_spec`` (both normalized with ``config``), in
    report order. ``config.base_url``, when set, is named in server changes (the client
    uses it instead of the spec's first server)."""
    from generator.diff.compare import api_changes
    from generator.ir import build_ir

    found = api_changes(build_ir(old_spec), build_ir(new_spec), base_url=config.base_url)
    return ordered(found)


__all__ = ["FORMATS", "LEVELS", "Change", "Level", "format_changes", "spec_changes"]
