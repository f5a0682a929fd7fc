"""The docs' models page (every model, with notes, field tables and the operations that use
it) and the Mermaid diagram of the index."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from generator.ir import Api, TypeRef
from generator.normalize.diagnostics import Diagnostic
from generator.render.docs.operations import ResourceDoc
from generator.render.docs.tables import (
    MODELS_PAGE,
    Table,
    Tables,
    model_anchor,
    table,
    values_md,
)
from generator.render.docs.text import as_json, code, markdown

DIAGRAM_NODES = 14


@dataclass
class ModelDoc:
    name: str
    anchor: str
    kind: str
    description: str
    notes: list[str]
    table: Table | None  # objects with fields
    options: str  # an enum's values (``values_md``: Markdown, the first few on a line)
    type: str
    used_by: str  # links to the operations that use the model, comma-separated


def _merges_and_renames(
    diagnostics: Sequence[Diagnostic],
) -> tuple[dict[str, list[str]], dict[str, str]]:
    """(model -> the spec's names merged into it, model -> its name in the spec)."""
    merged: dict[str, list[str]] = {}
    renamed: dict[str, str] = {}
    for d in diagnostics:
        if not d.pointer.startswith("#/components/schemas/") and d.pass_name != "defs":
            continue
        if d.kind == "merge" and d.old and d.new:
            merged.setdefault(d.new, []).append(d.old)
        elif d.kind == "rename" and d.old and d.new and d.pointer.count("/") <= 3:
            renamed[d.new] = d.old
    return merged, renamed


def _used_by(resources: Sequence[ResourceDoc]) -> dict[str, list[str]]:
    """Model name -> links to the operations whose body or responses use it."""
    used: dict[str, list[str]] = {}
    for res in resources:
        for o in res.ops:
            names: list[str] = []
            if o.op.request_body is not None:
                names += o.op.request_body.schema.model_names()
            for r in o.op.responses:
                if r.schema is not None:
                    names += r.schema.model_names()
            for n in dict.fromkeys(names):
                link = f"[{code(o.call)}]({o.page}#{o.anchor})"
                used.setdefault(n, []).append(link)
    return used


def build_model_docs(
    tables: Tables, resources: Sequence[ResourceDoc], diagnostics: Sequence[Diagnostic]
) -> list[ModelDoc]:
    api = tables.api
    merged, renamed = _merges_and_renames(diagnostics)
    used = _used_by(resources)
    out: list[ModelDoc] = []
    for m in api.models:
        notes = []
        if m.name in merged:
            olds = ", ".join(code(o) for o in sorted(merged[m.name]))
            notes.append(
                f"Merged: the spec defines {olds}; they are the same schema, so they are one "
                "model here."
            )
        if m.name in renamed:
            notes.append(f"Named {code(renamed[m.name])} in the spec.")
        aliased = [f for f in m.fields if f.python_name != f.name]
        if aliased:
            pairs = ", ".join(f"{code(f.name)} → {code(f.python_name)}" for f in aliased)
            notes.append(
                f"Aliased fields: {pairs}. The wire name is the JSON key; in Python the field "
                "is the second name, and either name is accepted when building the model."
            )
        if m.deprecated:
            notes.append("Deprecated.")
        if m.discriminator is not None:
            notes.append(
                f"Tagged union on {code(m.discriminator.property_name)}: "
                + ", ".join(
                    f"{code(as_json(tag))} → {tables.link(n, MODELS_PAGE)}"
                    for tag, n in m.discriminator.mapping.items()
                )
            )
        rows = tables.field_rows(m, MODELS_PAGE) if m.kind == "object" else []
        fields = table(rows) if rows else None
        options = values_md("Available options", m.enum_values) if m.kind == "enum" else ""
        type_text = tables.type_md(m.root, MODELS_PAGE) if m.root is not None else ""
        out.append(
            ModelDoc(
                name=m.name,
                anchor=model_anchor(m.name),
                kind=m.kind,
                description=markdown(m.description, 3),
                notes=notes,
                table=fields,
                options=options,
                type=type_text,
                used_by=", ".join(used.get(m.name, [])),
            )
        )
    return out


def _refs(api: Api, name: str) -> list[tuple[str, str]]:
    """(python field name, model name) of the object models a model's fields hold."""
    model = api.model(name)
    out = []
    for f in model.fields:
        for n in f.type.model_names():
            out.append((f.python_name, n))
    return out


def diagram(api: Api) -> str:
    """A Mermaid class diagram of the main models: the request and response models used by
    the most operations, the models their fields hold, and those links."""
    count: dict[str, int] = {}
    for op in api.operations:
        types: list[TypeRef] = []
        if op.request_body is not None:
            types.append(op.request_body.schema)
        ok = op.success_response
        if ok is not None and ok.schema is not None:
            types.append(ok.schema)
        for t in types:
            for n in t.model_names():
                count[n] = count.get(n, 0) + 1
    objects = {m.name for m in api.models if m.kind == "object" and m.fields}
    ranked = sorted((n for n in count if n in objects), key=lambda n: (-count[n], n))
    chosen = ranked[: DIAGRAM_NODES // 2]
    for name in list(chosen):
        for _, n in _refs(api, name):
            if n in objects and n not in chosen and len(chosen) < DIAGRAM_NODES:
                chosen.append(n)
    if not chosen:
        return ""
    ident = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
    lines = ["classDiagram"]
    for name in sorted(chosen):
        if ident.match(name):
            lines.append(f"    class {name}")
    edges = set()
    for name in sorted(chosen):
        for fname, target in _refs(api, name):
            if target in chosen and target != name and ident.match(name) and ident.match(target):
                label = fname if ident.match(fname) else ""
                edges.add((name, target, label))
    for a, b, label in sorted(edges):
        lines.append(f"    {a} --> {b}" + (f" : {label}" if label else ""))
    return "\n".join(lines)
