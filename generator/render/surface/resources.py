"""The context of the client templates, computed from the IR (templates only present it).

Resources: the first tag of an operation (snake_case), else its path: the static
segments before the first parameter, without a version segment (``v1``), cut back to the
longest prefix that is itself a collection, so ``/v1/model-bundles/latest`` is a method
(``get_latest``) of ``model_bundles``. ``[client.methods]`` overrides both. Methods:
``list``/``retrieve``/``create``/``update``/``delete`` by HTTP method and path shape, with
the remaining static segments as a suffix (``get_events``) or, for POST/PUT, as the whole
name (``restart``). Clashes get the path's version (``list_v2``), then a number.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.config import ApiSettings
from generator.ir import Api, Operation
from generator.normalize.naming import client_pascal_case, client_snake_case
from generator.render.surface.methods import (
    VERSION,
    Method,
    build_method,
    runtime_type,
    runtime_type_imports,
)

CLIENT_ATTRS = {"close", "with_options", "with_raw_response", "base_url", "timeout", "max_retries"}
VERB = {"get": "retrieve", "put": "update", "patch": "update", "delete": "delete", "post": "create"}


@dataclass
class Resource:
    attr: str
    class_name: str
    methods: list[Method] = field(default_factory=list)
    children: dict[str, Resource] = field(default_factory=dict)

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


def _segments(path: str) -> list[tuple[bool, str]]:
    out = []
    for seg in path.strip("/").split("/"):
        if seg:
            out.append((seg.startswith("{") and seg.endswith("}"), seg))
    return out


def _static_head(path: str) -> tuple[list[str], str | None]:
    """Static segments before the first parameter (without the version), and the version."""
    head: list[str] = []
    version = None
    for is_param, seg in _segments(path):
        if is_param:
            break
        if not head and version is None and VERSION.match(seg):
            version = seg
            continue
        head.append(seg)
    return head, version


def _default_name(
    api: Api, op: Operation, collections: set[tuple[str, ...]]
) -> tuple[list[str], str]:
    head, _ = _static_head(op.path)
    if op.tags:
        resource = [client_snake_case(op.tags[0])]
        root_len = 1 if head else 0
    else:
        root_len = len(head)
        while root_len > 1 and tuple(head[:root_len]) not in collections:
            root_len -= 1
        resource = [client_snake_case(s) for s in head[:root_len]] or ["root"]
    segs = _segments(op.path)
    rest = [seg for _, seg in segs]
    version_seen = False
    tail: list[str] = []
    count = 0
    for is_param, seg in segs:
        if not is_param and not version_seen and VERSION.match(seg) and count == 0:
            version_seen = True
            continue
        if not is_param:
            count += 1
            if count > root_len:
                tail.append(seg)
    del rest
    ends_param = bool(segs) and segs[-1][0]
    method = op.method
    if not tail:
        if method == "get":
            name = "retrieve" if ends_param else "list"
        else:
            name = VERB.get(method, method)
    else:
        suffix = client_snake_case("_".join(tail))
        if ends_param or method in ("get", "delete", "patch"):
            name = f"{'get' if method == 'get' else VERB.get(method, method)}_{suffix}"
        else:
            name = suffix
    return resource, name


def build_resources(
    api: Api, cfg: ApiSettings, client_name: str
) -> tuple[Resource, list[ErrorTable]]:
    """The resource tree (a root holding the top-level resources) and the error tables."""
    collections: set[tuple[str, ...]] = set()
    for op in api.operations:
        head, _ = _static_head(op.path)
        segs = _segments(op.path)
        static = [s for p, s in segs if not p and not VERSION.match(s)]
        if len(static) == len(head):  # the path is the collection itself or one item of it
            collections.add(tuple(head))
    error_tables: dict[tuple[tuple[int, str], ...], ErrorTable] = {}
    root = Resource("", client_name)
    for op in api.operations:
        override = cfg.methods.get(op.python_name)
        if override:
            *resource, name = override.split(".")
        else:
            resource, name = _default_name(api, op, collections)
        table = _error_table(op, error_tables)
        node = root
        for i, part in enumerate(resource):
            attr = client_snake_case(part)
            if i == 0 and attr in CLIENT_ATTRS:
                attr += "_"
            if attr not in node.children:
                cls = "".join(client_pascal_case(p) for p in resource[: i + 1]) + "Resource"
                node.children[attr] = Resource(attr, cls)
            node = node.children[attr]
        taken = {m.name for m in node.methods} | set(node.children)
        candidate = client_snake_case(name)
        if candidate in taken:
            _, version = _static_head(op.path)
            candidate = f"{candidate}_{version}" if version else candidate
            n = 2
            base = candidate
            while candidate in taken:
                candidate, n = f"{base}_{n}", n + 1
        node.methods.append(build_method(api, op, candidate, cfg, table))
    return root, list(error_tables.values())
