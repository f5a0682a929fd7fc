"""Type annotations for generated code, from IR types (shared by the client and server)."""

from __future__ import annotations

from generator.ir import TypeRef


def annotation(t: TypeRef, models: str, list_name: str = "list") -> str:
    """``t.python_type`` with model names qualified by the ``models`` module alias
    (``models.Message``, ``_m.Message``); ``list_name`` spells ``list`` (a client resource
    class may have a method called ``list``, hence ``builtins.list`` there)."""
    if t.kind == "model":
        inner = f"{models}.{t.name}"
    elif t.kind == "array" and t.prefix_items:
        inner = f"tuple[{', '.join(annotation(i, models, list_name) for i in t.prefix_items)}]"
    elif t.kind == "array":
        inner = f"{list_name}[{annotation(t.items, models, list_name) if t.items else 'Any'}]"
    elif t.kind == "map":
        inner = f"dict[str, {annotation(t.values, models, list_name) if t.values else 'Any'}]"
    elif t.kind == "union":
        inner = " | ".join(annotation(m, models, list_name) for m in t.members)
    else:  # primitive, literal, any, null: no models inside
        return t.python_type
    return f"{inner} | None" if t.nullable else inner
