"""The ``apismith`` command line.

Every failure exits non-zero with one clear line on stderr (exit 2 for bad input,
1 for drift or broken output); set ``APISMITH_DEBUG=1`` for a traceback. Heavy modules
are imported inside the commands so that a no-op ``apismith check`` starts fast.
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from generator import __version__
from generator.config import (
    ApiConfig,
    adhoc_config,
    find_project,
    load_config,
    project_configs,
    recorded_options,
)
from generator.errors import ApismithError

F = TypeVar("F", bound=Callable[..., Any])


def _fail(message: str, code: int) -> None:
    click.echo(f"apismith: error: {message}", err=True)
    sys.exit(code)


def friendly(fn: F) -> F:
    """Turn any exception into one line and an exit code."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ApismithError as exc:
            if os.environ.get("APISMITH_DEBUG"):
                raise
            _fail(str(exc), exc.exit_code)
        except RecursionError:
            _fail("spec nests too deeply (recursion limit reached)", 2)
        except (KeyboardInterrupt, SystemExit, click.exceptions.Exit):
            raise
        except click.ClickException:
            raise
        except Exception as exc:
            if os.environ.get("APISMITH_DEBUG"):
                raise
            first = (str(exc).splitlines() or [""])[0]
            _fail(
                f"internal error: {type(exc).__name__}: {first} (APISMITH_DEBUG=1 for details)", 1
            )
        return None

    return wrapper  # type: ignore[return-value]


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
) -> list[ApiConfig]:
    """The APIs a command works on: ad hoc (``--spec``), one ``--config``, or the ones the
    project configures (``[tool.apismith]`` in ``pyproject.toml``, or ``specs/*.toml``)."""
    if spec is not None:
        if names or config is not None:
            raise ApismithError("--spec cannot be combined with API names or --config")
        if out is None:
            raise ApismithError("--spec needs --out DIR (the package directory to write)")
        result = [adhoc_config(spec, out, package, fresh=fresh)]
    elif config is not None:
        if names:
            raise ApismithError("--config cannot be combined with API names")
        loaded = load_config(config)
        result = [_with_out(loaded, out) if out is not None else loaded]
    else:
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


_REF_ROOT = click.option(
    "--ref-root",
    type=click.Path(path_type=Path, file_okay=False),
    help="Let local $refs read any file under DIR (default: the spec's folder only).",
)


def _common(fn: F) -> F:
    options = [
        click.option(
            "--config", type=click.Path(path_type=Path), help="An API config file (TOML)."
        ),
        click.option(
            "--spec", type=click.Path(path_type=Path), help="Ad hoc: a spec file, no config."
        ),
        click.option(
            "--out", type=click.Path(path_type=Path), help="The package directory to write."
        ),
        click.option("--package", help="Ad hoc: the package name (default: from --out)."),
        click.option(
            "--root",
            type=click.Path(path_type=Path, file_okay=False),
            help="Project root: [tool.apismith] in its pyproject.toml, or specs/*.toml"
            " (default: found from the current directory).",
        ),
        click.option(
            "--templates",
            type=click.Path(path_type=Path, file_okay=False),
            help="A directory of templates that override the built-in ones.",
        ),
        _REF_ROOT,
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def run() -> None:
    """The console script: :func:`main`, then a hard exit.

    Tearing down an interpreter that holds datamodel-code-generator, pydantic and the
    generated models takes a noticeable part of a run; everything is written and flushed by
    then, so the process exits at once, as mypy does.
    """
    try:
        main.main(standalone_mode=False)
        code = 0
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.ClickException as exc:
        exc.show()
        code = exc.exit_code
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        code = 1
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="apismith")
def main() -> None:
    """apismith: typed Python packages from OpenAPI 3.0/3.1 and JSON Schema specs."""


@main.command()
@click.argument("apis", nargs=-1)
@_common
@click.option(
    "--meta",
    is_flag=True,
    help="Write an installable project: OUT/pyproject.toml, "
    "OUT/README.md and the package in OUT/<package>/.",
)
@click.option(
    "--fresh",
    is_flag=True,
    help="Ignore the options recorded in the existing "
    "package's MANIFEST.json (with --spec or [tool.apismith]).",
)
@click.option("-v", "--verbose", is_flag=True, help="List every warning, rename and merge.")
@click.option("--timings", is_flag=True, help="Print the wall time of every pipeline stage.")
@click.option(
    "--force",
    is_flag=True,
    help="Replace the output even if apismith did not write it (a directory without an"
    " apismith MANIFEST.json, or a file): what is there is deleted.",
)
@friendly
def generate(
    apis: tuple[str, ...],
    config: Path | None,
    spec: Path | None,
    out: Path | None,
    package: str | None,
    root: Path | None,
    templates: Path | None,
    ref_root: Path | None,
    meta: bool,
    fresh: bool,
    verbose: bool,
    timings: bool,
    force: bool,
) -> None:
    """Generate every configured API (or the named ones).

    The APIs come from [tool.apismith] in pyproject.toml, or specs/*.toml. With --spec FILE
    --out DIR, generate from any spec; on an existing package, the options recorded in its
    MANIFEST.json are kept. Output is imported before it replaces the previous output;
    nothing is written on failure.
    """
    from generator.workers import take_worker

    # The model worker is forked first (by generator.entry when it can, else here): it
    # imports datamodel-code-generator while this process imports the pipeline and loads.
    with take_worker() as worker:
        from generator.pipeline import generate as run

        configs = select_configs(
            apis,
            config,
            spec,
            out,
            package,
            root,
            templates=templates,
            meta=meta,
            fresh=fresh,
            ref_root=ref_root,
        )
        from generator.write import repair_target

        for c in configs:  # what an interrupted run left: put back, even if this one fails
            repair_target(c.out)
        results = [run(c, worker) for c in configs]
    from generator.write import check_target, write_package

    for result in results:
        if result.summary.unaccounted:
            raise ApismithError(
                f"{result.config.name}: schemas without a model: "
                + ", ".join(result.summary.unaccounted),
                exit_code=1,
            )
        check_target(result.config.out, force=force)  # a user's directory: before any write
    for result in results:
        start = time.perf_counter()
        cfg = result.config
        write_package(cfg.out, result.files, package=cfg.package if cfg.meta else "", force=force)
        if timings:
            for stage, seconds in (
                *result.timings,
                ("write (with import check)", time.perf_counter() - start),
            ):
                click.echo(f"  {stage:<28} {seconds * 1000:8.1f} ms", err=True)
        click.echo(result.summary.line(cfg.name))
        shown = (
            result.diagnostics
            if verbose
            else [d for d in result.diagnostics if d.kind in ("warning", "drop")]
        )
        for diag in shown[: None if verbose else 20]:
            click.echo(f"  {diag.line()}", err=True)
        if not verbose and len(shown) > 20:
            click.echo(f"  ... {len(shown) - 20} more warnings (-v lists them all)", err=True)


@main.command()
@click.argument("apis", nargs=-1)
@_common
@click.option(
    "--full",
    is_flag=True,
    help="Trust no manifest: regenerate in memory, compare every byte, report stray files.",
)
@click.option("--quiet", "-q", is_flag=True, help="Print only the files that differ.")
@friendly
def check(
    apis: tuple[str, ...],
    config: Path | None,
    spec: Path | None,
    out: Path | None,
    package: str | None,
    root: Path | None,
    templates: Path | None,
    ref_root: Path | None,
    full: bool,
    quiet: bool,
) -> None:
    """Drift check: exit 0 when generated output is exactly what generation produces.

    Otherwise exit 1, print a unified diff of what differs (a hand edit, a stale spec, a
    changed generator, a stray file) and the command that regenerates it. Works in a repo
    that vendors the output: [tool.apismith], or --spec and --out, need nothing else.
    """
    from generator.check import check_api

    drifted = []
    selected = select_configs(
        apis, config, spec, out, package, root, templates=templates, ref_root=ref_root
    )
    for cfg in selected:
        result = check_api(cfg, full=full)
        if result.clean:
            click.echo(f"{cfg.name}: up to date ({cfg.out})")
            continue
        drifted.append(cfg)
        if not quiet:
            click.echo(result.diff, nl=False)
        for name in result.changed:
            click.echo(f"{cfg.name}: drifted: {cfg.out / name}", err=True)
        if cfg.templates is None and _used_overrides(cfg.out):
            click.echo(
                f"{cfg.name}: note: it was generated with template overrides;"
                " pass --templates DIR (or set templates in its config)",
                err=True,
            )
    if drifted:
        _fail(
            f"generated code is out of date for {', '.join(c.name for c in drifted)}; "
            f"run {regenerate_hint(drifted)} and commit",
            1,
        )


def _used_overrides(out: Path) -> bool:
    from generator.manifest import read_manifest

    inputs = (read_manifest(out) or {}).get("inputs") or []
    return any(isinstance(row, dict) and row.get("role") == "template" for row in inputs)


@main.command()
@click.argument("spec", type=click.Path(path_type=Path))
@click.option("--config", type=click.Path(path_type=Path), help="Use this config's passes.")
@click.option("--disable", multiple=True, help="Switch a pass off (repeatable).")
@_REF_ROOT
@friendly
def normalize(
    spec: Path, config: Path | None, disable: tuple[str, ...], ref_root: Path | None
) -> None:
    """Print the normalized SPEC (JSON) on stdout and the warnings on stderr."""
    from generator.normalize import PASS_NAMES
    from generator.pipeline import load_and_normalize
    from generator.render.spec import canonical

    for name in disable:
        if name not in PASS_NAMES:
            raise ApismithError(f"unknown pass {name!r}; passes are {', '.join(PASS_NAMES)}")
    base = load_config(config) if config else adhoc_config(spec, Path("."), fresh=True)
    from dataclasses import replace

    cfg = replace(
        base,
        spec=spec,
        passes={**base.passes, **{name: False for name in disable}},
        ref_root=ref_root if ref_root is not None else base.ref_root,
    )
    _doc, result = load_and_normalize(cfg)
    import json

    click.echo(json.dumps(canonical(result.spec), indent=2, ensure_ascii=False))
    for diag in result.diagnostics:
        click.echo(diag.line(), err=True)
    counts: dict[str, int] = {}
    for diag in result.diagnostics:
        counts[diag.kind] = counts.get(diag.kind, 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no findings"
    click.echo(f"normalize: {summary}", err=True)


def _package_dir(api: str | None, out: Path | None, root: Path | None) -> tuple[str, Path]:
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


_ROOT_OPTION = click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    help="Project root: [tool.apismith] in its pyproject.toml, or specs/*.toml.",
)
_OUT_OPTION = click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    help="A generated package (or --meta project) directory, instead of an API name.",
)


@main.command()
@click.argument("api", required=False)
@_OUT_OPTION
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port (0: any free port).")
@_ROOT_OPTION
@friendly
def serve(api: str | None, out: Path | None, host: str, port: int, root: Path | None) -> None:
    """Run the generated mock server of API (or of the package at --out) with uvicorn.

    Every operation answers a schema-valid response; streaming operations send
    server-sent events.
    """
    import importlib

    name, package_dir = _package_dir(api, out, root)
    if not (package_dir / "server.py").is_file():
        raise ApismithError(
            f"{name}: no server in {package_dir} (an API without operations, or not"
            " generated yet: run `apismith generate` first)"
        )
    try:
        import uvicorn
    except ImportError:
        raise ApismithError(
            "`apismith serve` needs uvicorn, which apismith depends on: pip install apismith"
        ) from None
    sys.path.insert(0, str(package_dir.resolve().parent))
    server = importlib.import_module(f"{package_dir.name}.server")
    mock = importlib.import_module(f"{package_dir.name}.mock")
    click.echo(f"apismith: serving the {name} mock on http://{host}:{port}", err=True)
    uvicorn.run(server.create_app(mock.MockService()), host=host, port=port)


@main.command()
@click.argument("api", required=False)
@_OUT_OPTION
@click.option(
    "--site-dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where to build the site (default: the site_dir of its mkdocs.yml, beside the"
    " generated directory).",
)
@click.option("--serve", "serve_site", is_flag=True, help="Serve the site with live reload.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface (with --serve).")
@click.option("--port", default=8000, show_default=True, type=int, help="Port (with --serve).")
@_ROOT_OPTION
@friendly
def docs(
    api: str | None,
    out: Path | None,
    site_dir: Path | None,
    serve_site: bool,
    host: str,
    port: int,
    root: Path | None,
) -> None:
    """Build (or --serve) the API reference site of API, or of the package at --out.

    The site is built outside the generated directory, so that building it never makes
    the drift check fail. Needs mkdocs: pip install "apismith[docs]".
    """
    import importlib.util
    import subprocess

    name, package_dir = _package_dir(api, out, root)
    config = package_dir / "docs" / "mkdocs.yml"
    if not config.is_file():
        raise ApismithError(f"{name}: no docs/mkdocs.yml in {package_dir} (docs not generated)")
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        raise ApismithError('`apismith docs` needs mkdocs: pip install "apismith[docs]"')
    if serve_site:
        args = ["serve", "-f", str(config), "-a", f"{host}:{port}"]
    else:
        args = ["build", "--strict", "-f", str(config)]
        if site_dir is not None:
            args += ["-d", str(site_dir.resolve())]
    proc = subprocess.run([sys.executable, "-m", "mkdocs", *args], check=False)
    if proc.returncode != 0:
        raise ApismithError(
            f"{name}: mkdocs {args[0]} failed (exit {proc.returncode})", exit_code=1
        )
    if not serve_site:
        built = site_dir or (config.parent / _site_dir(config)).resolve()
        click.echo(f"{name}: site built in {built}")


def _site_dir(config: Path) -> str:
    for line in config.read_text(encoding="utf-8").splitlines():
        if line.startswith("site_dir:"):
            import json

            value: str = json.loads(line.split(":", 1)[1].strip())
            return value
    return "site"
