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


# --- the pipeline's direction ----------------------------------------------------------------
# Every module of generator/ is in one stage; a module imports only its own stage and the
# ones before it, at any depth of its code (function-local and TYPE_CHECKING imports
# included), and no import cycle joins two modules. Package __init__ modules that only
# gather their own modules are not a module of their own here: ``from generator.ir import
# build`` is an import of ``generator.ir.build``, ``from generator.ir import Api`` of
# ``generator.ir``.
STAGES: tuple[tuple[str, ...], ...] = (
    # shared vocabulary: errors, diagnostics, the naming rules, file and memory helpers
    (
        "generator",
        "generator.errors",
        "generator.media",
        "generator.methods",
        "generator.memory",
        "generator.file_writer",
        "generator.bytecode",
        "generator.normalize.diagnostics",
        "generator.normalize.naming",
        "generator.normalize.pass_names",
        "generator.tree",
    ),
    ("generator.config", "generator.load", "generator.overlay"),  # the inputs
    ("generator.normalize",),
    ("generator.ir",),
    ("generator.render",),
    ("generator.format",),
    ("generator.import_check", "generator.manifest", "generator.write"),
    (  # the commands that run the pipeline
        "generator.pipeline",
        "generator.diff",
        "generator.model_worker",
        "generator.check",
        "generator.parallel",
        "generator.serve",
        "generator.selection",
        "generator.fetch",
        "generator.progress",
        "generator.cli",
        "generator.entry",
        "generator.__main__",
    ),
)


def _stage(module: str) -> int:
    """The stage of ``module``: that of the longest prefix the table names."""
    best: tuple[int, int] | None = None
    for rank, prefixes in enumerate(STAGES):
        for prefix in prefixes:
            # (the root package names only itself: a new module must be given a stage)
            if module == prefix or (prefix != "generator" and module.startswith(prefix + ".")):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), rank)
    assert best is not None, f"{module} is in no stage of STAGES"
    return best[1]


def _graph() -> dict[str, set[str]]:
    """Module -> the modules of generator/ it imports."""
    paths = {_module_name(p): p for p in _all_modules()}
    return {module: _direct(path, paths) - {module} for module, path in paths.items()}


def _direct(path: Path, modules: dict[str, Path]) -> set[str]:
    """What ``path`` imports of ``modules``: a name imported from a package is its
    submodule when there is one, else the package."""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            subs = [f"{module}.{a.name}" for a in node.names]
            found.update(s for s in subs if s in modules)
            if module in modules and any(s not in modules for s in subs):
                found.add(module)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle() -> None:
    cycles = _cycles(_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_no_module_imports_a_later_stage() -> None:
    graph = _graph()
    wrong = [
        f"{module} (stage {_stage(module)}) imports {target} (stage {_stage(target)})"
        for module in sorted(graph)
        for target in sorted(graph[module])
        if _stage(target) > _stage(module)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_direction_checks_see_what_they_claim() -> None:
    """The checks above would notice a cycle and a backward import."""
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    assert _stage("generator.render.client.context") > _stage("generator.config.api")
    assert _stage("generator.normalize.naming.case") < _stage("generator.config.api")
    graph = _graph()
    assert "generator.normalize.walk" in graph["generator.normalize.inline_bodies"]
    # a function-local import counts (config/api.py reads a manifest in a function)
    assert "generator.tree" in graph["generator.config.api"]
