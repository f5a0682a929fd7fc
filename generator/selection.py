"""Which APIs a command works on: ad hoc (``--spec``), one ``--config``, or the ones the
project configures; the command that regenerates them; a generated package's folder."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from generator.config import (
    ApiConfig,
    adhoc_config,
    find_project,
    load_config,
    project_configs,
    recorded_options,
)
from generator.errors import ApismithError


def select_configs(
    names: Sequence[str],
    config: Path | None,
    spec: Path | None,
    out: Path | None,
    package: str | None,
    root: Path | None,
    *,
    templates: Path | None = None,
    meta: bool = False,
    fresh: bool = False,
    ref_root: Path | None = None,
    source: str | None = None,
) -> list[ApiConfig]:
    """The APIs a command works on: ad hoc (``--spec``), one ``--config``, or the ones the
    project configures (``[tool.apismith]`` in ``pyproject.toml``, or ``specs/*.toml``).
    ``source``: the URL ``spec`` was fetched from (``--spec URL``)."""
    if spec is not None:
        if names or config is not None:
            raise ApismithError("--spec cannot be combined with API names or --config")
        if out is None:
            raise ApismithError("--spec needs --out DIR (the package directory to write)")
        result = [adhoc_config(spec, out, package, fresh=fresh, source=source)]
    elif config is not None:
        if names:
            raise ApismithError("--config cannot be combined with API names")
        loaded = load_config(config)
        result = [_with_out(loaded, out) if out is not None else loaded]
    else:
        result = _project(names, out, root, fresh)
    extra: tuple[str, ...] = ()
    if templates is not None:
        extra += ("--templates", str(templates))
    if meta:
        extra += ("--meta",)
    if ref_root is not None:
        extra += ("--ref-root", str(ref_root))
    return [
        replace(
            c,
            templates=templates if templates is not None else c.templates,
            meta=meta or c.meta,
            ref_root=ref_root if ref_root is not None else c.ref_root,
            command=(*c.command, *extra),
        )
        for c in result
    ]


def _with_out(config: ApiConfig, out: Path) -> ApiConfig:
    command = config.command
    if "--out" not in command:
        command = (*command, "--out", str(out))
    return replace(config, out=out, command=command)


def regenerate_hint(configs: Sequence[ApiConfig]) -> str:
    """The command(s) that regenerate ``configs``, runnable from the current directory."""
    commands = list(dict.fromkeys(shlex.join(c.command) for c in configs if c.command))
    return " and ".join(f"`{c}`" for c in commands) or "`apismith generate`"


def _project(
    names: Sequence[str], out: Path | None, root: Path | None, fresh: bool
) -> list[ApiConfig]:
    """The named APIs of the project found from ``root`` (all of them when none is named)."""
    project = find_project(root or Path.cwd())
    if project is None:
        raise ApismithError(
            "no [tool.apismith] in a pyproject.toml, nor specs/*.toml, here or above;"
            " pass --spec FILE --out DIR (or --config FILE)"
        )
    command = ("apismith", "generate", *(("--root", str(root)) if root else ()))
    configs = project_configs(project, fresh=fresh, command=command)
    unknown = [n for n in names if n not in configs]
    if unknown:
        raise ApismithError(
            f"unknown API {unknown[0]!r}; configured: {', '.join(configs) or 'none'}"
        )
    result = [configs[n] for n in names] if names else list(configs.values())
    if out is not None:
        if len(result) != 1:
            raise ApismithError("--out needs exactly one API")
        result = [_with_out(result[0], out)]
    return result


def generated_package(api: str | None, out: Path | None, root: Path | None) -> tuple[str, Path]:
    """(name, package folder) of a generated package: a configured API, or ``--out``."""
    if out is not None:
        if api is not None:
            raise ApismithError("give an API name or --out DIR, not both")
        options = recorded_options(out)
        package = options.get("package")
        if options.get("meta") and isinstance(package, str):
            return package, out / package
        return out.name, out
    if api is None:
        raise ApismithError("name the API, or pass --out DIR (a generated package)")
    (cfg,) = select_configs([api], None, None, None, None, root)
    return cfg.name, cfg.package_dir
