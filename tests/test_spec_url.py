"""``apismith generate --spec URL`` (issue 24): fetched once from a real HTTP server on
127.0.0.1 (Python's ``http.server`` in a thread), kept beside the package as a vendored
copy, checked offline; every failure is exit 2 and one line naming the URL.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import SPECS, describe, run_cli

LLM_ENGINE = SPECS / "llm-engine" / "openapi.json"
SMALL = {"openapi": "3.0.3", "info": {"title": "Small", "version": "1"}, "paths": {}}


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """(the base URL of a folder served on 127.0.0.1, the folder)."""
    folder = tmp_path / "www"
    folder.mkdir()
    handler = functools.partial(_Quiet, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", folder
    finally:
        server.shutdown()
        thread.join()


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "MANIFEST.json"
    }


@pytest.mark.slow
def test_a_spec_by_url_gives_the_package_of_the_file(
    served: tuple[str, Path], tmp_path: Path
) -> None:
    url, folder = served
    (folder / "openapi.json").write_bytes(LLM_ENGINE.read_bytes())
    work = tmp_path / "by-url"
    work.mkdir()
    proc = run_cli("generate", "--spec", f"{url}/openapi.json", "--out", "llm_engine", cwd=work)
    assert proc.returncode == 0, describe(proc)
    copy = work / "llm_engine.json"
    assert copy.read_bytes() == LLM_ENGINE.read_bytes()  # the vendored copy, as fetched
    assert not list(work.glob(".apismith-fetch-*"))
    manifest = json.loads((work / "llm_engine" / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["options"]["source"] == f"{url}/openapi.json"
    plain = tmp_path / "by-file"
    plain.mkdir()
    proc = run_cli("generate", "--spec", LLM_ENGINE, "--out", "llm_engine", cwd=plain)
    assert proc.returncode == 0, describe(proc)
    assert _files(work / "llm_engine") == _files(plain / "llm_engine")
    # the drift check reads the copy, never the network (the server is gone)
    (folder / "openapi.json").unlink()
    proc = run_cli("check", "--spec", "llm_engine.json", "--out", "llm_engine", cwd=work)
    assert proc.returncode == 0, describe(proc)


def test_fetching_again_replaces_the_copy_it_made(served: tuple[str, Path], tmp_path: Path) -> None:
    url, folder = served
    (folder / "small.json").write_text(json.dumps(SMALL), encoding="utf-8")
    proc = run_cli("generate", "--spec", f"{url}/small.json", "--out", "small", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    changed = {**SMALL, "info": {"title": "Small", "version": "2"}}
    (folder / "small.json").write_text(json.dumps(changed), encoding="utf-8")
    proc = run_cli("generate", "--spec", f"{url}/small.json", "--out", "small", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert json.loads((tmp_path / "small.json").read_text(encoding="utf-8")) == changed


def test_update_fetches_the_recorded_url_and_says_what_changed(
    served: tuple[str, Path], tmp_path: Path
) -> None:
    url, folder = served
    (folder / "small.json").write_text(json.dumps(SMALL), encoding="utf-8")
    proc = run_cli("generate", "--spec", f"{url}/small.json", "--out", "small", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert f"small.json: fetched from {url}/small.json" in proc.stderr
    proc = run_cli("generate", "--update", "--out", "small", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert "is unchanged" in proc.stderr
    changed = {**SMALL, "info": {"title": "Small", "version": "2"}}
    (folder / "small.json").write_text(json.dumps(changed), encoding="utf-8")
    proc = run_cli("generate", "--update", "--out", "small", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert f"the spec at {url}/small.json changed (sha256 " in proc.stderr
    assert json.loads((tmp_path / "small.json").read_text(encoding="utf-8")) == changed
    # a package generated from a file has no URL to fetch
    (tmp_path / "local.json").write_text(json.dumps(SMALL), encoding="utf-8")
    assert (
        run_cli("generate", "--spec", "local.json", "--out", "local", cwd=tmp_path).returncode == 0
    )
    proc = run_cli("generate", "--update", "--out", "local", cwd=tmp_path)
    assert proc.returncode == 2 and "no options.source" in proc.stderr, describe(proc)


def test_a_file_it_did_not_fetch_is_not_replaced(served: tuple[str, Path], tmp_path: Path) -> None:
    url, folder = served
    (folder / "small.json").write_text(json.dumps(SMALL), encoding="utf-8")
    mine = tmp_path / "small.json"
    mine.write_text("my notes", encoding="utf-8")
    proc = run_cli("generate", "--spec", f"{url}/small.json", "--out", "small", cwd=tmp_path)
    assert proc.returncode == 2, describe(proc)
    assert "is not the spec" in proc.stderr and "--force" in proc.stderr
    assert mine.read_text(encoding="utf-8") == "my notes" and not (tmp_path / "small").exists()


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("/missing.json", None, "HTTP 404"),
        ("/notes.json", '{"a": 1}', "neither an OpenAPI document"),
        ("/broken.yaml", "not: [a", "not a spec: invalid YAML"),
        ("/list.json", "[1, 2]", "not a spec: the answer is not a JSON or YAML object"),
    ],
)
def test_a_failed_fetch_is_one_line_naming_the_url(
    served: tuple[str, Path], tmp_path: Path, path: str, body: str | None, message: str
) -> None:
    url, folder = served
    if body is not None:
        (folder / path.lstrip("/")).write_text(body, encoding="utf-8")
    proc = run_cli("generate", "--spec", url + path, "--out", "pkg", cwd=tmp_path)
    assert proc.returncode == 2, describe(proc)
    assert proc.stderr.startswith(f"apismith: error: {url}{path}: "), proc.stderr
    assert message in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["www"]  # nothing written


def test_an_unreachable_or_unsupported_url(tmp_path: Path) -> None:
    for url, message in (
        ("http://127.0.0.1:9/openapi.json", "cannot fetch it"),
        ("ftp://127.0.0.1/openapi.json", "unsupported URL scheme"),
    ):
        proc = run_cli("generate", "--spec", url, "--out", "pkg", cwd=tmp_path)
        assert proc.returncode == 2, describe(proc)
        assert proc.stderr.startswith(f"apismith: error: {url}: {message}"), proc.stderr
