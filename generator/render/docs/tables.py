"""The docs' types and field tables: ``TypeRef`` as Markdown with links to the models page,
and a row per field or parameter (every cell ready-made, safe Markdown).

:class:`Tables` computes them for one render of the docs, each once: the same models' fields
are tabled for every operation that sends or returns them, and the same types spelled in
every table. It holds what it computed until the render drops it (never longer: one process
may generate several APIs)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from generator.ir import Api, Field, Model, Operation, TypeRef, annotate
from generator.render.docs.text import as_json, cell, code, constraints, markdown, pre

MODELS_PAGE = "models-reference.md"  # hyphenated: never a resource page (snake_case)
MAX_SHOWN = 8  # enum values listed before a "N more" details block
LONG_DEFAULT = 60  # a default this long is collapsed


def model_anchor(name: str) -> str:
    return f"model-{name}"


def op_anchor(op: Operation) -> str:
    return f"op-{op.python_name}"


def _memoized(fn: Callable[[str], str]) -> Callable[[str], str]:
    """``fn`` (a pure function of a string), remembering each result."""
    memo: dict[str, str] = {}

    def get(text: str) -> str:
        found = memo.get(text)
        if found is None:
            found = memo[text] = fn(text)
        return found

    return get


# --- field rows ------------------------------------------------------------------------------


@dataclass
class Row:
    """One field or parameter; every part is ready-made Markdown: ``name`` and ``type``
    inline, ``default`` (``default_md``) and ``constraints`` (``constraints_md``) inline or
    a ready block, ``description`` block Markdown. ``depth`` > 0: a field of the field
    before it (of ``depth`` - 1), under a collapsible ``children`` line."""

    name: str
    type: str
    required: str
    default: str
    constraints: str
    description: str
    location: str = ""
    depth: int = 0
    children: str = ""  # the summary line of its own fields (rows of depth + 1 after it)


FIELD_COLUMNS = ("field", "type", "required", "default", "constraints", "description")
PARAM_COLUMNS = ("name", "in", "type", "required", "default", "constraints", "description")


@dataclass
class Table:
    """Fields or parameters ready to print, one block each (the seed page's order: name,
    type, badges for where/required/default/constraints, then the description), as HTML
    whose Markdown ``md_in_html`` renders: a Markdown line above them (or ""), then
    ``lines``. ``columns`` names the parts shown (``in`` for parameters)."""

    caption: str
    columns: list[str]
    rows: list[Row]

    @property
    def lines(self) -> list[str]:
        return blocks(self.rows, "in" in self.columns)


def _badge(text: str, kind: str) -> str:
    return f'<span class="api-badge api-{kind}">{text}</span>'


def _head(row: Row, location: bool) -> str:
    """The line of a field: its name, type and badges (inline Markdown)."""
    parts = [f'<span class="api-name">{row.name}</span>']
    if row.type:
        parts.append(f'<span class="api-type">{row.type}</span>')
    if location and row.location:
        parts.append(_badge(row.location, "in"))
    if row.required:
        parts.append(_badge(row.required, "required"))
    if row.default and not row.default.startswith("<details"):
        parts.append(_badge(f"default {row.default}", "default"))
    parts += [_badge(c, "constraint") for c in row.constraints.split("<br>") if c]
    return '<p class="api-head" markdown="span">' + " ".join(parts) + "</p>"


def blocks(rows: Sequence[Row], location: bool = False) -> list[str]:
    """The HTML lines of ``rows`` (see ``Table``): a ``div.api-field`` each, a row's own
    fields (the rows of greater depth after it) indented in a ``details`` inside it."""
    out = ['<div class="api-fields" markdown="1">']
    depth = 0
    for i, row in enumerate(rows):
        while depth > row.depth:  # close the fields of the rows above
            out += ["</div>", "</details>", "</div>"]
            depth -= 1
        out += ['<div class="api-field" markdown="1">', _head(row, location)]
        desc = [row.default] if row.default.startswith("<details") else []
        desc += [row.description] if row.description else []
        if desc:
            out += ['<div class="api-desc" markdown="1">', "", *desc, "", "</div>"]
        after = rows[i + 1].depth if i + 1 < len(rows) else 0
        if after > row.depth:
            summary = row.children or "Fields"
            out += [
                '<details class="api-children" markdown="1">',
                f'<summary markdown="span">{summary}</summary>',
                '<div class="api-fields" markdown="1">',
            ]
            depth += 1
        else:
            out.append("</div>")
    while depth > 0:
        out += ["</div>", "</details>", "</div>"]
        depth -= 1
    out.append("</div>")
    return out


def table(rows: Sequence[Row], columns: Sequence[str] = FIELD_COLUMNS, caption: str = "") -> Table:
    """``rows`` as blocks (``Table``)."""
    return Table(caption, list(columns), list(rows))


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


def values_md(lead: str, values: Sequence[Any]) -> str:
    """``lead: `a`, `b`, ...`` as Markdown: the first ``MAX_SHOWN`` values, the rest in a
    collapsed ``details`` block ("N more") beneath."""
    shown = f"{lead}: " + ", ".join(code(as_json(v)) for v in values[:MAX_SHOWN])
    rest = values[MAX_SHOWN:]
    if not rest:
        return shown
    more = ", ".join(code(as_json(v)) for v in rest)
    return "\n\n".join(
        [
            shown,
            '<details class="api-more" markdown="1">',
            f"<summary>{len(rest)} more</summary>",
            more,
            "</details>",
        ]
    )


def options_md(api: Api, t: TypeRef) -> str:
    """The values of an enum (or enum model) or const type, listed once: its type line
    names only their kind (``Tables.type_md``)."""
    kind, values = _options(api, t)
    if kind == "const":
        return f"Allowed value: {code(as_json(values[0]))}"
    if kind == "options":
        return values_md("Available options", values)
    return ""


def default_md(has: bool, value: Any) -> str:
    """A default as a code span; one over ``LONG_DEFAULT`` characters as a ``details``
    block (its start as the summary, the value as a scrolling code block beneath)."""
    if not has:
        return ""
    text = as_json(value)
    if len(text) <= LONG_DEFAULT:
        return code(text)
    return "\n\n".join(
        [
            '<details class="api-more" markdown="1">',
            f'<summary markdown="span">Default: {code(text[: LONG_DEFAULT - 3] + "...")}</summary>',
            pre(as_json(value, 2)),
            "</details>",
        ]
    )


def constraints_md(c: Any) -> str:
    return "<br>".join(code(x) for x in constraints(c)) if c else ""


def _enum_type(api: Api, t: TypeRef) -> str:
    """The type line of a literal type, or an array of one, whose values ``options_md``
    lists: their kind (``string enum``), not the values; else ""."""
    kind, values = _options(api, t)
    if not kind or t.kind == "model":
        return ""
    text = _values_kind(values) + (" enum" if kind == "options" else "")
    if t.kind == "array":
        text = annotate.DISPLAY.array(text, set())  # "array of string enum"
    return text + (" \\| null" if t.nullable else "")


def _values_kind(values: Sequence[Any]) -> str:
    """The JSON type of literal values (``string``), for a type line that does not list
    them (``options_md`` does)."""
    kinds = {
        "boolean"
        if isinstance(v, bool)
        else "integer"
        if isinstance(v, int)
        else "number"
        if isinstance(v, float)
        else "string"
        if isinstance(v, str)
        else "any"
        for v in values
    }
    return kinds.pop() if len(kinds) == 1 else "any"


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


# --- one render's tables ----------------------------------------------------------------------


class Tables:
    """The types, rows and tables of one render of the docs, each computed once (see the
    module's docstring). A type's Markdown depends on the page only through its links
    (relative on the models page), so it is kept once for the models page and once for the
    others; so are a model's rows and tables."""

    def __init__(self, api: Api) -> None:
        self.api = api
        self.models = {m.name for m in api.models}
        self.cell = _memoized(cell)  # a spec text is often the same in many places
        self.prose = _memoized(lambda text: markdown(text, 5))
        self._value = _memoized(code)
        # keyed by id(): a TypeRef is not hashable; it is kept beside its result, so the id
        # is never reused while the key is in use
        self._types: dict[tuple[int, bool], tuple[TypeRef, str]] = {}
        self._options: dict[int, tuple[TypeRef, str]] = {}
        self._fields: dict[int, tuple[Field, tuple[str, str, str]]] = {}
        self._rows: dict[tuple[str, bool, int], list[Row]] = {}
        self._tables: dict[tuple[str, bool], Table] = {}

    def link(self, name: str, page: str) -> str:
        """A model name, linked to the models page if there is such a model."""
        if name not in self.models:
            return name
        anchor = f"#{model_anchor(name)}"
        return f"[{name}]({anchor if page == MODELS_PAGE else MODELS_PAGE + anchor})"

    def type_md(self, t: TypeRef, page: str) -> str:
        """``TypeRef.display`` as Markdown (safe in a table cell): model names link to the
        models page, literal values are code spans, ``|`` is escaped."""
        key = (id(t), page == MODELS_PAGE)
        found = self._types.get(key)
        if found is None:
            text = _enum_type(self.api, t)
            if not text:
                text = annotate.markdown(
                    t, link=lambda name: self.link(name, page), value=self._value, plain=self.cell
                )
            found = self._types[key] = (t, text)
        return found[1]

    def describe(self, text: str | None, t: TypeRef, extra: Iterable[str] = ()) -> str:
        parts = [self.prose(text)] if text else []
        found = self._options.get(id(t))
        if found is None:
            found = self._options[id(t)] = (t, options_md(self.api, t))
        opts = found[1]
        if opts:
            parts.append(opts)
        parts += list(extra)
        return "\n\n".join(p for p in parts if p)

    def field_rows(self, model: Model, page: str, *, nested: int = 0) -> list[Row]:
        """A row per field, required fields first (then spec order); with ``nested`` > 0,
        the fields of object-typed fields follow their parent (``parent.child``), down to
        ``nested`` levels (child attributes). The list is shared: do not change it."""
        key = (model.name, page == MODELS_PAGE, nested)
        if key not in self._rows:
            self._rows[key] = self._field_rows(model, page, nested, "", 0, ())
        return self._rows[key]

    def _field_rows(
        self, model: Model, page: str, nested: int, prefix: str, depth: int, seen: tuple[str, ...]
    ) -> list[Row]:
        rows: list[Row] = []
        for f in sorted(model.fields, key=lambda f: not f.required):
            name = prefix + f.name
            default, constraints, description = self._field_cells(f)
            child = child_model(self.api, f.type) if depth < nested else None
            rows.append(
                Row(
                    name=code(f.name),
                    type=self.type_md(f.type, page),
                    required="required" if f.required else "",
                    default=default,
                    constraints=constraints,
                    description=description,
                    depth=depth,
                    children=f"Fields of {code(name + child[0])}" if child else "",
                )
            )
            if child is not None and child[1].name not in seen:
                suffix, sub = child
                rows += self._field_rows(
                    sub, page, nested, f"{name}{suffix}.", depth + 1, (*seen, model.name)
                )
        return rows

    def _field_cells(self, f: Field) -> tuple[str, str, str]:
        """A field's default, constraints and description cells (the same on every page)."""
        found = self._fields.get(id(f))
        if found is None:
            extra = []
            if f.python_name != f.name:
                extra.append(f"Python name: {code(f.python_name)}")
            if f.deprecated:
                extra.append("Deprecated.")
            if f.read_only:
                extra.append("Read-only.")
            if f.write_only:
                extra.append("Write-only.")
            cells = (
                default_md(f.has_default, f.default),
                constraints_md(f.constraints),
                self.describe(f.description, f.type, extra),
            )
            found = self._fields[id(f)] = (f, cells)
        return found[1]

    def _fields_table(self, model: Model, page: str) -> Table:
        """A body's table of ``model``'s fields and their children's, without a caption."""
        key = (model.name, page == MODELS_PAGE)
        if key not in self._tables:
            self._tables[key] = table(self.field_rows(model, page, nested=1))
        return self._tables[key]

    def body_tables(self, t: TypeRef, page: str) -> list[Table]:
        """The field tables of a request or response body of type ``t``: an object model's
        fields; for an array or a map of objects, those of each item or value; for a union
        (or an alias of one), a table per object member, captioned with it and its tag."""
        api = self.api
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
            link = self.link(model.name, page)
            words = []
            if union:
                when = ""
                if t.discriminator is not None and model.name in tags:
                    prop = t.discriminator.property_name
                    tag = _declared_tag(model, prop, tags[model.name])
                    when = f" (when {code(prop)} is {code(as_json(tag))})"
                lead = f"{_each(outer)}: variant" if outer else "variant"
                words.append(f"{lead} {self.type_md(member, page)}{when}")
                if inner:
                    words.append(f"{_each(inner)} is of type {link}")
            elif outer + inner:
                words.append(f"{_each(outer + inner)} is of type {link}")
            caption = "; ".join(words)
            caption = caption[:1].upper() + caption[1:] + ":" if caption else ""
            out.append(replace(self._fields_table(model, page), caption=caption))
        return out
