"""Normalization pass `security`: every security requirement names a declared scheme.
Always on.

OpenAPI requires each name in a Security Requirement Object to be a scheme of
``components/securitySchemes``; real specs break the rule (a scheme renamed, or never
declared). A requirement alternative that names an undeclared scheme cannot be met by a
client that knows only the declared ones, so it is dropped, with a warning naming the
scheme. When every alternative of a list is dropped, the list becomes ``[]``: an explicit
"no security", which is what a client could send anyway. Nothing changes, and the input is
returned as it is, when every name is declared.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.walk import json_copy, operations

NAME = "security"


def _requirement_lists(spec: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """(pointer, path into the spec) of every ``security`` list: the root's and each
    operation's."""
    found: list[tuple[str, tuple[str, ...]]] = []
    if isinstance(spec.get("security"), list):
        found.append(("#/security", ("security",)))
    for pointer, path, method, op in operations(dict(spec)):
        if isinstance(op.get("security"), list):
            found.append((f"{pointer}/security", ("paths", path, method, "security")))
    return found


def _get(spec: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    node: Any = spec
    for key in keys:
        node = node[key]
    return node


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(spec: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``spec`` is the caller's to give (see :mod:`generator.normalize`)."""
    components = spec.get("components")
    schemes = components.get("securitySchemes") if isinstance(components, Mapping) else None
    declared = set(schemes) if isinstance(schemes, Mapping) else set()
    diags: list[Diagnostic] = []
    kept_lists: dict[tuple[str, ...], list[Any]] = {}
    for pointer, keys in _requirement_lists(spec):
        requirements = _get(spec, keys)
        kept: list[Any] = []
        for index, requirement in enumerate(requirements):
            unknown = (
                sorted(str(n) for n in requirement if n not in declared)
                if isinstance(requirement, Mapping)
                else []
            )
            if unknown:
                names = ", ".join(json.dumps(n) for n in unknown)
                diags.append(
                    Diagnostic(
                        NAME,
                        "drop",
                        f"{pointer}/{index}",
                        f"security requirement names undeclared scheme(s) {names}: dropped",
                    )
                )
            else:
                kept.append(requirement)
        if len(kept) != len(requirements):
            kept_lists[keys] = kept
    for keys, kept in kept_lists.items():
        parent = _get(spec, keys[:-1])
        parent[keys[-1]] = kept
    return PassResult(spec=spec, diagnostics=tuple(diags))
