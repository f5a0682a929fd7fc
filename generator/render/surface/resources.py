"""The context of the client templates, computed from the IR (templates only present it).

Resources (the rules): an operation's path without a leading version segment (``v1``)
is read as collections and items. A prefix of a path is a collection when a parameter
follows it in some path (``/a/{id}``), when it answers GET or DELETE, or when it is a
whole path without parameters; after a parameter, a path answering only POST, PUT or
PATCH is an action (``/a/{id}/cancel``). The static segments before the first parameter,
cut back to the longest prefix that is a collection, are the resource (each segment one
level: ``/v1/llm/model-endpoints`` is ``llm.model_endpoints``); after a parameter, the
static segments that again make a collection are a sub-resource, so
``/v4/knowledge-bases/{id}/uploads/{upload_id}`` is in ``knowledge_bases.uploads``.

The first tag names the top resource instead when tag and path agree one to one: all the
tag's operations start with one path segment, and all operations under that segment have
that tag (without a parenthesized remark or a version word: ``Fine Tuning Jobs V3
(Beta)`` is ``fine_tuning_jobs``). A coarse tag (``Models`` over ``/models``,
``/model-groups`` and ``/model-deployments``), or a segment shared by several tags, leaves
the top resource to the path's first segment.

Methods: ``list``/``retrieve``/``create``/``update``/``delete`` by HTTP method and path
shape (a GET of a collection that answers one record, an object without a list in it,
is ``retrieve``), with the remaining static segments as a suffix (``get_events``) or, for
POST/PUT, as the whole name (``restart``).

The config overrides the rules: ``[client.resources]`` maps a path prefix or a tag to a
resource (the rules name the sub-resources and methods below it; the longest prefix wins,
then the tag), and ``[client.methods]`` names single operations. A clash gets the path's
version (``list_v2``), then a number; names the config gives win over the rules', and a
``[client.methods]`` name that is taken is refused. :func:`resource_map` is the result, and
:func:`name_diagnostics` reports every name that is not the rules' default (``-v``).

Names the generated classes own (:mod:`.reserved`: ``client.timeout``,
``client.strict_response_validation``, a resource's ``with_raw_response``...) get ``_``
(``client.timeout_``), and so do the methods; a resource attribute is capped at
``NAME_LIMIT`` characters (a hash keeps capped names apart), since a top-level one names
files. A top-level resource's modules (``resources/<module>.py``, ``_server/``,
``_mock/``) are named after its attribute, but for the names a package's ``__init__.py``
binds (:func:`resource_modules`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from generator.config import ApiSettings
from generator.config.settings import path_shape
from generator.errors import ApismithError
from generator.ir import Api, Operation, TypeRef
from generator.normalize.diagnostics import Diagnostic
from generator.normalize.naming import (
    client_pascal_case,
    client_snake_case,
    module_names,
    module_problem,
)
from generator.render.surface.methods import (
    VERSION,
    Method,
    build_method,
    runtime_type,
    runtime_type_imports,
)
from generator.render.surface.reserved import (
    free_name,
    owned_note,
    resource_names,
    settled_paths,
)

VERB = {"get": "retrieve", "put": "update", "patch": "update", "delete": "delete", "post": "create"}
TAG_REMARK = re.compile(r"\s*\([^)]*\)|\s+v\d+(beta\d*|alpha\d*)?\b", re.IGNORECASE)
THINGS = ("get", "delete")  # what a collection answers; an action answers POST/PUT/PATCH
RULES, RESOURCES, METHODS = "rules", "[client.resources]", "[client.methods]"
Segments = list[tuple[bool, str]]  # (is a parameter, segment)
Shape = tuple[str, ...]  # static segments, and "{}" for each parameter


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
    """One operation's place in the client: ``resource`` (attributes from the client down)
    and ``method``; ``default`` is the rules' dotted name, ``source`` what decided (the
    rules, ``[client.resources]`` with its key, or ``[client.methods]``)."""

    op: Operation
    resource: tuple[str, ...]
    method: str
    default: str
    source: str = RULES
    taken: str | None = None  # the clashing name, when the method got a suffix
    notes: tuple[str, ...] = ()  # why a resource attribute or the method was renamed

    @property
    def dotted(self) -> str:
        return ".".join((*self.resource, self.method))


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
        tables[entries] = ErrorTable(f"_ERRORS_{len(tables)}", entries, imports)
    return tables[entries].name


def _segments(path: str) -> Segments:
    out = []
    for seg in path.strip("/").split("/"):
        if seg:
            out.append((seg.startswith("{") and seg.endswith("}"), seg))
    return out


def _unversioned(path: str) -> tuple[Segments, int]:
    """The segments without a leading version segment, and how many were dropped."""
    segs = _segments(path)
    if segs and not segs[0][0] and VERSION.match(segs[0][1]):
        return segs[1:], 1
    return segs, 0


def _shape(segs: Segments) -> Shape:
    return tuple("{}" if is_param else seg for is_param, seg in segs)


def _head(segs: Segments) -> list[str]:
    """The static segments before the first parameter."""
    head: list[str] = []
    for is_param, seg in segs:
        if is_param:
            break
        head.append(seg)
    return head


def _version(path: str) -> str | None:
    segs = _segments(path)
    return segs[0][1] if segs and not segs[0][0] and VERSION.match(segs[0][1]) else None


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


class _Rules:
    """The naming rules over all of an API's operations (collections, tag agreement)."""

    def __init__(self, api: Api) -> None:
        self.api = api
        self.collections: set[Shape] = set()
        tag_heads: dict[str, set[str]] = {}
        head_tags: dict[str, set[str | None]] = {}
        for op in api.operations:
            segs, _ = _unversioned(op.path)
            shape = _shape(segs)
            for i in range(1, len(segs)):
                if segs[i][0] and not segs[i - 1][0]:
                    self.collections.add(shape[:i])
            if segs and not segs[-1][0] and (op.method in THINGS or "{}" not in shape):
                self.collections.add(shape)
            head = _head(segs)
            if head:
                tag = op.tags[0] if op.tags else None
                head_tags.setdefault(head[0], set()).add(tag)
                if tag is not None:
                    tag_heads.setdefault(tag, set()).add(head[0])
        self.tag_roots = {
            tag
            for tag, heads in tag_heads.items()
            if len(heads) == 1 and head_tags[next(iter(heads))] == {tag}
        }

    def root(self, op: Operation, segs: Segments) -> tuple[list[str], int]:
        """The top resource (one or more attributes) and how many segments it takes."""
        head = _head(segs)
        tag = op.tags[0] if op.tags else None
        if tag is not None and (not head or tag in self.tag_roots):
            return [client_snake_case(TAG_REMARK.sub("", tag) or tag)], (1 if head else 0)
        if tag is not None:  # a coarse tag: the path's first segment instead
            return [client_snake_case(head[0])], 1
        n = len(head)
        while n > 1 and tuple(head[:n]) not in self.collections:
            n -= 1
        return [client_snake_case(s) for s in head[:n]] or ["root"], n

    def below(self, segs: Segments, start: int) -> tuple[list[str], list[str]]:
        """The sub-resources after segment ``start``, and the static segments left over."""
        resource: list[str] = []
        tail: list[str] = []
        i = start
        while i < len(segs):
            if segs[i][0]:
                i += 1
                continue
            j = i
            while j < len(segs) and not segs[j][0]:
                j += 1
            m = j
            if not tail and i > 0 and segs[i - 1][0]:  # segments after a parameter
                while m > i and _shape(segs[:m]) not in self.collections:
                    m -= 1
            else:
                m = i
            resource += [client_snake_case(seg) for _, seg in segs[i:m]]
            tail += [seg for _, seg in segs[m:j]]
            i = j
        return resource, tail

    def method(self, op: Operation, segs: Segments, tail: list[str]) -> str:
        ends_param = bool(segs) and segs[-1][0]
        verb = VERB.get(op.method, op.method)
        if not tail:
            if op.method != "get":
                return verb
            single = ends_param or _one_record(self.api, _answer(op))
            return "retrieve" if single else "list"
        suffix = client_snake_case("_".join(tail))
        if ends_param or op.method in ("get", "delete", "patch"):
            return f"{'get' if op.method == 'get' else verb}_{suffix}"
        return suffix

    def name(self, op: Operation, root: list[str] | None = None, start: int = 0) -> Named:
        """The rules' name of ``op``; with ``root``, that resource takes the path's first
        ``start`` segments (without the version)."""
        segs, _ = _unversioned(op.path)
        if root is None:
            root, start = self.root(op, segs)
        below, tail = self.below(segs, start)
        resource, method = _attrs([*root, *below]), self.method(op, segs, tail)
        return Named(op, resource, method, ".".join((*resource, method)))


def _answer(op: Operation) -> TypeRef | None:
    response = op.success_response
    return response.schema if response is not None else None


def _attrs(parts: list[str]) -> tuple[str, ...]:
    return tuple(client_snake_case(p) for p in parts)


def _settle(planned: list[Named]) -> list[Named]:
    """The names with every resource attribute free of what its class owns, and capped
    (:func:`.reserved.settled_paths`)."""
    settled = settled_paths([n.resource for n in planned])
    out = []
    for n in planned:
        resource, notes = settled[n.resource]
        out.append(Named(n.op, resource, n.method, n.default, n.source, n.taken, notes))
    return out


def _configured(rules: _Rules, op: Operation, cfg: ApiSettings, default: Named) -> Named:
    """``op``'s name after the config: ``[client.methods]``, else the longest prefix of
    ``[client.resources]`` that it starts with, else its first tag there, else the rules'."""
    override = cfg.methods.get(op.python_name)
    if override:
        *resource, method = override.split(".")
        return Named(op, _attrs(resource), method, default.dotted, METHODS)
    shape = path_shape(op.path)
    resources = cfg.resources
    best: tuple[int, str] | None = None
    for key in resources:
        if key.startswith("/"):
            prefix = path_shape(key)
            if shape[: len(prefix)] == prefix and (best is None or len(prefix) > best[0]):
                best = (len(prefix), key)
    if best is not None:
        _, dropped = _unversioned(op.path)
        start = max(best[0] - dropped, 0)
        root = resources[best[1]].split(".")
    elif op.tags and op.tags[0] in resources:
        best = (0, op.tags[0])
        root = resources[op.tags[0]].split(".")
        start = 1 if _head(_unversioned(op.path)[0]) else 0
    else:
        return default
    named = rules.name(op, root, start)
    return Named(op, named.resource, named.method, default.dotted, f"{RESOURCES} {best[1]!r}")


def _resolve(planned: list[Named]) -> list[Named]:
    """The names with clashes settled: config names first, then the rules', in operation
    order; a name every resource owns gets ``_`` (a config's is refused), a clash the
    path's version, then a number."""
    children: dict[tuple[str, ...], set[str]] = {}
    for n in planned:
        for i in range(len(n.resource)):
            children.setdefault(n.resource[:i], set()).add(n.resource[i])
    taken: dict[tuple[str, ...], dict[str, Named]] = {}
    out: dict[int, Named] = {}
    order = sorted(range(len(planned)), key=lambda i: (planned[i].source == RULES, i))
    for i in order:
        n = planned[i]
        node = taken.setdefault(n.resource, {})
        candidate = client_snake_case(n.method)
        notes = n.notes
        if candidate in resource_names():
            if n.source == METHODS:
                raise ApismithError(
                    f"config: [client] methods.{n.op.python_name}: {n.dotted!r} is"
                    f" reserved ({owned_note(candidate, 'every resource')})"
                )
            notes += (owned_note(candidate, "every resource"),)
            candidate = free_name(candidate, resource_names())
        clash = candidate in node or candidate in children.get(n.resource, set())
        if clash and n.source == METHODS:
            other = node[candidate].op.python_name if candidate in node else "a resource"
            raise ApismithError(
                f"config: [client] methods.{n.op.python_name}: {n.dotted!r} is taken (by {other})"
            )
        if clash:
            version = _version(n.op.path)
            base = f"{candidate}_{version}" if version else candidate
            candidate, k = base, 2
            while candidate in node or candidate in children.get(n.resource, set()):
                candidate, k = f"{base}_{k}", k + 1
        node[candidate] = n
        out[i] = Named(
            n.op, n.resource, candidate, n.default, n.source, n.method if clash else None, notes
        )
    return [out[i] for i in range(len(planned))]


def resource_map(api: Api, cfg: ApiSettings) -> list[Named]:
    """Every operation's name in the client, in operation order (deterministic: the same
    IR and config always give the same names, and no two operations share one)."""
    rules = _Rules(api)
    planned = [_configured(rules, op, cfg, rules.name(op)) for op in api.operations]
    return _resolve(_settle(planned))


def resource_modules(names: list[Named]) -> dict[str, str]:
    """The modules' name of each top-level resource, in order of first use: its attribute,
    but for the names its package's ``__init__.py`` binds (``annotations``,
    ``current_credentials``, builtins...: see :mod:`generator.normalize.naming.modules`)."""
    return module_names(n.resource[0] for n in names if n.resource)


def _pointer(n: Named) -> str:
    return "#/paths/" + n.op.path.replace("~", "~0").replace("/", "~1") + "/" + n.op.method


def name_diagnostics(names: list[Named]) -> tuple[Diagnostic, ...]:
    """A ``[client] name:`` line for every operation whose name is not the rules' default
    (what named it, a clash's suffix, a reserved or long name), and for every top-level
    resource whose modules are not named after it."""
    out = []
    for n in names:
        if n.dotted == n.default:
            continue
        why = "renamed by the rules" if n.source == RULES else f"from {n.source}"
        if n.taken is not None:
            why += f"; {'.'.join((*n.resource, n.taken))} is taken"
        why += "".join(f"; {note}" for note in n.notes)
        message = f"operation {n.op.python_name} is {n.dotted} ({why}; the rules: {n.default})"
        out.append(Diagnostic("client", "name", _pointer(n), message))
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
