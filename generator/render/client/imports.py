"""The import blocks of the client's modules (see :mod:`.context`): what each module's
code uses, from what each piece of code needs (``Method.imports``, ``ErrorTable.imports``,
the features its template prints; ``builtins`` and the models module from the pieces of
code that name them), not from reading the rendered text.

An item is ``module.name`` (``from module import name``), or a bare name (``import
name``); ``USES_PARAMS`` and ``USES_MODELS`` stand for the package's ``_params`` and
``models`` (``_p``, ``_m``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from generator.render.surface.inputs import (
    MODELS_ALIAS,
    PARAMS_ALIAS,
    PARAMS_MODULE,
    USES_MODELS,
    USES_PARAMS,
)
from generator.render.surface.methods import RUNTIME
from generator.render.surface.resources import ErrorTable, Resource

if TYPE_CHECKING:
    from generator.render.client.code import AuthHeader, Flavor, MethodCode, ResourceFlavor

RESOURCES_PACKAGE = "resources"  # the package's folder of resource modules


def _runtime(*names: str) -> frozenset[str]:
    return frozenset(f"{RUNTIME}.{name}" for name in names)


# what ``_client.py.jinja``'s own text uses (a bare name is ``import name``)
CLIENT_IMPORTS = frozenset(
    {"copy", "os", "httpx", "collections.abc.Mapping", "functools.cached_property"}
).union(
    _runtime(
        "AsyncAPIClient", "DEFAULT_MAX_RETRIES", "NOT_GIVEN", "NotGiven", "SyncAPIClient", "Timeout"
    )
)
# what ``resource.py.jinja``'s own text uses in every module: the classes' constructors
RESOURCE_IMPORTS = frozenset({"functools.cached_property"}).union(
    _runtime("AsyncAPIClient", "SyncAPIClient")
)
# ... in a module with methods: their signatures
SIGNATURE_IMPORTS = _runtime("Body", "Headers", "NOT_GIVEN", "NotGiven", "Query", "Timeout")
# what the template's text of one method uses: ``return cast(...)`` and the raw variants
METHOD_IMPORTS = frozenset({"typing.cast"}) | _runtime("to_raw", "async_to_raw")
OVERLOAD_IMPORTS = frozenset({"typing.overload"})
ERROR_TABLE_IMPORTS = _runtime("LazyErrors")  # ``_ERRORS_0 = LazyErrors(lambda: {...})``
# the package's own modules a module's code uses, imported on their first use (see
# :func:`import_lines`): what that needs
LAZY_IMPORTS = frozenset({"typing.TYPE_CHECKING"}) | _runtime("LazyModule")


def _code(m: MethodCode) -> Iterator[str]:
    """The pieces of code of one flavor of a method that the template prints."""
    for sig in m.overloads:
        yield sig.returns
        yield from (p.hint for p in sig.params)
    yield m.returns
    yield from (p.hint for p in m.params)
    yield from (x for x in (m.call.kind, m.call.stream, m.call.page, m.call.body) if x)


def _modules_used(code: Iterable[str]) -> set[str]:
    """``builtins`` and the models module, when ``code`` refers to them (``builtins.list``,
    ``_m.Message``): the two that the types' imports (``module.name``) leave out."""
    text = "\n".join(code)
    found = set()
    if re.search(r"\bbuiltins\.", text):
        found.add("builtins")
    if re.search(rf"\b{MODELS_ALIAS}\.", text):
        found.add(USES_MODELS)
    return found


def module_imports(
    top: Resource, flavors: list[ResourceFlavor], tables: list[ErrorTable]
) -> set[str]:
    """Every import a resource module's code uses: the template's own text, each method's
    annotations and features, and its error tables."""
    needed = set(RESOURCE_IMPORTS)
    for r in top.walk():
        for m in r.methods:
            needed |= SIGNATURE_IMPORTS | METHOD_IMPORTS | m.imports
            if m.overloads:
                needed |= OVERLOAD_IMPORTS
    for t in tables:
        needed |= ERROR_TABLE_IMPORTS | t.imports
    code = [c for f in flavors for r in f.resources for m in r.methods for c in _code(m)]
    return needed | _modules_used([*code, *(literal for _, literal in table_literals(tables))])


def client_imports(root: Resource, alternatives: list[AuthHeader]) -> set[str]:
    """Every import the client module's code uses: the template's own text, and the auth
    headers (the resources are imported where they are used)."""
    needed = set(CLIENT_IMPORTS)
    if root.children:
        needed.add("typing.TYPE_CHECKING")
    if any(a.value.startswith("basic_auth(") for a in alternatives):
        needed.add(f"{RUNTIME}.basic_auth")
    return needed


def import_lines(needed: set[str], package: str) -> list[str]:
    """A module's import block, from ``module.name`` items (a bare name: ``import name``;
    ``USES_PARAMS``, ``USES_MODELS``: the package's ``_params`` and ``models``): the
    standard library, httpx, then the package's modules, relative to ``package`` (``.``
    for the client module, ``..`` for a resource module). Names sorted. ``_params`` and
    ``models`` come last: imported for type checkers, and a ``LazyModule`` at run time (a
    resource reached builds no model until a call needs one)."""
    local = {USES_PARAMS, USES_MODELS}
    if needed & local:
        needed = needed | LAZY_IMPORTS
    by_module: dict[str, set[str]] = {}
    for item in needed - local:
        module, _, name = item.rpartition(".")
        by_module.setdefault(module, set()).add(name)
    plain = sorted(by_module.pop("", set()) - {"httpx"})

    def names(module: str) -> str:
        return ", ".join(sorted(by_module[module]))

    standard = [f"import {module}" for module in plain]
    standard += [f"from {m} import {names(m)}" for m in sorted(by_module) if m != RUNTIME]
    package_modules = []
    if RUNTIME in by_module:
        package_modules.append(f"from {package}{RUNTIME} import {names(RUNTIME)}")
    third_party = ["import httpx"] if "httpx" in needed else []
    out: list[str] = []
    for section in (standard, third_party, package_modules, _lazy(needed, package)):
        if section:
            out += ["", *section] if out else section
    return out


def _lazy(needed: set[str], package: str) -> list[str]:
    """The ``if TYPE_CHECKING:`` block of the package's ``_params`` and ``models``."""
    own = [(m, a) for key, m, a in _OWN if key in needed]
    if not own:
        return []
    eager = [f"    from {package} import {m} as {a}" for m, a in own]
    lazy = [f"    {a} = LazyModule({package + m!r}, __package__)" for m, a in own]
    return ["if TYPE_CHECKING:", *eager, "else:", *lazy]


_OWN = ((USES_PARAMS, PARAMS_MODULE, PARAMS_ALIAS), (USES_MODELS, "models", MODELS_ALIAS))


def type_imports(flavors: list[Flavor]) -> list[str]:
    """The ``if TYPE_CHECKING:`` imports of the client module: the classes its resource
    attributes and their raw and streaming views are annotated with."""
    by_module: dict[str, set[str]] = {}
    for f in flavors:
        for c in f.top.children:
            by_module.setdefault(c.module, set()).update(
                (c.class_name, c.raw_class_name, f"{c.class_name}WithStreamingResponse")
            )
    return [
        f"from .{module} import {', '.join(sorted(names))}"
        for module, names in sorted(by_module.items())
    ]


def table_literals(tables: list[ErrorTable]) -> list[tuple[str, str]]:
    """``(name, code)`` of every error table: ``LazyErrors(lambda: { 404: _m.NotFound, })``
    (built on its first use, as the models it names are imported then)."""
    return [
        (t.name, "LazyErrors(lambda: { " + "".join(f"{s}: {k}, " for s, k in t.entries) + "})")
        for t in tables
    ]
