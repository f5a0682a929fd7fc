"""The model reference graph: which models a type names, and the cycles among models."""

from __future__ import annotations

from collections.abc import Mapping

from generator.ir import Model, TypeRef


def referenced(t: TypeRef) -> frozenset[str]:
    """The models ``t`` names directly (discriminator mappings included)."""
    found: set[str] = set()
    for sub in t.walk():
        if sub.kind == "model" and sub.name is not None:
            found.add(sub.name)
        if sub.discriminator is not None:
            found.update(sub.discriminator.mapping.values())
    return frozenset(found)


def _edges(model: Model) -> list[str]:
    names: set[str] = set()
    for f in model.fields:
        names |= referenced(f.type)
    if model.root is not None:
        names |= referenced(model.root)
    if model.discriminator is not None:
        names.update(model.discriminator.mapping.values())
    return sorted(names)


def cyclic_components(models: Mapping[str, Model]) -> dict[str, frozenset[str]]:
    """Model name -> the models it reaches and that reach it (itself included), for the
    models on a cycle only (Tarjan's algorithm, iterative: specs may nest deeply)."""
    graph = {name: [n for n in _edges(m) if n in models] for name, m in models.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: dict[str, frozenset[str]] = {}
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            edges = graph[node]
            if i < len(edges):
                work.append((node, i + 1))
                nxt = edges[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    members = frozenset(component)
                    out.update(dict.fromkeys(component, members))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return out
