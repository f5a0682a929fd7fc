"""A spec by URL (``apismith generate --spec URL --out DIR``): fetched once, kept beside the
package as a vendored copy, so that ``check`` and every later stage read a file and never
the network.

- Only ``http`` and ``https``; at most :data:`MAX_BYTES` (the loader's bound), within
  :data:`TIMEOUT` seconds a read, 5 redirects. A non-2xx answer, a body that is not a JSON
  or YAML object, a network error: exit 2, one line naming the URL.
- The copy is ``<DIR>.json`` (``.yaml`` when the URL's path ends so) beside ``DIR``: the
  exact bytes fetched. :func:`fetch_spec` writes them to a temporary file beside it;
  :func:`keep` puts it in place once the package is written, :func:`drop` removes it when
  it is not. A copy that is there already is replaced only when it is the one the package
  was generated from (its sha256 is the manifest's spec input), or with ``--force``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import click

from generator.config.api import is_http_url
from generator.errors import ApismithError
from generator.load import MAX_BYTES, parse_text
from generator.load.document_kind import check_kind
from generator.manifest import sha256_file
from generator.tree import read_manifest

TIMEOUT = 30.0


def vendored_path(url: str, out: Path) -> Path:
    """Where the copy of the spec at ``url`` lives for the package at ``out``."""
    suffix = Path(urlsplit(url).path).suffix.lower()
    return out.parent / f"{out.name}{suffix if suffix in ('.yaml', '.yml') else '.json'}"


def _owned(copy: Path, out: Path) -> bool:
    """Whether ``copy`` is the spec the package at ``out`` was generated from."""
    manifest = read_manifest(out) or {}
    inputs = manifest.get("inputs")
    rows = [r for r in inputs if isinstance(r, dict)] if isinstance(inputs, list) else []
    digest = sha256_file(copy)
    return any(r.get("role") == "spec" and r.get("sha256") == digest for r in rows)


def fetch_spec(url: str, out: Path, *, force: bool = False) -> Path:
    """Fetch ``url`` into a temporary file beside its vendored copy (see the module
    docstring); return that file."""
    import httpx

    if not is_http_url(url):
        raise ApismithError("unsupported URL scheme (http and https are read)", file=url)
    copy = vendored_path(url, out)
    if copy.exists() and not copy.is_file():
        raise ApismithError(f"{copy} is not a file: not replacing it", file=url)
    if copy.is_file() and not force and not _owned(copy, out):
        raise ApismithError(
            f"{copy} is there and is not the spec {out} was generated from: not replacing"
            " it; pass --force to replace it",
            file=url,
        )
    body = bytearray()
    try:
        with (
            httpx.Client(timeout=TIMEOUT, follow_redirects=True, max_redirects=5) as http,
            http.stream("GET", url) as answer,
        ):
            if not answer.is_success:
                raise ApismithError(
                    f"HTTP {answer.status_code} {answer.reason_phrase}".rstrip(), file=url
                )
            for chunk in answer.iter_bytes():
                body += chunk
                if len(body) > MAX_BYTES:
                    raise ApismithError(f"larger than {MAX_BYTES} bytes", file=url)
    except httpx.HTTPError as exc:
        raise ApismithError(f"cannot fetch it: {type(exc).__name__}: {exc}", file=url) from None
    try:
        doc = parse_text(bytes(body).decode("utf-8-sig"), Path(copy.name))
    except UnicodeDecodeError:
        raise ApismithError("not a spec: the answer is not UTF-8 text", file=url) from None
    except ApismithError as exc:
        raise ApismithError(f"not a spec: {exc.message}", file=url, pointer=exc.pointer) from None
    if not isinstance(doc, dict):
        raise ApismithError("not a spec: the answer is not a JSON or YAML object", file=url)
    check_kind(doc, url)  # an OpenAPI document or a JSON Schema, else refused naming the URL
    staging = copy.parent / f".apismith-fetch-{os.getpid()}"
    staging.mkdir(parents=True, exist_ok=True)
    staged = staging / copy.name  # named as the copy: the API's name is its stem
    staged.write_bytes(bytes(body))
    return staged


def keep(staged: Path, url: str, out: Path) -> str:
    """Put the fetched spec in place as the vendored copy; return a line saying whether it
    changed (its sha256 before and after)."""
    copy = vendored_path(url, out)
    before = sha256_file(copy)[:12] if copy.is_file() else None
    after = sha256_file(staged)[:12]
    os.replace(staged, copy)
    drop(staged)
    if before is None:
        return f"{copy}: fetched from {url} (sha256 {after})"
    if before == after:
        return f"{copy}: the spec at {url} is unchanged (sha256 {after})"
    return f"{copy}: the spec at {url} changed (sha256 {before} -> {after})"


def recorded_source(out: Path) -> str:
    """The URL the package at ``out`` was generated from (``generate --update``)."""
    manifest = read_manifest(out) or {}
    options = manifest.get("options")
    source = options.get("source") if isinstance(options, dict) else None
    if not isinstance(source, str) or not is_http_url(source):
        raise ApismithError(
            "--update fetches the URL a package was generated from, and this one was not"
            " (no options.source in its MANIFEST.json): use --spec URL",
            file=str(out),
        )
    return source


def drop(staged: Path) -> None:
    """Remove the fetched file, if it is still there, and its staging folder."""
    staged.unlink(missing_ok=True)
    try:
        staged.parent.rmdir()
    except OSError:
        pass


@contextmanager
def fetched(
    spec: Path | str | None, out: Path | None, *, force: bool = False, update: bool = False
) -> Iterator[tuple[Path | None, str | None]]:
    """(the spec file, the URL it was fetched from) of ``--spec``: a file as it is (no
    URL); a URL fetched (:func:`fetch_spec`), its copy kept if the block ends well and
    dropped if not. ``update``: the URL ``out``'s manifest records (``--update``)."""
    if update:
        if spec is not None or out is None:
            raise ApismithError("--update takes --out DIR only (the URL is in its manifest)")
        spec = recorded_source(out)
    if not isinstance(spec, str):
        yield spec, None
        return
    if out is None:
        raise ApismithError("--spec URL needs --out DIR (the package directory to write)")
    staged = fetch_spec(spec, out, force=force)
    try:
        yield staged, spec
    except BaseException:
        drop(staged)
        raise
    click.echo(f"apismith: note: {keep(staged, spec, out)}", err=True)
