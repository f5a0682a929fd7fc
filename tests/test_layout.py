"""The layout of ``generator/``: one package per artifact under ``render/``, no imports
between them, and modules and functions of a readable size (see docs/pipeline.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GENERATOR = Path(__file__).resolve().parent.parent / "generator"
RENDER = GENERATOR / "render"
ARTIFACTS = ("models", "client", "server", "docs")
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
# Modules where no function is over MAX_FUNCTION_LINES; in the whole of generator/, at most
# MAX_LONG_FUNCTIONS are (issue 10's bar). The module size limit holds everywhere.
MAX_LONG_FUNCTIONS = 3
CHECKED = (
    "cli.py",
    "selection.py",
    "load/*.py",
    "render/*.py",
    "render/client/*.py",
    "render/server/*.py",
    "render/docs/*.py",
    "render/surface/*.py",
)


def _checked() -> list[Path]:
    return sorted({p for pattern in CHECKED for p in GENERATOR.glob(pattern)})


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(GENERATOR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (relative imports resolved), at any depth of the code:
    ``from a.b import c`` counts as ``a.b`` and ``a.b.c``."""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _artifact_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] == ["generator", "render"] and len(parts) > 2 and parts[2] in ARTIFACTS:
        return parts[2]
    return None


@pytest.mark.parametrize("artifact", ARTIFACTS)
def test_artifact_packages_exist(artifact: str) -> None:
    assert (RENDER / artifact / "__init__.py").is_file()


def test_no_artifact_package_imports_another() -> None:
    """An artifact package imports shared modules only (``generator.ir``, ``config``,
    ``render/surface``, ``render/examples.py``...), and a shared module of ``render/``
    imports no artifact package, so no artifact reaches another through it either."""
    wrong = []
    for path in sorted(RENDER.rglob("*.py")):
        own = _artifact_of(_module_name(path))
        for module in sorted(_imports(path)):
            target = _artifact_of(module)
            if target is not None and target != own:
                wrong.append(f"{path.relative_to(GENERATOR)} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_the_import_check_sees_imports() -> None:
    """The check above would notice an import between artifacts."""
    docs = _imports(RENDER / "docs" / "operations.py")
    assert "generator.render.surface" in docs
    assert "generator.render.docs.tables" in docs
    assert _artifact_of("generator.render.client.render") == "client"
    assert _artifact_of("generator.render.surface.methods") is None


def _all_modules() -> list[Path]:
    return sorted(p for p in GENERATOR.rglob("*.py") if "templates" not in p.parts)


def _long_functions(path: Path) -> list[str]:
    return [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines, line {node.lineno})"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]


@pytest.mark.parametrize("path", _all_modules(), ids=lambda p: p.relative_to(GENERATOR).as_posix())
def test_module_size(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(GENERATOR)}: {lines} lines"


@pytest.mark.parametrize("path", _checked(), ids=lambda p: p.relative_to(GENERATOR).as_posix())
def test_function_size(path: Path) -> None:
    long = _long_functions(path)
    assert not long, f"{path.relative_to(GENERATOR)}: {', '.join(long)}"


def test_few_long_functions_anywhere() -> None:
    long = [
        f"{path.relative_to(GENERATOR)}: {entry}"
        for path in _all_modules()
        for entry in _long_functions(path)
    ]
    assert len(long) <= MAX_LONG_FUNCTIONS, "\n".join(long)
