"""Templates present, they never compute: a template receives values ready to print.

Every ``templates/**/*.jinja`` is parsed with Jinja's own parser, and its expressions are
checked:

- ``{{ ... }}`` prints a value: a name, an attribute or item of one, a literal, or a macro
  of the template (``{{ method(m) }}``, ``caller()``), through ``ALLOWED_FILTERS`` only;
- no expression builds a value: no call but a macro's (``.replace(``, ``.split(``,
  ``.join(``, ``.format(``, ``.items()``, ``range(``), no ``~`` concatenation, no
  arithmetic (``+ - * / // % **``, unary minus), no slice, no list or dict literal, no
  inline ``a if c else b``, no ``{% set %}``;
- the tests of ``{% if %}`` and ``{% for ... if %}`` may compare and combine (``==``,
  ``not``, ``and``, ``is none``): they choose what to present and print nothing.

``ALLOWED_FILTERS`` are the filters ``generator/render/templates.py`` registers, which make
spec text safe as Python (a literal, a docstring, a comment), and Jinja's ``indent``, which
only lays out: it continues a multi-line docstring at the indentation of the code.

``PENDING`` lists the templates that still compute, with what they may still do: nothing
new, and an entry whose template no longer computes fails until it is removed (the list
only shrinks).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from jinja2 import nodes

from generator.render.templates import environment
from generator.tree import builtin_templates

TEMPLATES = sorted(builtin_templates().rglob("*.jinja"))

ALLOWED_FILTERS = {
    "pyrepr": "registered: a JSON value as a Python literal",
    "docstring": "registered: text safe between triple quotes",
    "comment": "registered: text safe in a # comment",
    "indent": "Jinja's: continues a multi-line docstring at the code's indentation",
}
REGISTERED = ("pyrepr", "docstring", "comment")

# template -> what it still computes (issue 10), until its owner moves it into the context
PENDING: dict[str, set[str]] = {}

ARITHMETIC = (nodes.Add, nodes.Sub, nodes.Mul, nodes.Div, nodes.FloorDiv, nodes.Mod, nodes.Pow)
# what a printed value may be made of (besides allowed filters and macro calls)
PRINTABLE = (nodes.Name, nodes.Getattr, nodes.Getitem, nodes.Const)


def _name(path: Path) -> str:
    return path.relative_to(builtin_templates()).as_posix()


def _children(node: nodes.Node) -> Iterator[nodes.Node]:
    return node.iter_child_nodes()


def _violation(node: nodes.Node, macros: set[str], printing: bool) -> str | None:
    """What ``node`` computes (None when it only presents); ``printing``: it is inside
    a ``{{ ... }}``."""
    if isinstance(node, nodes.Call):
        target = node.node
        if isinstance(target, nodes.Name) and (target.name in macros or target.name == "caller"):
            return None
        if isinstance(target, nodes.Getattr):
            return f"method call .{target.attr}()"
        return "call"
    if isinstance(node, nodes.Filter):
        return None if node.name in ALLOWED_FILTERS else f"filter {node.name}"
    if isinstance(node, nodes.Concat):
        return "concatenation ~"
    if isinstance(node, ARITHMETIC):
        return f"arithmetic {type(node).__name__}"
    if isinstance(node, (nodes.Neg, nodes.Pos)):
        return "arithmetic unary"
    if isinstance(node, nodes.Slice):
        return "slice"
    if isinstance(node, nodes.CondExpr):
        return "inline if"
    if isinstance(node, (nodes.Assign, nodes.AssignBlock)):
        return "set"
    if isinstance(node, (nodes.List, nodes.Dict)) or (
        isinstance(node, nodes.Tuple) and node.ctx == "load"
    ):
        return f"{type(node).__name__.lower()} literal"
    if printing and not isinstance(node, PRINTABLE):
        return f"{type(node).__name__} in {{{{ }}}}"
    return None


def violations(path: Path) -> list[tuple[int, str]]:
    """(line, what) of every computing construct of a template."""
    tree = environment().parse(path.read_text(encoding="utf-8"))
    macros = {m.name for m in tree.find_all(nodes.Macro)}
    found: list[tuple[int, str]] = []

    def visit(node: nodes.Node, printing: bool) -> None:
        what = _violation(node, macros, printing)
        if what is not None:
            found.append((node.lineno, what))
        if isinstance(node, nodes.Output):
            for child in node.nodes:
                visit(child, not isinstance(child, nodes.TemplateData))
            return
        inner = printing and not isinstance(node, nodes.Call)  # macro arguments are values
        for child in _children(node):
            visit(child, inner)

    visit(tree, False)
    return found


@pytest.mark.parametrize("path", TEMPLATES, ids=_name)
def test_template_presents_and_never_computes(path: Path) -> None:
    found = violations(path)
    kinds = {what for _, what in found}
    name = _name(path)
    if name in PENDING:
        assert kinds, f"{name} no longer computes: remove it from PENDING"
        new = sorted(kinds - PENDING[name])
        assert not new, f"{name} computes more than PENDING says (move it into the context): {new}"
        return
    lines = [f"{name}:{line}: {what}" for line, what in found]
    assert not lines, "templates compute (move it into the context):\n" + "\n".join(lines)


def test_allowed_filters_are_registered_or_layout() -> None:
    filters = environment().filters
    for name in REGISTERED:
        assert name in ALLOWED_FILTERS and name in filters
    assert set(ALLOWED_FILTERS) - set(REGISTERED) == {"indent"}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('{{ x.replace("a", "b") }}', "method call .replace()"),
        ("{{ xs | join(', ') }}", "filter join"),
        ("{{ a ~ b }}", "concatenation ~"),
        ("{{ n + 1 }}", "arithmetic Add"),
        ("{{ s[:3] }}", "slice"),
        ("{{ a if c else b }}", "inline if"),
        ("{% set y = x %}", "set"),
        ("{% for i in [1, 2] %}{% endfor %}", "list literal"),
        ("{% for k, v in d.items() %}{% endfor %}", "method call .items()"),
        ("{{ a or b }}", "Or in {{ }}"),
    ],
)
def test_the_check_catches_computing(tmp_path: Path, source: str, expected: str) -> None:
    path = tmp_path / "t.jinja"
    path.write_text(source, encoding="utf-8")
    assert expected in {what for _, what in violations(path)}


@pytest.mark.parametrize(
    "source",
    [
        "{{ x.name | pyrepr }}",
        "{{ text | docstring | indent(8) }}",
        "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(x.y) }}",
        "{% for r in rows if r.ok and not r.hidden %}{{ r.name }}{% endfor %}",
        "{% if a == 'b' or c is none %}x{% endif %}",
        "{% for k, v in pairs %}{{ k }}: {{ v }}{% endfor %}",
    ],
)
def test_the_check_lets_presenting_pass(tmp_path: Path, source: str) -> None:
    path = tmp_path / "t.jinja"
    path.write_text(source, encoding="utf-8")
    assert violations(path) == []
