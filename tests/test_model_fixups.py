"""The source rewrites of models.py count lines as Python's parser does."""

from __future__ import annotations

import ast

import pytest

from generator.render.models.fixups import _splice


@pytest.mark.parametrize("newline", ["\r", "\r\n", "\f\n", "\u2028", "\x85", "\x0b"])
def test_splice_counts_lines_like_the_parser(newline: str) -> None:
    """A docstring holding a lone CR (a line end to the parser) or a form feed, U+2028 or
    U+0085 (not line ends to it) must not shift the edit (found by the property test)."""
    source = f'x = """a{newline}b"""\ny = 1\n'
    node = ast.parse(source).body[1]
    assert node.end_lineno is not None and node.end_col_offset is not None
    edit = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, "y = 2")
    assert _splice(source, [edit]) == source.replace("y = 1", "y = 2")
