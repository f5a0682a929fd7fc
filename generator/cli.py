"""The ``apismith`` command line.

Every failure exits non-zero with one clear line on stderr (exit 2 for bad input,
1 for drift or broken output); set ``APISMITH_DEBUG=1`` for a traceback. Heavy modules
are imported inside the commands so that a no-op ``apismith check`` starts fast.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from generator import __version__
from generator.config import adhoc_config, load_config
from generator.errors import ApismithError, redact_userinfo
from generator.selection import generated_package, regenerate_hint, select_configs

if TYPE_CHECKING:
    from generator.model_worker import ModelRenderer

F = TypeVar("F", bound=Callable[..., Any])


def _fail(message: str, code: int) -> None:
    click.echo(f"apismith: error: {redact_userinfo(message)}", err=True)
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


_REF_ROOT = click.option(
    "--ref-root",
    type=click.Path(path_type=Path, file_okay=False),
    help="Let local $refs read any file under DIR (default: the spec's folder only).",
)


class _SpecSource(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.2
    """A spec file, as a ``Path``; a URL stays text (``Path`` would make ``http://h/x``
    ``http:/h/x``) for :func:`_spec_file` to refuse in one line."""

    name = "file"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = str(value)
        return text if re.match(r"(?i)^[a-z][a-z0-9+.-]*://", text) else Path(text)


def _spec_file(spec: Path | str | None) -> Path | None:
    """``--spec`` as a file; a URL is refused (exit 2): only ``generate`` fetches one, and
    every other command reads its vendored copy (never the network)."""
    if isinstance(spec, str):
        raise ApismithError(
            "a spec by URL is read by `apismith generate` only, which keeps a copy beside"
            " the package: pass that file",
            file=spec,
        )
    return spec


def _common(fn: F) -> F:
    options = [
        click.option(
            "--config", type=click.Path(path_type=Path), help="An API config file (TOML)."
        ),
        click.option("--spec", type=_SpecSource(), help="Ad hoc: a spec file, no config."),
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


def run(models: ModelRenderer | None = None) -> None:
    """The console script: :func:`main`, then a hard exit. ``models``: the model renderer
    ``generator.entry`` started early for ``generate`` (the command starts one otherwise).

    Tearing down an interpreter that holds datamodel-code-generator, pydantic and the
    generated models takes a noticeable part of a run; everything is written and flushed by
    then, so the process exits at once, as mypy does.
    """
    try:
        main.main(standalone_mode=False, obj=models)
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
    """apismith: typed Python packages from OpenAPI 3.x, Swagger 2.0 and JSON Schema specs."""


_JOBS = click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    help="How many APIs at once (default: one per core; 1: one after the other).",
)


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
@click.option(
    "--quiet", "-q", is_flag=True, help="Print only warnings and errors (no summary, no progress)."
)
@click.option("--update", is_flag=True, help="With --out DIR: fetch its spec URL anew.")
@_JOBS
@friendly
def generate(
    apis: tuple[str, ...],
    config: Path | None,
    spec: Path | str | None,
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
    quiet: bool,
    update: bool,
    jobs: int | None,
) -> None:
    """Generate every configured API (or the named ones).

    The APIs come from [tool.apismith] in pyproject.toml, or specs/*.toml. With --spec FILE
    (or URL) --out DIR, generate from any spec; on an existing package, the options recorded
    in its MANIFEST.json are kept. Output is imported before it replaces the previous
    output; nothing is written on failure. Several APIs are generated at once (--jobs).
    """
    from contextlib import nullcontext

    from generator.fetch import fetched
    from generator.model_worker import ModelRenderer
    from generator.parallel import generate_all, jobs_for, write_all
    from generator.progress import Progress

    progress = Progress.for_command(quiet=quiet)
    # The model renderer generator.entry started early: its worker imports
    # datamodel-code-generator while this process imports the pipeline (serial runs).
    obj = click.get_current_context().obj
    early = obj if isinstance(obj, ModelRenderer) else None
    with fetched(spec, out, force=force, update=update) as (spec_file, url):  # see fetch.py
        with early or nullcontext():
            configs = select_configs(
                apis,
                config,
                spec_file,
                out,
                package,
                root,
                templates=templates,
                meta=meta,
                fresh=fresh,
                ref_root=ref_root,
                source=url,
            )
            from generator.write import repair_target

            for c in configs:  # what an interrupted run left: put back, even if this fails
                repair_target(c.out)
            results = generate_all(configs, jobs_for(len(configs), jobs), progress, early=early)
        write_all(results, progress, force=force, verbose=verbose, timings=timings, quiet=quiet)


@main.command()
@click.argument("apis", nargs=-1)
@_common
@click.option(
    "--full",
    is_flag=True,
    help="Trust no manifest: regenerate in memory, compare every byte, report stray files.",
)
@click.option("--diff", is_flag=True, help="Print the unified diff after the summary.")
@click.option(
    "--diff-lines",
    type=click.IntRange(min=0),
    metavar="N",
    help="Print the first N lines of each API's diff (--diff: all of it).",
)
@click.option(
    "--quiet", "-q", is_flag=True, help="Print only the files that differ (no summary, no diff)."
)
@_JOBS
@friendly
def check(**params: Any) -> None:
    """Drift check: exit 0 when generated output is exactly what generation produces.

    Otherwise exit 1: print a summary of what differs (each file with its +/- line counts,
    the generator's runtime and config files apart from the spec's; a hand edit, a stale
    spec, a changed generator, a stray file), the unified diff with --diff, and the command
    that regenerates it. Works in a repo that vendors the output: [tool.apismith], or
    --spec and --out, need nothing else.
    """
    from generator.check import run_check

    p = params  # apis, the selection options (see _common), full, diff, diff_lines, quiet, jobs
    selected = select_configs(
        p["apis"],
        p["config"],
        _spec_file(p["spec"]),
        p["out"],
        p["package"],
        p["root"],
        templates=p["templates"],
        ref_root=p["ref_root"],
    )
    drifted = run_check(selected, params, echo=click.echo)
    if drifted:
        _fail(
            f"generated code is out of date for {', '.join(c.name for c in drifted)}; "
            f"run {regenerate_hint(drifted)} and commit",
            1,
        )


@main.command()
@click.argument("spec", type=_SpecSource())
@click.option("--config", type=click.Path(path_type=Path), help="Use this config's passes.")
@click.option("--disable", multiple=True, help="Switch a pass off (repeatable).")
@_REF_ROOT
@friendly
def normalize(
    spec: Path, config: Path | None, disable: tuple[str, ...], ref_root: Path | None
) -> None:
    """Print the normalized SPEC (JSON) on stdout and the warnings on stderr."""
    from generator.normalize.pass_names import PASS_NAMES
    from generator.pipeline import load_and_normalize
    from generator.render.spec import canonical

    for name in disable:
        if name not in PASS_NAMES:
            raise ApismithError(f"unknown pass {name!r}; passes are {', '.join(PASS_NAMES)}")
    spec = _spec_file(spec) or spec
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
@click.option("--spec", type=_SpecSource(), help="Generate from a spec, then serve.")
@click.option("--config", type=click.Path(path_type=Path), help="An API config file (TOML).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", default=4010, show_default=True, type=int, help="Port (0: any free port).")
@click.option("--seed", default=0, show_default=True, type=int, help="Vary the data (and faults).")
@click.option("--required-only", is_flag=True, help="Answer the required fields only.")
@click.option("--stateful", is_flag=True, help="Keep created resources: GET, list, update, delete.")
@click.option("--latency", default=0.0, type=float, help="Delay every answer by MS milliseconds.")
@click.option(
    "--error-rate", default=0.0, type=float, help="Answer a documented error with probability P."
)
@click.option("--send-webhooks", metavar="URL", help="Once up, POST a sample of each webhook.")
@click.option("--webhook-secret", help="Sign --send-webhooks posts (Standard Webhooks).")
@_ROOT_OPTION
@friendly
def serve(
    api: str | None,
    out: Path | None,
    spec: Path | None,
    config: Path | None,
    host: str,
    port: int,
    seed: int,
    required_only: bool,
    stateful: bool,
    latency: float,
    error_rate: float,
    send_webhooks: str | None,
    webhook_secret: str | None,
    root: Path | None,
) -> None:
    """Run the mock server of API (or of the package at --out, or --spec FILE) with uvicorn.

    Every operation answers realistic, schema-valid data; streaming operations send
    server-sent events. --stateful keeps what POST creates; --latency and --error-rate
    inject delays and documented errors (with Retry-After where it applies).
    --send-webhooks URL posts one sample of each webhook to URL once the mock is up.
    """
    from generator.serve import MockSettings, WebhookSending, resolve, serve_package

    settings = MockSettings(seed, required_only, stateful, latency, error_rate)
    if webhook_secret and not send_webhooks:
        raise ApismithError("--webhook-secret signs the posts of --send-webhooks URL: give both")
    sending = WebhookSending(send_webhooks, webhook_secret) if send_webhooks else None
    spec = _spec_file(spec)
    name, package_dir, cfg = resolve(api, out, spec, config, root)
    if spec is not None:  # uvicorn re-raises SIGTERM after shutdown: exit through finally
        import signal

        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        echo = lambda line: click.echo(line, err=True)  # noqa: E731
        serve_package(name, package_dir, cfg, settings, (host, port), sending, echo)
    finally:
        if spec is not None:  # the temporary package of --spec
            import shutil

            shutil.rmtree(package_dir.parent, ignore_errors=True)


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

    name, package_dir = generated_package(api, out, root)
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


@main.command(context_settings={"ignore_unknown_options": True}, add_help_option=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@friendly
def diff(args: tuple[str, ...]) -> None:
    """What changed between two versions of an API spec, classified (docs/diff.md)."""
    from generator.diff.command import diff as command  # imported when it runs

    command.main(list(args), "apismith diff", standalone_mode=False)
