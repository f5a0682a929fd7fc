"""Request bodies that are unions of object models: their fields as keyword arguments
(scale-gp's ``c.evaluations.update("e1", name="x")``), where that is unambiguous; and
urlencoded bodies."""

from __future__ import annotations

from dataclasses import replace

from generator.ir import Api, Field, Model, Operation, TypeRef, annotate
from generator.media import media_base


def union_fields(api: Api, schema: TypeRef) -> list[Field] | None:
    """The fields a union body of object models takes as keyword arguments, where that is
    unambiguous: a field's Python name is the same in every member that has it. A field
    whose type differs by member takes any of them (the union's tag: all its members'
    values), and is required only when every member requires it. None for any other
    body (the server tells the members apart, as it does for a ``body=`` model)."""
    t = schema
    if t.kind == "model" and t.name:
        model = api.model(t.name)
        t = model.root if model.kind != "object" and model.root is not None else t
    if t.kind != "union" or len(t.members) < 2 or t.nullable:
        return None
    models = [api.model(m.name) for m in t.members if m.kind == "model" and m.name]
    if len(models) != len(t.members) or any(m.kind != "object" or not m.fields for m in models):
        return None
    merged: dict[str, Field] = {}
    for m in models:
        for f in m.fields:
            seen = merged.get(f.name)
            if seen is None:
                merged[f.name] = f
            elif f.python_name != seen.python_name:
                return None
            elif _spelled(seen.type) != _spelled(f.type):  # either type is accepted
                merged[f.name] = replace(seen, type=_either(seen.type, f.type))
    everywhere = {n for n in merged if all(any(f.name == n for f in m.fields) for m in models)}
    return [
        replace(f, required=f.name in everywhere and all(_requires(m, f.name) for m in models))
        for f in merged.values()
    ]


def _requires(model: Model, name: str) -> bool:
    return any(f.name == name and f.required for f in model.fields)


def _either(a: TypeRef, b: TypeRef) -> TypeRef:
    """A type taking the values of ``a`` and of ``b`` (literals merged, unions flattened)."""
    if a.kind == b.kind == "literal":
        return replace(a, literals=tuple(dict.fromkeys((*a.literals, *b.literals))))
    members: list[TypeRef] = []
    for t in (a, b):
        for m in t.members if t.kind == "union" and t.discriminator is None else (t,):
            if all(_spelled(m) != _spelled(x) for x in members):
                members.append(replace(m, nullable=False))
    return TypeRef("union", members=tuple(members), nullable=a.nullable or b.nullable)


def _spelled(t: TypeRef) -> str:
    return annotate.python(t, module="_m")


def urlencoded(op: Operation) -> bool:
    """Whether the body's preferred media type is an urlencoded form (the client sends its
    fields as such)."""
    body = op.request_body
    return body is not None and media_base(body.content_type) == "application/x-www-form-urlencoded"
