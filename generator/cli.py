"""The ``apismith`` command line.

Every failure exits non-zero with one clear line on stderr (exit 2 for bad input,
1 for drift or broken output); set ``APISMITH_DEBUG=1`` for a traceback. Heavy modules
are imported inside the commands so that a no-op ``apismith check`` starts fast.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from generator import __version__
from generator.config import ApiConfig, adhoc_config, find_configs, find_root, load_config
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
) -> list[ApiConfig]:
    """The APIs a command works on: ad hoc (``--spec``), one ``--config``, or configured ones."""
    if spec is not None:
        if names or config is not None:
            raise ApismithError("--spec cannot be combined with API names or --config")
        if out is None:
            raise ApismithError("--spec needs --out DIR (the package directory to write)")
        return [adhoc_config(spec, out, package)]
    if config is not None:
        if names:
            raise ApismithError("--config cannot be combined with API names")
        loaded = load_config(config)
        if out is not None:
            loaded = _with_out(loaded, out)
        return [loaded]
    base = root or find_root(Path.cwd())
    if base is None:
        raise ApismithError(
            "no specs/*.toml found here or above; pass --config FILE or --spec FILE --out DIR"
        )
    configs = {p.stem: p for p in find_configs(base)}
    unknown = [n for n in names if n not in configs]
    if unknown:
        raise ApismithError(f"unknown API {unknown[0]!r}; configured: {', '.join(sorted(configs))}")
    chosen = [configs[n] for n in names] if names else [configs[n] for n in sorted(configs)]
    result = [load_config(p) for p in chosen]
    if out is not None:
        if len(result) != 1:
            raise ApismithError("--out needs exactly one API")
        result = [_with_out(result[0], out)]
    return result


def _with_out(config: ApiConfig, out: Path) -> ApiConfig:
    from dataclasses import replace

    return replace(config, out=out)


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
            help="Project root holding specs/*.toml (default: found from the current directory).",
        ),
        click.option(
            "--templates",
            type=click.Path(path_type=Path, file_okay=False),
            help="A directory of templates that override the built-in ones.",
        ),
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
@click.option("-v", "--verbose", is_flag=True, help="List every warning, rename and merge.")
@click.option("--timings", is_flag=True, help="Print the wall time of every pipeline stage.")
@friendly
def generate(
    apis: tuple[str, ...],
    config: Path | None,
    spec: Path | None,
    out: Path | None,
    package: str | None,
    root: Path | None,
    templates: Path | None,
    verbose: bool,
    timings: bool,
) -> None:
    """Generate every configured API (or the named ones) into generated/<package>/.

    With --spec FILE --out DIR, generate from any spec with inferred defaults.
    Output is imported before it replaces the previous output; nothing is written on failure.
    """
    from generator.workers import take_worker

    # The model worker is forked first (by generator.entry when it can, else here): it
    # imports datamodel-code-generator while this process imports the pipeline and loads.
    with take_worker() as worker:
        from generator.pipeline import generate as run

        configs = select_configs(apis, config, spec, out, package, root)
        results = [run(c, str(templates) if templates else None, worker) for c in configs]
    from generator.write import write_package

    for result in results:
        if result.summary.unaccounted:
            raise ApismithError(
                f"{result.config.name}: schemas without a model: "
                + ", ".join(result.summary.unaccounted),
                exit_code=1,
            )
    for result in results:
        start = time.perf_counter()
        write_package(result.config.out, result.files)
        if timings:
            for stage, seconds in (
                *result.timings,
                ("write (with import check)", time.perf_counter() - start),
            ):
                click.echo(f"  {stage:<28} {seconds * 1000:8.1f} ms", err=True)
        click.echo(result.summary.line(result.config.name))
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
    quiet: bool,
) -> None:
    """Drift check: exit 0 when generated output is exactly what generation produces.

    Otherwise exit 1 and print a unified diff of what differs (a hand edit, a stale spec,
    a changed generator). Works in a repo that vendors the output: pass --config, or
    --spec and --out.
    """
    from generator.check import check_api

    drifted = []
    for cfg in select_configs(apis, config, spec, out, package, root):
        result = check_api(cfg, str(templates) if templates else None)
        if result.clean:
            click.echo(f"{cfg.name}: up to date ({cfg.out})")
            continue
        drifted.append(cfg.name)
        if not quiet:
            click.echo(result.diff, nl=False)
        for name in result.changed:
            click.echo(f"{cfg.name}: drifted: {cfg.out / name}", err=True)
    if drifted:
        _fail(
            f"generated code is out of date for {', '.join(drifted)}; "
            "run `apismith generate` (or `make regenerate`) and commit",
            1,
        )


@main.command()
@click.argument("spec", type=click.Path(path_type=Path))
@click.option("--config", type=click.Path(path_type=Path), help="Use this config's passes.")
@click.option("--disable", multiple=True, help="Switch a pass off (repeatable).")
@friendly
def normalize(spec: Path, config: Path | None, disable: tuple[str, ...]) -> None:
    """Print the normalized SPEC (JSON) on stdout and the warnings on stderr."""
    from generator.normalize import PASS_NAMES
    from generator.pipeline import load_and_normalize
    from generator.render.spec import canonical

    for name in disable:
        if name not in PASS_NAMES:
            raise ApismithError(f"unknown pass {name!r}; passes are {', '.join(PASS_NAMES)}")
    base = load_config(config) if config else adhoc_config(spec, Path("."))
    from dataclasses import replace

    cfg = replace(base, spec=spec, passes={**base.passes, **{name: False for name in disable}})
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


@main.command()
@click.argument("api")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port (0: any free port).")
@click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    help="Project root holding specs/*.toml (default: found from the current directory).",
)
@friendly
def serve(api: str, host: str, port: int, root: Path | None) -> None:
    """Run the generated mock server of API (from generated/<package>/) with uvicorn.

    Every operation answers a schema-valid response; streaming operations send
    server-sent events. Needs fastapi and uvicorn. Run `apismith generate API` first.
    """
    import importlib

    (cfg,) = select_configs([api], None, None, None, None, root)
    if not (cfg.out / "server.py").is_file():
        raise ApismithError(
            f"{cfg.name}: no server in {cfg.out} (an API without operations, or not generated:"
            f" run `apismith generate {cfg.name}`)"
        )
    try:
        import uvicorn
    except ImportError:
        raise ApismithError(
            "`apismith serve` needs uvicorn and fastapi: pip install fastapi uvicorn"
        ) from None
    sys.path.insert(0, str(cfg.out.resolve().parent))
    server = importlib.import_module(f"{cfg.out.name}.server")
    mock = importlib.import_module(f"{cfg.out.name}.mock")
    click.echo(f"apismith: serving the {cfg.name} mock on http://{host}:{port}", err=True)
    uvicorn.run(server.create_app(mock.MockService()), host=host, port=port)
