"""The input types of the client's methods: which models a request can send, their
``TypedDict`` names in ``_params.py``, and how a parameter of a type is spelled so that it
also takes plain dicts (``Iterable[_p.ChatMessageParam]``). Shared by the client (which
renders ``_params.py``: :mod:`generator.render.client.params`) and the methods'
signatures (:mod:`generator.render.surface.methods`); see the former for the rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from generator.ir import Api, Model, TypeRef, annotate

PARAMS_MODULE = "_params"  # the module's name in the package
PARAMS_ALIAS = "_p"  # how the client imports it
PARAMS_IMPORT = f"from . import {PARAMS_MODULE} as {PARAMS_ALIAS}"
# In an ``input_imports`` set: the annotation uses ``_p.`` (the client then needs
# ``PARAMS_IMPORT``); every other entry is a ``module.name`` as ``annotation_imports`` gives.
USES_PARAMS = PARAMS_MODULE
USES_MODELS = "models"  # in a set of needs: the text refers to ``_m`` (filtered out)
MODELS_ALIAS = "_m"
SUFFIX = "Param"
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')  # a string literal of an annotation (``Literal``)


# --- which models, and their names -----------------------------------------------------------


@dataclass(frozen=True)
class ParamNames:
    """The input types of an API: model name -> the name of its ``TypedDict`` (objects with
    fields) or ``TypeAlias`` (aliases reaching an object); ``empty``: the object models
    without fields, taken as ``dict[str, Any] | _m.X``. Models in none of them are taken
    as ``models.py`` declares them."""

    typed_dicts: dict[str, str]
    aliases: dict[str, str]
    empty: frozenset[str]

    def involves(self, t: TypeRef) -> bool:
        """Whether ``t``'s input type differs from its argument annotation."""
        return any(self.special(n) for n in t.model_names())

    def special(self, model: str) -> bool:
        return model in self.typed_dicts or model in self.aliases or model in self.empty

    def __bool__(self) -> bool:
        return bool(self.typed_dicts or self.aliases)


def input_roots(api: Api) -> Iterator[TypeRef]:
    """The types a request sends: every media type of every body, query and header
    parameters."""
    for op in api.operations:
        for p in op.parameters:
            if p.location in ("query", "header"):
                yield p.schema
        if op.request_body is not None:
            yield op.request_body.schema
            yield from (m.schema for m in op.request_body.content)


def _sub_types(model: Model) -> Iterator[TypeRef]:
    if model.kind == "object":
        yield from (f.type for f in model.fields)
    elif model.root is not None:
        yield model.root


def reachable(api: Api) -> list[Model]:
    """The models a request can send, in IR order."""
    known = {m.name for m in api.models}
    seen: set[str] = set()
    stack = [n for t in input_roots(api) for n in t.model_names()]
    while stack:
        name = stack.pop()
        if name in seen or name not in known:
            continue
        seen.add(name)
        stack.extend(n for t in _sub_types(api.model(name)) for n in t.model_names())
    return [m for m in api.models if m.name in seen]


def _reaching_objects(models: list[Model]) -> set[str]:
    """The object models, and the aliases that reach one (through other aliases too)."""
    found = {m.name for m in models if m.kind == "object"}
    aliases = [m for m in models if m.kind == "alias" and m.root is not None]
    changed = True
    while changed:
        changed = False
        for m in aliases:
            if m.name not in found and m.root and any(n in found for n in m.root.model_names()):
                found.add(m.name)
                changed = True
    return found


def param_names(api: Api) -> ParamNames:
    """The input types of ``api`` and their names (see the module's docstring)."""
    models = reachable(api)
    special = _reaching_objects(models)
    taken = {m.name for m in api.models}
    typed_dicts: dict[str, str] = {}
    aliases: dict[str, str] = {}
    empty: set[str] = set()
    for m in models:
        if m.name not in special:
            continue
        if m.kind == "object" and not m.fields:
            empty.add(m.name)
            continue
        name, k = f"{m.name}{SUFFIX}", 2
        while name in taken:
            name, k = f"{m.name}{SUFFIX}{k}", k + 1
        taken.add(name)
        (typed_dicts if m.kind == "object" else aliases)[m.name] = name
    return ParamNames(typed_dicts, aliases, frozenset(empty))


# --- spelling input types --------------------------------------------------------------------


@dataclass(frozen=True)
class Spelling:
    names: ParamNames
    params: str  # prefix of an input type's name: "_p." in the client, "" in _params.py
    models: str  # the models module: "_m"
    list_name: str  # how ``list`` is spelled (``builtins.list`` in the client)

    def plain(self, t: TypeRef, needs: set[str]) -> str:
        python = annotate.Python("argument", self.models, self.list_name)
        if t.model_names():
            needs.add(USES_MODELS)
        return annotate.spell(t, python, needs)

    def model(self, name: str, needs: set[str]) -> list[str]:
        """A model's input type, as union members."""
        needs.add(USES_MODELS)
        if name in self.names.typed_dicts:
            needs.add(USES_PARAMS)
            return [f"{self.params}{self.names.typed_dicts[name]}", f"{self.models}.{name}"]
        if name in self.names.aliases:
            needs.add(USES_PARAMS)
            return [f"{self.params}{self.names.aliases[name]}"]
        if name in self.names.empty:
            needs.add("typing.Any")
            return ["dict[str, Any]", f"{self.models}.{name}"]
        return [f"{self.models}.{name}"]


# An input union of more members is taken as ``Any``: Microsoft Graph has a property
# whose type is any of 1,545 models (3,089 input members), which neither Python's compiler
# (``A | B | ...`` nests one level a member) nor ruff (its stack) gets through.
MAX_UNION_MEMBERS = 200


def spell_members(t: TypeRef, s: Spelling, needs: set[str]) -> list[str]:
    """``t``'s input type as union members (``None`` last when nullable; a union of more
    than :data:`MAX_UNION_MEMBERS` members is ``Any``)."""
    if not s.names.involves(t):
        return [s.plain(t, needs)]
    if t.kind == "model" and t.name:
        found = s.model(t.name, needs)
    elif t.kind == "union":
        found = [text for m in t.members for text in spell_members(m, s, needs)]
        if len(found) > MAX_UNION_MEMBERS:
            needs.add("typing.Any")
            found = ["Any"]
    elif t.kind == "array" and t.prefix_items:
        found = [f"tuple[{', '.join(spell(m, s, needs) for m in t.prefix_items)}]"]
    elif t.kind == "array" and t.items is not None:
        needs.add("collections.abc.Iterable")
        found = [f"Iterable[{spell(t.items, s, needs)}]"]
    elif t.kind == "map" and t.values is not None:
        needs.add("collections.abc.Mapping")
        found = [f"Mapping[str, {spell(t.values, s, needs)}]"]
    else:  # pragma: no cover - only models, arrays, maps and unions refer to models
        found = [s.plain(t, needs)]
    if t.nullable and "None" not in found:
        found.append("None")
    return list(dict.fromkeys(found))


def spell(t: TypeRef, s: Spelling, needs: set[str]) -> str:
    return " | ".join(spell_members(t, s, needs))


def _client_spelling(names: ParamNames, list_name: str) -> Spelling:
    return Spelling(names, f"{PARAMS_ALIAS}.", MODELS_ALIAS, list_name)


def input_annotation(
    api: Api, t: TypeRef, names: ParamNames, *, list_name: str = "builtins.list"
) -> str:
    """The annotation of a client method's parameter of type ``t``: ``t``'s argument
    annotation (``methods.annotation``) where no object is involved, else one that also
    takes dicts: ``builtins.list[_m.ChatMessage]`` -> ``Iterable[_p.ChatMessageParam]``,
    ``_m.ModelParameters | None`` -> ``_p.ModelParametersParam | _m.ModelParameters |
    None``. ``api`` is the IR ``names`` was computed from."""
    return spell(t, _client_spelling(names, list_name), set())


def input_imports(
    api: Api, t: TypeRef, names: ParamNames, *, list_name: str = "builtins.list"
) -> frozenset[str]:
    """What ``input_annotation`` needs: ``module.name`` entries (``typing.Any``,
    ``collections.abc.Iterable``), and ``USES_PARAMS`` when it refers to ``_p``."""
    needs: set[str] = set()
    spell(t, _client_spelling(names, list_name), needs)
    return frozenset(needs - {USES_MODELS})


_NAMES: dict[int, tuple[Api, ParamNames]] = {}


def names_of(api: Api) -> ParamNames:
    """:func:`param_names` of ``api``, computed once per IR (every method asks for it)."""
    hit = _NAMES.get(id(api))
    if hit is None or hit[0] is not api:
        if len(_NAMES) >= 8:
            _NAMES.clear()
        hit = _NAMES[id(api)] = (api, param_names(api))
    return hit[1]
