"""``generator.bytecode``: modules compiled while the models render, taken by the import
check only when the file is the one compiled, with the real file name in their code."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator import import_check
from generator.bytecode import Compiled, compile_ahead, compiled_code
from generator.errors import ApismithError
from generator.import_check import verify_import

FILES = {
    "__init__.py": b"from . import a\nfrom .resources import b\n",
    "a.py": b"X = 1\n\n\ndef where():\n    return where.__code__.co_filename\n",
    "resources/__init__.py": b"",
    "resources/b.py": b"from ..a import X\n\nY = X + 1\n",
    "models.py": b"Z = 3\n",
}


def _write(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def test_compiles_all_but_the_models_largest_first_until_done() -> None:
    everything = compile_ahead(FILES, lambda: False)
    assert sorted(everything.modules) == [
        "__init__.py",
        "a.py",
        "resources/__init__.py",
        "resources/b.py",
    ]
    calls = iter([False, True])
    first = compile_ahead(FILES, lambda: next(calls))
    assert list(first.modules) == ["a.py"]  # the largest; then the models were in
    assert list(compile_ahead(FILES, lambda: False, prefix="pkg/").modules)[0] == "pkg/a.py"


def test_the_import_check_takes_the_compiled_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled = compile_ahead({**FILES, "a.py": FILES["a.py"] + b"# changed since\n"}, lambda: False)
    recompiled: list[str] = []

    def counting(source, path, *args, **kwargs):  # type: ignore[no-untyped-def]
        recompiled.append(Path(path).name)
        return compile(source, path, *args, **kwargs)

    monkeypatch.setattr(import_check, "compile", counting, raising=False)
    verify_import(tmp_path, FILES, compiled=compiled)
    # a.py is not the one compiled, and models.py never is: both compiled now; the others
    # are taken as compiled
    assert recompiled == ["a.py", "models.py"]


def test_code_compiled_ahead_names_the_real_file(tmp_path: Path) -> None:
    files = {**FILES, "a.py": b"X = 1\n\n\n\nraise RuntimeError('at import')\n"}
    with pytest.raises(ApismithError) as caught:
        verify_import(tmp_path, files, compiled=compile_ahead(files, lambda: False))
    assert "a.py:5" in str(caught.value)  # the file and line, as without compiling ahead


def test_a_file_that_changed_since_is_compiled_again(tmp_path: Path) -> None:
    compiled = compile_ahead(FILES, lambda: False)
    files = {**FILES, "resources/b.py": b"raise RuntimeError('the file written')\n"}
    with pytest.raises(ApismithError, match="the file written"):
        verify_import(tmp_path, files, compiled=compiled)


def test_nothing_compiled_is_a_plain_import(tmp_path: Path) -> None:
    assert not Compiled()
    verify_import(tmp_path, FILES, compiled=Compiled())
    _write(tmp_path, FILES)
    verify_import(tmp_path)  # the files on disk


def test_compiled_code_carries_the_path_it_is_given() -> None:
    compiled = compile_ahead(FILES, lambda: False)
    code = compiled_code(compiled, "a.py", FILES["a.py"], "/where/a.py")
    namespace: dict[str, object] = {}
    exec(code, namespace)
    assert namespace["where"]() == "/where/a.py"  # type: ignore[operator]
    assert compiled_code(compiled, "a.py", FILES["a.py"] + b"\n", "/where/a.py") is None
    assert compiled_code(compiled, "models.py", FILES["models.py"], "/where/models.py") is None


def test_a_large_package_is_held_packed_and_imports_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import types

    from generator import bytecode

    small = compile_ahead(FILES, lambda: False)
    assert all(isinstance(held, types.CodeType) for _, _, held in small.modules.values())
    monkeypatch.setattr(bytecode, "PACK_ABOVE", 10)
    large = compile_ahead(FILES, lambda: False)
    assert all(isinstance(held, bytes) for _, _, held in large.modules.values())
    for at, compiled in enumerate((small, large, small)):  # small twice: at another path
        verify_import(tmp_path / str(at), FILES, compiled=compiled)
