"""Stage 2: normalization, a fixed sequence of small passes.

Each pass is a module with ``NAME`` and a pure ``run(spec, options) -> PassResult``:
it never mutates its input, and it can be switched off in an API's config
(``[passes] <name> = false``). ``options`` is the pass's own config table
(``[passes.<name>]``), empty when absent.

Three checks run after them and cannot be switched off (``ALWAYS``): ``security``, which
keeps only security requirements that name a declared scheme, ``identifiers``, the
boundary every name that becomes code passes, and ``patterns``, which keeps only regexes
pydantic compiles. A pass may raise :class:`~generator.errors.ApismithError` (exit 2, with
a pointer) for input no pass can repair.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.errors import ApismithError
from generator.normalize import (
    allof,
    array_items,
    defaults,
    defs,
    discriminators,
    form_bodies,
    identifiers,
    inline_objects,
    names,
    nullable,
    patterns,
    security,
    streams,
    text,
    tuples,
    upgrade,
)
from generator.normalize.diagnostics import Diagnostic, PassResult

PassFn = Callable[[Mapping[str, Any], Mapping[str, Any]], PassResult]


@dataclass(frozen=True)
class Pass:
    name: str
    run: PassFn
    summary: str


# The order matters: each pass may rely on the ones before it.
PASSES: tuple[Pass, ...] = (
    Pass(defs.NAME, defs.run, "standalone JSON Schema and nested $defs into one flat namespace"),
    Pass(upgrade.NAME, upgrade.run, "OpenAPI 3.0 constructs into their 3.1 form"),
    Pass(allof.NAME, allof.run, "allOf: [{$ref}] wrappers into the ref plus its metadata"),
    Pass(tuples.NAME, tuples.run, "tuple-style items: [A, B] into prefixItems"),
    Pass(nullable.NAME, nullable.run, "every null union into one canonical nullable form"),
    Pass(discriminators.NAME, discriminators.run, "const-tagged unions into discriminated unions"),
    Pass(defaults.NAME, defaults.run, "defaults that violate their own schema dropped"),
    Pass(names.NAME, names.run, "schema, operation and field names made valid and unique"),
    Pass(array_items.NAME, array_items.run, "tagged-union and tuple array items named"),
    Pass(inline_objects.NAME, inline_objects.run, "inline object properties named"),
    Pass(form_bodies.NAME, form_bodies.run, "inline form request bodies named"),
    Pass(text.NAME, text.run, "descriptions dedented, titles that restate a name dropped"),
    Pass(streams.NAME, streams.run, "streaming responses ([streaming]) documented as SSE"),
)
PASS_NAMES = tuple(p.name for p in PASSES)
# Always on, after the passes above: not in PASS_NAMES, so a config cannot switch them off.
ALWAYS: tuple[Pass, ...] = (
    Pass(security.NAME, security.run, "every security requirement a declared scheme (always on)"),
    Pass(identifiers.NAME, identifiers.run, "every name that becomes code checked (always on)"),
    Pass(patterns.NAME, patterns.run, "every pattern one pydantic compiles (always on)"),
)


@dataclass(frozen=True)
class Normalized:
    spec: dict[str, Any]
    diagnostics: tuple[Diagnostic, ...]
    timings: tuple[tuple[str, float], ...] = field(default=(), compare=False)


def normalize(
    spec: Mapping[str, Any],
    enabled: Mapping[str, bool] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    source: Path | None = None,
) -> Normalized:
    """Run every enabled pass in order, then the ``ALWAYS`` checks. An error a pass raises
    names ``source`` (the spec file) when it names no file itself."""
    enabled = enabled or {}
    options = options or {}
    current: Mapping[str, Any] = spec
    found: list[Diagnostic] = []
    timings: list[tuple[str, float]] = []
    for p in (*PASSES, *ALWAYS):
        if p in PASSES and not enabled.get(p.name, True):
            continue
        start = time.perf_counter()
        try:
            result = p.run(current, options.get(p.name, {}))
        except ApismithError as exc:
            if exc.file is None and source is not None:
                from generator.load import _display

                exc.file = _display(source)
            raise
        timings.append((p.name, time.perf_counter() - start))
        current = result.spec
        found.extend(result.diagnostics)
    return Normalized(spec=dict(current), diagnostics=tuple(found), timings=tuple(timings))
