"""The ``apismith diff`` command. ``generator.cli`` registers a small wrapper that imports
this module when the command runs (a no-op ``apismith check`` does not pay for it) and
turns an :class:`~generator.errors.ApismithError` into one line and exit 2."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import cast

import click

from generator.diff.change import Change, Level, at_or_above, ordered
from generator.diff.report import FORMATS, format_changes
from generator.errors import ApismithError

HELP = """What changed between two versions of an API spec, classified.

\b
  apismith diff OLD NEW                    two spec files (JSON or YAML)
  apismith diff api.json@HEAD~1 api.json   FILE@REV: the file at a git revision
  apismith diff --since REV [API...]       each configured API's spec at REV vs now

Every change is breaking, warning or info (see docs/diff.md for the rules); the changes
of the generated Python package (models and client) follow, unless --no-surface. Exit 1
with --fail-on LEVEL when a change at or above LEVEL is found, else 0; exit 2 on bad
input.
"""


@click.command(name="diff", help=HELP, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("specs", nargs=-1, metavar="[OLD NEW | API...]")
@click.option("--since", metavar="REV", help="Each configured API's spec at git REV vs now.")
@click.option(
    "--config",
    type=click.Path(path_type=Path, dir_okay=False),
    help="An API config (TOML) applied to both versions; with --since, that API only.",
)
@click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    help="With --since: the project root (default: found from the current directory).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text, markdown (a table for a pull-request comment) or json.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["breaking", "warning"]),
    help="Exit 1 when a change at or above this level is found.",
)
@click.option(
    "--no-surface",
    is_flag=True,
    help="Skip the generated Python package's changes (they cost two generations).",
)
def diff(
    specs: tuple[str, ...],
    since: str | None,
    config: Path | None,
    root: Path | None,
    fmt: str,
    fail_on: str | None,
    no_surface: bool,
) -> None:
    """``apismith diff`` (its help is :data:`HELP`): print the changes, exit 1 when one is
    at or above ``--fail-on``."""
    changes = collect(specs, since, config, root, surface=not no_surface)
    click.echo(format_changes(changes, fmt), nl=False)
    if fail_on is not None and at_or_above(changes, cast(Level, fail_on)):
        sys.exit(1)


def collect(
    specs: tuple[str, ...],
    since: str | None,
    config: Path | None,
    root: Path | None,
    *,
    surface: bool,
) -> list[Change]:
    """The changes the arguments ask for, in report order."""
    from generator.diff.versions import file_pair, pair_changes, since_pairs

    if since is None and len(specs) != 2:
        raise click.UsageError("give OLD and NEW (spec files, or FILE@REV), or --since REV")
    if since is not None and root is not None and config is not None:
        raise ApismithError("--since takes --config or --root, not both")
    found: list[Change] = []
    with tempfile.TemporaryDirectory(prefix="apismith-diff-") as scratch:
        workdir = Path(scratch)
        if since is None:
            pairs = [file_pair(specs[0], specs[1], config, workdir / "specs")]
        else:
            pairs, found = since_pairs(since, specs, config, root, workdir / "specs")
        for index, pair in enumerate(pairs):
            found += pair_changes(pair, surface=surface, workdir=workdir / f"pair-{index}")
    return ordered(found)
