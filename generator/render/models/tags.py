"""Tagged unions whose members may leave out their tag (a source rewrite of DCG's output).

pydantic's ``Field(discriminator="restore")`` rejects an input without the tag
(``union_tag_not_found``) even when a member gives its tag a default, as SGP's
``PartialPatchEvaluationRequest`` does with ``restore: Literal[False] = False``: the real
server takes a PATCH of ``{"name": "x"}`` as that member, so the models must too. Such a
union, and only such a union, gets a callable discriminator::

    Annotated[A | B, Field(discriminator="restore")]
    # becomes
    Annotated[
        Annotated[A, _Tag("A")] | Annotated[B, _Tag("B")],
        Field(discriminator=_Discriminator(_tag_of_u)),
    ]

where ``_tag_of_u`` (one module-level function a union, named after the alias or the
``Model_field`` holding it) reads the tag of a dict (by alias, then by Python name) or of
a model (by attribute), and names the member whose ``Literal`` holds it; an input without
the tag goes to the *first member, in the union's order, whose tag has a default* (the
model DCG rendered decides: a tag is defaulted when its field has a default). Each member is
tagged with its class name, which is also where its errors are located, as a plain
union's are. A tag that names no member (or is not a string or an integer) gives pydantic's
``union_tag_not_found`` error. A union whose members all require their tag keeps DCG's
``Field(discriminator=...)``, byte for byte; so does one this pass cannot read (a member
that is no class of the module, a tag that is no ``Literal``): it fails safe to the
stricter rendering. (DCG re-declares a tag that a member inherits through ``allOf`` as
required, ``Field(...)``, whatever its default: such a member counts as requiring its tag.)

pydantic's JSON schema of such a union (FastAPI's ``app.openapi()``) is a ``oneOf`` without
the ``discriminator`` keyword. pydantic's ``Discriminator`` and ``Tag`` are imported as
``_Discriminator`` and ``_Tag``: a model may be named ``Tag``. Every name this pass adds
starts with ``_``; model names never do.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from generator.normalize.naming import python_snake_case as snake_case
from generator.render.models.fixups import (
    _LINE,
    Edit,
    _annotated,
    _make_annotated,
    _span,
    _splice,
    _union_members,
    statements,
)

_CLASS = re.compile(r"class (\w+)\b")
_ALIAS = re.compile(r"(\w+)(?:: TypeAlias)? = (?:\(\s*)?(?:TypeAliasType\()?")
_DEFINITION = re.compile(r"(?:class |@|\w+ *[:=])")

HELPER = '''

def _union_member(
    value: object, key: str, attribute: str, tags: dict[object, str], untagged: str
) -> str | None:
    """The ``Tag`` of the member of a tagged union that ``value`` (a dict or a model) is:
    the one ``tags`` gives for its tag (the ``key`` item of a dict, else its ``attribute``
    item or attribute), ``untagged`` when it has no tag, None when the tag names no
    member.
    """
    if isinstance(value, dict):
        found = [value[name] for name in (key, attribute) if name in value]
    else:
        found = [getattr(value, attribute)] if hasattr(value, attribute) else []
    if not found:
        return untagged
    tag = found[0]
    return tags.get(tag) if isinstance(tag, (str, int)) else None
'''
IMPORTS = "from pydantic import Discriminator as _Discriminator\nfrom pydantic import Tag as _Tag\n"


@dataclass(frozen=True)
class TagField:
    """A member's tag field: its input key, Python name, values, and whether it has a default."""

    key: str
    attribute: str
    values: tuple[object, ...]
    defaulted: bool


@dataclass(frozen=True)
class Site:
    """One tagged union that accepts a missing tag, and the code that makes it so."""

    function: str  # the name of its discriminator function
    members: tuple[str, ...]
    key: str
    attribute: str
    tags: tuple[tuple[object, str], ...]  # (tag value, member), in the members' order
    untagged: str  # the member an input without the tag is

    def source(self) -> str:
        tags = ", ".join(f"{v!r}: {m!r}" for v, m in self.tags)  # str, int, bool: literals
        args = f"value, {self.key!r}, {self.attribute!r}, {{{tags}}}, {self.untagged!r}"
        head = f"def {self.function}(value: object) -> str | None:"
        return f"\n\n{head}\n    return _union_member({args})\n"


class _Module:
    """The top-level statements of a module, parsed on demand, found by the name they
    define. ``ast.parse`` raises SyntaxError on a chunk split inside a multi-line string."""

    def __init__(self, chunks: list[str]) -> None:
        self.chunks = chunks
        self.where: dict[str, int] = {}
        self._trees: dict[int, ast.Module] = {}
        if len(chunks) == 1:  # the whole module in one piece
            for node in self.tree(0).body:
                name = node.name if isinstance(node, ast.ClassDef) else None
                if isinstance(node, (ast.Assign, ast.AnnAssign)):
                    name = _target(node)
                if name is not None:
                    self.where.setdefault(name, 0)
            return
        for i, chunk in enumerate(chunks):
            found = _CLASS.match(chunk) or _ALIAS.match(chunk)
            if found:
                self.where.setdefault(found.group(1), i)

    def tree(self, i: int) -> ast.Module:
        if i not in self._trees:
            self._trees[i] = ast.parse(self.chunks[i])
        return self._trees[i]

    def statement(self, name: str) -> ast.stmt | None:
        if name not in self.where:
            return None
        for node in self.tree(self.where[name]).body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                return node
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and _target(node) == name:
                return node
        return None

    def tag_field(self, cls: str, attribute: str, depth: int = 0) -> TagField | None:
        """The field ``attribute`` of class ``cls``, its own or inherited."""
        node = self.statement(cls)
        if not isinstance(node, ast.ClassDef) or depth > 32:
            return None
        for stmt in node.body:
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and stmt.target.id == attribute
            ):
                return self._read_field(stmt, attribute)
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id != "BaseModel":
                found = self.tag_field(base.id, attribute, depth + 1)
                if found is not None:
                    return found
        return None

    def _read_field(self, stmt: ast.AnnAssign, attribute: str) -> TagField | None:
        calls = (_field_call(stmt.value), _field_call(_metadata(stmt.annotation)))
        aliases = sorted({a for c in calls if c and (a := _keyword_str(c, "alias"))})
        values = self.literal_values(_strip(stmt.annotation))
        if values is None or len(aliases) > 1:
            return None
        key = aliases[0] if aliases else attribute
        return TagField(key, attribute, values, _has_default(stmt.value))

    def literal_values(self, node: ast.expr, depth: int = 0) -> tuple[object, ...] | None:
        """The values of ``Literal[...]`` (through type aliases of one), else None."""
        if isinstance(node, ast.Name) and depth < 32:
            alias = self.statement(node.id)
            value = _alias_value(alias) if alias is not None else None
            return None if value is None else self.literal_values(_strip(value), depth + 1)
        if not (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == "Literal"
        ):
            return None
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if not all(isinstance(e, ast.Constant) and isinstance(e.value, (str, int)) for e in elts):
            return None
        return tuple(e.value for e in elts if isinstance(e, ast.Constant))


def _target(node: ast.Assign | ast.AnnAssign) -> str | None:
    target = node.targets[0] if isinstance(node, ast.Assign) else node.target
    return target.id if isinstance(target, ast.Name) else None


def _alias_value(node: ast.stmt) -> ast.expr | None:
    """The aliased type of ``X = TypeAliasType("X", T)``, ``X: TypeAlias = T`` or ``X = T``."""
    value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "TypeAliasType"
        and len(value.args) == 2
    ):
        return value.args[1]
    return value


def _strip(node: ast.expr) -> ast.expr:
    """``T`` of ``Annotated[T, ...]`` (nested), else the node."""
    while (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Annotated"
        and isinstance(node.slice, ast.Tuple)
    ):
        node = node.slice.elts[0]
    return node


def _metadata(node: ast.expr) -> ast.expr | None:
    parts = _annotated(node)
    return parts[1] if parts is not None else None


def _field_call(node: ast.expr | None) -> ast.Call | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Field":
        return node
    return None


def _keyword_str(call: ast.Call, name: str) -> str | None:
    for k in call.keywords:
        if k.arg == name and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str):
            return k.value.value
    return None


def _has_default(value: ast.expr | None) -> bool:
    """Whether a field ``= value`` has a default (``Field(...)`` and ``Field()`` do not)."""
    call = _field_call(value)
    if call is None:
        return value is not None
    given = [*call.args[:1], *(k.value for k in call.keywords if k.arg == "default")]
    if any(k.arg == "default_factory" for k in call.keywords):
        return True
    return bool(given) and not (isinstance(given[0], ast.Constant) and given[0].value is ...)


def _candidates(tree: ast.Module) -> list[tuple[str, ast.Subscript]]:
    """Every ``Annotated[...]`` in the annotations and aliases of a chunk, with the name
    its site function takes after (``alias`` or ``model_field``), in source order."""
    found: list[tuple[str, ast.Subscript]] = []
    for node in tree.body:
        roots: list[tuple[str, ast.expr]] = []
        if isinstance(node, ast.ClassDef):
            roots = [
                (f"{snake_case(node.name)}_{st.target.id}", st.annotation)
                for st in node.body
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)
            ]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            name, value = _target(node), _alias_value(node)
            if name is not None and value is not None:
                roots = [(snake_case(name), value)]
        for base, root in roots:
            subs = [n for n in ast.walk(root) if isinstance(n, ast.Subscript)]
            subs.sort(key=lambda n: (n.lineno, n.col_offset))
            found.extend((base, n) for n in subs if _annotated(n) is not None)
    return found


def _site(module: _Module, node: ast.Subscript) -> Site | None:
    """The site ``node`` is, if it is a tagged union one of whose members defaults its tag
    (its ``function`` is still to be named)."""
    parts = _annotated(node)
    prop = _keyword_str(parts[1], "discriminator") if parts is not None else None
    if parts is None or prop is None:
        return None
    members = _union_members(parts[0])
    names = [m.id for m in members if isinstance(m, ast.Name)]
    if len(names) < 2 or len(names) != len(members) or len(set(names)) != len(names):
        return None
    fields = [module.tag_field(name, prop) for name in names]
    read = [f for f in fields if f is not None]
    if len(read) != len(fields) or len({f.key for f in read}) != 1:
        return None
    tags = tuple((v, name) for name, f in zip(names, read) for v in f.values)
    values = [v for v, _ in tags]
    defaulted = [name for name, f in zip(names, read) if f.defaulted]
    if not defaulted or len(set(values)) != len(values):
        return None
    return Site("", tuple(names), read[0].key, prop, tags, defaulted[0])


def _rewritten(node: ast.Subscript, site: Site) -> str:
    parts = _annotated(node)
    assert parts is not None
    tagged: list[ast.expr] = [
        ast.Subscript(
            ast.Name("Annotated"),
            ast.Tuple([ast.Name(m), ast.Call(ast.Name("_Tag"), [ast.Constant(m)], [])]),
        )
        for m in site.members
    ]
    union = tagged[0]
    for member in tagged[1:]:
        union = ast.BinOp(union, ast.BitOr(), member)
    disc = ast.Call(ast.Name("_Discriminator"), [ast.Name(site.function)], [])
    keywords = [
        ast.keyword("discriminator", disc) if k.arg == "discriminator" else k
        for k in parts[1].keywords
    ]
    return ast.unparse(_make_annotated(union, keywords))


def _rewrite(module: _Module) -> tuple[list[str], list[Site]]:
    """The chunks with every site rewritten, and the sites in order."""
    out: list[str] = []
    sites: list[Site] = []
    used: set[str] = set()
    for i, chunk in enumerate(module.chunks):
        if "discriminator=" not in chunk:
            out.append(chunk)
            continue
        edits: list[Edit] = []
        for base, node in _candidates(module.tree(i)):
            site = _site(module, node)
            if site is None:
                continue
            name, n = f"_tag_of_{base}", 1
            while name in used:
                n += 1
                name = f"_tag_of_{base}_{n}"
            used.add(name)
            site = replace(site, function=name)
            sites.append(site)
            edits.append(_span(node, _rewritten(node, site)))
        out.append(_splice(chunk, edits))
    return out, sites


def _definitions_start(module: _Module) -> int:
    """Where the first statement that is no import (nor docstring) starts, as an offset."""
    offset = 0
    for i, chunk in enumerate(module.chunks):
        for node in module.tree(i).body:
            if not isinstance(node, (ast.Import, ast.ImportFrom, ast.Expr)):
                lines = _LINE.findall(chunk)
                return offset + sum(len(line) for line in lines[: node.lineno - 1])
        offset += len(chunk)
    return offset


def accept_missing_tags(source: str) -> str:
    """Every tagged union of a models module one of whose members defaults its tag, with
    the callable discriminator that lets an input leave the tag out (see the module)."""
    if "discriminator=" not in source:
        return source
    chunks = statements(source)
    try:
        module = _Module(chunks)
        start = _definitions_start(module)
        out, sites = _rewrite(module)
    except SyntaxError:  # a chunk split inside a multi-line string: parse the whole
        module = _Module([source])
        start = _definitions_start(module)
        out, sites = _rewrite(module)
    if not sites:
        return source
    text = "".join(out)
    added = IMPORTS + HELPER + "".join(site.source() for site in sites) + "\n\n"
    return text[:start] + added + text[start:]
