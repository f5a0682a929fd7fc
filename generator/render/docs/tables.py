"""The docs' types and field tables: ``TypeRef`` as Markdown with links to the models page,
and a row per field or parameter (every cell ready-made, safe Markdown)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from generator.ir import Api, Model, Operation, TypeRef
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
    shown = _type_md(t, page, models)
    if t.nullable and t.kind not in ("any", "null"):
        shown += " \\| null"
    return shown


def _group(text: str) -> str:
    return f"({text})" if " \\| " in text else text


def _type_md(t: TypeRef, page: str, models: set[str]) -> str:
    if t.kind == "model":
        name = t.name or "any"
        if name in models:
            target = (
                f"#{model_anchor(name)}"
                if page == MODELS_PAGE
                else f"{MODELS_PAGE}#{model_anchor(name)}"
            )
            return f"[{name}]({target})"
        return name
    if t.kind == "array":
        if t.prefix_items:
            return (
                "tuple [" + ", ".join(type_md(m, page, models=models) for m in t.prefix_items) + "]"
            )
        return f"array of {_group(type_md(t.items, page, models=models))}" if t.items else "array"
    if t.kind == "map":
        return f"map of {_group(type_md(t.values, page, models=models))}" if t.values else "object"
    if t.kind == "union":
        return " \\| ".join(type_md(m, page, models=models) for m in t.members)
    if t.kind == "literal":
        return " \\| ".join(code(as_json(v)) for v in t.literals)
    if t.kind == "primitive":
        return _display_plain(t)
    return "null" if t.kind == "null" else "any"


def _display_plain(t: TypeRef) -> str:
    plain = TypeRef(kind=t.kind, primitive=t.primitive, format=t.format)
    return cell(plain.display)


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
    """A row per field; with ``nested`` > 0, the fields of object-typed fields follow their
    parent (``parent.child``), down to ``nested`` levels (child attributes)."""
    rows: list[Row] = []
    for f in model.fields:
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
