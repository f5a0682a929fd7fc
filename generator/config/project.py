"""A project: a directory that configures APIs in ``specs/*.toml`` or in
``[tool.apismith.apis.<api>]`` of its ``pyproject.toml``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from generator.config.api import (
    ApiConfig,
    config_error,
    confined,
    entry_options,
    load_config,
    read_toml,
    vendored_config,
)


@dataclass(frozen=True)
class Project:
    """A directory that configures APIs: ``specs/*.toml`` or ``[tool.apismith]``."""

    root: Path
    pyproject: Path | None  # set when the APIs come from [tool.apismith]


def find_configs(root: Path) -> list[Path]:
    """Every ``specs/*.toml`` under the project root, sorted by name."""
    return sorted((root / "specs").glob("*.toml"))


def _tool_table(pyproject: Path) -> dict[str, Any] | None:
    if not pyproject.is_file():
        return None
    tool = read_toml(pyproject).get("tool")
    table = tool.get("apismith") if isinstance(tool, dict) else None
    return table if isinstance(table, dict) else None


def find_project(start: Path) -> Project | None:
    """The nearest directory at or above ``start`` with ``[tool.apismith]`` in its
    ``pyproject.toml`` or with ``specs/*.toml`` (in that order of preference)."""
    for candidate in (start, *start.parents):
        if _tool_table(candidate / "pyproject.toml") is not None:
            return Project(candidate, candidate / "pyproject.toml")
        if find_configs(candidate):
            return Project(candidate, None)
    return None


def project_configs(
    project: Project, *, fresh: bool = False, command: tuple[str, ...] = ()
) -> dict[str, ApiConfig]:
    """Every API a project configures, by name (sorted)."""
    if project.pyproject is None:
        loaded = {}
        for path in find_configs(project.root):
            cfg = load_config(path)
            loaded[path.stem] = replace(cfg, command=(*command, path.stem))
        return loaded
    where = f"{project.pyproject} [tool.apismith]"
    table = _tool_table(project.pyproject) or {}
    unknown = sorted(set(table) - {"apis"})
    if unknown:
        raise config_error(
            where, f"unknown key(s) {unknown}; APIs go in [tool.apismith.apis.<name>]"
        )
    apis = table.get("apis", {})
    if not isinstance(apis, dict) or not apis:
        raise config_error(
            where, "no APIs: add a [tool.apismith.apis.<name>] table with spec and out"
        )
    configs = {}
    for name in sorted(apis):
        entry = apis[name]
        here = f"{project.pyproject} [tool.apismith.apis.{name}]"
        if not isinstance(entry, dict):
            raise config_error(here, "must be a table")
        given = entry_options(here, entry)
        for key in ("spec", "out"):
            if key not in entry:
                raise config_error(here, f"needs {key} = '<path>'")
        root = project.root
        templates = root / entry["templates"] if "templates" in entry else None
        configs[name] = confined(
            replace(
                vendored_config(
                    name,
                    root / entry["spec"],
                    root / entry["out"],
                    given,
                    base=root,
                    templates=templates,
                    fresh=fresh,
                    command=(*command, name),
                    where=here,
                ),
                ref_root=root / entry["ref_root"] if "ref_root" in entry else None,
            ),
            root,
            here,
        )
    return configs
