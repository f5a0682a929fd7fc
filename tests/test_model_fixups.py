"""The source rewrites of models.py count lines as Python's parser does."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

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


def test_a_type_alias_loses_deprecated_and_imports_without_warnings(tmp_path: Path) -> None:
    """pydantic honours ``deprecated`` only on a model field, and warns anywhere else."""
    import warnings

    from generator.render.models.fixups import fix_up

    source = (
        "from typing import Annotated, Literal\n\n"
        "from pydantic import BaseModel, Field\n"
        "from typing_extensions import TypeAliasType\n\n"
        'Kind = TypeAliasType("Kind", Annotated[Literal["a", "b"], Field(deprecated=True,'
        ' description="Old.")])\n'
        'Bare = TypeAliasType("Bare", Annotated[Literal["c"], Field(deprecated=True)])\n\n\n'
        "class M(BaseModel):\n    kind: Kind\n    bare: Bare\n"
    )
    fixed = fix_up(source)
    assert "deprecated" not in fixed and "Old." in fixed
    assert "Literal['c'])" in fixed  # nothing left of its Field: the bare type
    (tmp_path / "fixed_models.py").write_text(fixed)
    sys.path.insert(0, str(tmp_path))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            module = importlib.import_module("fixed_models")
            module.M.model_validate({"kind": "a", "bare": "c"})
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("fixed_models", None)
