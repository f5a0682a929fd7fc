"""``generator/ir/annotate.py``: one walk over a ``TypeRef``, one spelling per target
(Python annotation in both readings, qualified annotation, runtime expression, docs text,
Markdown with model links), and no second TypeRef -> text walk elsewhere."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import pytest

from generator.ir import TypeRef, annotate

GENERATOR = Path(annotate.__file__).resolve().parents[1]

MESSAGE = TypeRef("model", name="Message")
STRING = TypeRef("primitive", primitive="string")
STRING_OR_NULL = TypeRef("primitive", primitive="string", nullable=True)
TYPES = {
    "nullable list": TypeRef("array", items=MESSAGE, nullable=True),
    "union": TypeRef("union", members=(MESSAGE, STRING_OR_NULL)),
    "map of any": TypeRef("map"),
    "tuple": TypeRef("array", prefix_items=(TypeRef("primitive", primitive="integer"), MESSAGE)),
    "uri": TypeRef("primitive", primitive="string", format="uri", nullable=True),
    "literal": TypeRef("literal", literals=("a|b", 1), nullable=True),
    "nullable any": TypeRef("any", nullable=True),
    "list of union": TypeRef("array", items=TypeRef("union", members=(MESSAGE, TypeRef("null")))),
}  # fmt: skip


def _link(name: str) -> str:
    return f"[{name}](#model-{name})"


def _code(json_text: str) -> str:
    return f"`{json_text}`"


def _plain(text: str) -> str:
    return text.replace("(", "\\(")


# name -> argument, model, client (``_m.``, ``builtins.list``), runtime, display, Markdown
EXPECTED = {
    "nullable list": (
        "list[Message] | None",
        "list[Message] | None",
        "builtins.list[_m.Message] | None",
        "builtins.list[_m.Message] | None",
        "array of Message | null",
        "array of [Message](#model-Message) \\| null",
    ),
    "union": (
        "Message | str | None",
        "Message | str | None",
        "_m.Message | str | None",
        "_m.Message | str | None",
        "Message | string | null",
        "[Message](#model-Message) \\| string \\| null",
    ),
    "map of any": ("dict[str, Any]",) * 4 + ("object", "object"),
    "tuple": (
        "tuple[int, Message]",
        "tuple[int, Message]",
        "tuple[int, _m.Message]",
        "tuple[int, _m.Message]",
        "tuple [integer, Message]",
        "tuple [integer, [Message](#model-Message)]",
    ),
    "uri": (
        "str | None",
        "AnyUrl | None",
        "str | None",
        "str | None",
        "string (uri) | null",
        "string \\(uri) \\| null",
    ),
    "literal": (
        'Literal["a|b", 1] | None',
        'Literal["a|b", 1] | None',
        'Literal["a|b", 1] | None',
        'Literal["a|b", 1] | None',
        '"a|b" | 1 | null',
        '`"a|b"` \\| `1` \\| null',
    ),
    "nullable any": ("Any",) * 4 + ("any", "any"),
    "list of union": (
        "list[Message | None]",
        "list[Message | None]",
        "builtins.list[_m.Message | None]",
        "builtins.list[_m.Message | None]",
        "array of (Message | null)",
        "array of ([Message](#model-Message) \\| null)",
    ),
}


@pytest.mark.parametrize("name", list(TYPES))
def test_every_target(name: str) -> None:
    t = TYPES[name]
    spelled = (
        annotate.python(t),
        annotate.python(t, "model"),
        annotate.python(t, module="_m", list_name="builtins.list"),
        annotate.runtime(t, module="_m", list_name="builtins.list"),
        annotate.display(t),
        annotate.markdown(t, link=_link, value=_code, plain=_plain),
    )
    assert spelled == EXPECTED[name]


@pytest.mark.parametrize("name", list(TYPES))
def test_typeref_properties_delegate(name: str) -> None:
    t = TYPES[name]
    assert (t.python_type, t.model_type, t.display) == (
        annotate.python(t),
        annotate.python(t, "model"),
        annotate.display(t),
    )
    assert t.imports() == annotate.imports(t)
    assert t.imports("model") == annotate.imports(t, "model")


def test_imports_follow_what_is_spelled() -> None:
    assert TYPES["uri"].imports() == ()
    assert TYPES["uri"].imports("model") == ("pydantic.AnyUrl",)
    assert TYPES["literal"].imports() == ("typing.Literal",)
    assert TYPES["map of any"].imports() == ("typing.Any",)
    # the runtime expression is spelled as the annotation: no Union or Optional to import
    assert annotate.runtime_imports(TYPES["union"]) == ()
    assert annotate.runtime_imports(TYPES["literal"]) == ("typing.Literal",)
    assert annotate.runtime_imports(TYPES["nullable any"]) == ("typing.Any",)


def test_runtime_expressions_evaluate() -> None:
    """``|`` works at run time on every operand a runtime type has (the client passes it
    to pydantic): model classes and ``TypeAliasType`` aliases, each side of ``None``,
    ``Literal``, ``Any``, generic aliases and nested unions."""
    import builtins
    from typing import Any, Literal

    from typing_extensions import TypeAliasType

    class Message:
        pass

    alias = TypeAliasType("Alias", "int | None")
    literal = TypeRef("literal", literals=("a",))
    models = (MESSAGE, TypeRef("model", name="Alias"))
    others = (TypeRef("null"), literal, TypeRef("any"), TYPES["map of any"], STRING_OR_NULL)
    namespace = {"_m": SimpleNamespace(Message=Message, Alias=alias), "builtins": builtins}
    namespace |= {"Any": Any, "Literal": Literal}
    for model in models:
        for other in others:
            for members in ((model, other), (other, model)):
                for t in (
                    TypeRef("union", members=members),
                    TypeRef("array", items=TypeRef("union", members=members), nullable=True),
                    TypeRef("union", members=(TypeRef("union", members=members), *models)),
                ):
                    text = annotate.runtime(t, module="_m", list_name="builtins.list")
                    assert "Union[" not in text and "Optional[" not in text
                    eval(text, dict(namespace))


def test_links_only_where_the_docs_say() -> None:
    """The docs decide which model names link (``ir`` never imports ``render``)."""
    t = TypeRef("union", members=(MESSAGE, TypeRef("model", name="Unknown")))

    def link(name: str) -> str:
        return _link(name) if name == "Message" else name

    assert annotate.markdown(t, link=link, value=_code, plain=_plain) == (
        "[Message](#model-Message) \\| Unknown"
    )


def test_a_new_target_is_one_spelling() -> None:
    """Any target is a :class:`~generator.ir.annotate.Spelling`; :func:`spell` walks."""

    class Kinds(annotate.Docs):
        def union(self, members: Sequence[str], needs: set[str]) -> str:
            return "one of " + " or ".join(members)

    t = TypeRef("array", items=TypeRef("union", members=(MESSAGE, STRING)))
    assert annotate.spell(t, Kinds(sep=" or ")) == "array of (one of Message or string)"


# --- no second TypeRef -> text walk ------------------------------------------------------------

SPELLED = ("Union[", "Optional[", "array of ", "map of ", "tuple [")


def test_no_type_spelling_outside_annotate() -> None:
    """Outside ``ir/annotate.py`` no module writes a type the way a target does (``Union[``,
    ``Optional[``, ``array of ``...), and ``render/annotations.py`` is gone."""
    assert not (GENERATOR / "render" / "annotations.py").exists()
    wrong = []
    for path in sorted(GENERATOR.rglob("*.py")):
        if path == GENERATOR / "ir" / "annotate.py" or "templates" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.JoinedStr) and node.values:
                node = node.values[0]  # an f-string: its head
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if node.value.startswith(SPELLED):
                    wrong.append(f"{path.relative_to(GENERATOR)}:{node.lineno}")
    assert not wrong, "\n".join(wrong)


def test_the_guard_sees_a_type_spelling() -> None:
    head = ast.parse('f"Union[{x}]"', mode="eval").body
    assert isinstance(head, ast.JoinedStr) and isinstance(head.values[0], ast.Constant)
    assert str(head.values[0].value).startswith(SPELLED)
