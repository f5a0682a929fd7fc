"""The docs' types and field tables: ``TypeRef`` as Markdown with links to the models page,
and a row per field or parameter (every cell ready-made, safe Markdown)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from generator.ir import Api, Model, Operation, TypeRef, annotate
from generator.render.docs.text import as_json, cell, code, constraints

MODELS_PAGE = "models-reference.md"  # hyphenated: never a resource page (snake_case)
MAX_OPTIONS = 60  # enum values listed in a table cell (the models page lists all)


def model_anchor(name: str) -> str:
    return f"model-{name}"


def op_anchor(op: Operation) -> str:
    return f"op-{op.python_name}"


# --- types as users read them, with links ----------------------------------------------------


def type_md(t: TypeRef, page: str, *, models: set[str]) -> str:
    """``TypeRef.display`` as Markdown (safe in a table cell): model names link to the
    models page, literal values are code spans, ``|`` is escaped."""

    def link(name: str) -> str:
        if name not in models:
            return name
        anchor = f"#{model_anchor(name)}"
        return f"[{name}]({anchor if page == MODELS_PAGE else MODELS_PAGE + anchor})"

    return annotate.markdown(t, link=link, value=code, plain=cell)


# --- field rows ------------------------------------------------------------------------------


@dataclass
class Row:
    """One row of a parameters or fields table; every cell is ready-made Markdown."""

    name: str
    type: str
    required: str
    default: str
    constraints: str
    description: str
    location: str = ""
    depth: int = 0


FIELD_COLUMNS = ("field", "type", "required", "default", "constraints", "description")
PARAM_COLUMNS = ("name", "in", "type", "required", "default", "constraints", "description")
# shown only when a row of the table has one: most tables have neither, and every empty
# column narrows the description's (docs/pages/stylesheets/extra.css)
SPARSE_COLUMNS = ("default", "constraints")


@dataclass
class Table:
    """A table ready to print: a Markdown line above it (or ""), the column titles and
    each row's cells; ``lines`` are the Markdown table's lines (header, rule, rows)."""

    caption: str
    columns: list[str]
    rows: list[list[str]]

    @property
    def lines(self) -> list[str]:
        rule = "|" + "---|" * len(self.columns)
        return [_line(self.columns), rule, *(_line(cells) for cells in self.rows)]


def _line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _cell_of(row: Row, column: str) -> str:
    if column in ("field", "name"):
        return "↳ " * row.depth + row.name
    return row.location if column == "in" else str(getattr(row, column))


def table(rows: Sequence[Row], columns: Sequence[str] = FIELD_COLUMNS, caption: str = "") -> Table:
    """``rows`` as a table, without the sparse columns that no row fills."""
    shown = [c for c in columns if c not in SPARSE_COLUMNS or any(_cell_of(r, c) for r in rows)]
    return Table(caption, shown, [[_cell_of(r, c) for c in shown] for r in rows])


def required_first(rows: Iterable[Row]) -> list[Row]:
    """Required rows first, each group in spec order (``sorted`` is stable)."""
    return sorted(rows, key=lambda r: r.required != "required")


def _options(api: Api, t: TypeRef) -> tuple[str, list[Any]]:
    """("options" | "const" | "", values) of an enum or const type (or enum model)."""
    base = t
    if t.kind == "model" and t.name:
        try:
            model = api.model(t.name)
        except KeyError:
            return "", []
        if model.kind == "enum":
            return "options", list(model.enum_values)
        return "", []
    if base.kind == "literal":
        if len(base.literals) == 1:
            return "const", list(base.literals)
        return "options", list(base.literals)
    if base.kind == "array" and base.items is not None and base.items.kind == "literal":
        return "options", list(base.items.literals)
    return "", []


def options_md(api: Api, t: TypeRef) -> str:
    kind, values = _options(api, t)
    if kind == "const":
        return f"Allowed value: {code(as_json(values[0]))}"
    if kind == "options":
        shown = ", ".join(code(as_json(v)) for v in values[:MAX_OPTIONS])
        more = f", and {len(values) - MAX_OPTIONS} more" if len(values) > MAX_OPTIONS else ""
        return f"Available options: {shown}{more}"
    return ""


def describe(api: Api, text: str | None, t: TypeRef, extra: Iterable[str] = ()) -> str:
    parts = [cell(text)] if text else []
    opts = options_md(api, t)
    if opts:
        parts.append(opts)
    parts += list(extra)
    return "<br>".join(p for p in parts if p)


def default_md(has: bool, value: Any) -> str:
    return code(as_json(value)) if has else ""


def constraints_md(c: Any) -> str:
    return "<br>".join(code(x) for x in constraints(c))


def child_model(api: Api, t: TypeRef) -> tuple[str, Model] | None:
    """The object model a field holds directly, as an item, or as a map value."""
    suffix = ""
    while t.kind in ("array", "map"):
        inner = t.items if t.kind == "array" else t.values
        if inner is None:
            return None
        suffix += "[]" if t.kind == "array" else "{}"
        t = inner
    if t.kind != "model" or not t.name:
        return None
    try:
        model = api.model(t.name)
    except KeyError:
        return None
    return (suffix, model) if model.kind == "object" and model.fields else None


def field_rows(
    api: Api,
    model: Model,
    page: str,
    models: set[str],
    *,
    nested: int = 0,
    _prefix: str = "",
    _depth: int = 0,
    _seen: tuple[str, ...] = (),
) -> list[Row]:
    """A row per field, required fields first (then spec order); with ``nested`` > 0, the
    fields of object-typed fields follow their parent (``parent.child``), down to
    ``nested`` levels (child attributes)."""
    rows: list[Row] = []
    for f in sorted(model.fields, key=lambda f: not f.required):
        name = _prefix + f.name
        extra = []
        if f.python_name != f.name:
            extra.append(f"Python name: {code(f.python_name)}")
        if f.deprecated:
            extra.append("Deprecated.")
        if f.read_only:
            extra.append("Read-only.")
        if f.write_only:
            extra.append("Write-only.")
        rows.append(
            Row(
                name=code(name),
                type=type_md(f.type, page, models=models),
                required="required" if f.required else "",
                default=default_md(f.has_default, f.default),
                constraints=constraints_md(f.constraints),
                description=describe(api, f.description, f.type, extra),
                depth=_depth,
            )
        )
        child = child_model(api, f.type) if _depth < nested else None
        if child is not None and child[1].name not in _seen:
            suffix, sub = child
            rows += field_rows(
                api,
                sub,
                page,
                models,
                nested=nested,
                _prefix=f"{name}{suffix}.",
                _depth=_depth + 1,
                _seen=(*_seen, model.name),
            )
    return rows


# --- the tables of a body ---------------------------------------------------------------------


def _unaliased(api: Api, t: TypeRef) -> TypeRef:
    """``t`` with alias models replaced by what they alias (a discriminator kept)."""
    seen: set[str] = set()
    while t.kind == "model" and t.name and t.name not in seen:
        seen.add(t.name)
        try:
            model = api.model(t.name)
        except KeyError:
            break
        if model.kind != "alias" or model.root is None:
            break
        root = model.root
        if model.discriminator is not None and root.discriminator is None:
            root = replace(root, discriminator=model.discriminator)
        t = root
    return t


def _each(suffix: str) -> str:
    """``[]{}`` (an array of maps of ...) -> "each value of each item"."""
    words = ["item" if suffix[i : i + 2] == "[]" else "value" for i in range(0, len(suffix), 2)]
    return " of ".join(f"each {w}" for w in reversed(words))


def _peel(api: Api, t: TypeRef) -> tuple[str, TypeRef]:
    """(``[]``/``{}`` per array or map level, what they hold), aliases read through."""
    suffix = ""
    t = _unaliased(api, t)
    seen: set[int] = set()  # an alias may hold itself (``Tree = list[Tree]``)
    while t.kind in ("array", "map") and not t.prefix_items and id(t) not in seen:
        seen.add(id(t))
        inner = t.items if t.kind == "array" else t.values
        if inner is None:
            break
        suffix += "[]" if t.kind == "array" else "{}"
        t = _unaliased(api, inner)
    return suffix, t


def _declared_tag(model: Model, prop: str, tag: str) -> Any:
    """A variant's tag as the model declares it (``restore: false``), else the mapping's
    key (always a string)."""
    for f in model.fields:
        if f.name == prop and f.type.kind == "literal" and len(f.type.literals) == 1:
            return f.type.literals[0]
    return tag


def body_tables(api: Api, t: TypeRef, page: str, models: set[str]) -> list[Table]:
    """The field tables of a request or response body of type ``t``: an object model's
    fields; for an array or a map of objects, those of each item or value; for a union
    (or an alias of one), a table per object member, captioned with it and its tag."""
    outer, t = _peel(api, t)
    union = t.kind == "union" and len(t.members) > 1
    members = t.members if t.kind == "union" else (t,)
    tags = {n: tag for tag, n in t.discriminator.mapping.items()} if t.discriminator else {}
    out: list[Table] = []
    for member in members:
        inner, held = _peel(api, member)
        child = child_model(api, held)
        if child is None:
            continue
        model = child[1]
        link = type_md(TypeRef(kind="model", name=model.name), page, models=models)
        words = []
        if union:
            when = ""
            if t.discriminator is not None and model.name in tags:
                prop = t.discriminator.property_name
                tag = _declared_tag(model, prop, tags[model.name])
                when = f" (when {code(prop)} is {code(as_json(tag))})"
            lead = f"{_each(outer)}: variant" if outer else "variant"
            words.append(f"{lead} {type_md(member, page, models=models)}{when}")
            if inner:
                words.append(f"{_each(inner)} is of type {link}")
        elif outer + inner:
            words.append(f"{_each(outer + inner)} is of type {link}")
        caption = "; ".join(words)
        caption = caption[:1].upper() + caption[1:] + ":" if caption else ""
        out.append(table(field_rows(api, model, page, models, nested=1), caption=caption))
    return out
