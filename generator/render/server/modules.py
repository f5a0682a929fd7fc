"""The server's and the mock's per-resource modules (``_server/<module>.py`` and
``_mock/<module>.py``, named as the client's ``resources/<module>.py``): the operations
grouped as the client groups them (the top-level resources of
:func:`generator.render.surface.resources.resource_map`), with the classes
each module defines and the imports its code uses (computed here from the routes' code,
not read from the rendered text).

``server.py`` composes ``Service`` and ``BaseService`` of the modules' classes and
registers their routes in the spec's order; ``mock.py`` composes ``MockService`` likewise,
and ``_mock/__init__.py`` merges the modules' tables.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from generator.ir import Api, TypeRef
from generator.normalize.naming import client_pascal_case
from generator.render.server.routes import Route
from generator.render.settings import ApiSettings
from generator.render.surface.resources import resource_map, resource_modules

SERVER_PACKAGE = "_server"  # the server's resource modules (and their shared pieces)
MOCK_PACKAGE = "_mock"  # the mock's resource modules (and their merged tables)
# the names of server.py and mock.py that a module's classes must not take
_TAKEN = frozenset({"Service", "BaseService", "MockService", "Credentials"})
_MODELS = re.compile(r"\bmodels\.")


@dataclass
class ServerModule:
    """One top-level resource: its routes (spec order) and what its modules print."""

    attr: str  # the resource attribute
    module: str  # the modules' name (the attribute, but for what an ``__init__`` binds)
    protocol: str  # the class of ``Service``'s methods, e.g. ``EvaluationsService``
    base: str  # the class of ``BaseService``'s, e.g. ``BaseEvaluationsService``
    mock: str  # the class of ``MockService``'s, e.g. ``MockEvaluationsService``
    routes: list[Route] = field(default_factory=list)
    types: list[TypeRef] = field(default_factory=list)  # what the annotations use
    defaults: list[tuple[str, Any]] = field(default_factory=list)  # list/dict defaults
    imports: list[str] = field(default_factory=list)  # the server module's import lines
    mock_imports: list[str] = field(default_factory=list)  # the mock module's
    mock_responses: list[tuple[str, Any]] = field(default_factory=list)
    mock_chunks: list[tuple[str, list[Any]]] = field(default_factory=list)
    mock_roles: list[tuple[str, list[tuple[str, Any]]]] = field(default_factory=list)
    mock_faults: list[tuple[str, list[tuple[int, Any, bool]]]] = field(default_factory=list)
    mock_errors: list[tuple[str, list[tuple[str, Any]]]] = field(default_factory=list)
    mock_gaps: list[tuple[str, str]] = field(default_factory=list)

    @cached_property  # the template asks twice; pretty JSON is Python's slow encoder
    def responses_json(self) -> str:
        """``MOCK_RESPONSES`` as JSON text ("" when there are none): see :func:`table_json`."""
        return table_json(self.mock_responses)

    @cached_property
    def chunks_json(self) -> str:
        """``MOCK_CHUNKS`` as JSON text ("" when there are none)."""
        return table_json(self.mock_chunks)

    @property
    def needs_absent(self) -> bool:
        """Whether a route's parameter defaults to ``_ABSENT``."""
        return any(a.default == "_ABSENT" for r in self.routes for a in r.args)

    @property
    def adders(self) -> list[str]:
        """The functions that register the module's routes (``add_<operation>``)."""
        return [r.adder for r in self.routes]


PRETTY_LEVELS = 3  # table, operation, the answer's fields: each on a line of its own


def table_json(entries: Sequence[tuple[str, Any]]) -> str:
    """A mock table (operation -> JSON value) as the JSON text the mock module parses at
    import, from a raw string (``loads(r\"\"\"...\"\"\")``); "" for an empty table.

    Tables are data, and large: as Python literals, compiling them took most of the
    import of a mock module, and formatting them most of ruff's time. The first
    ``PRETTY_LEVELS`` levels are indented, one entry a line; deeper values are written on
    their entry's line (by the C encoder: Python's indenting one takes ten times as long).
    JSON text never holds three quotes in a row nor a raw control character, so a raw
    triple-quoted string takes it as it is; text that could not be written as UTF-8 (a
    lone surrogate) is written with ``\\u`` escapes instead."""
    if not entries:
        return ""
    table = dict(entries)
    text = _json_text(table, 0, ascii_only=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = _json_text(table, 0, ascii_only=True)
    if '"""' in text:  # pragma: no cover - JSON cannot have it (see above)
        raise AssertionError("JSON text with three quotes in a row")
    return text


def _json_text(value: Any, level: int, *, ascii_only: bool) -> str:
    if level >= PRETTY_LEVELS or not isinstance(value, (dict, list)) or not value:
        return json.dumps(value, ensure_ascii=ascii_only, separators=(", ", ": "))
    pad = " " * 4 * (level + 1)
    if isinstance(value, dict):
        lines = [
            f"{pad}{json.dumps(str(key), ensure_ascii=ascii_only)}: "
            + _json_text(item, level + 1, ascii_only=ascii_only)
            for key, item in value.items()
        ]
        opening, closing = "{", "}"
    else:
        lines = [pad + _json_text(item, level + 1, ascii_only=ascii_only) for item in value]
        opening, closing = "[", "]"
    return opening + "\n" + ",\n".join(lines) + "\n" + " " * 4 * level + closing


def service_names(api: Api, settings: ApiSettings) -> dict[str, str]:
    """Each operation's service method (``python_name`` -> name): its name in the client,
    the dots as underscores (``client.tasks.list`` -> ``tasks_list``), so that the stub, the
    mock and the client name an operation alike. Two client names that join alike, and a
    name ``MockService`` owns (``engine``), get a number (``tasks_list_2``)."""
    out: dict[str, str] = {}
    used = {"engine"}
    for n in resource_map(api, settings):
        stem = "_".join((*n.resource, n.method))
        name, k = stem, 2
        while name in used:
            name, k = f"{stem}_{k}", k + 1
        used.add(name)
        out[n.op.python_name] = name
    return out


def group_routes(api: Api, settings: ApiSettings, routes: list[Route]) -> list[ServerModule]:
    """The routes by top-level resource, the resources in order of first use (each
    route once, in spec order), with class names unique over all modules."""
    named = resource_map(api, settings)
    top = {n.op.python_name: n.resource[0] for n in named}
    files = resource_modules(named)
    modules: dict[str, ServerModule] = {}
    used = set(_TAKEN)
    for r in routes:
        attr = top[r.operation]
        if attr not in modules:
            stem = client_pascal_case(attr)
            names, k = _class_names(stem), 2
            while used.intersection(names):
                names, k = _class_names(f"{stem}{k}"), k + 1
            used.update(names)
            modules[attr] = ServerModule(attr, files[attr], *names)
        modules[attr].routes.append(r)
    return list(modules.values())


def _class_names(stem: str) -> tuple[str, str, str]:
    return f"{stem}Service", f"Base{stem}Service", f"Mock{stem}Service"


def _type_imports(types: Iterable[TypeRef]) -> set[str]:
    return {item for t in types for item in t.imports()}


def _uses_models(code: Iterable[str | None]) -> bool:
    return any(c is not None and _MODELS.search(c) for c in code)


def _annotations(r: Route) -> list[str | None]:
    """The code of a route's annotations (service and route side) and response models."""
    code: list[str | None] = [r.returns, r.response_model, r.chunk]
    code += [a.annotation for a in r.args] + [a.route_annotation for a in r.args]
    return code + [model for _, model, _ in r.responses]


def server_imports(m: ServerModule) -> set[str]:
    """Every import of the server module's code (``module.name``; ``..models``: the
    package's models module, ``.name``: the shared ``_server/__init__.py``)."""
    needed = {"typing.Any", "typing.Protocol", "fastapi.APIRouter"} | _type_imports(m.types)
    if any(r.args for r in m.routes):
        needed.add("typing.Annotated")
    if any(r.stream for r in m.routes):
        needed |= {"collections.abc.AsyncIterator", "._stream"}
    if any(r.needs_call for r in m.routes):
        needed.add("._call")
    for r in m.routes:
        needed.update(f"fastapi.{name}" for a in r.args for name in a.fastapi)
        if r.answer_media:
            needed.add(".media_response")
        if any("StrictBytes" in a.route_annotation for a in r.args):
            needed.add("pydantic.StrictBytes")
        if any(a.marker.startswith("Depends(read_parameter(") for a in r.args):
            needed.add(".read_parameter")
        if r.security:
            needed |= {"fastapi.Depends", f".{r.security}", ".verify_credentials"}
    if _uses_models(c for r in m.routes for c in _annotations(r)):
        needed.add("..models")
    return needed


def mock_imports(m: ServerModule) -> set[str]:
    """Every import of the mock module's code (as :func:`server_imports` writes them)."""
    needed = {"typing.Any", ".._mock_engine.Fault", ".._mock_engine.MockEngine"}
    needed |= {".._mock_engine.Role"} | _type_imports(m.types)
    if any(r.mock_paging for r in m.routes):
        needed.add(".._mock_pages.Pager")
    if m.mock_responses or m.mock_chunks:
        needed.add("json.loads")
    if any(r.stream for r in m.routes):
        needed.add("collections.abc.AsyncIterator")
    if any(r.mock_casts for r in m.routes):
        needed.add("typing.cast")
    if any("UploadFile" in a.fastapi for r in m.routes for a in r.args):
        needed.add("fastapi.UploadFile")
    code = [c for r in m.routes for c in (r.returns, r.response_model, r.chunk)]
    if _uses_models([*code, *(a.annotation for r in m.routes for a in r.args)]):
        needed.add("..models")
    return needed


def import_lines(needed: set[str]) -> list[str]:
    """A module's import block from ``module.name`` items (a module starting with ``.``
    is the package's; ``..models`` is ``from .. import models``): the standard library,
    third-party modules, then the package's, each section sorted, with a blank line
    (an empty string) between sections. ``typing.Any`` and the like come from here only."""
    by_module: dict[str, set[str]] = {}
    for item in needed:
        dots = len(item) - len(item.lstrip("."))
        module, _, name = item[dots:].rpartition(".")
        by_module.setdefault(item[:dots] + module, set()).add(name)
    sections: list[list[str]] = [[], [], []]
    for module in sorted(by_module, key=_order):
        line = f"from {module} import {', '.join(sorted(by_module[module]))}"
        sections[_section(module)].append(line)
    out: list[str] = []
    for section in sections:
        if section:
            out += ["", *section] if out else section
    return out


def _section(module: str) -> int:
    if module.startswith("."):
        return 2
    return 0 if module.split(".")[0] in sys.stdlib_module_names else 1


def _order(module: str) -> tuple[int, str]:
    """Farthest relative imports first (``..`` before ``.``), as isort orders them."""
    dots = len(module) - len(module.lstrip("."))
    return -dots, module
