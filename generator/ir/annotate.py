"""``TypeRef`` -> text, for every target: one walk over the type (:func:`spell`), and a
:class:`Spelling` per target saying how each kind of type is written.

- :class:`Python`: an annotation; ``reading`` picks the argument types client and server
  signatures take, or the model types ``models.py`` declares; ``module`` qualifies model
  names (``_m.Message``) and ``list_name`` spells ``list`` (``builtins.list`` in a client
  resource, which may have a method called ``list``). It collects the imports it needs.
- :class:`Runtime`: an expression that evaluates to the type at run time, spelled as the
  annotation (``_m.Message | None``).
- :class:`Docs`: the type as users read it (``integer | null``, ``array of Message``); with
  :func:`markdown`, the same in a Markdown table cell, model names linked by a callable the
  docs pass in (so ``ir`` never imports ``render``).

``TypeRef.python_type``, ``model_type``, ``display`` and ``imports()`` call this module.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol


class TypeShape(Protocol):
    """What this module reads of a type: :class:`generator.ir.model.TypeRef` is one (a
    protocol, so that the model, which calls this module, is not imported by it)."""

    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def primitive(self) -> str | None: ...
    @property
    def format(self) -> str | None: ...
    @property
    def items(self) -> TypeShape | None: ...
    @property
    def prefix_items(self) -> tuple[TypeShape, ...]: ...
    @property
    def values(self) -> TypeShape | None: ...
    @property
    def members(self) -> tuple[TypeShape, ...]: ...
    @property
    def literals(self) -> tuple[Any, ...]: ...
    @property
    def nullable(self) -> bool: ...


# Which reading a Python annotation takes: ``argument`` (``python_type``), ``model``
# (``model_type``).
Reading = Literal["argument", "model"]

PRIMITIVES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
# (primitive, format) -> (model type, argument type), each a builtin name or the
# ``module.Name`` it is imported as. The model type is what ``models.py`` declares: the
# choices of datamodel-code-generator 0.89 under ``generator.render.models.dcg.DCG_OPTIONS``
# (plain ``datetime``; email, password, ulid and ``number`` time-delta stay the primitive;
# ``tests/test_ir_models.py`` checks every entry against DCG). The argument type is what
# client and server signatures take for it: the stdlib types they convert themselves, else
# None (the primitive), so a caller never has to construct a pydantic ``AnyUrl`` or an
# ``IPv4Address`` for a parameter the wire carries as text. Formats not listed (and every
# ``boolean`` format) are the primitive in both readings.
FORMATS: dict[tuple[str, str], tuple[str, str | None]] = {
    ("string", "date-time"): ("datetime.datetime", "datetime.datetime"),
    ("string", "timestamp with time zone"): ("datetime.datetime", None),
    ("string", "date-time-local"): ("pydantic.NaiveDatetime", None),
    ("string", "date"): ("datetime.date", "datetime.date"),
    ("string", "time"): ("datetime.time", "datetime.time"),
    ("string", "time-local"): ("datetime.time", None),
    ("string", "duration"): ("datetime.timedelta", "datetime.timedelta"),
    ("string", "uuid"): ("uuid.UUID", "uuid.UUID"),
    ("string", "uuid1"): ("pydantic.UUID1", "uuid.UUID"),
    ("string", "uuid2"): ("uuid.UUID", "uuid.UUID"),
    ("string", "uuid3"): ("pydantic.UUID3", "uuid.UUID"),
    ("string", "uuid4"): ("pydantic.UUID4", "uuid.UUID"),
    ("string", "uuid5"): ("pydantic.UUID5", "uuid.UUID"),
    ("string", "uri"): ("pydantic.AnyUrl", None),
    ("string", "byte"): ("pydantic.Base64Str", None),
    ("string", "binary"): ("bytes", "bytes"),
    ("string", "path"): ("pathlib.Path", None),
    ("string", "ipv4"): ("ipaddress.IPv4Address", None),
    ("string", "ipv4-network"): ("ipaddress.IPv4Network", None),
    ("string", "ipv6"): ("ipaddress.IPv6Address", None),
    ("string", "ipv6-network"): ("ipaddress.IPv6Network", None),
    ("string", "decimal"): ("decimal.Decimal", None),
    ("string", "integer"): ("int", None),
    ("string", "unixtime"): ("int", None),
    ("integer", "date-time"): ("datetime.datetime", None),
    ("number", "date-time"): ("datetime.datetime", None),
    ("number", "time"): ("datetime.time", None),
    ("number", "unixtime"): ("int", None),
    ("number", "decimal"): ("decimal.Decimal", "decimal.Decimal"),
}


class Spelling:
    """How one target writes each kind of type, given its parts already spelled.
    ``needs`` collects what the text needs imported (Python targets only)."""

    def model(self, name: str) -> str:
        raise NotImplementedError

    def primitive(self, t: TypeShape, needs: set[str]) -> str:
        raise NotImplementedError

    def literal(self, t: TypeShape, needs: set[str]) -> str:
        raise NotImplementedError

    def array(self, item: str | None, needs: set[str]) -> str:
        """A list of ``item`` (None: of anything)."""
        raise NotImplementedError

    def tuple(self, items: Sequence[str]) -> str:
        raise NotImplementedError

    def map(self, value: str | None, needs: set[str]) -> str:
        """A string-keyed map of ``value`` (None: of anything)."""
        raise NotImplementedError

    def union(self, members: Sequence[str], needs: set[str]) -> str:
        raise NotImplementedError

    def nullable(self, text: str, needs: set[str]) -> str:
        raise NotImplementedError

    def any(self, needs: set[str]) -> str:
        raise NotImplementedError

    def null(self) -> str:
        raise NotImplementedError


def spell(t: TypeShape, spelling: Spelling, needs: set[str] | None = None) -> str:
    """``t`` written by ``spelling``, sub-types first; what it needs imported is added to
    ``needs``. Nullability is written last, except on ``any`` and ``null``."""
    needs = set() if needs is None else needs
    text = _bare(t, spelling, needs)
    return spelling.nullable(text, needs) if t.nullable and t.kind not in ("any", "null") else text


def _bare(t: TypeShape, s: Spelling, needs: set[str]) -> str:
    if t.kind == "model":
        return s.model(t.name) if t.name else s.any(needs)
    if t.kind == "primitive":
        return s.primitive(t, needs)
    if t.kind == "array":
        if t.prefix_items:
            return s.tuple([spell(m, s, needs) for m in t.prefix_items])
        return s.array(spell(t.items, s, needs) if t.items else None, needs)
    if t.kind == "map":
        return s.map(spell(t.values, s, needs) if t.values else None, needs)
    if t.kind == "union":
        return s.union([spell(m, s, needs) for m in t.members], needs)
    if t.kind == "literal":
        return s.literal(t, needs)
    return s.null() if t.kind == "null" else s.any(needs)


# --- Python ------------------------------------------------------------------------------------


def _literal_source(value: Any) -> str | None:
    """A value as Python source inside ``Literal[...]``; None when Literal cannot hold it."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        return str(value)
    return None


@dataclass(frozen=True)
class Python(Spelling):
    """A Python annotation: ``list[Message] | None``, ``dict[str, Any]``."""

    reading: Reading = "argument"
    module: str | None = None  # qualifies model names: "_m" -> "_m.Message"
    list_name: str = "list"

    def model(self, name: str) -> str:
        return f"{self.module}.{name}" if self.module else name

    def primitive(self, t: TypeShape, needs: set[str]) -> str:
        return self._primitive(t.primitive, t.format, needs)

    def _primitive(self, primitive: str | None, fmt: str | None, needs: set[str]) -> str:
        if primitive is None or primitive not in PRIMITIVES:
            needs.add("typing.Any")
            return "Any"
        model, argument = FORMATS.get((primitive, fmt or ""), (None, None))
        special = model if self.reading == "model" else argument
        if special is None:
            return PRIMITIVES[primitive]
        if "." in special:
            needs.add(special)
        return special.rpartition(".")[2]

    def literal(self, t: TypeShape, needs: set[str]) -> str:
        sources = [_literal_source(v) for v in t.literals]
        if sources and all(s is not None for s in sources):
            needs.add("typing.Literal")
            return f"Literal[{', '.join(s for s in sources if s is not None)}]"
        return self._primitive(t.primitive, None, needs)

    def array(self, item: str | None, needs: set[str]) -> str:
        return f"{self.list_name}[{item if item is not None else self.any(needs)}]"

    def tuple(self, items: Sequence[str]) -> str:
        return f"tuple[{', '.join(items)}]"

    def map(self, value: str | None, needs: set[str]) -> str:
        return f"dict[str, {value if value is not None else self.any(needs)}]"

    def union(self, members: Sequence[str], needs: set[str]) -> str:
        return " | ".join(members)

    def nullable(self, text: str, needs: set[str]) -> str:
        return f"{text} | None"

    def any(self, needs: set[str]) -> str:
        needs.add("typing.Any")
        return "Any"

    def null(self) -> str:
        return "None"


@dataclass(frozen=True)
class Runtime(Python):
    """An expression that evaluates to the type at run time: the annotation itself, ``|``
    and all (``_m.Message | None``, ``_m.A | _m.B``), as ruff's pyupgrade rules (UP007)
    want it. The generated code needs Python 3.10, where ``|`` works on every operand a
    runtime type has: model classes, ``typing_extensions.TypeAliasType`` aliases (4.12.2
    and later define ``__or__`` and ``__ror__``), generic aliases, ``Literal`` and ``Any``
    (``tests/test_annotate.py`` evaluates them on the interpreter it runs on)."""

    module: str | None = "_m"


ARGUMENT = Python("argument")
MODEL = Python("model")


def python(
    t: TypeShape,
    reading: Reading = "argument",
    *,
    module: str | None = None,
    list_name: str = "list",
) -> str:
    """``t`` as a Python annotation (see :class:`Python`)."""
    if module is None and list_name == "list":
        return spell(t, ARGUMENT if reading == "argument" else MODEL)
    return spell(t, Python(reading, module, list_name))


def runtime(t: TypeShape, *, module: str = "_m", list_name: str = "list") -> str:
    """``t`` as an expression evaluating to its type at run time (see :class:`Runtime`)."""
    return spell(t, Runtime("argument", module, list_name))


def imports(t: TypeShape, reading: Reading = "argument") -> tuple[str, ...]:
    """What ``t``'s annotation needs, as sorted ``module.name`` strings (model names, which
    live in the models module, excepted)."""
    needs: set[str] = set()
    spell(t, ARGUMENT if reading == "argument" else MODEL, needs)
    return tuple(sorted(needs))


def runtime_imports(t: TypeShape) -> tuple[str, ...]:
    """What :func:`runtime` needs: the annotation's names (models and ``builtins``
    excepted)."""
    needs: set[str] = set()
    spell(t, Runtime(), needs)
    return tuple(sorted(needs))


# --- docs --------------------------------------------------------------------------------------


def _same(text: str) -> str:
    return text


@dataclass(frozen=True)
class Docs(Spelling):
    """The type as users read it: ``integer | null``, ``array of (string | integer)``,
    ``map of Message``. ``link`` writes a model name, ``value`` a literal's JSON and
    ``plain`` a primitive's text; ``sep`` separates union members (and ``null``)."""

    sep: str = " | "
    link: Callable[[str], str] = _same
    value: Callable[[str], str] = _same
    plain: Callable[[str], str] = _same

    def _group(self, text: str) -> str:
        return f"({text})" if self.sep in text else text

    def model(self, name: str) -> str:
        return self.link(name)

    def primitive(self, t: TypeShape, needs: set[str]) -> str:
        known = t.primitive in PRIMITIVES
        text = f"{t.primitive} ({t.format})" if known and t.format else t.primitive or "any"
        return self.plain(text)

    def literal(self, t: TypeShape, needs: set[str]) -> str:
        return self.sep.join(self.value(json.dumps(v, ensure_ascii=False)) for v in t.literals)

    def array(self, item: str | None, needs: set[str]) -> str:
        return f"array of {self._group(item)}" if item is not None else "array"

    def tuple(self, items: Sequence[str]) -> str:
        return f"tuple [{', '.join(items)}]"

    def map(self, value: str | None, needs: set[str]) -> str:
        return f"map of {self._group(value)}" if value is not None else "object"

    def union(self, members: Sequence[str], needs: set[str]) -> str:
        return self.sep.join(members)

    def nullable(self, text: str, needs: set[str]) -> str:
        return f"{text}{self.sep}null"

    def any(self, needs: set[str]) -> str:
        return "any"

    def null(self) -> str:
        return "null"


DISPLAY = Docs()


def display(t: TypeShape) -> str:
    """``t`` as users read it: ``integer | null``, ``array of Message``."""
    return spell(t, DISPLAY)


def markdown(
    t: TypeShape,
    *,
    link: Callable[[str], str],
    value: Callable[[str], str],
    plain: Callable[[str], str],
) -> str:
    """:func:`display` inside a Markdown table cell: ``|`` escaped, model names written by
    ``link`` (a link to the models page), literal values (JSON) by ``value`` (code spans),
    primitive names by ``plain`` (escaped text)."""
    return spell(t, Docs(" \\| ", link, value, plain))
