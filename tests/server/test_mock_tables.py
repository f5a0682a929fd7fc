"""The mock's tables as JSON text (``table_json``), parsed by the mock module at import."""

from __future__ import annotations

import json
from typing import Any

import pytest

from generator.render.server.modules import table_json

TRICKY: list[tuple[str, Any]] = [
    ("quotes", {"a": '"""', "b": "'''", "c": 'x\\"y', "d": "\\", "e": "\\\\n"}),
    ("control", {"nl": "a\nb", "tab": "\t", "cr": "\r", "nul": "\x00", "ls": "\u2028"}),
    ("numbers", {"int": 10**30, "neg": -1, "float": 1.5, "exp": 1e-300, "zero": -0.0}),
    ("types", [True, False, None, [], {}, [[1.0]], {"": ""}]),
    ("text", {"é": "ünïcødé", "emoji": "\U0001f600", "cjk": "漢字"}),
]


def _embedded(text: str) -> Any:
    """What the generated module gets: ``loads`` of the text between ``r\"\"\"`` quotes."""
    namespace: dict[str, Any] = {}
    source = f'from json import loads\nX = loads(r"""\n{text}\n""")\n'
    exec(compile(source.encode("utf-8"), "table.py", "exec"), namespace)
    return namespace["X"]


def _same(a: Any, b: Any) -> None:
    assert type(a) is type(b), (a, b)
    if isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            _same(a[key], b[key])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    else:
        assert a == b or (a != a and b != b)


def test_an_empty_table_has_no_text() -> None:
    assert table_json([]) == ""


@pytest.mark.parametrize("entry", TRICKY, ids=[name for name, _ in TRICKY])
def test_a_table_round_trips_through_a_raw_string_with_its_types(entry: tuple[str, Any]) -> None:
    text = table_json([entry])
    assert '"""' not in text
    _same(_embedded(text), dict([entry]))


def test_text_keeps_non_ascii_as_written_and_is_one_key_a_line() -> None:
    text = table_json([("a", {"name": "ünï"}), ("b", [1, 2])])
    assert "ünï" in text
    assert text.splitlines()[1] == '    "a": {'
    assert json.loads(text) == {"a": {"name": "ünï"}, "b": [1, 2]}


def test_a_lone_surrogate_is_written_as_an_escape() -> None:
    text = table_json([("op", {"bad": "x\ud800y"})])
    text.encode("utf-8")  # writable
    assert "\\ud800" in text
    assert _embedded(text) == {"op": {"bad": "x\ud800y"}}
