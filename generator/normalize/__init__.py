"""Stage 2: normalization, a fixed sequence of small passes.

Each pass is a module with ``NAME`` and a pure ``run(spec, options) -> PassResult``:
it never mutates its input, and it can be switched off in an API's config
(``[passes] <name> = false``). ``options`` is the pass's own config table
(``[passes.<name>]``), empty when absent.

``run`` is ``apply`` on a deep copy: ``apply(doc, options)`` does the work in place, on a
document its caller owns and gives up (the result's ``spec`` is ``doc`` or replaces it).
:func:`normalize` copies its input once and hands that one copy from pass to pass, so a
large spec is never copied per pass and at most two versions of it exist at any time (the
caller's and the one being normalized). No pass makes two places of the document share
one object, so an in-place change to one place never shows at another.

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
from generator.load.common import collector_paused
from generator.normalize import (
    allof,
    array_items,
    decimal_strings,
    defaults,
    defs,
    discriminators,
    form_bodies,
    fragments,
    identifiers,
    inline_bodies,
    inline_objects,
    names,
    nullable,
    object_types,
    patterns,
    read_write,
    security,
    streams,
    text,
    tuples,
    upgrade,
)
from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.pass_names import PASS_NAMES as PASS_NAMES
from generator.normalize.walk import json_copy

PassFn = Callable[[Mapping[str, Any], Mapping[str, Any]], PassResult]
ApplyFn = Callable[[dict[str, Any], Mapping[str, Any]], PassResult]


@dataclass(frozen=True)
class Pass:
    name: str
    run: PassFn  # pure
    apply: ApplyFn  # in place, on a document the caller gives up
    summary: str


def _pass(module: Any, summary: str) -> Pass:
    return Pass(module.NAME, module.run, module.apply, summary)


# The order matters: each pass may rely on the ones before it.
PASSES: tuple[Pass, ...] = (
    _pass(defs, "standalone JSON Schema and nested $defs into one flat namespace"),
    _pass(upgrade, "OpenAPI 3.0 constructs into their 3.1 form"),
    _pass(fragments, "paths with a #fragment: the real path and the constants it names"),
    _pass(allof, "allOf: [{$ref}] wrappers into the ref plus its metadata"),
    _pass(tuples, "tuple-style items: [A, B] into prefixItems"),
    _pass(nullable, "every null union into one canonical nullable form"),
    _pass(discriminators, "const-tagged unions into discriminated unions"),
    _pass(defaults, "defaults that violate their own schema dropped"),
    _pass(object_types, "schemas with properties but no type read as type: object"),
    _pass(decimal_strings, "format: decimal strings given the pattern Decimal accepts"),
    _pass(read_write, "readOnly and writeOnly properties not required (one model, both ways)"),
    _pass(names, "schema, operation and field names made valid and unique"),
    _pass(inline_bodies, "inline request and response objects named after their method"),
    _pass(array_items, "tagged-union and tuple array items named"),
    _pass(inline_objects, "inline object properties named"),
    _pass(form_bodies, "inline form request bodies named"),
    _pass(text, "descriptions dedented, titles that restate a name dropped"),
    _pass(streams, "streaming responses ([streaming]) documented as SSE"),
)
# Always on, after the passes above: not in PASS_NAMES, so a config cannot switch them off.
ALWAYS: tuple[Pass, ...] = (
    _pass(security, "every security requirement a declared scheme (always on)"),
    _pass(identifiers, "every name that becomes code checked (always on)"),
    _pass(patterns, "every pattern one pydantic compiles (always on)"),
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
    owned: bool = False,
) -> Normalized:
    """Run every enabled pass in order, then the ``ALWAYS`` checks. An error a pass raises
    names ``source`` (the spec file) when it names no file itself.

    ``spec`` is left as it is: the passes change a copy. With ``owned``, the caller gives
    ``spec`` up (a dict nothing will read again, which may then be changed): the passes
    change it in place and no copy is made, unless two places of it share one object
    (YAML anchors, an overlay), which only a copy separates."""
    with collector_paused():  # little cyclic garbage here (a closure per walk), many objects
        return _normalize(spec, enabled or {}, options or {}, source, owned)


def _normalize(
    spec: Mapping[str, Any],
    enabled: Mapping[str, bool],
    options: Mapping[str, Mapping[str, Any]],
    source: Path | None,
    owned: bool,
) -> Normalized:
    start = time.perf_counter()
    if owned and isinstance(spec, dict) and not _shares(spec):
        current: dict[str, Any] = spec
    else:
        current = json_copy(dict(spec))  # the one copy: passes change it in place
    found: list[Diagnostic] = []
    timings: list[tuple[str, float]] = [("copy", time.perf_counter() - start)]
    for p in (*PASSES, *ALWAYS):
        if p in PASSES and not enabled.get(p.name, True):
            continue
        start = time.perf_counter()
        try:
            result = p.apply(current, options.get(p.name, {}))
        except ApismithError as exc:
            if exc.file is None and source is not None:
                from generator.load import _display

                exc.file = _display(source)
            raise
        timings.append((p.name, time.perf_counter() - start))
        current = result.spec
        found.extend(result.diagnostics)
    return Normalized(spec=dict(current), diagnostics=tuple(found), timings=tuple(timings))


def _shares(doc: dict[str, Any]) -> bool:
    """Whether some dict or list is reachable at two places of ``doc``."""
    seen: set[int] = set()
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return True
        seen.add(id(node))
        values = node.values() if isinstance(node, dict) else node
        stack.extend(v for v in values if isinstance(v, (dict, list)))
    return False
