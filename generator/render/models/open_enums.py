"""Forward-compatible response models: open enums and open tagged unions (a source
rewrite of DCG's output, after :mod:`.fixups` and before :mod:`.tags`).

A client generated from version 1 of a spec meets servers at version 2, which may answer
an enum value or a tagged union member version 1 does not list (``status: "paused"``, a
new ``kind``). Such a value is kept, not refused::

    status: JobStatus                                      # becomes
    status: _Open[JobStatus]                               # JobStatus | str
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]  # becomes
    pet: _OpenUnion[Annotated[Cat | Dog, Field(discriminator="kind")]]  # ... | dict

To a type checker ``_Open[E]`` is ``E | str`` and ``_OpenUnion[U]`` is
``U | dict[str, Any]``; at run time both are ``U`` with a validator (:data:`HELPER`) that,
when the validation failed for that reason only, keeps an unknown string
(``literal_error``) or a dict whose tag names no member, or that has none
(``union_tag_invalid``, ``union_tag_not_found``) as it came, unless
``models.SPEC_VALUES_ONLY`` is set: the package's server and mock set it for each request,
so a request with such a value is still refused (422) and no answer has one. A known tag
whose member does not validate, a missing field, a wrong type: errors as before.

What stays closed, and why:

- models that only requests reach (:func:`request_only`, from the spec's paths): a model
  instance sent in a request keeps its values checked by the type checker; and the enum
  aliases themselves, which ``_params.py`` and the client's methods use for the values a
  request sends (a field is opened where it uses one, the alias is left alone);
- the tag field of a tagged union's members (pydantic needs a ``Literal`` there);
- every field of a member of a plain union (and of its bases): pydantic tries each
  member, and an open field would take a value meant for another member;
- single-value ``Literal``s (a ``const``: often the tag of a plain union's member),
  enums that are not all strings, and enums inside other aliases.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any

from generator.render.models.fixups import Edit, _annotated, _span, _splice, statements
from generator.render.models.tags import _alias_value, _definitions_start, _Module, _strip

KEY = "x-apismith-request-only"  # model_input's list of request_only(), for the worker
NAMES = ("SPEC_VALUES_ONLY", "_Open", "_OpenUnion")  # what HELPER defines

HELPER = """
import typing as _typing
from contextvars import ContextVar as _ContextVar

import pydantic as _pydantic

# Set where validation refuses the values that _Open and _OpenUnion keep (this package's
# server and mock set it for each request); unset, an answer from a newer server keeps
# an enum value or a tagged union member that this version of the spec does not list.
SPEC_VALUES_ONLY: _ContextVar[bool] = _ContextVar("SPEC_VALUES_ONLY", default=False)

if _typing.TYPE_CHECKING:
    _T = _typing.TypeVar("_T")
    _Open: _typing.TypeAlias = _T | str  # an enum, or a value it does not list yet
    _OpenUnion: _typing.TypeAlias = _T | dict[str, _typing.Any]  # or an unknown member
else:
    # the errors that say a value is unknown, and the type of a value then kept
    _UNKNOWN = {
        "literal_error": str,  # an enum's
        "union_tag_invalid": dict,  # a tagged union's: a tag that names no member
        "union_tag_not_found": dict,  # no tag (or an unknown one, where tags default)
    }

    def _keep_unknown(value, validate):
        try:
            return validate(value)
        except _pydantic.ValidationError as exc:
            for e in exc.errors():
                if e["loc"] or not isinstance(value, _UNKNOWN.get(e["type"], ())):
                    raise
            if SPEC_VALUES_ONLY.get():
                raise
            return value

    def _dump_unknown(value, dump):
        return value if isinstance(value, (str, dict)) else dump(value)

    class _Open:
        def __class_getitem__(cls, kind):
            keep = _pydantic.WrapValidator(_keep_unknown)
            dump = _pydantic.WrapSerializer(_dump_unknown)
            return _typing.Annotated[kind, keep, dump]

    _OpenUnion = _Open
"""

_CLASS = re.compile(r"^class (\w+)(?:\(([^)]*)\))?:", re.MULTILINE)
_ALIAS = re.compile(r"(\w+) = (?:\(\s*)?TypeAliasType\(")
_BAR = re.compile(r"(?<=\w) \| (\w+)")  # ``A | B``: B (and where A ends)
_LAST_WORD = re.compile(r"\w+$")
# ``Literal[`` with a comma among its values (strings may hold commas and brackets)
_MULTI_LITERAL = re.compile(r"""Literal\[(?:[^\]'"]|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")*,""")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_OWNER = re.compile(r"class (\w+)|(\w+) = ")  # what a chunk defines
_OPERATION_PARTS = 4  # "#", "paths", the path, the method (or "parameters")


# --- what only requests reach ----------------------------------------------------------------


def _target(ref: object) -> str | None:
    """``kind/name`` of a ``#/components/<kind>/<name>`` reference, else None."""
    from generator.load.common import unescape_token

    if not isinstance(ref, str) or not ref.startswith("#/components/"):
        return None
    parts = ref.split("/")
    return f"{parts[2]}/{unescape_token(parts[3])}" if len(parts) == 4 else None


def request_only(
    spec: Mapping[str, Any], refs: list[tuple[str, dict[str, Any]]] | None = None
) -> list[str]:
    """The component schemas that the operations' requests (bodies and parameters) reach
    and their responses do not, through references. ``refs``: ``walk_refs`` of the
    components (with pointers from ``#``), when the caller has it."""
    from generator.load.common import unescape_token
    from generator.load.refs import walk_refs

    if refs is None:
        refs = walk_refs(spec.get("components") or {})
    edges: dict[str, set[str]] = {}
    for pointer, ref in refs:
        parts = pointer.split("/")
        target = _target(ref["$ref"])
        if len(parts) > 2 and target is not None:
            edges.setdefault(f"{parts[1]}/{unescape_token(parts[2])}", set()).add(target)
    sent: set[str] = set()
    received: set[str] = set()
    for pointer, ref in walk_refs(spec.get("paths") or {}, "#/paths"):
        parts, target = pointer.split("/"), _target(ref["$ref"])
        if target is None or len(parts) < _OPERATION_PARTS:
            continue
        where = parts[_OPERATION_PARTS] if len(parts) > _OPERATION_PARTS else ""
        if where == "responses":
            received.add(target)
        elif parts[3] == "parameters" or where in ("parameters", "requestBody"):
            sent.add(target)
    closed = _reached(sent, edges) - _reached(received, edges)
    return sorted(name.split("/", 1)[1] for name in closed if name.startswith("schemas/"))


def _reached(roots: set[str], edges: Mapping[str, set[str]]) -> set[str]:
    seen, stack = set(roots), list(roots)
    while stack:
        for target in edges.get(stack.pop(), ()):
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


# --- reading the module -----------------------------------------------------------------------


def _enum(node: ast.expr) -> bool:
    """``Literal[...]`` of two or more strings."""
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Literal"
    ):
        return False
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return len(elts) > 1 and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in elts
    )


def _tagged(node: ast.expr) -> tuple[list[str], str] | None:
    """(members, tag field) of ``Annotated[A | B, Field(discriminator="tag")]``."""
    parts = _annotated(node)
    if parts is None:
        return None
    tag = [
        k.value.value
        for k in parts[1].keywords
        if k.arg == "discriminator"
        and isinstance(k.value, ast.Constant)
        and isinstance(k.value.value, str)
    ]
    return (_members(parts[0]), tag[0]) if tag else None


def _members(node: ast.expr) -> list[str]:
    """The names of a union's members (``A | Annotated[B, ...] | None``: A, B)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _members(node.left) + _members(node.right)
    node = _strip(node)
    return [node.id] if isinstance(node, ast.Name) else []


def _roots(node: ast.stmt) -> Iterator[tuple[str, str | None, ast.expr]]:
    """(definition, field, annotation) of a class's fields, (alias, None, value) of an
    alias."""
    if isinstance(node, ast.ClassDef):
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                yield node.name, stmt.target.id, stmt.annotation
    elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
        value = _alias_value(node)
        if value is not None and value is not node.value:  # a TypeAliasType
            yield node.targets[0].id, None, value


def _unions(node: ast.expr, classes: set[str], tags: set[tuple[str, str]], plain: set[str]) -> None:
    """Record the tagged unions' (member, tag field) in ``tags`` and the plain unions'
    members (of two or more classes) in ``plain``, anywhere in ``node``."""
    tagged = _tagged(node)
    if tagged is not None:
        tags.update((member, tagged[1]) for member in tagged[0])
        return
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        members = [m for m in _members(node) if m in classes]
        if len(members) > 1:
            plain.update(members)
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            _unions(child, classes, tags, plain)


def _lineage(names: Collection[str], bases: Mapping[str, list[str]]) -> set[str]:
    """``names`` and their base classes, at any depth."""
    seen, stack = set(names), list(names)
    while stack:
        for base in bases.get(stack.pop(), ()):
            if base not in seen:
                seen.add(base)
                stack.append(base)
    return seen


class _Reading:
    """What the rewrite needs to know of a module: its classes' bases, its enum aliases,
    the classes whose fields stay closed, and the tag fields that stay closed."""

    def __init__(self, module: _Module, source: str) -> None:
        self.module = module
        self.bases = {
            m.group(1): [b.strip() for b in (m.group(2) or "").split(",") if b.strip()]
            for m in _CLASS.finditer(source)
        }
        classes = set(self.bases)
        self.enums: set[str] = set()
        tags: set[tuple[str, str]] = set()
        plain: set[str] = set()
        for node in self.nodes(lambda c: bool(_ALIAS.match(c) and _MULTI_LITERAL.search(c))):
            for name, field, value in _roots(node):
                if field is None and _enum(_strip(value)):  # an alias of one
                    self.enums.add(name)
        for node in self.nodes(lambda c: "discriminator=" in c or _classes_beside(c, classes)):
            for _, _, annotation in _roots(node):
                _unions(annotation, classes, tags, plain)
        self.closed_classes = _lineage(plain, self.bases)
        self.closed_fields = {
            (cls, tag) for member, tag in tags for cls in _lineage([member], self.bases)
        }

    def nodes(self, wanted: Callable[[str], bool]) -> Iterator[ast.stmt]:
        """The top-level statements of the chunks ``wanted(chunk)`` is true of (all of
        them, when the module is one chunk)."""
        whole = len(self.module.chunks) == 1
        for i, chunk in enumerate(self.module.chunks):
            if whole or wanted(chunk):
                yield from self.module.tree(i).body


def _classes_beside(chunk: str, classes: set[str]) -> bool:
    """Whether ``chunk`` has ``A | B`` of two classes (a plain union, maybe)."""
    for match in _BAR.finditer(chunk):
        if match.group(1) in classes:
            left = _LAST_WORD.search(chunk, max(0, match.start() - 200), match.start())
            if left is not None and left.group() in classes:
                return True
    return False


# --- the rewrite ------------------------------------------------------------------------------


def _wrap(helper: str, node: ast.expr) -> ast.expr:
    return ast.Subscript(ast.Name(helper), node)


def _opened(node: ast.expr, enums: Collection[str] | None) -> ast.expr | None:
    """``node`` with its tagged unions and enums (inline, or the aliases ``enums``)
    opened, or None when it has none; ``enums`` None: its tagged unions only."""
    if _tagged(node) is not None:
        return _wrap("_OpenUnion", node)
    if enums is not None and (_enum(node) or (isinstance(node, ast.Name) and node.id in enums)):
        return _wrap("_Open", node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _opened(node.left, enums), _opened(node.right, enums)
        if left is None and right is None:
            return None
        return ast.BinOp(left or node.left, ast.BitOr(), right or node.right)
    if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
        return None
    if node.value.id == "Literal":
        return None
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    # Annotated: the type only (its metadata is data); any other generic: every argument
    count = 1 if node.value.id == "Annotated" else len(elts)
    new = [_opened(e, enums) if i < count else None for i, e in enumerate(elts)]
    if all(n is None for n in new):
        return None
    args = [n or e for n, e in zip(new, elts, strict=True)]
    return ast.Subscript(node.value, ast.Tuple(args) if len(args) > 1 else args[0])


def _edits(reading: _Reading, i: int, closed: Collection[str]) -> list[Edit]:
    """The edits of chunk ``i``: its definitions' fields (a class's) or unions (an
    alias's) opened, unless they stay ``closed``."""
    edits: list[Edit] = []
    for node in reading.module.tree(i).body:
        for name, field, annotation in _roots(node):
            if name in closed:
                break
            if (name, field) in reading.closed_fields:
                continue
            # an alias: its tagged unions only (an enum alias stays as requests use it)
            new = _opened(annotation, reading.enums if field is not None else None)
            if new is not None:
                edits.append(_span(annotation, ast.unparse(new)))
    return edits


def _may_open(chunk: str, reading: _Reading, closed: Collection[str]) -> bool:
    """Whether a chunk may need an edit (a cheap test before parsing it): it defines no
    model that stays closed, and has an enum or a tagged union."""
    owner = _OWNER.match(chunk)
    if owner and (owner.group(1) or owner.group(2)) in closed:
        return False
    if "discriminator=" in chunk or _MULTI_LITERAL.search(chunk):
        return True
    return bool(reading.enums) and not reading.enums.isdisjoint(_IDENT.findall(chunk))


def _rewrite(module: _Module, source: str, request_only: Collection[str]) -> str:
    reading = _Reading(module, source)
    closed = {*request_only, *reading.closed_classes}
    out: list[str] = []
    changed = False
    for i, chunk in enumerate(module.chunks):
        edits = _edits(reading, i, closed) if _may_open(chunk, reading, closed) else []
        changed = changed or bool(edits)
        out.append(_splice(chunk, edits))
    if not changed:
        return source
    start = _definitions_start(module)
    text = "".join(out)
    return text[:start] + HELPER.lstrip("\n") + "\n\n" + text[start:]


def open_responses(source: str, request_only: Collection[str] = ()) -> str:
    """A models module with the enums and tagged unions of its response models opened
    (see the module), or the module as it is when it has none (or already binds a name
    the helper takes)."""
    if "Literal[" not in source and "discriminator=" not in source:
        return source
    if any(re.search(rf"^{name}\b", source, re.MULTILINE) for name in NAMES):
        return source
    try:
        return _rewrite(_Module(statements(source)), source, request_only)
    except SyntaxError:  # a chunk split inside a multi-line string: parse the whole
        return _rewrite(_Module([source]), source, request_only)
