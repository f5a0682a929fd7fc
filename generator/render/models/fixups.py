"""Fix-ups applied to datamodel-code-generator's output, as source-to-source rewrites.

1. Constraints on nullable values move inside: DCG's
   ``Annotated[float | None, Field(gt=0, le=1, description=...)]`` becomes
   ``Annotated[Annotated[float, Field(gt=0, le=1)] | None, Field(description=...)]``, so a
   constraint (or a discriminator) visibly applies to the value, never to ``None``.
2. A model-typed field whose default is a dict or list literal gets
   ``default_factory=lambda: M.model_validate({...})``: a dict is no ``M`` to a type checker.
3. A type alias loses ``deprecated=True`` from its ``Field``: pydantic honours it only on a
   model field, and warns at import time anywhere else (the IR and the docs still say so).

Only the top-level statements that may need a rewrite are parsed: one ``ast.parse`` of a
whole 8,000-line module costs more than all the rest of this stage. A changed annotation is
re-printed with ``ast.unparse`` and spliced in by its span; ruff formats it afterwards.
"""

from __future__ import annotations

import ast
import re

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


def _edits(tree: ast.Module, classes: set[str]) -> list[Edit]:
    edits: list[Edit] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if not isinstance(stmt, ast.AnnAssign):
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


def _may_need_fix(chunk: str) -> bool:
    return (
        ("None" in chunk and _KEYWORD.search(chunk) is not None)
        or "validate_default=True" in chunk
        or ("deprecated=True" in chunk and "TypeAliasType" in chunk)
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
    chunks = statements(source)
    out: list[str] = []
    for chunk in chunks:
        if not _may_need_fix(chunk):
            out.append(chunk)
            continue
        try:
            tree = ast.parse(chunk)
        except SyntaxError:
            # A statement split inside a multi-line string: fall back to the whole module.
            return _splice(source, _edits(ast.parse(source), classes))
        out.append(_splice(chunk, _edits(tree, classes)))
    return "".join(out)
