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


def test_a_string_default_on_a_format_type_is_validated_or_dropped(tmp_path: Path) -> None:
    """Rewrite 4: DCG's ``x: AnyUrl = ""`` (GitHub's ``deployment-status``) fails
    ``mypy --strict`` and leaves a ``str`` in an ``AnyUrl`` field at run time. A default
    the type accepts is validated into it, one it rejects is dropped (the field becomes
    nullable); ``str`` fields and non-string defaults keep theirs."""
    import subprocess

    from generator.render.models.fixups import fix_up

    source = (
        "from __future__ import annotations\n\n"
        "from datetime import date as date_aliased\n"
        "from typing import Annotated\n\n"
        "from pydantic import AnyUrl, BaseModel\n\n\n"
        "class M(BaseModel):\n"
        '    empty: AnyUrl = ""\n'
        '    nullable: AnyUrl | None = ""\n'
        '    url: AnyUrl = "https://example.com/x"\n'
        '    day: date_aliased = "2020-01-02"\n'
        '    described: Annotated[AnyUrl, "meta"] = "not a url"\n'
        '    text: str = ""\n'
        "    count: int = 0\n"
    )
    fixed = fix_up(source)
    assert "from pydantic import Field, AnyUrl" in fixed  # its first use: imported
    assert "    empty: AnyUrl | None = None\n" in fixed
    assert "    nullable: AnyUrl | None = None\n" in fixed
    # (ast.unparse's quotes: ruff format makes them double)
    assert "    url: AnyUrl = Field('https://example.com/x', validate_default=True)\n" in fixed
    assert "    day: date_aliased = Field('2020-01-02', validate_default=True)\n" in fixed
    described = '    described: Annotated[AnyUrl, "meta"] = "not a url"\n'
    assert described in fixed  # not DCG's shape (no Field): left alone
    assert '    text: str = ""\n    count: int = 0\n' in fixed
    module = tmp_path / "typed_defaults.py"
    module.write_text(fixed.replace(described, ""))
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(module)],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        m = importlib.import_module("typed_defaults").M()
        assert (m.empty, m.nullable, m.text) == (None, None, "")
        assert str(m.url) == "https://example.com/x" and m.day.day == 2
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("typed_defaults", None)
