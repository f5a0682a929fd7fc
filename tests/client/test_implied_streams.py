"""An operation whose success answer is ``text/event-stream`` with a model schema, and no
``[streaming]`` entry (Clever Cloud's network group streams): it streams events of that
model, with a warning naming it. Over real HTTP to the package's own mock (uvicorn on
127.0.0.1): the mock answers events, and the generated client iterates validated models.
A body of any media type (``*/*``) takes JSON too."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType

import httpx
import pytest

from tests.client.support import Server
from tests.conftest import REPO_ROOT, describe, import_package, run_cli

SPEC = REPO_ROOT / "tests" / "golden" / "implied-streams" / "spec.json"
PACKAGE = "h4_implied_streams"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, str]:
    out = tmp_path_factory.mktemp("sse") / PACKAGE
    proc = run_cli("generate", "--spec", SPEC, "--out", out, cwd=out.parent)
    assert proc.returncode == 0, describe(proc)
    return import_package(out, PACKAGE), proc.stderr


@pytest.fixture(scope="module")
def mock_url(generated: tuple[ModuleType, str]) -> Iterator[str]:
    server = Server(importlib.import_module(f"{PACKAGE}.mock").create_mock_app())
    yield server.url
    server.stop()


def test_the_warning_names_the_chunk_type(generated: tuple[ModuleType, str]) -> None:
    assert "getGroupStream answers text/event-stream: it streams events of Group" in generated[1]


def test_the_mock_streams_events_the_client_reads_as_models(
    generated: tuple[ModuleType, str], mock_url: str
) -> None:
    pkg = generated[0]
    raw = httpx.get(f"{mock_url}/groups/g1/stream")
    assert raw.headers["content-type"].startswith("text/event-stream")
    events = [line for line in raw.text.splitlines() if line.startswith("data: ")]
    assert events and "[DONE]" not in raw.text  # no end event
    chunks = list(pkg.H4ImpliedStreamsClient(base_url=mock_url).groups.stream.list("g1"))
    assert len(chunks) == len(events)
    assert all(isinstance(c, pkg.models.Group) for c in chunks)


def test_a_body_of_any_media_type_takes_json(mock_url: str) -> None:
    answer = httpx.request("GET", f"{mock_url}/groups/g1/stream", json=[])
    assert answer.status_code == 200, answer.text
