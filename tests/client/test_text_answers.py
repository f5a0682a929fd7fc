"""Success answers declared in a media type other than JSON (``text/plain``; Velo
Payments' ``application/csv``; XML), over real HTTP to uvicorn on 127.0.0.1: the package's
own mock answers in the declared media type, and the generated client returns a
``text/plain`` answer's text, as a real server sends it (not JSON)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType

import httpx
import pytest

from tests.client.support import Server
from tests.conftest import REPO_ROOT, describe, import_package, run_cli

SPEC = REPO_ROOT / "tests" / "golden" / "text-answers" / "spec.json"
PACKAGE = "h4_text_answers"


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    out = tmp_path_factory.mktemp("text") / PACKAGE
    proc = run_cli("generate", "--spec", SPEC, "--out", out, cwd=out.parent)
    assert proc.returncode == 0, describe(proc)
    return import_package(out, PACKAGE)


@pytest.fixture(scope="module")
def mock_url(pkg: ModuleType) -> Iterator[str]:
    server = Server(importlib.import_module(f"{PACKAGE}.mock").create_mock_app())
    yield server.url
    server.stop()


@pytest.mark.parametrize(
    ("path", "media"),
    [("/hello", "text/plain"), ("/report", "application/csv"), ("/doc", "application/xml")],
)
def test_the_mock_answers_in_the_declared_media_type(mock_url: str, path: str, media: str) -> None:
    answer = httpx.get(mock_url + path)
    assert answer.status_code == 200
    assert answer.headers["content-type"].split(";")[0] == media


def test_the_mock_documents_the_declared_media_type(pkg: ModuleType) -> None:
    doc = importlib.import_module(f"{PACKAGE}.mock").create_mock_app().openapi()
    assert list(doc["paths"]["/report"]["get"]["responses"]["200"]["content"]) == [
        "application/csv"
    ]


def test_the_client_reads_a_text_answer_as_text(pkg: ModuleType, server: Server) -> None:
    script = server.reset(lambda seen: (200, {"content-type": "text/plain"}, b"hello world"))
    client = pkg.H4TextAnswersClient(base_url=server.url)
    assert client.hello.retrieve() == "hello world"
    assert script.seen[-1].path == "/hello"


def test_a_json_string_answer_is_still_json(pkg: ModuleType, server: Server) -> None:
    server.reset(lambda seen: (200, {"content-type": "application/json"}, b'"quoted"'))
    assert pkg.H4TextAnswersClient(base_url=server.url).hello.retrieve() == "quoted"


def test_the_client_reads_the_mock_s_answers(pkg: ModuleType, mock_url: str) -> None:
    client = pkg.H4TextAnswersClient(base_url=mock_url)
    assert isinstance(client.hello.retrieve(), str)
    assert isinstance(client.report.retrieve(), pkg.models.Row)
