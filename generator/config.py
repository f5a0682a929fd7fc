"""Per-API configuration, and the options a generated package records about itself.

An API is configured in one of three places:

- ``specs/<api>.toml`` (or ``--config FILE``), one small TOML file per API::

      [api]
      package = "llm_engine"            # Python package name of the output
      title = "LLM Engine"              # human title (docs, client docstrings)
      spec = "llm-engine/openapi.json"  # relative to this file
      base_url = "https://..."          # default base URL (else the spec's first server)
      overlays = []                     # OpenAPI Overlay files, relative to this file
      outputs = ["models", "client", "server", "docs"]  # what to render (models always)
      out = "../generated/llm_engine"   # optional; default <project>/generated/<package>
      templates = "../templates-local"  # optional: template overrides, relative to this file
      meta = false                      # true: out/ is an installable project (pyproject)
      ref_root = "."                    # optional: where $refs may read files (default:
                                        # the spec's folder), relative to this file

      [passes]                          # every pass is on unless switched off here
      upgrade = true

      [passes.names]                    # options of one pass
      schema_renames = { Old = "New" }

      [streaming.<operation>]           # an operation answering server-sent events
      chunk = "ChunkModel"              # the model of one event
      flag = "stream"                   # the body field that turns streaming on
      response = "ResponseModel"        # the non-streamed response

  Such a file is authoritative: what it does not say takes the default. The project root
  is the parent of the directory holding it.

- ``[tool.apismith.apis.<api>]`` in a repo's ``pyproject.toml``: the same keys, flat (``spec``
  and ``out`` required, the tables ``passes``, ``client``, ``server`` and ``streaming`` as
  sub-tables), paths relative to ``pyproject.toml``;
- the command line: ``--spec FILE --out DIR [--package NAME]``.

The last two are *vendoring* configs: every option they do not give is taken from the
options recorded in the existing package's ``MANIFEST.json`` (see :func:`recorded_options`),
else the default. Copying a package and its spec into another repo is therefore enough to
check and regenerate it there.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

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
TABLES = ("passes", "client", "server", "streaming")
TOP_KEYS = {"api", *TABLES}
# the options a package records: everything that shapes its bytes, no machine paths
OPTION_KEYS = (
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
    client: Mapping[str, Any] = field(default_factory=dict)
    server: Mapping[str, Any] = field(default_factory=dict)
    streaming: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    outputs: tuple[str, ...] = OUTPUTS
    templates: Path | None = None
    meta: bool = False
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
            "package": self.package,
            "title": self.title,
            "base_url": self.base_url,
            "outputs": list(self.outputs),
            "overlays": [relative_to_spec(p, self.spec) for p in self.overlays],
            "meta": self.meta,
            "passes": dict(sorted(passes.items())),
            "client": dict(self.client),
            "server": dict(self.server),
            "streaming": dict(self.streaming),
        }


def relative_to_spec(path: Path, spec: Path) -> str:
    """``path`` relative to the spec's folder, posix, without resolving symlinks."""
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(spec.parent))).as_posix()


def package_name(text: str) -> str:
    """A valid, lower-case Python package name from any title or file name."""
    name = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower() or "api"
    if name[0].isdigit():
        name = f"api_{name}"
    import keyword

    return f"{name}_" if keyword.iskeyword(name) else name


def _fail(file: Path | str, message: str) -> ApismithError:
    return ApismithError(f"config: {message}", file=str(file))


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
        return data
    except FileNotFoundError:
        raise _fail(path, "file not found") from None
    except UnicodeDecodeError:
        raise _fail(path, "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise _fail(path, f"invalid TOML: {exc}") from None


def _options(where: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    """Validate one flat entry; return the options it sets (recorded form, paths as given)."""
    unknown = sorted(set(entry) - API_KEYS - set(TABLES))
    if unknown:
        raise _fail(where, f"unknown key(s) {unknown}; expected {sorted(API_KEYS | set(TABLES))}")
    for key in ("package", "title", "spec", "base_url", "out", "templates", "ref_root"):
        if key in entry and not isinstance(entry[key], str):
            raise _fail(where, f"{key} must be a string")
    if "meta" in entry and not isinstance(entry["meta"], bool):
        raise _fail(where, "meta must be true or false")
    for key in ("overlays", "outputs"):
        value = entry.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _fail(where, f"{key} must be a list of strings")
    for key in TABLES:
        if key in entry and not isinstance(entry[key], dict):
            raise _fail(where, f"{key} must be a table")
    if "outputs" in entry:
        outputs = entry["outputs"]
        if "models" not in outputs or not set(outputs) <= set(OUTPUTS):
            raise _fail(where, f"outputs must include 'models' and be among {list(OUTPUTS)}")
    if "package" in entry and not entry["package"].isidentifier():
        raise _fail(where, f"package {entry['package']!r} is not a valid Python package name")
    if "passes" in entry:
        _passes(where, entry["passes"])
    return {k: entry[k] for k in OPTION_KEYS if k in entry}


def _passes(
    where: str, table: Mapping[str, Any]
) -> tuple[dict[str, bool], dict[str, Mapping[str, Any]]]:
    from generator.normalize import PASS_NAMES

    enabled: dict[str, bool] = {}
    options: dict[str, Mapping[str, Any]] = {}
    for key, value in table.items():
        if key not in PASS_NAMES:
            raise _fail(where, f"unknown pass {key!r} in [passes]; passes are {list(PASS_NAMES)}")
        if isinstance(value, bool):
            enabled[key] = value
        elif isinstance(value, dict):
            enabled[key] = bool(value.get("enabled", True))
            options[key] = {k: v for k, v in value.items() if k != "enabled"}
        else:
            raise _fail(where, f"[passes] {key} must be true/false or a table")
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
) -> ApiConfig:
    """An :class:`ApiConfig` from options in recorded form; overlay paths relative to
    ``base`` (the config's folder; the spec's folder for recorded options)."""
    where = str(config_file or spec)
    passes, pass_options = _passes(where, options.get("passes") or {})
    outputs = options.get("outputs") or list(OUTPUTS)
    return ApiConfig(
        name=name,
        package=str(options.get("package") or package_name(out.name or spec.stem)),
        title=options.get("title") or None,
        spec=spec,
        out=out,
        base_url=options.get("base_url") or None,
        overlays=tuple(base / str(p) for p in options.get("overlays") or []),
        config_file=config_file,
        passes=passes,
        pass_options=pass_options,
        client=dict(options.get("client") or {}),
        server=dict(options.get("server") or {}),
        streaming=dict(options.get("streaming") or {}),
        outputs=tuple(o for o in OUTPUTS if o in outputs),
        templates=templates,
        meta=bool(options.get("meta", False)),
        command=command,
    )


def load_config(path: Path) -> ApiConfig:
    """Read and validate one ``specs/<api>.toml``; every mistake is one clear line."""
    data = _read_toml(path)
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise _fail(path, f"unknown table(s) {unknown}; expected {sorted(TOP_KEYS)}")
    api = data.get("api")
    if not isinstance(api, dict):
        raise _fail(path, "missing [api] table")
    unknown = sorted(set(api) - API_KEYS)
    if unknown:
        raise _fail(path, f"unknown key(s) {unknown} in [api]; expected {sorted(API_KEYS)}")
    if "spec" not in api:
        raise _fail(path, "[api] needs spec = '<file>'")
    entry = {**api, **{k: data[k] for k in TABLES if k in data}}
    options = _options(str(path), entry)
    base = path.parent
    # specs/<api>.toml is named after its API; a file called apismith.toml after its folder
    name = path.parent.name if path.stem == "apismith" else path.stem
    options.setdefault("package", package_name(name))
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
    return replace(config, ref_root=base / api["ref_root"] if "ref_root" in api else None)


def recorded_options(out: Path) -> dict[str, Any]:
    """The options a package at ``out`` was generated with (empty if none are recorded)."""
    from generator.manifest import read_manifest

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
) -> ApiConfig:
    """A config from a few given options (paths relative to ``base``), completed by the
    options recorded in the package at ``out`` unless ``fresh``."""
    recorded = {} if fresh else recorded_options(out)
    options = {**recorded, **given}
    if "overlays" in given:  # given relative to base; recorded ones relative to the spec
        options["overlays"] = [relative_to_spec(base / p, spec) for p in given["overlays"]]
    return build_config(
        name, spec, out, options, base=spec.parent, templates=templates, command=command
    )


def adhoc_config(
    spec: Path, out: Path, package: str | None = None, *, fresh: bool = False
) -> ApiConfig:
    """The config of ``apismith generate --spec FILE --out DIR [--package NAME]``."""
    command = ["apismith", "generate", "--spec", str(spec), "--out", str(out)]
    if package:
        command += ["--package", package]
    given = {"package": package} if package else {}
    return vendored_config(
        spec.stem, spec, out, given, base=Path.cwd(), fresh=fresh, command=tuple(command)
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
    tool = _read_toml(pyproject).get("tool")
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
        raise _fail(where, f"unknown key(s) {unknown}; APIs go in [tool.apismith.apis.<name>]")
    apis = table.get("apis", {})
    if not isinstance(apis, dict) or not apis:
        raise _fail(where, "no APIs: add a [tool.apismith.apis.<name>] table with spec and out")
    configs = {}
    for name in sorted(apis):
        entry = apis[name]
        here = f"{project.pyproject} [tool.apismith.apis.{name}]"
        if not isinstance(entry, dict):
            raise _fail(here, "must be a table")
        given = _options(here, entry)
        for key in ("spec", "out"):
            if key not in entry:
                raise _fail(here, f"needs {key} = '<path>'")
        root = project.root
        templates = root / entry["templates"] if "templates" in entry else None
        configs[name] = replace(
            vendored_config(
                name,
                root / entry["spec"],
                root / entry["out"],
                given,
                base=root,
                templates=templates,
                fresh=fresh,
                command=(*command, name),
            ),
            ref_root=root / entry["ref_root"] if "ref_root" in entry else None,
        )
    return configs
