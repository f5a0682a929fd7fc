"""The whole pipeline for one API, as one pure function of its input files:

    load -> overlays -> normalize -> IR -> render -> format -> (files in memory)

Writing (``generator.write``) is the only stage with effects.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from generator import __version__
from generator.config import ApiConfig
from generator.errors import ApismithError
from generator.format import format_python
from generator.load import load_spec
from generator.manifest import MANIFEST_NAME, build_manifest, generator_fingerprint, input_hashes
from generator.normalize import Normalized, normalize
from generator.normalize.diagnostics import Diagnostic
from generator.overlay import apply_overlays
from generator.render.models import ModelWorker, defined_names, render_models
from generator.render.spec import render_spec
from generator.render.templates import render, unmatched_overrides


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


def load_and_normalize(config: ApiConfig) -> tuple[dict[str, Any], Normalized]:
    loaded = load_spec(config.spec, config.ref_root)
    doc = apply_overlays(loaded.doc, config.overlays)
    normalized = normalize(doc, config.passes, config.pass_options, source=config.spec)
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


class Stopwatch:
    """Wall time per pipeline stage, for ``apismith generate --timings``."""

    def __init__(self) -> None:
        self.laps: list[tuple[str, float]] = []
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps.append((name, now - self._last))
        self._last = now


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


def generate(config: ApiConfig, worker: ModelWorker | None = None) -> Generated:
    """Every output file of one API, in memory. With a ``worker``, the models render in
    another process while this one renders the rest (same bytes either way).

    File names are relative to ``config.out``: the package's own files, or, for an
    installable project (``config.meta``), ``pyproject.toml``, ``README.md`` and
    ``<package>/...``. ``MANIFEST.json`` sits at the top either way."""
    try:
        return _generate(config, worker)
    except ApismithError as exc:
        # bad input found past loading (a renderer's refusal): name the spec it came from
        if exc.file is None and exc.exit_code == 2:
            exc.file = str(config.spec)
        raise


def _generate(config: ApiConfig, worker: ModelWorker | None) -> Generated:
    clock = Stopwatch()
    templates, template_warnings = template_overrides(config)
    loaded = load_spec(config.spec, config.ref_root)
    doc = apply_overlays(loaded.doc, config.overlays)
    clock.lap("load")
    normalized = normalize(doc, config.passes, config.pass_options, source=config.spec)
    clock.laps.extend((f"normalize.{name}", t) for name, t in normalized.timings)
    clock.lap("normalize")
    spec = normalized.spec
    inputs = input_hashes(config.spec, loaded.files[1:], config.overlays, config.templates)
    spec_sha = inputs[0]["sha256"]
    header = render(
        "header.py.jinja",
        {"generator_version": __version__, "spec_sha256": spec_sha},
        templates,
    ).rstrip("\n")
    info = spec.get("info") or {}
    options = config.options()
    # the title every artifact shows: the configured one, else the spec's, else the package
    config = replace(config, title=config.title or str(info.get("title") or "") or config.package)
    if worker is not None:
        models_text = worker.render_models(spec, header)
    else:
        rendered = render_models(spec, header)
        clock.lap("render.models")

        def models_text() -> str:
            return rendered

    # imported only now: the spec is already on its way to the model worker
    from generator.ir import build_ir
    from generator.render.client import client_names, render_client
    from generator.render.docs import render_docs
    from generator.render.server import render_server

    api = build_ir(spec)
    clock.lap("ir")
    sources: dict[str, str] = {
        "__init__.py": render(
            "package/__init__.py.jinja",
            {
                "header": header,
                "title": config.title,
                "description": info.get("description"),
                "version": str(info.get("version") or ""),
                "package": config.package,
                "spec_sha256": spec_sha,
                "generator_version": __version__,
                "clients": client_names(api, config) if "client" in config.outputs else [],
            },
            templates,
        ),
    }
    if "client" in config.outputs:
        sources.update(render_client(api, config, header, templates))
        clock.lap("render.client")
    if "server" in config.outputs:
        sources.update(render_server(api, config, header, templates))
        clock.lap("render.server")
    docs: dict[str, str] = {}
    if "docs" in config.outputs:
        docs = render_docs(api, config, spec, templates, normalized.diagnostics)
        clock.lap("render.docs")
    sources.update((name, with_header(name, text, header)) for name, text in docs.items())
    # everything but the models is formatted and rendered while the worker renders them
    formatted = format_python(sources)
    clock.lap("format")
    openapi = render_spec(spec, __version__, spec_sha)
    fingerprint = generator_fingerprint()
    clock.lap("render.spec")
    if worker is not None:
        # then, idle until the worker is done: import what the import check will need
        from generator.write import preload_runtime

        preload_runtime(server="server" in config.outputs)
        clock.lap("preload")
    models_source = models_text()
    clock.lap("render.models (wait)" if worker is not None else "join")
    formatted.update(format_python({"models.py": models_source}))
    clock.lap("format.models")
    package_files: dict[str, bytes] = {name: text.encode() for name, text in formatted.items()}
    package_files["py.typed"] = b""
    # the cache goes beside the output directory (ruff writes a .gitignore into it)
    cache_dir = json.dumps(("../../" if config.meta else "../") + ".ruff_cache")
    package_files["ruff.toml"] = render(
        "package/ruff.toml.jinja", {"header": header, "cache_dir": cache_dir}, templates
    ).encode()
    package_files["openapi.json"] = openapi
    files = package_files
    if config.meta:
        from generator.render.meta import render_meta

        files = {f"{config.package}/{name}": data for name, data in package_files.items()}
        clients = client_names(api, config) if "client" in config.outputs else []
        project = render_meta(
            config,
            info,
            client_class=clients[0] if clients else None,
            has_server="server" in config.outputs and bool(api.operations),
            spec_sha256=spec_sha,
            templates=templates,
        )
        files.update((name, text.encode()) for name, text in project.items())
    files = dict(sorted(files.items()))
    files[MANIFEST_NAME] = build_manifest(fingerprint, options, inputs, files)
    clock.lap("manifest")

    classes, aliases = defined_names(formatted["models.py"])
    diags = loaded.warnings + normalized.diagnostics + template_warnings
    missing = account(original_schemas(doc), diags, classes | aliases)
    if missing:
        diags = diags + tuple(
            Diagnostic(
                "render", "warning", f"#/components/schemas/{m}", f"schema {m!r} produced no model"
            )
            for m in missing
        )
    summary = Summary(
        schemas=len(original_schemas(doc)),
        classes=len(classes),
        aliases=len(aliases),
        merged=sum(d.kind == "merge" for d in diags),
        renamed=sum(d.kind == "rename" for d in diags),
        warnings=sum(d.kind in ("warning", "drop") for d in diags),
        unaccounted=missing,
    )
    clock.lap("account")
    return Generated(config, files, diags, summary, normalized, tuple(clock.laps))


__all__ = ["Generated", "Summary", "generate"]
