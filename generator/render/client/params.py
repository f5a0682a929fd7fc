"""The client's input types: ``_params.py`` (from ``templates/client/_params.py.jinja``),
so that a caller may pass plain dicts where a request takes an object, as the official
SDKs' users write them: ``messages=[{"role": "user", "content": "hi"}]``.

Every object model that a request can send (reachable from an operation's body, or from a
query or header parameter, through fields, items, values, union members and aliases) gets
a ``TypedDict`` keyed by the properties' *wire* names, ``total=False`` with ``Required[...]``
for the required ones. Where a value is such a model ``Y``, the input type accepts either a
dict or an instance: ``YParam | _m.Y``. An alias that reaches one gets a ``TypeAlias`` of
its input type (``ChatMessageParam``); every other model (enums, which ``models.py``
declares as ``Literal`` aliases, and aliases of plain types) is taken as ``models.py``
declares it. Arrays of such inputs are ``Iterable[...]`` and maps ``Mapping[str, ...]``
(``list`` and ``dict`` are invariant: a ``list[dict]`` literal would not check against
``list[XParam | _m.X]``); arrays and maps of plain types keep the argument annotation.

Names: ``<Model>Param``; where that is a model's name or already taken, ``<Model>Param2``,
``<Model>Param3``... (models in IR order). The module never runs an annotation: class
bodies are strings (``from __future__ import annotations``), and the values of the
functional ``TypedDict(...)`` form (for keys that are no identifier, a keyword, or a name
the annotations use) and of aliases are quoted, so definitions may refer to later ones and
to themselves.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from typing import Literal

from generator.ir import Api, Model, TypeRef
from generator.render.layout import fits
from generator.render.surface.inputs import (
    IDENTIFIER,
    MODELS_ALIAS,
    PARAMS_IMPORT,
    STRING,
    USES_MODELS,
    USES_PARAMS,
    ParamNames,
    Spelling,
    param_names,
    spell,
    spell_members,
)
from generator.render.templates import render

EXTENSIONS = "typing_extensions"  # in a set of needs: ``import typing_extensions``
REQUIRED = f"{EXTENSIONS}.Required"

__all__ = ["PARAMS_IMPORT", "USES_PARAMS", "param_names", "params_context", "render_params"]

# --- the module's context --------------------------------------------------------------------


@dataclass(frozen=True)
class KeyCode:
    """One key of a ``TypedDict``: ``key`` (a wire name: spec text), ``annotation`` (code,
    ``Required[...]`` included; quoted in the functional form)."""

    key: str
    annotation: str


@dataclass(frozen=True)
class ParamCode:
    """One definition of ``_params.py``. ``form``: ``class`` (``class X(TypedDict)``),
    ``functional`` (``X = TypedDict("X", {...})``), ``alias`` (``X: TypeAlias = value``)
    or ``union`` (``X: TypeAlias = Union[members]``). ``doc``: the first line of the model's
    description (spec text, "" for none)."""

    form: Literal["class", "functional", "alias", "union"]
    name: str
    model: str
    doc: str
    keys: list[KeyCode]
    value: str = ""  # alias: code, a string literal
    members: tuple[str, ...] = ()  # union: code, string literals (and ``None``)


def first_line(text: str | None) -> str:
    """The first line of prose of a description: Markdown headings (SGP's ``### Description``)
    are skipped, unless there is nothing else."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    prose = [line for line in lines if not line.startswith("#")]
    return prose[0] if prose else lines[0].lstrip("#").strip() if lines else ""


def _functional(keys: list[tuple[str, str]]) -> bool:
    """Whether a ``TypedDict`` needs the functional form: a key that is no (ASCII)
    identifier, a keyword, private (``__x`` is mangled), or a name an annotation uses."""
    used = {n for _, text in keys for n in IDENTIFIER.findall(STRING.sub("", text))}
    used.add("typing_extensions")
    return any(
        not key.isidentifier()
        or not key.isascii()
        or keyword.iskeyword(key)
        or key.startswith("__")
        or key in used
        for key, _ in keys
    )


def _quoted(t: TypeRef, text: str) -> str:
    """A value of the functional form, which runs: quoted unless it refers to no model and
    is no ``|`` union (an input type may be defined further down, an alias may not take
    ``|``)."""
    return repr(text) if t.model_names() or "|" in text else text


def _typed_dict(model: Model, name: str, s: Spelling, needs: set[str]) -> ParamCode:
    keys = [(f.name, spell(f.type, s, needs), f.required) for f in model.fields]
    if any(required for *_, required in keys):
        needs.add(EXTENSIONS)
    needs.add("typing.TypedDict")
    doc = first_line(model.description)
    if not _functional([(key, text) for key, text, _ in keys]):
        code = [KeyCode(k, f"{REQUIRED}[{t}]" if req else t) for k, t, req in keys]
        return ParamCode("class", name, model.name, doc, code)
    code = [
        KeyCode(f.name, f"{REQUIRED}[{_quoted(f.type, t)}]" if f.required else _quoted(f.type, t))
        for f, (_, t, _) in zip(model.fields, keys, strict=True)
    ]
    return ParamCode("functional", name, model.name, doc, code)


def _alias(model: Model, name: str, s: Spelling, needs: set[str]) -> ParamCode:
    """``X: TypeAlias = "..."`` when one member fits on the line, else ``Union[...]`` with a
    member a line (black and ruff format lay out a long string on the right differently)."""
    root = model.root
    assert root is not None  # only aliases with a root reach an object
    needs.add("typing.TypeAlias")
    doc = first_line(model.description)
    members = spell_members(root, s, needs)
    if len(members) == 1 and fits(f"{name}: TypeAlias = {members[0]!r}"):
        return ParamCode("alias", name, model.name, doc, [], value=repr(members[0]))
    needs.add("typing.Union")
    code = tuple(m if m == "None" else repr(m) for m in members)
    return ParamCode("union", name, model.name, doc, [], members=code)


def _import_lines(needs: set[str]) -> list[str]:
    """The import block: the standard library, ``typing_extensions`` (``Required``, for
    Python 3.10; as a module, since ruff's pyupgrade rules would move ``from
    typing_extensions import Required`` to ``typing`` for 3.11+), the models."""
    by_module: dict[str, set[str]] = {}
    for item in needs - {USES_PARAMS, USES_MODELS, EXTENSIONS}:
        module, _, name = item.rpartition(".")
        by_module.setdefault(module, set()).add(name)
    lines = [
        f"from {module} import {', '.join(sorted(by_module[module]))}"
        for module in sorted(by_module)
    ]
    if EXTENSIONS in needs:
        lines += ["", f"import {EXTENSIONS}"]
    if USES_MODELS in needs:
        lines += ["", f"from . import models as {MODELS_ALIAS}"]
    return lines


def params_context(api: Api, header: str, names: ParamNames | None = None) -> dict[str, object]:
    """Everything ``_params.py.jinja`` prints (its top comment lists the keys)."""
    names = param_names(api) if names is None else names
    s = Spelling(names, "", MODELS_ALIAS, "list")
    needs: set[str] = set()
    params: list[ParamCode] = []
    for m in api.models:
        if m.name in names.typed_dicts:
            params.append(_typed_dict(m, names.typed_dicts[m.name], s, needs))
        elif m.name in names.aliases:
            params.append(_alias(m, names.aliases[m.name], s, needs))
    return {"header": header, "imports": _import_lines(needs), "params": params}


def render_params(api: Api, header: str, templates: str | None) -> str:
    """The source of ``_params.py`` (unformatted, like every rendered file)."""
    return render("client/_params.py.jinja", params_context(api, header), templates)
