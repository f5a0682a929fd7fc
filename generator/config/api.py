"""An API's configuration (:class:`ApiConfig`), read from ``specs/<api>.toml``
(:func:`load_config`), from a few options completed by the ones a package records
(:func:`vendored_config`, :func:`adhoc_config`), and the options it records in turn
(:meth:`ApiConfig.options`). The package docstring (:mod:`generator.config`) shows the
file."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from generator.config.mock import MockTable
from generator.config.tables import (
    ClientTable,
    ModelsTable,
    ServerTable,
    StreamTable,
    read_tables,
)
from generator.errors import ApismithError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

OUTPUTS = ("models", "client", "server", "docs")
# keys of [api] (and of a flat [tool.apismith.apis.<api>] entry)
API_KEYS = {
    "package",
    "title",
    "spec",
    "base_url",
    "overlays",
    "out",
    "outputs",
    "templates",
    "meta",
    "ref_root",
}
TABLES = ("passes", "client", "server", "streaming", "uploads", "mock", "models")
TOP_KEYS = {"api", *TABLES}
# the options a package records: everything that shapes its bytes, no machine paths
OPTION_KEYS = (
    "source",
    "package",
    "title",
    "base_url",
    "outputs",
    "overlays",
    "meta",
    "passes",
    "client",
    "server",
    "streaming",
    "uploads",
    "mock",
    "models",
)


@dataclass(frozen=True)
class ApiConfig:
    """Everything one generation needs besides the spec itself."""

    name: str
    package: str
    title: str | None
    spec: Path
    out: Path
    base_url: str | None = None
    overlays: tuple[Path, ...] = ()
    config_file: Path | None = None
    passes: Mapping[str, bool] = field(default_factory=dict)
    pass_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # the typed tables (generator.config.tables), checked against the IR by bind_settings
    client: ClientTable = ClientTable()
    server: ServerTable = ServerTable()
    streaming: Mapping[str, StreamTable] = field(default_factory=dict)  # operation -> entry
    uploads: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # operation -> fields
    mock: MockTable = MockTable()
    models: ModelsTable = ModelsTable()
    deprecations: tuple[str, ...] = ()  # a line for each old spelling the config used
    outputs: tuple[str, ...] = OUTPUTS
    templates: Path | None = None
    meta: bool = False
    source: str | None = None  # the URL the spec was fetched from (``--spec URL``)
    # where local $refs may read files (None: the spec's folder); a machine path, not recorded
    ref_root: Path | None = None
    # how to run generation again from the directory the command ran in (for hints)
    command: tuple[str, ...] = ()

    @property
    def package_dir(self) -> Path:
        """Where the Python package lives: ``out``, or ``out/<package>`` for a project."""
        return self.out / self.package if self.meta else self.out

    def options(self) -> dict[str, Any]:
        """The options recorded in the manifest: JSON values, paths relative to the spec."""
        passes: dict[str, Any] = dict(sorted(self.passes.items()))
        for name, opts in sorted(self.pass_options.items()):
            passes[name] = {"enabled": bool(self.passes.get(name, True)), **opts}
        return {
            **({"source": self.source} if self.source else {}),
            "package": self.package,
            "title": self.title,
            "base_url": self.base_url,
            "outputs": list(self.outputs),
            "overlays": [relative_to_spec(p, self.spec) for p in self.overlays],
            "meta": self.meta,
            "passes": dict(sorted(passes.items())),
            "client": self.client.recorded(),
            "server": self.server.recorded(),
            "streaming": {key: entry.recorded() for key, entry in self.streaming.items()},
            "uploads": {key: list(names) for key, names in self.uploads.items()},
            **({"mock": self.mock.recorded()} if self.mock.recorded() else {}),
            **({"models": self.models.recorded()} if self.models.recorded() else {}),
        }


def is_http_url(text: str) -> bool:
    """Whether ``text`` is an ``http`` or ``https`` URL (a spec's ``source``)."""
    return text.lower().startswith(("http://", "https://"))


def relative_to_spec(path: Path, spec: Path) -> str:
    """``path`` relative to the spec's folder, posix, without resolving symlinks."""
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(spec.parent))).as_posix()


def package_name(text: str) -> str:
    """A valid, lower-case Python package name from any title or file name: the rule is
    :func:`generator.normalize.naming.package_name`, imported late (``generator.normalize``
    would add its passes to the import time of a no-op ``apismith check``)."""
    from generator.normalize.naming import package_name as rule

    return rule(text)


# what a generated package imports, directly or through its dependencies, and apismith
# itself: a package of one of these names would be imported in their place
_DEPENDENCY_MODULES = frozenset({
    "annotated_types", "anyio", "certifi", "click", "fastapi", "generator", "h11",
    "httpcore", "httpx", "idna", "multipart", "pydantic", "pydantic_core",
    "python_multipart", "sniffio", "starlette", "typing_extensions", "typing_inspection",
    "uvicorn",
})  # fmt: skip


def importable_problem(name: str) -> str | None:
    """Why a package cannot be called ``name`` (it shadows a module the package or
    apismith imports, or Python imports it under another name), or None."""
    import sys
    import unicodedata

    if unicodedata.normalize("NFKC", name) != name:
        return f"{name!r} is not in NFKC form (Python would import it as" + (
            f" {unicodedata.normalize('NFKC', name)!r})"
        )
    if name in sys.stdlib_module_names or name.lower() in _DEPENDENCY_MODULES:
        return f"{name!r} would shadow the module of that name (standard library or a dependency)"
    return None


def config_error(file: Path | str, message: str) -> ApismithError:
    return ApismithError(f"config: {message}", file=str(file))


# the config keys that name a path, and the CLI flag that may name one anywhere
PATH_KEYS = {"spec": "--spec", "out": "--out", "templates": "--templates",
             "ref_root": "--ref-root", "overlays": "--config"}  # fmt: skip


def inside(root: Path, path: Path, key: str, where: str) -> Path:
    """``path``, from the config key ``key``, which must stay inside ``root`` (the folder
    of the project whose config names it; symlinks resolved): a config is data, and a
    cloned repository's must not make apismith read or write elsewhere (exit 2). The
    command line's own flags may still name any path."""
    try:
        escapes = not path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        escapes = True
    if escapes:
        raise config_error(
            where,
            f"{key} {path.as_posix()!r} is outside {root.as_posix()}: a config names paths"
            f" inside its project only (on the command line, {PATH_KEYS[key]} may name any)",
        )
    return path


def confined(
    config: ApiConfig, root: Path, where: str, keys: Iterable[str] = ("spec", "out")
) -> ApiConfig:
    """``config`` after :func:`inside` of each path the config named (``keys``: of
    ``spec`` and ``out``, those it gave; ``templates``, ``ref_root`` and the overlays,
    recorded ones included, whenever set). A default is apismith's, not the config's."""
    for key in (*keys, "templates", "ref_root"):
        value = getattr(config, key)
        if value is not None:
            inside(root, value, key, where)
    for overlay in config.overlays:
        inside(root, overlay, "overlays", where)
    return config


def read_toml(path: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
        return data
    except FileNotFoundError:
        raise config_error(path, "file not found") from None
    except UnicodeDecodeError:
        raise config_error(path, "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise config_error(path, f"invalid TOML: {exc}") from None


def entry_options(where: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    """Check the shape of one flat entry's keys; return the options it sets (recorded
    form, paths as given). Its tables are read by :func:`build_config`."""
    unknown = sorted(set(entry) - API_KEYS - set(TABLES))
    if unknown:
        raise config_error(
            where, f"unknown key(s) {unknown}; expected {sorted(API_KEYS | set(TABLES))}"
        )
    for key in ("package", "title", "spec", "base_url", "out", "templates", "ref_root"):
        if key in entry and not isinstance(entry[key], str):
            raise config_error(where, f"{key} must be a string")
    if "meta" in entry and not isinstance(entry["meta"], bool):
        raise config_error(where, "meta must be true or false")
    for key in ("overlays", "outputs"):
        value = entry.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise config_error(where, f"{key} must be a list of strings")
    for key in TABLES:
        if key in entry and not isinstance(entry[key], dict):
            raise config_error(where, f"{key} must be a table")
    if "outputs" in entry:
        outputs = entry["outputs"]
        if "models" not in outputs or not set(outputs) <= set(OUTPUTS):
            raise config_error(where, f"outputs must include 'models' and be among {list(OUTPUTS)}")
    if "package" in entry and not entry["package"].isidentifier():
        raise config_error(
            where, f"package {entry['package']!r} is not a valid Python package name"
        )
    return {k: entry[k] for k in OPTION_KEYS if k in entry}


def _passes(
    where: str, table: Mapping[str, Any]
) -> tuple[dict[str, bool], dict[str, Mapping[str, Any]]]:
    if not table:  # (importing the pass names imports generator.normalize: only if needed)
        return {}, {}
    from generator.normalize.pass_names import PASS_NAMES

    enabled: dict[str, bool] = {}
    options: dict[str, Mapping[str, Any]] = {}
    for key, value in table.items():
        if key not in PASS_NAMES:
            raise config_error(
                where, f"unknown pass {key!r} in [passes]; passes are {list(PASS_NAMES)}"
            )
        if isinstance(value, bool):
            enabled[key] = value
        elif isinstance(value, dict):
            enabled[key] = bool(value.get("enabled", True))
            options[key] = {k: v for k, v in value.items() if k != "enabled"}
        else:
            raise config_error(where, f"[passes] {key} must be true/false or a table")
    return enabled, options


def build_config(
    name: str,
    spec: Path,
    out: Path,
    options: Mapping[str, Any],
    *,
    base: Path,
    config_file: Path | None = None,
    templates: Path | None = None,
    command: tuple[str, ...] = (),
    where: str | None = None,
) -> ApiConfig:
    """An :class:`ApiConfig` from options in recorded form, its tables read and checked
    here, once (errors name ``where``, else the config file, else the spec); overlay paths
    relative to ``base`` (the config's folder; the spec's folder for recorded options)."""
    where = where or str(config_file or spec)
    package = str(options.get("package") or package_name(out.name or spec.stem))
    meta = bool(options.get("meta", False))
    for label, importable in (("package", package), ("out", "" if meta else out.name)):
        problem = importable_problem(importable) if importable else None
        if problem:
            raise config_error(where, f"{label}: {problem}; choose another name")
    passes, pass_options = _passes(where, options.get("passes") or {})
    tables = read_tables(where, options)
    outputs = options.get("outputs") or list(OUTPUTS)
    source = options.get("source")
    if source is not None and not (isinstance(source, str) and is_http_url(source)):
        raise config_error(where, f"source: {source!r} is not an http(s) URL")
    return ApiConfig(
        name=name,
        source=source,
        package=package,
        title=options.get("title") or None,
        spec=spec,
        out=out,
        base_url=options.get("base_url") or None,
        overlays=tuple(base / str(p) for p in options.get("overlays") or []),
        config_file=config_file,
        passes=passes,
        pass_options=pass_options,
        client=tables.client,
        server=tables.server,
        streaming=tables.streaming,
        uploads=tables.uploads,
        mock=tables.mock,
        models=tables.models,
        deprecations=tables.deprecations,
        outputs=tuple(o for o in OUTPUTS if o in outputs),
        templates=templates,
        meta=meta,
        command=command,
    )


def load_config(path: Path) -> ApiConfig:
    """Read and validate one ``specs/<api>.toml``; every mistake is one clear line."""
    data = read_toml(path)
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise config_error(path, f"unknown table(s) {unknown}; expected {sorted(TOP_KEYS)}")
    api = data.get("api")
    if not isinstance(api, dict):
        raise config_error(path, "missing [api] table")
    unknown = sorted(set(api) - API_KEYS)
    if unknown:
        raise config_error(path, f"unknown key(s) {unknown} in [api]; expected {sorted(API_KEYS)}")
    if "spec" not in api:
        raise config_error(path, "[api] needs spec = '<file>'")
    entry = {**api, **{k: data[k] for k in TABLES if k in data}}
    options = entry_options(str(path), entry)
    base = path.parent
    # specs/<api>.toml is named after its API; a file called apismith.toml after its folder
    name = path.parent.name if path.stem == "apismith" else path.stem
    if "package" not in options:  # (the rule imports generator.normalize: only if needed)
        options["package"] = package_name(name)
    options.setdefault("title", name)
    package = str(options["package"])
    out = base / api["out"] if "out" in api else base.parent / "generated" / package
    templates = base / api["templates"] if "templates" in api else None
    config = build_config(
        name,
        base / str(api["spec"]),
        out,
        options,
        base=base,
        config_file=path,
        templates=templates,
        command=("apismith", "generate", "--config", str(path)),
    )
    config = replace(config, ref_root=base / api["ref_root"] if "ref_root" in api else None)
    # the project: the folder that holds specs/, or the config's own folder
    root = base.parent if base.name == "specs" else base
    return confined(config, root, str(path), [k for k in ("spec", "out") if k in api])


def recorded_options(out: Path) -> dict[str, Any]:
    """The options a package at ``out`` was generated with (empty if none are recorded)."""
    from generator.tree import read_manifest

    manifest = read_manifest(out) or {}
    options = manifest.get("options")
    if not isinstance(options, dict):
        return {}
    return {k: options[k] for k in OPTION_KEYS if k in options}


def vendored_config(
    name: str,
    spec: Path,
    out: Path,
    given: Mapping[str, Any],
    *,
    base: Path,
    templates: Path | None = None,
    fresh: bool = False,
    command: tuple[str, ...] = (),
    where: str | None = None,
) -> ApiConfig:
    """A config from a few given options (paths relative to ``base``), completed by the
    options recorded in the package at ``out`` unless ``fresh``; ``where`` names the given
    options in errors."""
    recorded = {} if fresh else recorded_options(out)
    options = {**recorded, **given}
    if "overlays" in given:  # given relative to base; recorded ones relative to the spec
        options["overlays"] = [relative_to_spec(base / p, spec) for p in given["overlays"]]
    return build_config(
        name,
        spec,
        out,
        options,
        base=spec.parent,
        templates=templates,
        command=command,
        where=where,
    )


def adhoc_config(
    spec: Path,
    out: Path,
    package: str | None = None,
    *,
    fresh: bool = False,
    source: str | None = None,
) -> ApiConfig:
    """The config of ``apismith generate --spec FILE --out DIR [--package NAME]``
    (``source``: the URL of ``--spec URL``, which ``spec`` is the fetched copy of)."""
    command = ["apismith", "generate", "--spec", source or str(spec), "--out", str(out)]
    if package:
        command += ["--package", package]
    given: dict[str, Any] = {"package": package} if package else {}
    if source:
        given["source"] = source
    return vendored_config(
        spec.stem, spec, out, given, base=Path.cwd(), fresh=fresh, command=tuple(command)
    )
