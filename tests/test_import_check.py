"""``generator.import_check``: the package is imported from its files in memory, exactly
as if from the folder they are being written to."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.errors import ApismithError
from generator.import_check import verify_import

WHERE = b"import sys\n\nHERE = __file__\nsys.modules['_where_seen'] = sys.modules[__name__]\n"


def test_modules_are_where_their_files_go(tmp_path: Path) -> None:
    import sys

    files = {"pkg/__init__.py": b"from .sub import mod\n", "pkg/sub/mod.py": WHERE}
    verify_import(tmp_path, files, package="pkg")
    seen = sys.modules.pop("_where_seen")
    assert seen.HERE == str(tmp_path / "pkg" / "sub" / "mod.py")  # a namespace folder, too
    assert not [m for m in sys.modules if m.startswith("_apismith_verify_")]  # forgotten


def test_a_module_only_on_disk_is_not_found(tmp_path: Path) -> None:
    (tmp_path / "extra.py").write_text("X = 1\n")
    with pytest.raises(ApismithError) as caught:
        verify_import(tmp_path, {"__init__.py": b"from . import extra\n"})
    assert str(caught.value).startswith(
        "generated code does not import: __init__.py:1: ImportError"
    ), caught.value


def test_a_syntax_error_names_its_module_and_line(tmp_path: Path) -> None:
    files = {"__init__.py": b"from . import models\n", "models.py": b"X = 1\n\ndef (:\n"}
    with pytest.raises(ApismithError) as caught:
        verify_import(tmp_path, files)
    assert str(caught.value).startswith("generated code does not import: models.py:3: Syntax")


def test_the_files_on_disk_by_default(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text("raise RuntimeError('read from disk')\n")
    with pytest.raises(ApismithError, match="read from disk"):
        verify_import(tmp_path)
