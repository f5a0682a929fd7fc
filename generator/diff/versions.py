"""The two versions ``apismith diff`` compares (:class:`Pair`): two spec files, a file at
two git revisions, or, with ``--since REV``, each configured API's spec at REV and in the
working tree. One config applies to both versions of a pair (passes, overlays, names).

:func:`pair_changes` normalizes both, compares their IRs and, unless told not to,
generates both Python packages (models and client) under a temporary folder and compares
them (:mod:`generator.diff.surface`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from generator.config import ApiConfig, adhoc_config, load_config
from generator.diff import spec_changes
from generator.diff.change import Change
from generator.diff.rules import change
from generator.diff.sources import NotAtRevision, at_revision, parse_source
from generator.errors import ApismithError

ADHOC_PACKAGE = "api"  # the package both versions of an ad hoc pair are generated as


@dataclass(frozen=True)
class Version:
    """One side: the config to load it with, and how to name it in errors (``folder``:
    where a git revision was written, which errors name as ``FILE@REV``)."""

    config: ApiConfig
    label: str
    folder: Path | None = None
    rev: str | None = None

    def named(self, exc: ApismithError, doing: str = "") -> ApismithError:
        """``exc`` naming this version's file as the user gave it, not its copy."""
        file = exc.file
        if self.folder is not None and file and Path(file).is_relative_to(self.folder):
            file = f"{Path(file).relative_to(self.folder).as_posix()}@{self.rev}"
        return ApismithError(
            f"{doing}{exc.message}",
            file=file or self.label,
            pointer=exc.pointer,
            line=exc.line,
            column=exc.column,
            exit_code=exc.exit_code,
        )


@dataclass(frozen=True)
class Pair:
    """The two versions of one API (``prefix``: name the API in every location)."""

    name: str
    old: Version
    new: Version
    prefix: bool = False


def _side(text: str, into: Path, config: ApiConfig) -> Version:
    path, rev = parse_source(text)
    if rev is None:
        if not path.is_file():
            raise ApismithError("file not found", file=text)
        return Version(replace(config, spec=path), text)
    spec, ref_root = at_revision(path, rev, into, config.ref_root)
    return Version(replace(config, spec=spec, ref_root=ref_root), text, into, rev)


def file_pair(old: str, new: str, config_file: Path | None, workdir: Path) -> Pair:
    """``apismith diff OLD NEW``: each a file or ``FILE@REV``; ``config_file`` (an API's
    TOML config) applies to both, else the defaults do."""
    if config_file is not None:
        config = load_config(config_file)
    else:
        path = parse_source(new)[0]
        config = adhoc_config(path, workdir / ADHOC_PACKAGE, ADHOC_PACKAGE, fresh=True)
    return Pair(
        config.name,
        _side(old, workdir / "old-spec", config),
        _side(new, workdir / "new-spec", config),
    )


def since_pairs(
    rev: str, names: Sequence[str], config_file: Path | None, root: Path | None, workdir: Path
) -> tuple[list[Pair], list[Change]]:
    """``apismith diff --since REV [API...]``: each configured API (or the named ones),
    its spec at ``rev`` against the working tree; and a change for each API whose spec
    did not exist at ``rev`` (a new API: nothing to compare)."""
    from generator.selection import select_configs

    configs = select_configs(names, config_file, None, None, None, root)
    pairs, new_apis = [], []
    for index, config in enumerate(configs):
        into = workdir / f"since-{index}"
        label = config.spec.as_posix()
        try:
            spec, ref_root = at_revision(config.spec, rev, into, config.ref_root)
        except NotAtRevision:
            message = f"API {config.name} is new: its spec is not in {rev}"
            new_apis.append(change("api-added", label, message))
            continue
        old = Version(replace(config, spec=spec, ref_root=ref_root), f"{label}@{rev}", into, rev)
        pairs.append(Pair(config.name, old, Version(config, label), len(configs) > 1))
    return pairs, new_apis


def normalized(version: Version) -> dict[str, Any]:
    """The normalized spec of ``version``."""
    from generator.pipeline import load_and_normalize

    try:
        return load_and_normalize(version.config)[1].spec
    except ApismithError as exc:
        raise version.named(exc) from None


def pair_changes(pair: Pair, *, surface: bool, workdir: Path) -> list[Change]:
    """Every change of ``pair``: the spec's, and with ``surface`` the Python package's
    (generated under ``workdir``, a folder of this pair's own)."""
    found = spec_changes(normalized(pair.old), normalized(pair.new), pair.new.config)
    if surface:
        from generator.diff.surface import package_changes

        roots = [workdir / f"{side}-package" for side in ("old", "new")]
        write_package(pair.old, roots[0])
        write_package(pair.new, roots[1])
        found += package_changes(roots[0], roots[1], pair.new.config.package)
    if pair.prefix:
        found = [replace(c, location=f"{pair.name}: {c.location}") for c in found]
    return found


def write_package(version: Version, root: Path) -> None:
    """The models and client of ``version``, generated into ``root/<package>``."""
    from generator.pipeline import generate

    config = version.config
    outputs = tuple(o for o in ("models", "client") if o in config.outputs)
    config = replace(config, outputs=outputs, meta=False, out=root / config.package)
    try:
        files = generate(config).files
    except ApismithError as exc:
        doing = f"generating the package of {version.label} (--no-surface skips it): "
        raise version.named(exc, doing) from None
    for name, data in files.items():
        target = config.out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
