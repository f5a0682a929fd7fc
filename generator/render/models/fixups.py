"""Fix-ups applied to datamodel-code-generator's output, as source-to-source rewrites.

1. Constraints on nullable values move inside: DCG's
   ``Annotated[float | None, Field(gt=0, le=1, description=...)]`` becomes
   ``Annotated[Annotated[float, Field(gt=0, le=1)] | None, Field(description=...)]``, so a
   constraint (or a discriminator) visibly applies to the value, never to ``None``.
2. A model-typed field whose default is a dict or list literal gets
   ``default_factory=lambda: M.model_validate({...})``: a dict is no ``M`` to a type checker.
3. A type alias loses ``deprecated=True`` from its ``Field``: pydantic honours it only on a
   model field, and warns at import time anywhere else (the IR and the docs still say so).
4. A string default on a field whose type is not ``str`` (a format: ``AnyUrl``,
   ``datetime``, ``UUID``...): DCG writes ``x: AnyUrl = "https://a"``, which a type checker
   rejects and pydantic leaves a ``str`` at run time. A value the type accepts becomes
   ``= Field("https://a", validate_default=True)`` (validated, so the instance holds an
   ``AnyUrl``); one it rejects (GitHub's ``deployment-status``: ``format: uri``,
   ``default: ""``) is dropped, as the ``defaults`` pass drops the ones it can judge: the
   field becomes ``AnyUrl | None = None``.

Only the top-level statements that may need a rewrite are parsed: one ``ast.parse`` of a
whole 8,000-line module costs more than all the rest of this stage. A changed annotation is
re-printed with ``ast.unparse`` and spliced in by its span; ruff formats it afterwards.
"""

from __future__ import annotations

import ast
import re
from typing import Any

CONSTRAINT_KEYWORDS = frozenset(
    {
        "allow_inf_nan",
        "decimal_places",
        "discriminator",
        "ge",
        "gt",
        "le",
        "lt",
        "max_digits",
        "max_length",
        "min_length",
        "multiple_of",
        "pattern",
    }
)

# A top-level statement starts at column 0 (continuation lines are indented or closers).
_STATEMENT_START = re.compile(r"^(?=[^\s)\]}])", re.MULTILINE)
_KEYWORD = re.compile(r"\b(?:" + "|".join(sorted(CONSTRAINT_KEYWORDS)) + r")=")
_CLASS = re.compile(r"^class (\w+)\b", re.MULTILINE)
# ruff wraps a long one as ``Name = (\n    TypeAliasType(...)\n)``
_ALIAS = re.compile(r"^(\w+) = (?:\(\s*)?TypeAliasType\(", re.MULTILINE)

# rewrite 4: an assigned string default, and the types (by where they are imported from)
# a string default has to be validated into
_STRING_DEFAULT = re.compile(r"^    (?:\w+: .*?|[\])]) = (?:\(\s*)?[\"']", re.MULTILINE)
_NOT_STR_MODULES = frozenset({"datetime", "decimal", "ipaddress", "pathlib", "pydantic", "uuid"})
_STR_TYPES = frozenset({"pydantic.Base64Str", "pydantic.SecretStr"})

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
Edit = tuple[int, int, int, int, str]


def defined_names(source: str) -> tuple[set[str], set[str]]:
    """(classes, type aliases) a rendered models module defines at the top level."""
    return set(_CLASS.findall(source)), set(_ALIAS.findall(source))


def _union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_members(node.left) + _union_members(node.right)
    return [node]


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _annotated(node: ast.expr) -> tuple[ast.expr, ast.Call] | None:
    """``Annotated[T, Field(...)]`` -> (T, the Field call)."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Annotated"
        and isinstance(node.slice, ast.Tuple)
        and len(node.slice.elts) == 2
    ):
        inner, call = node.slice.elts
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "Field"
            and not call.args
        ):
            return inner, call
    return None


def _make_annotated(inner: ast.expr, keywords: list[ast.keyword]) -> ast.expr:
    call = ast.Call(func=ast.Name("Field"), args=[], keywords=keywords)
    return ast.Subscript(value=ast.Name("Annotated"), slice=ast.Tuple(elts=[inner, call]))


def split_constraints(annotation: ast.expr) -> ast.expr | None:
    """Rewrite 1 on one annotation; None when it does not apply."""
    parts = _annotated(annotation)
    if parts is None:
        return None
    inner, call = parts
    members = _union_members(inner)
    values = [m for m in members if not _is_none(m)]
    constraints = [k for k in call.keywords if k.arg in CONSTRAINT_KEYWORDS]
    if len(values) == len(members) or not values or not constraints:
        return None
    rest = [k for k in call.keywords if k.arg not in CONSTRAINT_KEYWORDS]
    value = values[0]
    for extra in values[1:]:
        value = ast.BinOp(left=value, op=ast.BitOr(), right=extra)
    nullable = ast.BinOp(
        left=_make_annotated(value, constraints), op=ast.BitOr(), right=ast.Constant(None)
    )
    return _make_annotated(nullable, rest) if rest else nullable


def default_factory(stmt: ast.AnnAssign, classes: set[str]) -> ast.expr | None:
    """Rewrite 2 on one field; returns the new annotation (the ``= value`` is dropped)."""
    parts = _annotated(stmt.annotation)
    if parts is None or not isinstance(stmt.value, (ast.Dict, ast.List)):
        return None
    inner, call = parts
    members = [m for m in _union_members(inner) if not _is_none(m)]
    if len(members) != 1 or not isinstance(members[0], ast.Name) or members[0].id not in classes:
        return None
    factory = ast.Lambda(
        args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=ast.Call(
            func=ast.Attribute(value=ast.Name(members[0].id), attr="model_validate"),
            args=[stmt.value],
            keywords=[],
        ),
    )
    keywords = [k for k in call.keywords if k.arg != "validate_default"]
    keywords.append(ast.keyword(arg="default_factory", value=factory))
    return _make_annotated(inner, keywords)


def imported_names(source: str) -> dict[str, str]:
    """Local name -> ``module.name`` of the ``from module import name`` statements at the
    top of a rendered module (before its first class or alias)."""
    names: dict[str, str] = {}
    for chunk in statements(source):
        if chunk.startswith(("class ", "@")) or _ALIAS.match(chunk):
            break
        if not chunk.startswith("from "):
            continue
        for node in ast.parse(chunk).body:
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _resolve(dotted: str) -> Any:
    """The type ``module.name`` stands for, if it is one a string default must be
    validated into (a format's type from the standard library or pydantic)."""
    module, _, name = dotted.rpartition(".")
    if module not in _NOT_STR_MODULES or dotted in _STR_TYPES:
        return None
    import importlib

    kind = getattr(importlib.import_module(module), name, None)
    return None if kind is None or kind is str else kind


def _accepts(kind: Any, value: str) -> bool:
    import pydantic

    try:
        pydantic.TypeAdapter(kind).validate_python(value)
    except (pydantic.ValidationError, pydantic.PydanticUserError, TypeError):
        return False
    return True


def typed_string_default(stmt: ast.AnnAssign, imported: dict[str, str]) -> Edit | None:
    """Rewrite 4 on one field: the edit of its ``= value`` (and, when the value is dropped,
    of its annotation: the whole statement), or None when it does not apply."""
    value = stmt.value
    if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        return None
    parts = _annotated(stmt.annotation)
    inner = parts[0] if parts else stmt.annotation
    members = [m for m in _union_members(inner) if not _is_none(m)]
    if len(members) != 1 or not isinstance(members[0], ast.Name):
        return None
    kind = _resolve(imported.get(members[0].id, ""))
    if kind is None:
        return None
    if _accepts(kind, value.value):
        return _span(value, f"Field({ast.unparse(value)}, validate_default=True)")
    annotation = stmt.annotation
    if len(_union_members(inner)) == len(members):  # not nullable yet
        nullable = ast.BinOp(left=inner, op=ast.BitOr(), right=ast.Constant(None))
        annotation = _make_annotated(nullable, parts[1].keywords) if parts else nullable
    return _span(stmt, f"{ast.unparse(stmt.target)}: {ast.unparse(annotation)} = None")


def _with_field_import(source: str) -> str:
    """``source`` with ``Field`` imported from pydantic (rewrite 4 may be its first use)."""
    if "Field" in imported_names(source):
        return source
    match = re.search(r"^from pydantic import (\(?)", source, re.MULTILINE)
    if match is None:
        return source.replace("\n\n\n", "\n\nfrom pydantic import Field\n\n\n", 1)
    return source[: match.end()] + "Field, " + source[match.end() :]


def _edits(
    tree: ast.Module, classes: set[str], imported: dict[str, str] | None = None
) -> list[Edit]:
    edits: list[Edit] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if not isinstance(stmt, ast.AnnAssign):
                    continue
                typed = typed_string_default(stmt, imported) if imported else None
                if typed is not None:
                    edits.append(typed)
                    continue
                ann = split_constraints(stmt.annotation) or stmt.annotation
                factory = default_factory(
                    ast.AnnAssign(stmt.target, ann, stmt.value, stmt.simple), classes
                )
                if factory is not None:
                    text = f"{ast.unparse(stmt.target)}: {ast.unparse(factory)}"
                    edits.append(_span(stmt, text))
                elif ann is not stmt.annotation:
                    edits.append(_span(stmt.annotation, ast.unparse(ann)))
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "TypeAliasType"
            and len(node.value.args) == 2
        ):
            target = node.value.args[1]
            new = split_constraints(target)
            undeprecated = _without_deprecated(new if new is not None else target)
            if new is not None or undeprecated is not None:
                edits.append(_span(target, ast.unparse(undeprecated or new or target)))
    return edits


def _without_deprecated(node: ast.expr) -> ast.expr | None:
    """``Annotated[T, Field(..., deprecated=True, ...)]`` without that keyword (``T``
    alone when nothing else is left), or None when there is nothing to remove."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple)):
        return None
    parts = node.slice.elts
    field = parts[-1] if len(parts) == 2 else None
    if not (isinstance(field, ast.Call) and isinstance(field.func, ast.Name)):
        return None
    keep = [k for k in field.keywords if k.arg != "deprecated"]
    if field.func.id != "Field" or len(keep) == len(field.keywords):
        return None
    if not keep and not field.args:
        return parts[0]
    call = ast.Call(field.func, field.args, keep)
    return ast.Subscript(node.value, ast.Tuple([parts[0], call], ast.Load()), ast.Load())


def _span(node: ast.stmt | ast.expr, text: str) -> Edit:
    assert node.end_lineno is not None and node.end_col_offset is not None
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, text)


def _splice(source: str, edits: list[Edit]) -> str:
    """Replace (line, col, end_line, end_col) spans (ast offsets: UTF-8 bytes) with text."""
    if not edits:
        return source
    # lines as the parser counts them (\n, \r\n and a lone \r end a line): str.splitlines
    # would also split at a form feed, U+2028 or U+0085 inside a string literal
    lines = _LINE.findall(source)
    for start, scol, end, ecol, text in sorted(edits, reverse=True):
        first = lines[start - 1].encode()
        last = lines[end - 1].encode()
        lines[start - 1 : end] = [first[:scol].decode() + text + last[ecol:].decode()]
    return "".join(lines)


def _may_need_fix(chunk: str, imported: dict[str, str] | None = None) -> bool:
    return (
        ("None" in chunk and _KEYWORD.search(chunk) is not None)
        or "validate_default=True" in chunk
        or ("deprecated=True" in chunk and "TypeAliasType" in chunk)
        or (bool(imported) and _STRING_DEFAULT.search(chunk) is not None)
    )


def statements(source: str) -> list[str]:
    """``source`` cut before each line that starts a top-level statement (a cut can fall
    inside a multi-line string: parsing that piece fails, and the caller parses it whole)."""
    starts = [m.start() for m in _STATEMENT_START.finditer(source)] + [len(source)]
    chunks = [source[a:b] for a, b in zip(starts, starts[1:]) if b > a]
    if "".join(chunks) != source:  # pragma: no cover - leading indentation: parse it whole
        chunks = [source]
    return chunks


def fix_up(source: str) -> str:
    """The rewrites over a whole module."""
    classes, _aliases = defined_names(source)
    # the imported types a string default may need validating into (rewrite 4)
    imported = {k: v for k, v in imported_names(source).items() if _resolve(v) is not None}
    chunks = statements(source)
    out: list[str] = []
    for chunk in chunks:
        if not _may_need_fix(chunk, imported):
            out.append(chunk)
            continue
        try:
            tree = ast.parse(chunk)
        except SyntaxError:
            # A statement split inside a multi-line string: fall back to the whole module.
            fixed = _splice(source, _edits(ast.parse(source), classes, imported))
            return _with_field_import(fixed) if fixed.count("validate_default=True)") else fixed
        out.append(_splice(chunk, _edits(tree, classes, imported)))
    fixed = "".join(out)
    return _with_field_import(fixed) if "validate_default=True)" in fixed else fixed
