"""The client's name of every operation: ``client.<resource>.<method>``, from the spec.

The resource comes from the path and the first tag (:mod:`.resources`). The method:

- **CRUD shapes keep the resource's names.** On a collection (``/tasks``): GET is ``list``
  (``retrieve`` when it answers one record, an object without a list in it), POST is
  ``create``, PUT/PATCH ``update``, DELETE ``delete``; on an item (``/tasks/{id}``): GET
  ``retrieve``, PUT/PATCH ``update``, DELETE ``delete``.
- **Every other operation is named from its operationId** (an action such as
  ``POST /tasks/{id}/attachments`` when no GET makes ``attachments`` a collection, a POST
  on an item): snake_case, with the nouns of its resource removed, the resource's own
  and its parents', singular or plural (``uploadAttachment`` on ``tasks`` is
  ``tasks.upload_attachment``, ``performTaskAction`` ``tasks.perform_action``,
  ``cancelFineTune`` on ``llm.fine_tunes`` ``llm.fine_tunes.cancel``). FastAPI's generated
  ids lose the path and method it appends (``restart_model_endpoint_v1_model_endpoints_\
_model_endpoint_id__restart_post`` is ``restart_model_endpoint``, so ``restart``).
- **Without an operationId that says more than the path** (none; one spelling the path,
  such as SGP's ``POST-V4-/v2/knowledge-bases/{knowledge_base_id}/query``; one made of the
  HTTP method and the path's words only, ``postTasksIdCancel``), or when removing the nouns
  leaves nothing, the path names it: the static segments after the resource as a suffix
  (``get_events``) or, for POST/PUT, as the whole name (``query``).

The config overrides the rules: ``[client.resources]`` maps a path prefix or a tag to a
resource (the rules name the sub-resources and methods below it; the longest prefix wins,
then the tag), and ``[client.methods]`` names single operations. A clash gets the path's
version (``list_v2``), then a number; names the config gives win over the rules', and a
``[client.methods]`` name that is taken is refused.

:func:`plan_names` gives every operation's name and what chose it (:class:`Name`), the
same for the normalize passes (inline models are named after the methods) and the client
renderer; :func:`settle_clashes` makes the names unique, given the names a resource class
owns (the renderer's), and :func:`describe` is the line ``generate -v`` prints for each.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from generator.errors import ApismithError
from generator.normalize.naming.case import client_snake_case, snake_case
from generator.normalize.naming.resources import (
    OperationFacts,
    Segments,
    Tree,
    attrs,
    head,
    path_shape,
    unversioned,
    version,
)

VERB = {"get": "retrieve", "put": "update", "patch": "update", "delete": "delete", "post": "create"}
RULES, RESOURCES, METHODS = "rules", "[client.resources]", "[client.methods]"
CRUD, OPERATION_ID, PATH = "crud", "operationId", "path"
_WORD = re.compile(r"[a-z0-9]+")
HTTP_VERBS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})


@dataclass(frozen=True)
class Name:
    """One operation's place in the client: ``resource`` (attributes from the client down)
    and ``method``; ``default`` is the rules' dotted name, ``source`` what decided (the
    rules, ``[client.resources]`` with its key, or ``[client.methods]``), ``rule`` which
    rule named the method (``crud``, ``operationId``, ``path``; the config's own name:
    empty)."""

    facts: OperationFacts
    resource: tuple[str, ...]
    method: str
    default: str
    source: str = RULES
    rule: str = ""
    taken: str | None = None  # the clashing name, when the method got a suffix
    notes: tuple[str, ...] = ()  # why a resource attribute or the method was renamed

    @property
    def dotted(self) -> str:
        return ".".join((*self.resource, self.method))


# --- the method ---------------------------------------------------------------------------------


def singular(word: str) -> str:
    """The singular of an English plural, by its ending (``categories`` -> ``category``,
    ``boxes`` -> ``box``, ``tasks`` -> ``task``); other words as they are."""
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    if len(word) > 1 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _nouns(resource: Sequence[str]) -> list[list[str]]:
    """The word runs of each resource attribute, plural and singular, longest first."""
    found: list[list[str]] = []
    for attr in resource:
        parts = [w for w in attr.split("_") if w]
        if not parts:
            continue
        for run in (parts, [*parts[:-1], singular(parts[-1])]):
            if run not in found:
                found.append(run)
    return sorted(found, key=len, reverse=True)


def without_nouns(name: str, resource: Sequence[str]) -> str:
    """``name`` (snake_case) without the word runs that spell the resource's nouns;
    ``""`` when nothing else is left."""
    parts = name.split("_")
    for noun in _nouns(resource):
        i, out = 0, []
        while i < len(parts):
            if parts[i : i + len(noun)] == noun:
                i += len(noun)
            else:
                out.append(parts[i])
                i += 1
        parts = out
    return "_".join(p for p in parts if p)


def spoken_name(operation_id: str | None, method: str, path: str) -> str | None:
    """The snake_case name an operationId gives, or None when it says no more than the
    method and the path (absent, spelling the path, FastAPI's suffix aside)."""
    if not operation_id or "/" in operation_id or "{" in operation_id:
        return None
    suffix = re.sub(r"\W", "_", path) + "_" + method
    if operation_id.endswith(suffix) and len(operation_id) > len(suffix):
        operation_id = operation_id[: -len(suffix)]  # FastAPI's name + path + method
    name = snake_case(operation_id)
    first, *rest = name.split("_")
    spelled = {*_WORD.findall(snake_case(path)), "by"}
    if not name or (first in HTTP_VERBS and set(rest) <= spelled):
        return None  # ``postTasksIdCancel``, ``get_v4_tasks``: the method and the path
    return name


def crud_name(op: OperationFacts, segs: Segments) -> str | None:
    """The resource's name of a CRUD shape on a collection or an item, else None (a POST
    on an item is no CRUD shape)."""
    on_item = bool(segs) and segs[-1][0]
    if op.method == "get":
        return "retrieve" if on_item or op.one_record else "list"
    if op.method == "post":
        return None if on_item else "create"
    return VERB.get(op.method)


def path_name(op: OperationFacts, segs: Segments, tail: list[str]) -> str:
    """The path rules' method name (no operationId to name it)."""
    ends_param = bool(segs) and segs[-1][0]
    verb = VERB.get(op.method, op.method)
    if not tail:
        if op.method != "get":
            return verb
        return "retrieve" if ends_param or op.one_record else "list"
    suffix = client_snake_case("_".join(tail))
    if ends_param or op.method in ("get", "delete", "patch"):
        return f"{'get' if op.method == 'get' else verb}_{suffix}"
    return suffix


def method_name(
    op: OperationFacts, segs: Segments, tail: list[str], resource: Sequence[str]
) -> tuple[str, str]:
    """The method's name and the rule that gave it (see the module docstring)."""
    if not tail:
        crud = crud_name(op, segs)
        if crud is not None:
            return crud, CRUD
    spoken = spoken_name(op.operation_id, op.method, op.path)
    if spoken is not None:
        left = without_nouns(spoken, resource)
        if left:
            return left, OPERATION_ID
    return path_name(op, segs, tail), PATH


# --- the names, the config's overrides ----------------------------------------------------------


class Rules:
    """The naming rules over all of an API's operations."""

    def __init__(self, ops: Sequence[OperationFacts]) -> None:
        self.tree = Tree(ops)

    def name(self, op: OperationFacts, root: list[str] | None = None, start: int = 0) -> Name:
        """The rules' name of ``op``; with ``root``, that resource takes the path's first
        ``start`` segments (without the version)."""
        segs, _ = unversioned(op.path)
        if root is None:
            root, start = self.tree.root(op, segs)
        below, tail = self.tree.below(segs, start)
        resource = attrs([*root, *below])
        method, rule = method_name(op, segs, tail, resource)
        return Name(op, resource, method, ".".join((*resource, method)), rule=rule)


def _prefix(op: OperationFacts, resources: Mapping[str, str]) -> tuple[int, str] | None:
    """The longest ``[client.resources]`` path prefix ``op``'s path starts with."""
    found = path_shape(op.path)
    best: tuple[int, str] | None = None
    for key in resources:
        if key.startswith("/"):
            prefix = path_shape(key)
            if found[: len(prefix)] == prefix and (best is None or len(prefix) > best[0]):
                best = (len(prefix), key)
    return best


def configured(
    rules: Rules,
    op: OperationFacts,
    resources: Mapping[str, str],
    methods: Mapping[str, str],
    default: Name,
) -> Name:
    """``op``'s name after the config: ``[client.methods]``, else the longest prefix of
    ``[client.resources]`` that it starts with, else its first tag there, else the rules'."""
    override = methods.get(op.python_name) or (
        methods.get(op.operation_id) if op.operation_id else None
    )
    if override:
        *resource, method = override.split(".")
        return Name(op, attrs(resource), method, default.dotted, METHODS)
    best = _prefix(op, resources)
    if best is not None:
        _, dropped = unversioned(op.path)
        start = max(best[0] - dropped, 0)
        root = resources[best[1]].split(".")
    elif op.tags and op.tags[0] in resources:
        best = (0, op.tags[0])
        root = resources[op.tags[0]].split(".")
        start = 1 if head(unversioned(op.path)[0]) else 0
    else:
        return default
    named = rules.name(op, root, start)
    source = f"{RESOURCES} {best[1]!r}"
    return replace(named, default=default.dotted, source=source)


def plan_names(
    ops: Sequence[OperationFacts],
    resources: Mapping[str, str] | None = None,
    methods: Mapping[str, str] | None = None,
) -> list[Name]:
    """Every operation's name by the rules and the config (``[client.resources]``,
    ``[client.methods]``: by python name or operationId), in operation order; not yet
    unique (:func:`settle_clashes`)."""
    rules = Rules(ops)
    return [configured(rules, op, resources or {}, methods or {}, rules.name(op)) for op in ops]


def _free(name: str, reserved: Collection[str]) -> str:
    while name in reserved:
        name += "_"
    return name


def settle_clashes(
    planned: Sequence[Name],
    reserved: Collection[str] = (),
    owned: Callable[[str], str] = lambda name: f"{name} is reserved",
) -> list[Name]:
    """The names with clashes settled: config names first, then the rules', in operation
    order; a method name every resource owns (``reserved``) gets ``_`` (a config's is
    refused: ``owned`` says why), a clash the path's version, then a number."""
    children: dict[tuple[str, ...], set[str]] = {}
    for n in planned:
        for i in range(len(n.resource)):
            children.setdefault(n.resource[:i], set()).add(n.resource[i])
    taken: dict[tuple[str, ...], dict[str, Name]] = {}
    out: dict[int, Name] = {}
    order = sorted(range(len(planned)), key=lambda i: (planned[i].source == RULES, i))
    for i in order:
        n = planned[i]
        node = taken.setdefault(n.resource, {})
        siblings = children.get(n.resource, set())
        candidate, notes = client_snake_case(n.method), n.notes
        if candidate in reserved:
            if n.source == METHODS:
                raise ApismithError(
                    f"config: [client] methods.{n.facts.python_name}: {n.dotted!r} is"
                    f" reserved ({owned(candidate)})"
                )
            notes += (owned(candidate),)
            candidate = _free(candidate, reserved)
        clash = candidate in node or candidate in siblings
        if clash and n.source == METHODS:
            other = node[candidate].facts.python_name if candidate in node else "a resource"
            raise ApismithError(
                f"config: [client] methods.{n.facts.python_name}: {n.dotted!r} is taken"
                f" (by {other})"
            )
        if clash:
            found = version(n.facts.path)
            base = f"{candidate}_{found}" if found else candidate
            candidate, k = base, 2
            while candidate in node or candidate in siblings:
                candidate, k = f"{base}_{k}", k + 1
        node[candidate] = n
        out[i] = replace(n, method=candidate, taken=n.method if clash else None, notes=notes)
    return [out[i] for i in range(len(planned))]


def client_names(
    ops: Sequence[OperationFacts],
    resources: Mapping[str, str] | None = None,
    methods: Mapping[str, str] | None = None,
) -> list[Name]:
    """:func:`plan_names`, unique (what the normalize passes name models after; the
    client renderer also frees the names its classes own)."""
    return settle_clashes(plan_names(ops, resources, methods))


RULE_TEXT = {
    CRUD: "the CRUD name of its path and method",
    OPERATION_ID: "from its operationId",
    PATH: "from its path",
}


def describe(n: Name) -> str:
    """Why ``n`` is what it is, for the ``-v`` listing: the rule, the config, a clash."""
    if n.source == METHODS:
        why = f"from {METHODS}"
    elif n.source != RULES:
        why = f"from {n.source}, {RULE_TEXT.get(n.rule, 'the rules')}"
    else:
        why = RULE_TEXT.get(n.rule, "the rules")
        if n.rule == OPERATION_ID and n.facts.operation_id:
            why += f" {n.facts.operation_id}"
    if n.taken is not None:
        why += f"; {'.'.join((*n.resource, n.taken))} is taken"
    why += "".join(f"; {note}" for note in n.notes)
    if n.dotted != n.default:
        why += f"; the rules: {n.default}"
    return f"operation {n.facts.python_name} is {n.dotted} ({why})"
