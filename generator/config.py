"""Per-API configuration: one small TOML file per API, ``specs/<api>.toml``.

    [api]
    package = "llm_engine"            # Python package name of the output
    title = "LLM Engine"              # human title (docs, client docstrings)
    spec = "llm-engine/openapi.json"  # relative to this file
    base_url = "https://..."          # default base URL (else the spec's first server)
    overlays = []                     # OpenAPI Overlay files, relative to this file
    outputs = ["models", "client", "server", "docs"]  # what to render (models always)
    out = "../generated/llm_engine"   # optional; default <project>/generated/<package>

    [passes]                          # every pass is on unless switched off here
    upgrade = true

    [passes.names]                    # options of one pass
    schema_renames = { Old = "New" }

    [streaming.<operation>]           # an operation answering server-sent events, for the
    chunk = "ChunkModel"              # client and the server: the model of one event,
    flag = "stream"                   # the body field that turns streaming on (absent:
    response = "ResponseModel"        # it always streams), the non-streamed response

The project root is the parent of the directory holding the config file.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.errors import ApismithError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

API_KEYS = {"package", "title", "spec", "base_url", "overlays", "out", "outputs"}
OUTPUTS = ("models", "client", "server", "docs")
TOP_KEYS = {"api", "passes", "client", "server", "streaming"}


@dataclass(frozen=True)
class ApiConfig:
    """Everything one generation needs besides the spec itself."""

    name: str
    package: str
    title: str
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

    def input_files(self) -> tuple[tuple[str, Path], ...]:
        """The inputs recorded in the manifest, as (role, path)."""
        files: list[tuple[str, Path]] = [("spec", self.spec)]
        if self.config_file is not None:
            files.append(("config", self.config_file))
        files.extend(("overlay", p) for p in self.overlays)
        return tuple(files)


def package_name(text: str) -> str:
    """A valid, lower-case Python package name from any title or file name."""
    name = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower() or "api"
    if name[0].isdigit():
        name = f"api_{name}"
    import keyword

    return f"{name}_" if keyword.iskeyword(name) else name


def _fail(file: Path, message: str) -> ApismithError:
    return ApismithError(f"config: {message}", file=str(file))


def load_config(path: Path) -> ApiConfig:
    """Read and validate one config file; every mistake is one clear line."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _fail(path, "file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise _fail(path, f"invalid TOML: {exc}") from None
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
    base = path.parent
    # specs/<api>.toml is named after its API; a file called apismith.toml after its folder
    name = path.parent.name if path.stem == "apismith" else path.stem
    package = str(api.get("package") or package_name(name))
    if not package.isidentifier():
        raise _fail(path, f"[api] package {package!r} is not a valid Python package name")
    out = base / api["out"] if "out" in api else base.parent / "generated" / package
    passes, options = _passes(path, data.get("passes", {}))
    outputs = tuple(api.get("outputs", OUTPUTS))
    if "models" not in outputs or not set(outputs) <= set(OUTPUTS):
        raise _fail(path, f"[api] outputs must include 'models' and be among {list(OUTPUTS)}")
    return ApiConfig(
        name=name,
        package=package,
        title=str(api.get("title") or name),
        spec=base / str(api["spec"]),
        out=out,
        base_url=api.get("base_url"),
        overlays=tuple(base / str(p) for p in api.get("overlays", [])),
        config_file=path,
        passes=passes,
        pass_options=options,
        client=data.get("client", {}),
        server=data.get("server", {}),
        streaming=data.get("streaming", {}),
        outputs=tuple(o for o in OUTPUTS if o in outputs),
    )


def _passes(
    path: Path, table: Mapping[str, Any]
) -> tuple[dict[str, bool], dict[str, Mapping[str, Any]]]:
    from generator.normalize import PASS_NAMES

    enabled: dict[str, bool] = {}
    options: dict[str, Mapping[str, Any]] = {}
    for key, value in table.items():
        if key not in PASS_NAMES:
            raise _fail(path, f"unknown pass {key!r} in [passes]; passes are {list(PASS_NAMES)}")
        if isinstance(value, bool):
            enabled[key] = value
        elif isinstance(value, dict):
            enabled[key] = bool(value.get("enabled", True))
            options[key] = {k: v for k, v in value.items() if k != "enabled"}
        else:
            raise _fail(path, f"[passes] {key} must be true/false or a table")
    return enabled, options


def adhoc_config(spec: Path, out: Path, package: str | None = None) -> ApiConfig:
    """A config inferred for ``apismith generate --spec FILE --out DIR``."""
    pkg = package or package_name(out.name if out.name else spec.stem)
    return ApiConfig(name=spec.stem, package=pkg, title=pkg, spec=spec, out=out)


def find_configs(root: Path) -> list[Path]:
    """Every ``specs/*.toml`` under the project root, sorted by name."""
    return sorted((root / "specs").glob("*.toml"))


def find_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` that has ``specs/*.toml``."""
    for candidate in (start, *start.parents):
        if any((candidate / "specs").glob("*.toml")):
            return candidate
    return None
