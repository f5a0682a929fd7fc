"""The client's resource tree, computed from the IR (templates only present it).

The naming rules are :mod:`generator.normalize.naming.operations` (and
:mod:`~generator.normalize.naming.resources`): CRUD shapes keep the resource's names
(``list``, ``create``, ``retrieve``, ``update``, ``delete``), every other operation is named
from its operationId without the resource's nouns (``tasks.upload_attachment``), and the
path names what no operationId does; the config's ``[client.resources]`` and
``[client.methods]`` override them. The normalize passes use the same rules (inline models
are named after the methods), from the spec; here they read the IR's operations.

What only the client knows is settled here: names the generated classes own
(:mod:`.reserved`: ``client.timeout``, ``client.strict_response_validation``, a resource's
``with_raw_response``...) get ``_`` (``client.timeout_``), and so do the methods; a
resource attribute is capped at ``NAME_LIMIT`` characters (a hash keeps capped names
apart), since a top-level one names files. A top-level resource's modules
(``resources/<module>.py``, ``_server/``, ``_mock/``) are named after its attribute, but
for the names a package's ``__init__.py`` binds (:func:`resource_modules`).
:func:`resource_map` is the result, and :func:`name_diagnostics` lists every name and what
chose it (``-v``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from generator.errors import ApismithError
from generator.ir import Api, Operation, TypeRef
from generator.media import sequence_format
from generator.normalize.diagnostics import Diagnostic
from generator.normalize.naming import (
    client_pascal_case,
    module_names,
    module_problem,
)
from generator.normalize.naming.operations import Name, describe, plan_names, settle_clashes
from generator.normalize.naming.resources import OperationFacts
from generator.render.settings import ApiSettings
from generator.render.surface.methods import (
    Method,
    build_method,
    runtime_type,
    runtime_type_imports,
)
from generator.render.surface.reserved import (
    owned_note,
    resource_names,
    settled_paths,
)


@dataclass
class Resource:
    attr: str
    class_name: str
    methods: list[Method] = field(default_factory=list)
    children: dict[str, Resource] = field(default_factory=dict)
    module: str = ""  # a top-level resource's: its modules' name (``resources/<module>.py``)

    def walk(self) -> list[Resource]:
        """Children before parents (classes are defined before use)."""
        out: list[Resource] = []
        for child in self.children.values():
            out.extend(child.walk())
        out.append(self)
        return out


@dataclass(frozen=True)
class ErrorTable:
    """A module-level table of error answers that methods share: status -> runtime type."""

    name: str
    entries: tuple[tuple[int, str], ...]
    imports: frozenset[str]  # what the runtime types need (``module.name``)


@dataclass(frozen=True)
class Named:
    """One operation's place in the client: ``op`` and its :class:`Name` (``resource``,
    ``method``, what chose them)."""

    op: Operation
    name: Name

    @property
    def resource(self) -> tuple[str, ...]:
        return self.name.resource

    @property
    def method(self) -> str:
        return self.name.method

    @property
    def default(self) -> str:
        return self.name.default

    @property
    def dotted(self) -> str:
        return self.name.dotted


def _error_table(
    op: Operation, tables: dict[tuple[tuple[int, str], ...], ErrorTable]
) -> str | None:
    """The name of the table of ``op``'s error answers, added to ``tables`` by the first
    operation that has them; None for an operation without error bodies."""
    answers = [
        (int(r.status), r.schema)
        for r in op.responses
        if r.status.isdigit() and int(r.status) >= 400 and r.schema is not None
    ]
    entries = tuple((status, runtime_type(schema)) for status, schema in answers)
    if not entries:
        return None
    if entries not in tables:
        imports = frozenset(i for _, schema in answers for i in runtime_type_imports(schema))
        tables[entries] = ErrorTable(error_table_name(entries), entries, imports)
    return tables[entries].name


def error_table_name(entries: tuple[tuple[int, str], ...]) -> str:
    """``_ERRORS_422_<6 hex digits of the entries>``: named after what it holds, not after
    how many tables came first, so that a table added for one operation renames no other
    (a number had rewritten every module after it on a spec change)."""
    statuses = "_".join(dict.fromkeys(str(status) for status, _ in entries))
    digest = hashlib.sha256(repr(entries).encode()).hexdigest()[:6]
    return f"_ERRORS_{statuses}_{digest}"


def _listy(t: TypeRef) -> bool:
    return any(x.kind == "array" for x in (t, *t.members))


def _one_record(api: Api, t: TypeRef | None, depth: int = 0) -> bool:
    """Whether an answer is one record: an object model without a list among its fields,
    a map, a primitive; False for a list or what is not known."""
    if t is None or depth > 3 or t.kind in ("array", "any", "null"):
        return False
    if t.kind == "union":
        return all(_one_record(api, m, depth + 1) for m in t.members)
    if t.kind != "model" or not t.name:
        return True
    try:
        model = api.model(t.name)
    except KeyError:
        return False
    if model.kind == "object":
        return not any(_listy(f.type) for f in model.fields)
    return model.kind == "enum" or _one_record(api, model.root, depth + 1)


def operation_facts(api: Api, op: Operation) -> OperationFacts:
    """What the naming rules read of ``op``."""
    response = op.success_response
    answer = response.schema if response is not None else None
    streams = response is not None and sequence_format(response.content_type or "") is not None
    one = op.method == "get" and not streams and _one_record(api, answer)
    return OperationFacts(op.path, op.method, op.operation_id, op.python_name, op.tags, one)


def _settle(planned: list[Name]) -> list[Name]:
    """The names with every resource attribute free of what its class owns, and capped
    (:func:`.reserved.settled_paths`)."""
    settled = settled_paths([n.resource for n in planned])
    out = []
    for n in planned:
        resource, notes = settled[n.resource]
        out.append(Name(n.facts, resource, n.method, n.default, n.source, n.rule, n.taken, notes))
    return out


def resource_map(api: Api, cfg: ApiSettings) -> list[Named]:
    """Every operation's name in the client, in operation order (deterministic: the same
    IR and config always give the same names, and no two operations share one)."""
    facts = [operation_facts(api, op) for op in api.operations]
    planned = _settle(plan_names(facts, cfg.resources, cfg.methods))
    owned = lambda name: owned_note(name, "every resource")  # noqa: E731
    names = settle_clashes(planned, resource_names(), owned)
    return [Named(op, n) for op, n in zip(api.operations, names)]


def resource_modules(names: list[Named]) -> dict[str, str]:
    """The modules' name of each top-level resource, in order of first use: its attribute,
    but for the names its package's ``__init__.py`` binds (``annotations``,
    ``current_credentials``, builtins...: see :mod:`generator.normalize.naming.modules`)."""
    return module_names(n.resource[0] for n in names if n.resource)


def _pointer(n: Named) -> str:
    return "#/paths/" + n.op.path.replace("~", "~0").replace("/", "~1") + "/" + n.op.method


def name_diagnostics(names: list[Named]) -> tuple[Diagnostic, ...]:
    """A ``[client] name:`` line for every operation: its name and what chose it (the
    rule, the config, a clash's suffix, a reserved or long name), and for every top-level
    resource whose modules are not named after it."""
    out = [Diagnostic("client", "name", _pointer(n), describe(n.name)) for n in names]
    first: dict[str, Named] = {}
    for n in names:
        if n.resource:
            first.setdefault(n.resource[0], n)
    for attr, module in resource_modules(names).items():
        if module != attr:
            message = (
                f"resource {attr} is in resources/{module}.py, _server/{module}.py and"
                f" _mock/{module}.py ({attr} is {module_problem(attr)})"
            )
            out.append(Diagnostic("client", "name", _pointer(first[attr]), message))
    return tuple(out)


def client_name_report(api: Api, cfg: ApiSettings, where: str | None) -> tuple[Diagnostic, ...]:
    """:func:`name_diagnostics` of the resource map: a ``[client.methods]`` name that is
    taken is refused, naming the config file ``where``."""
    if not api.operations:
        return ()
    try:
        return name_diagnostics(resource_map(api, cfg))
    except ApismithError as exc:
        exc.file = exc.file or where
        raise


def _class_names(names: list[Named], client_name: str) -> Mapping[tuple[str, ...], str]:
    """A class name per resource, unique (a number when two resources spell the same)."""
    out: dict[tuple[str, ...], str] = {}
    used = {client_name}
    for n in names:
        for i in range(1, len(n.resource) + 1):
            key = n.resource[:i]
            if key not in out:
                stem = "".join(client_pascal_case(p) for p in key)
                name, k = f"{stem}Resource", 2
                while name in used:
                    name, k = f"{stem}Resource{k}", k + 1
                used.add(name)
                out[key] = name
    return out


def build_resources(
    api: Api, cfg: ApiSettings, client_name: str
) -> tuple[Resource, list[ErrorTable]]:
    """The resource tree (a root holding the top-level resources) and the error tables."""
    names = resource_map(api, cfg)
    classes = _class_names(names, client_name)
    modules = resource_modules(names)
    error_tables: dict[tuple[tuple[int, str], ...], ErrorTable] = {}
    root = Resource("", client_name)
    for n in names:
        table = _error_table(n.op, error_tables)
        node = root
        for i, attr in enumerate(n.resource):
            if attr not in node.children:
                module = modules[attr] if i == 0 else ""
                node.children[attr] = Resource(attr, classes[n.resource[: i + 1]], module=module)
            node = node.children[attr]
        node.methods.append(build_method(api, n.op, n.method, cfg, table))
    return root, list(error_tables.values())
