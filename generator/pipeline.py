"""The whole pipeline for one API, as one pure function of its input files:

    load -> overlays -> normalize -> (models start) -> IR -> settings -> render -> format
    -> (models wait) -> package files -> manifest -> account      (files in memory)

:func:`generate` reads as that list of steps; each is a small function below. The
models render through :class:`generator.render.models.ModelRenderer` (in another process
when it can). Writing (``generator.write``) is the only stage with effects.

On a large spec the model worker is the long pole, so the main process spends the wait
where it helps the end: it compiles the other modules for the import check
(:mod:`generator.bytecode`) and holds its files compressed (:mod:`generator.memory`),
since peak memory is the two processes' sum; the cyclic garbage collector is kept off the
spec and the IR, which live until the end.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from generator import __version__
from generator.bytecode import Compiled, compile_ahead
from generator.config import ApiConfig
from generator.errors import ApismithError
from generator.format import Formatting, format_files
from generator.load import LoadedSpec, load_spec
from generator.manifest import build_manifest, generator_fingerprint, input_hashes
from generator.memory import Held, collector_for_large_data
from generator.model_worker import ModelRenderer, PendingModels
from generator.normalize import Normalized, normalize
from generator.normalize.diagnostics import Diagnostic
from generator.overlay import apply_overlays
from generator.render.models import defined_names
from generator.render.models.aliases import alias_block
from generator.render.settings import ApiSettings, bind_settings
from generator.render.spec import render_spec
from generator.render.templates import render, render_header, unmatched_overrides
from generator.tree import MANIFEST_NAME

if TYPE_CHECKING:
    from generator.ir import Api


@dataclass(frozen=True)
class Summary:
    schemas: int
    classes: int
    aliases: int
    merged: int
    renamed: int
    warnings: int
    unaccounted: tuple[str, ...] = ()

    def line(self, name: str) -> str:
        return (
            f"{name}: {self.schemas} schemas -> {self.classes} classes"
            f" (+{self.aliases} type aliases), {self.merged} merged,"
            f" {self.renamed} renamed, {self.warnings} warnings"
        )


@dataclass(frozen=True)
class Generated:
    config: ApiConfig
    files: dict[str, bytes]
    diagnostics: tuple[Diagnostic, ...]
    summary: Summary
    normalized: Normalized
    timings: tuple[tuple[str, float], ...] = ()
    compiled: Compiled = Compiled()  # modules compiled while the models rendered
    probes: tuple[Any, ...] = ()  # the import check's requests to the mock (render.server)


@dataclass(frozen=True)
class Stamp:
    """What every rendered file shares: the generated-file header, the template overrides
    (as the Jinja loader wants them) and the spec's hash."""

    header: str
    templates: str | None
    spec_sha256: str


# --- the steps --------------------------------------------------------------------------------


def load(config: ApiConfig) -> tuple[LoadedSpec, dict[str, Any]]:
    """The spec as read (its files and the load warnings), and with the overlays applied."""
    loaded = load_spec(config.spec, config.ref_root)
    return loaded, apply_overlays(loaded.doc, config.overlays)


def normalize_spec(config: ApiConfig, doc: Mapping[str, Any], *, owned: bool = False) -> Normalized:
    """The normalize passes the config enables, with its options (``owned``: ``doc`` is
    given up, see :func:`generator.normalize.normalize`)."""
    options = dict(config.pass_options)
    streamed = {
        key: {"chunk": entry.chunk, "terminator": entry.terminator, "format": entry.format}
        for key, entry in config.streaming.items()
    }
    options["streams"] = {**options.get("streams", {}), "operations": streamed}
    naming = {"resources": config.client.resources, "methods": config.client.methods}
    options["inline_bodies"] = {**options.get("inline_bodies", {}), **naming}
    return normalize(doc, config.passes, options, source=config.spec, owned=owned)


def load_and_normalize(config: ApiConfig) -> tuple[dict[str, Any], Normalized]:
    """The first two steps, the load warnings among the diagnostics (``apismith normalize``)."""
    loaded, doc = load(config)
    normalized = normalize_spec(config, doc)
    return doc, replace(normalized, diagnostics=loaded.warnings + normalized.diagnostics)


def account(
    original: list[str], diagnostics: tuple[Diagnostic, ...], defined: set[str]
) -> tuple[str, ...]:
    """Original schema names that map to nothing rendered and were not reported merged."""
    renamed = {
        d.old: d.new
        for d in diagnostics
        if d.kind in ("rename", "merge") and not d.pointer.startswith("#/paths")
    }
    missing = []
    for name in original:
        seen: set[str] = set()
        current = name
        while current in renamed and current not in seen:
            seen.add(current)
            current = renamed[current]
        if current not in defined:
            missing.append(name)
    return tuple(sorted(missing))


def original_schemas(doc: Mapping[str, Any]) -> list[str]:
    if "openapi" in doc:
        return list((doc.get("components", {}).get("schemas") or {}).keys())
    defs = doc.get("$defs") or doc.get("definitions") or {}
    return [str(doc.get("title") or "Model"), *defs.keys()]


def with_header(name: str, text: str, header: str) -> str:
    """``text`` with the generated-file header in the comment syntax of its file type."""
    if name.endswith((".yml", ".yaml")):
        return f"{header}\n{text}"
    if name.endswith(".md"):
        lines = [line.lstrip("# ").replace("--", "- -") for line in header.splitlines()]
        return "<!-- " + " ".join(lines) + " -->\n\n" + text
    return text


Stage = Callable[[str], None]
"""Told the name of each stage as it starts (``load``, ``normalize``, ``models``, ...):
what the progress line shows."""


class Stopwatch:
    """Wall time per pipeline stage, for ``apismith generate --timings``; ``stage`` is told
    of each stage as it begins (:meth:`begin`, or ``lap(..., then=...)``)."""

    def __init__(self, stage: Stage | None = None) -> None:
        self.laps: list[tuple[str, float]] = []
        self._last = time.perf_counter()
        self._stage = stage

    def begin(self, label: str) -> None:
        if self._stage is not None:
            self._stage(label)

    def lap(self, name: str, *, then: str | None = None) -> None:
        now = time.perf_counter()
        self.laps.append((name, now - self._last))
        self._last = now
        if then is not None:
            self.begin(then)

    def add(
        self, name: str, inner: tuple[tuple[str, float], ...], *, then: str | None = None
    ) -> None:
        """The laps a stage timed itself (``<name>.<part>``), then the stage's own."""
        self.laps.extend((f"{name}.{part}", seconds) for part, seconds in inner)
        self.lap(name, then=then)


def template_overrides(config: ApiConfig) -> tuple[str | None, tuple[Diagnostic, ...]]:
    """The override directory (as the Jinja loader wants it) and a warning for every file
    in it that replaces no built-in template (a misspelled name is otherwise ignored)."""
    if config.templates is None:
        return None, ()
    if not config.templates.is_dir():
        raise ApismithError("template override directory not found", file=str(config.templates))
    warnings = tuple(
        Diagnostic(
            "templates",
            "warning",
            f"{config.templates.as_posix()}/{name}",
            f"template override {name!r} matches no built-in template"
            + (f" (did you mean {close!r}?)" if close else "")
            + "; it is used only where another template includes it",
        )
        for name, close in unmatched_overrides(config.templates)
    )
    return str(config.templates), warnings


def stamp(inputs: list[dict[str, str]], templates: str | None) -> Stamp:
    spec_sha = inputs[0]["sha256"]
    header = render_header(spec_sha, templates)
    return Stamp(header, templates, spec_sha)


def with_title(config: ApiConfig, spec: Mapping[str, Any]) -> ApiConfig:
    """The title every artifact shows: the configured one, else the spec's, else the package."""
    info = spec.get("info") or {}
    return replace(config, title=config.title or str(info.get("title") or "") or config.package)


def import_renderers() -> None:
    """Import the IR builder and the renderers: only once the models are on their way, and
    before the thread importing the runtime for the import check starts (an import while it
    runs had waited for the interpreter lock at each of its file system calls: 30 to 40 ms
    on a mid-size spec)."""
    import generator.ir.build
    import generator.render.client
    import generator.render.docs
    import generator.render.server  # noqa: F401


def build_api(config: ApiConfig, spec: Mapping[str, Any]) -> tuple[Api, ApiSettings]:
    """The IR, and the config's tables checked against it (once, for every renderer), with
    the client's names listed (``-v``) and a ``[client.methods]`` name that is taken refused."""
    from generator.ir import build_ir

    api = build_ir(spec)
    settings = bind_settings(config, api)
    if {"client", "docs"} & set(config.outputs):
        from generator.render.surface.resources import client_name_report

        where = str(config.config_file) if config.config_file else None
        settings = replace(settings, names=client_name_report(api, settings, where))
    return api, settings


def render_artifacts(
    api: Api,
    config: ApiConfig,
    settings: ApiSettings,
    spec: Mapping[str, Any],
    stamp: Stamp,
    diagnostics: tuple[Diagnostic, ...],
    clock: Stopwatch,
    models: PendingModels | None = None,
) -> tuple[dict[str, bytes], tuple[Diagnostic, ...]]:
    """Every file but ``models.py``, formatted (``__init__.py``, client, server, docs),
    and the renderers' warnings.

    Where the two cores go: when the ``models`` are in already, the client and server are
    formatted (ruff, in subprocesses, on every core) while the docs render. While the
    model worker still runs, it keeps a core to itself: everything is formatted after the
    docs, by one ruff thread."""
    warnings: tuple[Diagnostic, ...] = ()
    from generator.render.client import client_names, render_client
    from generator.render.docs import render_docs
    from generator.render.server import render_server

    header, templates, info = stamp.header, stamp.templates, spec.get("info") or {}
    clients = client_names(api, settings) if "client" in config.outputs else []
    context = {
        "header": header,
        "title": config.title,
        "description": info.get("description"),
        "version": str(info.get("version") or ""),
        "package": config.package,
        "spec_sha256": stamp.spec_sha256,
        "generator_version": __version__,
        "clients": clients,
        "client_list": ", ".join(clients),
    }
    sources = {"__init__.py": render("package/__init__.py.jinja", context, templates)}
    if "client" in config.outputs:
        clock.begin("client")
        sources.update(render_client(api, config, settings, header, templates))
        clock.lap("render.client")
    if "server" in config.outputs:
        clock.begin("server")
        server, server_warnings = render_server(api, config, settings, header, templates)
        sources.update(server)
        warnings += server_warnings
        clock.lap("render.server")
    code = Formatting(sources) if models is None or models.ready() else None
    docs: dict[str, str] = {}
    if "docs" in config.outputs:
        clock.begin("docs")
        rendered = render_docs(api, config, settings, templates, diagnostics)
        docs = {name: with_header(name, text, header) for name, text in rendered.items()}
        clock.lap("render.docs")
    return format_rest(sources, docs, code, clock), warnings


def format_rest(
    sources: dict[str, str], docs: dict[str, str], code: Formatting | None, clock: Stopwatch
) -> dict[str, bytes]:
    """The docs formatted, and the code (``sources``), unless already on its way (``code``:
    then with every core; else by one ruff thread, beside the model worker)."""
    clock.begin(f"format ({sum(n.endswith(('.py', '.md')) for n in [*sources, *docs])} files)")
    if code is None:
        formatted = format_files({**sources, **docs}, threads=1)
    else:
        formatted = {**code.files(), **format_files(docs)}
    clock.lap("format")
    return formatted


def package_files(
    api: Api,
    config: ApiConfig,
    settings: ApiSettings,
    spec: Mapping[str, Any],
    stamp: Stamp,
    formatted: Mapping[str, bytes],
    openapi: bytes,
) -> dict[str, bytes]:
    """The output's files by name (``MANIFEST.json`` aside): the formatted sources,
    ``py.typed``, ``ruff.toml`` and ``openapi.json``; for ``meta``, under ``<package>/``
    beside the project's own files."""
    files = dict(formatted)
    files["py.typed"] = b""
    # the cache goes beside the output directory (ruff writes a .gitignore into it)
    cache_dir = json.dumps(("../../" if config.meta else "../") + ".ruff_cache")
    files["ruff.toml"] = render(
        "package/ruff.toml.jinja", {"header": stamp.header, "cache_dir": cache_dir}, stamp.templates
    ).encode()
    files["openapi.json"] = openapi
    if config.meta:
        from generator.render.client import client_names
        from generator.render.meta import render_meta

        files = {f"{config.package}/{name}": data for name, data in files.items()}
        clients = client_names(api, settings) if "client" in config.outputs else []
        project = render_meta(
            config,
            spec.get("info") or {},
            client_class=clients[0] if clients else None,
            has_server="server" in config.outputs and bool(api.operations),
            spec_sha256=stamp.spec_sha256,
            templates=stamp.templates,
        )
        files.update((name, text.encode()) for name, text in project.items())
    return dict(sorted(files.items()))


def account_for(
    original: list[str], diagnostics: tuple[Diagnostic, ...], models_source: str
) -> tuple[tuple[Diagnostic, ...], Summary]:
    """The diagnostics, plus a warning for every schema (of the ``original`` names) that
    produced no model, and the summary line's counts."""
    classes, aliases = defined_names(models_source)
    missing = account(original, diagnostics, classes | aliases)
    diagnostics += tuple(
        Diagnostic(
            "render", "warning", f"#/components/schemas/{m}", f"schema {m!r} produced no model"
        )
        for m in missing
    )
    summary = Summary(
        schemas=len(original),
        classes=len(classes),
        aliases=len(aliases),
        merged=sum(d.kind == "merge" for d in diagnostics),
        renamed=sum(d.kind == "rename" for d in diagnostics),
        warnings=sum(d.kind in ("warning", "drop") for d in diagnostics),
        unaccounted=missing,
    )
    return diagnostics, summary


# --- the pipeline -----------------------------------------------------------------------------


def generate(
    config: ApiConfig, models: ModelRenderer | None = None, *, stage: Stage | None = None
) -> Generated:
    """Every output file of one API, in memory. With ``models`` (a renderer with a
    worker), the models render in another process while this one renders the rest (same
    bytes either way). ``stage`` is told of each stage as it begins (the progress line).

    File names are relative to ``config.out``: the package's own files, or, for an
    installable project (``config.meta``), ``pyproject.toml``, ``README.md`` and
    ``<package>/...``. ``MANIFEST.json`` sits at the top either way."""
    try:
        with collector_for_large_data():
            return _generate(config, models or ModelRenderer(fork=False), Stopwatch(stage))
    except ApismithError as exc:
        # bad input found past loading (a renderer's refusal): name the spec it came from
        if exc.file is None and exc.exit_code == 2:
            exc.file = str(config.spec)
        raise


def _generate(config: ApiConfig, models: ModelRenderer, clock: Stopwatch) -> Generated:
    clock.begin("load")
    templates, template_warnings = template_overrides(config)
    loaded, doc = load(config)
    gc.freeze()  # the document as read, alive through normalize (collector_for_large_data)
    clock.lap("load", then="normalize")
    # only this much of the document as read is needed from here on: normalize may take it
    original, load_warnings = original_schemas(doc), loaded.warnings
    inputs = input_hashes(config.spec, loaded.files[1:], config.overlays, config.templates)
    del loaded
    normalized = normalize_spec(config, doc, owned=True)
    del doc
    clock.add("normalize", normalized.timings, then="models")
    spec = normalized.spec
    gc.freeze()  # the normalized spec, alive until the end (collector_for_large_data)
    options = config.options()  # recorded as configured (before the title is filled in)
    files_stamp, config = stamp(inputs, templates), with_title(config, spec)
    pending = models.start(
        spec, files_stamp.header, lap=clock.lap, server="server" in config.outputs
    )
    clock.begin("ir")
    import_renderers()
    pending.preload()
    api, settings = build_api(config, spec)
    gc.freeze()  # the IR, likewise
    clock.lap("ir")
    formatted, render_warnings = render_artifacts(
        api,
        config,
        settings,
        spec,
        files_stamp,
        normalized.diagnostics,
        clock,
        pending,
    )
    clock.begin("openapi.json")
    openapi = render_spec(spec, files_stamp.spec_sha256)
    fingerprint = generator_fingerprint()
    clock.lap("render.spec", then="compile")
    # what is left to do while the models render, and stops when they are in: compile the
    # modules for the import check
    prefix = f"{config.package}/" if config.meta else ""
    compiled = compile_ahead(formatted, pending.ready, prefix=prefix)
    held = Held({**formatted, "openapi.json": openapi}, compress=not pending.ready())
    del formatted, openapi
    clock.lap("compile (ahead)", then="models")
    models_data = pending.wait()
    formatted = held.files()
    openapi = formatted.pop("openapi.json")
    formatted["models.py"] = with_aliases(models_data, settings.model_aliases, config)
    pending.settle()
    clock.begin("manifest")
    files = package_files(api, config, settings, spec, files_stamp, formatted, openapi)
    files[MANIFEST_NAME] = build_manifest(fingerprint, options, inputs, files)
    clock.lap("manifest")
    found = (
        load_warnings
        + normalized.diagnostics
        + template_warnings
        + settings.diagnostics
        + settings.names
        + render_warnings
    )
    diagnostics, summary = account_for(original, found, formatted["models.py"].decode())
    probes = server_probes(api, config)
    clock.lap("account")
    laps = tuple(clock.laps)
    return Generated(config, files, diagnostics, summary, normalized, laps, compiled, probes)


def with_aliases(models: bytes, aliases: Mapping[str, str], config: ApiConfig) -> bytes:
    """``models.py`` with the ``[models.aliases]`` block appended, formatted on its own."""
    where = str(config.config_file) if config.config_file else None
    block = alias_block(models.decode(), aliases, where)
    if not block:
        return models
    formatted = format_files({"models.py": block})["models.py"]
    return models.rstrip(b"\n") + b"\n\n\n" + formatted


def server_probes(api: Api, config: ApiConfig) -> tuple[Any, ...]:
    """The requests the import check sends the mock (:mod:`generator.render.server.probes`)."""
    if "server" not in config.outputs or not api.operations:
        return ()
    from generator.render.server import server_probes as probes_of

    return probes_of(api)


__all__ = ["Generated", "Stage", "Summary", "generate"]
