"""The generated client against a real misbehaving server: every fault is an ``APIError``.

The server is a raw socket on 127.0.0.1 that writes each scripted reply byte for byte, so it
can break the HTTP framing (a chunked body cut mid-chunk, a short ``Content-Length``), send
bodies that are not JSON or not the response model, cut a server-sent-event stream in the
middle of an event, and answer ``Retry-After`` far beyond the retry cap.

The packages are generated from ``specs/`` into a temporary directory with the current
templates (not the committed ``generated/``), and imported under their own names.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.utils import formatdate
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.client.support import Sampler, spec_and_ir
from tests.conftest import REPO_ROOT, SPECS, describe, import_package, run_cli

MESSAGES = [{"role": "user", "content": "hello"}]
CHUNK = {
    "id": "c1",
    "object": "chat.completion.chunk",
    "created": 1,
    "model": "m",
    "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}],
}
ENDPOINTS: dict[str, Any] = {"model_endpoints": []}


# --- the packages, generated with the current templates ----------------------------------------


@dataclass
class Packages:
    le: ModuleType
    sg: ModuleType


@pytest.fixture(scope="module")
def pkgs(tmp_path_factory: pytest.TempPathFactory) -> Packages:
    out = tmp_path_factory.mktemp("faults")
    found = []
    for api, name in (("llm-engine", "llm_engine"), ("sgp", "sgp")):
        proc = run_cli(
            "generate", "--config", SPECS / f"{api}.toml", "--out", out / name, cwd=REPO_ROOT
        )
        assert proc.returncode == 0, describe(proc)
        found.append(import_package(out / name, f"faults_{name}"))
    return Packages(*found)


# --- the server -------------------------------------------------------------------------------


@dataclass
class Seen:
    method: str
    target: str
    at: float  # time.monotonic() when the request was read
    wall: float  # time.time() at the same moment


Reply = bytes | list[bytes]  # pieces, written one by one (a short pause between them)


@dataclass
class RawServer:
    """HTTP/1.1 on a raw socket: each request gets ``handler(seen)`` as raw bytes, then
    the connection is closed (every reply says ``Connection: close``)."""

    handler: Callable[[Seen], Reply] = lambda seen: b""
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                if not (more := conn.recv(65536)):
                    return
                data += more
            head, _, body = data.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
            length = int({k.lower(): v for k, v in headers.items()}.get("content-length", 0))
            while len(body) < length and (more := conn.recv(65536)):
                body += more
            method, target, _ = lines[0].split(" ", 2)
            seen = Seen(method, target, time.monotonic(), time.time())
            self.seen.append(seen)
            reply = self.handler(seen)
            try:
                for piece in reply if isinstance(reply, list) else [reply]:
                    conn.sendall(piece)
                    time.sleep(0.01)
                conn.shutdown(socket.SHUT_WR)
            except OSError:  # the client hung up first
                pass

    def reset(self, handler: Callable[[Seen], Reply]) -> RawServer:
        self.seen.clear()
        self.handler = handler
        return self

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(scope="module")
def _raw() -> Iterator[RawServer]:
    server = RawServer()
    yield server
    server.close()


@pytest.fixture
def raw(_raw: RawServer) -> RawServer:
    return _raw.reset(lambda seen: reply(ENDPOINTS))


def head(status: int = 200, headers: dict[str, str] | None = None) -> bytes:
    lines = [f"HTTP/1.1 {status} Whatever", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def reply(doc: Any, status: int = 200, headers: dict[str, str] | None = None) -> bytes:
    body = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return (
        head(
            status,
            {
                "Content-Type": "application/json",
                "Content-Length": str(len(body)),
                **(headers or {}),
            },
        )
        + body
    )


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def sse_event(doc: Any) -> bytes:
    return b"data: " + (doc if isinstance(doc, bytes) else json.dumps(doc).encode()) + b"\n\n"


SSE = {"Content-Type": "text/event-stream"}
CHUNKED_SSE = {**SSE, "Transfer-Encoding": "chunked"}


# --- calling the client ------------------------------------------------------------------------


def call(
    pkgs: Packages, kind: str, is_async: bool, url: str, got: list[Any], max_retries: int = 0
) -> None:
    """One call of ``kind`` (get, raw, stream or page), consumed whole; chunks and page items
    are appended to ``got`` as they arrive."""
    options: dict[str, Any] = {"api_key": "k", "base_url": url, "max_retries": max_retries}
    stream_args: dict[str, Any] = {"model": "m", "messages": MESSAGES, "stream": True}
    if not is_async:
        if kind == "page":
            with pkgs.sg.SgpClient(**options) as sgp:
                got.extend(sgp.knowledge_bases.list(limit=2))
            return
        with pkgs.le.LlmEngineClient(**options) as client:
            if kind == "get":
                got.append(client.model_endpoints.list())
            elif kind == "raw":
                got.append(client.with_raw_response.model_endpoints.list().parse())
            else:
                with client.chat.completions.create(**stream_args) as stream:
                    got.extend(stream)
        return

    async def main() -> None:
        if kind == "page":
            async with pkgs.sg.AsyncSgpClient(**options) as sgp:
                async for item in await sgp.knowledge_bases.list(limit=2):
                    got.append(item)
            return
        async with pkgs.le.AsyncLlmEngineClient(**options) as client:
            if kind == "get":
                got.append(await client.model_endpoints.list())
            elif kind == "raw":
                raw = await client.with_raw_response.model_endpoints.list()
                got.append(await raw.parse())
            else:
                async with await client.chat.completions.create(**stream_args) as stream:
                    async for c in stream:
                        got.append(c)

    asyncio.run(main())


def within(seconds: float, func: Callable[[], None]) -> BaseException | None:
    """``func()`` in a thread; its exception (or None). Fails when it runs past ``seconds``."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            func()
        except BaseException as exc:  # handed back to the test
            outcome.append(exc)
        else:
            outcome.append(None)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"the call was still running after {seconds} s"
    return outcome[0]


# --- the fault cases ---------------------------------------------------------------------------


@dataclass
class Case:
    kind: str  # get, raw, stream or page
    handler: Callable[[Seen], Reply]
    error: str  # the exact class name, in the package
    body: Any = None  # the expected ``.body`` of an APIResponseValidationError
    chunks: int = 0  # chunks (or items) delivered before the error


def pages(seen: Seen) -> Reply:
    """Page 1 is valid (2 of 4 items); page 2 has the wrong shape."""
    if "page=2" in seen.target:
        return reply({"items": 5, "current_page": 2})
    kb = Sampler(spec_and_ir("sgp")[0])({"$ref": "#/components/schemas/KnowledgeBaseItemV2"})
    items = [{**kb, "knowledge_base_id": f"kb{i}"} for i in range(2)]
    return reply({"items": items, "current_page": 1, "total_item_count": 4, "items_per_page": 2})


def cases() -> dict[str, Case]:
    wrong = {"model_endpoints": 5}
    partial = b'data: {"id": "c1", "cho'
    return {
        "2xx-wrong-shape": Case("get", lambda s: reply(wrong), "APIResponseValidationError", wrong),
        "2xx-not-json": Case(
            "get",
            lambda s: reply(b"<html>oops</html>", headers={"Content-Type": "text/html"}),
            "APIResponseValidationError",
            "<html>oops</html>",
        ),
        "2xx-empty-body": Case("get", lambda s: reply(b""), "APIResponseValidationError", ""),
        "2xx-wrong-shape-raw": Case(
            "raw", lambda s: reply(wrong), "APIResponseValidationError", wrong
        ),
        "2xx-chunked-cut-mid-chunk": Case(
            "get",
            lambda s: [
                head(200, {"Transfer-Encoding": "chunked"}),
                b"40\r\n",
                b'{"model_endpoints',
            ],
            "APIConnectionError",
        ),
        "2xx-short-content-length": Case(
            "get",
            lambda s: [head(200, {"Content-Length": "100"}), b'{"model_endpoints": ['],
            "APIConnectionError",
        ),
        "2xx-bad-gzip": Case(
            "get",
            lambda s: reply(b"\x1f\x8bnot gzip at all", headers={"Content-Encoding": "gzip"}),
            "APIConnectionError",
        ),
        "4xx-cut-mid-body": Case(
            "get",
            lambda s: [head(404, {"Content-Length": "100"}), b'{"detail": '],
            "APIConnectionError",
        ),
        "sse-4xx-cut-mid-body": Case(
            "stream",
            lambda s: [head(404, {"Content-Length": "100"}), b'{"detail": '],
            "APIConnectionError",
        ),
        "sse-chunk-wrong-shape": Case(
            "stream",
            lambda s: [head(200, SSE), sse_event(CHUNK), sse_event({"id": 5}), b"data: [DONE]\n\n"],
            "APIResponseValidationError",
            {"id": 5},
            chunks=1,
        ),
        "sse-chunk-not-json": Case(
            "stream",
            lambda s: [
                head(200, SSE),
                sse_event(CHUNK),
                sse_event(b"not json"),
                b"data: [DONE]\n\n",
            ],
            "APIResponseValidationError",
            "not json",
            chunks=1,
        ),
        "sse-chunk-broken-json-saying-error": Case(
            "stream",
            lambda s: [head(200, SSE), sse_event(b'{"error": '), b"data: [DONE]\n\n"],
            "APIResponseValidationError",
            '{"error": ',
        ),
        "sse-event-cut-at-close": Case(
            "stream",
            lambda s: [head(200, SSE), sse_event(CHUNK), partial],
            "APIConnectionError",
            chunks=1,
        ),
        "sse-event-cut-at-last-chunk": Case(
            "stream",
            lambda s: [
                head(200, CHUNKED_SSE),
                chunk(sse_event(CHUNK)),
                chunk(partial),
                b"0\r\n\r\n",
            ],
            "APIConnectionError",
            chunks=1,
        ),
        "sse-chunked-cut-mid-chunk": Case(
            "stream",
            lambda s: [head(200, CHUNKED_SSE), chunk(sse_event(CHUNK)), b"80\r\n" + partial],
            "APIConnectionError",
            chunks=1,
        ),
        "page-2-wrong-shape": Case(
            "page",
            pages,
            "APIResponseValidationError",
            {"items": 5, "current_page": 2},
            chunks=2,
        ),
    }


CASES = cases()


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", list(CASES))
def test_fault_is_a_typed_error(pkgs: Packages, raw: RawServer, name: str, is_async: bool) -> None:
    case = CASES[name]
    raw.reset(case.handler)
    got: list[Any] = []
    error = within(20, lambda: call(pkgs, case.kind, is_async, raw.url, got))
    module = pkgs.sg if case.kind == "page" else pkgs.le
    cls = getattr(module, case.error)
    assert type(error) is cls, f"{name}: {type(error).__name__}: {error}"
    assert isinstance(error, module.APIError)
    assert len(got) == case.chunks
    if isinstance(error, module.APIResponseValidationError):
        assert error.body == case.body
        assert error.response.status_code == error.status_code == 200
        assert error.request is error.response.request
        assert error.errors and all("loc" in e and "msg" in e for e in error.errors)
        assert str(error).startswith(f"invalid response from {raw.url}/")
        assert error.__cause__ is not None  # the pydantic error, chained
    else:  # the httpx error is chained, except for an event cut at a clean end of body
        assert error.request is not None
        assert (error.__cause__ is None) == name.startswith("sse-event-cut")


def test_validation_error_detail(pkgs: Packages, raw: RawServer) -> None:
    raw.reset(lambda s: reply({"model_endpoints": 5}))
    error = within(20, lambda: call(pkgs, "get", False, raw.url, []))
    assert isinstance(error, pkgs.le.APIResponseValidationError)
    assert [e["loc"] for e in error.errors] == [("model_endpoints",)]
    assert error.errors[0]["type"] == "list_type"
    message = error.errors[0]["msg"]  # "Input should be a valid list" (or "array")
    assert str(error) == (
        f"invalid response from {raw.url}/v1/model-endpoints: ListModelEndpointsV1Response: "
        f"model_endpoints: {message}"
    )
    raw.reset(lambda s: reply(b"<html>"))
    error = within(20, lambda: call(pkgs, "get", False, raw.url, []))
    assert isinstance(error, pkgs.le.APIResponseValidationError)
    assert error.errors[0]["type"] == "json_invalid" and error.body == "<html>"


def test_the_error_is_exported(pkgs: Packages) -> None:
    for module in (pkgs.le, pkgs.sg):
        assert "APIResponseValidationError" in module.__all__
        assert issubclass(module.APIResponseValidationError, module.APIError)
        assert not issubclass(module.APIResponseValidationError, module.APIStatusError)


# --- Retry-After -------------------------------------------------------------------------------


def scripted(raw: RawServer, *replies: Reply) -> None:
    raw.reset(lambda seen: replies[min(len(raw.seen), len(replies)) - 1])


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(
    ("status", "headers", "error"),
    [
        (429, {"Retry-After": "3600"}, "RateLimitError"),
        (503, {"Retry-After": "3600"}, "InternalServerError"),
        (429, {"Retry-After": "61"}, "RateLimitError"),
        (429, {"retry-after-ms": "3600000"}, "RateLimitError"),
        (429, {"Retry-After": "inf"}, "RateLimitError"),
        (503, {"Retry-After": "@date+3600"}, "InternalServerError"),
    ],
    ids=["429-3600", "503-3600", "429-61", "429-ms-3600000", "429-inf", "503-date+1h"],
)
def test_retry_after_beyond_the_cap_fails_fast(
    pkgs: Packages,
    raw: RawServer,
    status: int,
    headers: dict[str, str],
    error: str,
    is_async: bool,
) -> None:
    headers = {
        k: formatdate(time.time() + 3600, usegmt=True) if v == "@date+3600" else v
        for k, v in headers.items()
    }
    scripted(raw, reply({"detail": "slow down"}, status, headers), reply(ENDPOINTS))
    exc = within(20, lambda: call(pkgs, "get", is_async, raw.url, [], max_retries=2))
    assert type(exc) is getattr(pkgs.le, error), repr(exc)
    assert isinstance(exc, pkgs.le.APIStatusError) and exc.status_code == status
    # no wait and no retry: never a second request inside the Retry-After window (a
    # count, not a clock: the suite passes on a loaded machine)
    assert len(raw.seen) == 1


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        ({"Retry-After": "1"}, 1.0),
        ({"Retry-After": "1.5"}, 1.5),
        ({"retry-after-ms": "300"}, 0.3),
        ({"retry-after-ms": "300", "Retry-After": "3600"}, 0.3),  # the finer one wins
    ],
    ids=["1s", "1.5s", "ms-300", "ms-over-seconds"],
)
def test_retry_after_within_the_cap_is_waited_out(
    pkgs: Packages, raw: RawServer, headers: dict[str, str], wait: float, is_async: bool
) -> None:
    scripted(raw, reply({}, 429, headers), reply(ENDPOINTS))
    got: list[Any] = []
    assert within(20, lambda: call(pkgs, "get", is_async, raw.url, got, max_retries=2)) is None
    assert len(raw.seen) == 2 and isinstance(got[0], pkgs.le.models.ListModelEndpointsV1Response)
    assert raw.seen[1].at - raw.seen[0].at >= wait


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_retry_after_date_is_never_retried_early(
    pkgs: Packages, raw: RawServer, is_async: bool
) -> None:
    until = int(time.time()) + 2  # HTTP dates have whole seconds
    scripted(raw, reply({}, 503, {"Retry-After": formatdate(until, usegmt=True)}), reply(ENDPOINTS))
    assert within(20, lambda: call(pkgs, "get", is_async, raw.url, [], max_retries=2)) is None
    assert len(raw.seen) == 2 and raw.seen[1].wall >= until


def test_unusable_retry_after_falls_back_to_backoff(
    pkgs: Packages, raw: RawServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pkgs.le._base_client, "INITIAL_RETRY_DELAY", 0.01)
    scripted(
        raw, reply({}, 503, {"Retry-After": "soon", "retry-after-ms": "nan"}), reply(ENDPOINTS)
    )
    assert within(20, lambda: call(pkgs, "get", False, raw.url, [], max_retries=2)) is None
    assert len(raw.seen) == 2


def test_runtime_source_is_current(pkgs: Packages) -> None:
    """The fixture really generated from the templates of this checkout (the runtime's
    modules are copied verbatim below their two header lines)."""
    for module in sorted((REPO_ROOT / "templates" / "runtime").glob("*.py")):
        runtime = Path(str(pkgs.le.__file__)).parent / module.name
        template = module.read_text(encoding="utf-8")
        assert runtime.read_text(encoding="utf-8").split("\n", 2)[2] == template, module.name
