"""The mock answers browsers of other origins (CORS), for the docs' "Try it" consoles
(issue 27); generated servers do not.

``apismith serve`` runs for real (uvicorn on 127.0.0.1, a free port) on the committed
llm-engine package: a preflight ``OPTIONS`` is answered (any origin, the method and the
headers asked for), an answer to a request with an ``Origin`` allows any origin and
exposes its headers, and a request without one is answered as before (an ``OPTIONS``
without ``Origin`` is still a 405 with ``Allow``). The generated servers hold no CORS.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import GENERATED, REPO_ROOT
from tests.server.conftest import AUTH_HEADERS, running

ORIGIN = "http://127.0.0.1:8000"  # an `apismith docs --serve` site


@pytest.fixture(scope="module")
def mock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("cors") / "serve.log"
    args = [sys.executable, "-m", "generator", "serve", "--out", str(GENERATED / "llm_engine")]
    with running(args, cwd=REPO_ROOT, log=log) as url:
        yield url


def test_preflight_is_answered(mock: str) -> None:
    asked = {
        "Origin": ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
    }
    answer = httpx.options(f"{mock}/v1/batch-jobs", headers=asked)
    assert answer.status_code == 200, answer.text
    assert answer.headers["access-control-allow-origin"] == "*"
    assert "POST" in answer.headers["access-control-allow-methods"]
    allowed = answer.headers["access-control-allow-headers"].lower()
    assert "authorization" in allowed and "content-type" in allowed


def test_answers_allow_any_origin(mock: str) -> None:
    headers = {"Origin": ORIGIN, **AUTH_HEADERS["llm_engine"]}
    answer = httpx.get(f"{mock}/v1/batch-jobs/job-1", headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.headers["access-control-allow-origin"] == "*"
    assert answer.headers["access-control-expose-headers"] == "*"
    # errors too: a browser shows the mock's 401 rather than a CORS failure
    refused = httpx.get(f"{mock}/v1/batch-jobs/job-1", headers={"Origin": ORIGIN})
    assert refused.status_code == 401
    assert refused.headers["access-control-allow-origin"] == "*"


def test_requests_without_origin_are_unchanged(mock: str) -> None:
    answer = httpx.get(f"{mock}/v1/batch-jobs/job-1", headers=AUTH_HEADERS["llm_engine"])
    assert answer.status_code == 200
    assert "access-control-allow-origin" not in answer.headers
    wrong = httpx.options(f"{mock}/v1/batch-jobs/job-1", headers=AUTH_HEADERS["llm_engine"])
    assert wrong.status_code == 405
    assert set(wrong.headers["allow"].replace(" ", "").split(",")) == {"GET", "PUT"}


def test_generated_servers_have_no_cors() -> None:
    """CORS is the mock's (``apismith serve``), never a generated server's."""
    sources = [*Path(REPO_ROOT / "templates" / "server").glob("server*.jinja")]
    sources += [GENERATED / package / "server.py" for package in ("llm_engine", "sgp")]
    for path in sources:
        text = path.read_text(encoding="utf-8")
        assert "CORSMiddleware" not in text and "access-control" not in text.lower(), path
