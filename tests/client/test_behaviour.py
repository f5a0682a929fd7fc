"""Auth, retries, timeouts, errors, SSE, uploads, pages, raw responses and call options of the
generated clients, sync and async, over real HTTP (tests/client/support.py)."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import Callable
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest

from tests.client.support import Sampler, Seen, Server, package, spec_and_ir, sse

le = package("llm-engine")
sg = package("sgp")

CHUNK = {
    "id": "c1",
    "object": "chat.completion.chunk",
    "created": 1,
    "model": "m",
    "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}],
}
COMPLETION = {
    "id": "c1",
    "object": "chat.completion",
    "created": 1,
    "model": "m",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "hi"},
            "finish_reason": "stop",
            "logprobs": None,
        }
    ],
}
MESSAGES = [{"role": "user", "content": "hello"}]
KB = Sampler(spec_and_ir("sgp")[0])({"$ref": "#/components/schemas/KnowledgeBaseItemV2"})


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def json_reply(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Any:
    return status, headers or {}, json.dumps(body).encode()


def sequence(*replies: Any) -> Callable[[Seen], Any]:
    queue = list(replies)
    return lambda seen: queue.pop(0) if len(queue) > 1 else queue[0]


# --- construction, auth, env -----------------------------------------------------------------


def test_llm_engine_basic_auth_with_api_key_as_username(server: Server) -> None:
    server.reset(lambda s: json_reply(COMPLETION))
    with le.LlmEngineClient(api_key="secret", base_url=server.url) as client:
        client.chat.completions.create(model="m", messages=MESSAGES)
    auth = server.script.seen[0].headers["authorization"]
    assert auth == "Basic " + base64.b64encode(b"secret:").decode()


def test_llm_engine_bearer_is_an_alternative(server: Server) -> None:
    server.reset(lambda s: json_reply(COMPLETION))
    with le.LlmEngineClient(bearer_token="tok", base_url=server.url) as client:
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert server.script.seen[0].headers["authorization"] == "Bearer tok"


def test_sgp_api_key_and_account_headers(server: Server) -> None:
    server.reset(
        lambda s: json_reply(
            {"items": [], "current_page": 1, "total_item_count": 0, "items_per_page": 10}
        )
    )
    with sg.SgpClient(api_key="k", account_id="acc", base_url=server.url) as client:
        client.knowledge_bases.list()
    seen = server.script.seen[0]
    assert seen.headers["x-api-key"] == "k"
    assert seen.headers["x-selected-account-id"] == "acc"
    assert "authorization" not in seen.headers


def test_env_fallbacks(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGP_API_KEY", "envkey")
    monkeypatch.setenv("SGP_ACCOUNT_ID", "envacc")
    monkeypatch.setenv("SGP_CLIENT_BASE_URL", server.url)
    monkeypatch.setenv("SCALE_API_KEY", "lekey")
    monkeypatch.setenv("LLM_ENGINE_BASE_PATH", server.url)
    server.reset(
        lambda s: json_reply(
            {"items": [], "current_page": 1, "total_item_count": 0, "items_per_page": 10}
        )
    )
    with sg.SgpClient() as client:
        assert client.base_url == server.url
        client.knowledge_bases.list()
    assert server.script.seen[0].headers["x-api-key"] == "envkey"
    assert server.script.seen[0].headers["x-selected-account-id"] == "envacc"
    with le.LlmEngineClient() as client2:
        assert client2.base_url == server.url


def test_default_base_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LLM_ENGINE_BASE_PATH", raising=False)
    monkeypatch.delenv("SGP_CLIENT_BASE_URL", raising=False)
    assert le.LlmEngineClient(api_key="k").base_url == "https://api.spellbook.scale.com/llm-engine"
    assert sg.SgpClient(api_key="k").base_url == "https://api.egp.scale.com"


def test_default_headers_http_client_and_extras(server: Server) -> None:
    import httpx

    server.reset(lambda s: json_reply(COMPLETION))
    http = httpx.Client()
    client = le.LlmEngineClient(
        api_key="k", base_url=server.url, http_client=http, default_headers={"x-app": "t"}
    )
    client.chat.completions.create(
        model="m",
        messages=MESSAGES,
        extra_headers={"x-extra": "1"},
        extra_query={"q": "2"},
        extra_body={"custom": 3},
    )
    client.close()
    assert http.is_closed
    seen = server.script.seen[0]
    assert seen.headers["x-app"] == "t" and seen.headers["x-extra"] == "1"
    assert ("q", "2") in seen.query
    assert seen.json() == {"model": "m", "messages": MESSAGES, "custom": 3}


def test_not_given_differs_from_none(server: Server) -> None:
    server.reset(lambda s: json_reply(COMPLETION))
    with le.LlmEngineClient(api_key="k", base_url=server.url) as client:
        client.chat.completions.create(model="m", messages=MESSAGES, temperature=None)
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert server.script.seen[0].json()["temperature"] is None
    assert "temperature" not in server.script.seen[1].json()


def test_body_as_model_instance(server: Server) -> None:
    server.reset(lambda s: json_reply(COMPLETION))
    request = le.models.ChatCompletionV2Request.model_validate(
        {"model": "m", "messages": MESSAGES, "max_tokens": 5}
    )
    with le.LlmEngineClient(api_key="k", base_url=server.url) as client:
        result = client.chat.completions.create(body=request)
    assert isinstance(result, le.models.CreateChatCompletionResponse)
    assert server.script.seen[0].json() == {"model": "m", "messages": MESSAGES, "max_tokens": 5}


# --- retries ---------------------------------------------------------------------------------


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    for mod in (le, sg):
        monkeypatch.setattr(mod._base_client, "INITIAL_RETRY_DELAY", 0.01)


def test_retries_fail_twice_then_succeed(server: Server, fast_retries: None) -> None:
    server.reset(sequence(json_reply({}, 503), json_reply({}, 429), json_reply(COMPLETION)))
    with le.LlmEngineClient(api_key="k", base_url=server.url, max_retries=2) as client:
        result = client.chat.completions.create(model="m", messages=MESSAGES)
    assert result.id == "c1" and len(server.script.seen) == 3


@pytest.mark.parametrize("after", ["1", "date"])
def test_retry_after_is_honoured(server: Server, after: str) -> None:
    value = "1" if after == "1" else formatdate(time.time() + 2, usegmt=True)
    server.reset(sequence(json_reply({}, 429, {"retry-after": value}), json_reply(COMPLETION)))
    start = time.monotonic()
    with le.LlmEngineClient(api_key="k", base_url=server.url) as client:
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert time.monotonic() - start >= 0.9
    assert len(server.script.seen) == 2


def test_400_is_not_retried(server: Server, fast_retries: None) -> None:
    server.reset(lambda s: json_reply({"detail": "bad"}, 400))
    with le.LlmEngineClient(api_key="k", base_url=server.url, max_retries=3) as client:
        with pytest.raises(le.BadRequestError) as info:
            client.chat.completions.create(model="m", messages=MESSAGES)
    assert len(server.script.seen) == 1 and info.value.status_code == 400


def test_retries_per_call_with_options(server: Server, fast_retries: None) -> None:
    server.reset(lambda s: json_reply({}, 500))
    with le.LlmEngineClient(api_key="k", base_url=server.url, max_retries=3) as client:
        with pytest.raises(le.InternalServerError):
            client.with_options(max_retries=0).chat.completions.create(model="m", messages=MESSAGES)
    assert len(server.script.seen) == 1


# --- errors and timeouts ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "name"),
    [
        (400, "BadRequestError"),
        (401, "AuthenticationError"),
        (403, "PermissionDeniedError"),
        (404, "NotFoundError"),
        (409, "ConflictError"),
        (422, "UnprocessableEntityError"),
        (429, "RateLimitError"),
        (500, "InternalServerError"),
        (503, "InternalServerError"),
    ],
)
@pytest.mark.parametrize("is_async", [False, True])
def test_error_classes(server: Server, status: int, name: str, is_async: bool) -> None:
    body = {"detail": [{"loc": ["body", "model"], "msg": "required", "type": "missing"}]}
    server.reset(lambda s: json_reply(body, status))
    cls = getattr(le, name)

    async def call_async() -> None:
        async with le.AsyncLlmEngineClient(
            api_key="k", base_url=server.url, max_retries=0
        ) as client:
            await client.chat.completions.create(model="m", messages=MESSAGES)

    with pytest.raises(cls) as info:
        if is_async:
            run(call_async())
        else:
            with le.LlmEngineClient(api_key="k", base_url=server.url, max_retries=0) as client:
                client.chat.completions.create(model="m", messages=MESSAGES)
    error = info.value
    assert isinstance(error, le.APIStatusError) and isinstance(error, le.APIError)
    assert error.status_code == status and error.response.status_code == status
    if status == 422:
        assert isinstance(error.body, le.models.HTTPValidationError)
    else:
        assert error.body == body


@pytest.mark.parametrize("is_async", [False, True])
def test_timeout(server: Server, is_async: bool) -> None:
    server.reset(lambda s: (200, {"x-sleep": "1"}, b"{}"))

    async def call_async() -> None:
        async with le.AsyncLlmEngineClient(
            api_key="k", base_url=server.url, max_retries=0
        ) as client:
            await client.health.check(timeout=0.1)

    with pytest.raises(le.APITimeoutError):
        if is_async:
            run(call_async())
        else:
            with le.LlmEngineClient(
                api_key="k", base_url=server.url, max_retries=0, timeout=0.1
            ) as client:
                client.health.check()


@pytest.mark.parametrize("is_async", [False, True])
def test_connection_error(is_async: bool) -> None:
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()

    async def call_async() -> None:
        async with le.AsyncLlmEngineClient(api_key="k", base_url=url, max_retries=0) as client:
            await client.health.check()

    with pytest.raises(le.APIConnectionError):
        if is_async:
            run(call_async())
        else:
            with le.LlmEngineClient(api_key="k", base_url=url, max_retries=0) as client:
                client.health.check()


# --- SSE -------------------------------------------------------------------------------------


def stream_reply(events: Any) -> Callable[[Seen], Any]:
    return lambda s: (200, {"content-type": "text/event-stream"}, events)


def test_stream_1000_chunks_sync_and_async(server: Server) -> None:
    server.reset(lambda s: stream_reply(sse(*[CHUNK] * 1000))(s))
    with le.LlmEngineClient(api_key="k", base_url=server.url) as client:
        stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        chunks = list(stream)
    assert len(chunks) == 1000
    assert all(isinstance(c, le.models.CreateChatCompletionStreamResponse) for c in chunks)
    assert server.script.seen[0].json()["stream"] is True

    async def main() -> int:
        async with le.AsyncLlmEngineClient(api_key="k", base_url=server.url) as client:
            stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
            return len([c async for c in stream])

    assert run(main()) == 1000


def test_completions_stream_endpoint(server: Server) -> None:
    chunk = {
        "request_id": "r",
        "output": {
            "text": "a",
            "finished": False,
            "num_prompt_tokens": 1,
            "num_completion_tokens": 1,
        },
    }
    server.reset(stream_reply(sse(chunk, chunk)))
    with le.LlmEngineClient(api_key="k", base_url=server.url) as client:
        chunks = list(
            client.llm.completions.stream(
                model_endpoint_name="e", prompt="p", max_new_tokens=3, temperature=0.1
            )
        )
    assert [c.output.text for c in chunks if c.output] == ["a", "a"]
    assert server.script.seen[0].path == "/v1/llm/completions-stream"


@pytest.mark.parametrize("is_async", [False, True])
def test_stream_error_event(server: Server, is_async: bool) -> None:
    error = {"error": {"status_code": 500, "content": {"error": "boom", "timestamp": "t"}}}
    server.reset(lambda s: stream_reply(sse(CHUNK, error, CHUNK))(s))

    async def main() -> list[Any]:
        got: list[Any] = []
        async with le.AsyncLlmEngineClient(api_key="k", base_url=server.url) as client:
            stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
            async for c in stream:
                got.append(c)
        return got

    got: list[Any] = []
    with pytest.raises(le.APIStreamError) as info:
        if is_async:
            run(main())
        else:
            with le.LlmEngineClient(api_key="k", base_url=server.url) as client:
                for c in client.chat.completions.create(model="m", messages=MESSAGES, stream=True):
                    got.append(c)
    assert info.value.body == error
    if not is_async:
        assert len(got) == 1


def test_stream_named_error_event(server: Server) -> None:
    server.reset(lambda s: stream_reply(sse(CHUNK, ("error", {"message": "overloaded"})))(s))
    with le.LlmEngineClient(api_key="k", base_url=server.url) as client:
        with pytest.raises(le.APIStreamError):
            list(client.chat.completions.create(model="m", messages=MESSAGES, stream=True))


def endless() -> Any:
    while True:
        yield f"data: {json.dumps(CHUNK)}\n\n".encode()


@pytest.mark.parametrize("is_async", [False, True])
def test_early_exit_closes_the_connection(server: Server, is_async: bool) -> None:
    server.reset(lambda s: stream_reply(endless())(s))

    async def main() -> None:
        async with le.AsyncLlmEngineClient(api_key="k", base_url=server.url) as client:
            stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
            async with stream:
                async for _ in stream:
                    break
            assert stream.response.is_closed

    if is_async:
        run(main())
    else:
        with le.LlmEngineClient(api_key="k", base_url=server.url) as client:
            stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
            for _ in stream:
                break
            stream.close()
            assert stream.response.is_closed
    deadline = time.monotonic() + 5
    while not server.script.closed and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.script.closed, "the server never saw the client go away"


# --- uploads ---------------------------------------------------------------------------------


@pytest.mark.parametrize("is_async", [False, True])
@pytest.mark.parametrize("source", ["bytes", "path", "fileobj", "tuple"])
def test_upload(server: Server, tmp_path: Path, source: str, is_async: bool) -> None:
    server.reset(lambda s: json_reply({"id": "file-1"}))
    path = tmp_path / "data.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    fh = path.open("rb")
    value: Any = {
        "bytes": b'{"a": 1}\n',
        "path": path,
        "fileobj": fh,
        "tuple": ("data.jsonl", b'{"a": 1}\n', "application/jsonl"),
    }[source]

    async def main() -> Any:
        async with le.AsyncLlmEngineClient(api_key="k", base_url=server.url) as client:
            return await client.files.upload(file=value)

    if is_async:
        result = run(main())
    else:
        with le.LlmEngineClient(api_key="k", base_url=server.url) as client:
            result = client.files.upload(file=value)
    fh.close()
    assert isinstance(result, le.models.UploadFileResponse)
    [(name, filename, ctype, content)] = server.script.seen[0].multipart()
    assert name == "file" and content == b'{"a": 1}\n'
    assert filename == ("file" if source == "bytes" else "data.jsonl")
    assert ctype == ("application/jsonl" if source == "tuple" else "application/octet-stream")
    assert (
        server.script.seen[0].headers["content-type"].startswith("multipart/form-data; boundary=")
    )


def test_sgp_upload_many_files_and_form_fields(server: Server, tmp_path: Path) -> None:
    dataset = Sampler(spec_and_ir("sgp")[0])(
        {"$ref": "#/components/schemas/TrainingDatasetResponse"}
    )
    server.reset(lambda s: json_reply(dataset))
    path = tmp_path / "train.csv"
    path.write_text("a,b\n")
    with sg.SgpClient(api_key="k", base_url=server.url) as client:
        client.training_datasets.create(
            account_id="acc", name="n", schema_type="GENERATION", file=path
        )
    parts = server.script.seen[0].multipart()
    assert ("file", "train.csv", "text/csv", b"a,b\n") in parts
    assert ("name", None, "text/plain", b"n") in parts


# --- pages -----------------------------------------------------------------------------------


def pages(seen: Seen) -> Any:
    page = int(dict(seen.query).get("page", "1"))
    items = [{**KB, "knowledge_base_id": f"kb{page}-{i}"} for i in range(2)]
    return json_reply(
        {
            "items": items if page <= 3 else [],
            "current_page": page,
            "total_item_count": 6,
            "items_per_page": 2,
        }
    )


def test_pagination_three_pages_sync(server: Server) -> None:
    server.reset(pages)
    with sg.SgpClient(api_key="k", base_url=server.url) as client:
        first = client.knowledge_bases.list(limit=2)
        assert isinstance(first.page, sg.models.PaginatedKnowledgeBaseItemV2)
        assert len(server.script.seen) == 1  # lazy
        ids = [kb.knowledge_base_id for kb in first]
    assert ids == [f"kb{p}-{i}" for p in (1, 2, 3) for i in range(2)]
    assert [dict(s.query).get("page") for s in server.script.seen] == [None, "2", "3"]
    assert all(dict(s.query)["limit"] == "2" for s in server.script.seen)


def test_pagination_three_pages_async(server: Server) -> None:
    server.reset(pages)

    async def main() -> list[str]:
        async with sg.AsyncSgpClient(api_key="k", base_url=server.url) as client:
            first = await client.knowledge_bases.list(limit=2)
            return [kb.knowledge_base_id async for kb in first]

    assert len(run(main())) == 6 and len(server.script.seen) == 3


# --- raw responses ---------------------------------------------------------------------------


def test_with_raw_response(server: Server) -> None:
    server.reset(lambda s: json_reply(COMPLETION, headers={"x-request-id": "r1"}))
    with le.LlmEngineClient(api_key="k", base_url=server.url) as client:
        raw = client.with_raw_response.chat.completions.create(model="m", messages=MESSAGES)
        assert raw.status_code == 200 and raw.headers["x-request-id"] == "r1"
        assert isinstance(raw.parse(), le.models.CreateChatCompletionResponse)
        plain = client.chat.completions.create(model="m", messages=MESSAGES)
        assert isinstance(plain, le.models.CreateChatCompletionResponse)

    async def main() -> Any:
        async with le.AsyncLlmEngineClient(api_key="k", base_url=server.url) as client:
            raw = await client.with_raw_response.chat.completions.create(
                model="m", messages=MESSAGES
            )
            return await raw.parse()

    assert isinstance(run(main()), le.models.CreateChatCompletionResponse)


def test_the_raw_response_surface_scale_gp_users_read(server: Server) -> None:
    """Sync and async (issue 25): what a Stainless ``APIResponse`` offers, the async one's
    ``parse()``, ``read()``, ``text()`` and ``json()`` awaitable."""
    server.reset(lambda s: json_reply(KB, headers={"x-request-id": "r1"}))
    with sg.SgpClient(api_key="k", account_id="a", base_url=server.url) as client:
        raw = client.knowledge_bases.with_raw_response.retrieve("kb1")
        assert (raw.status_code, raw.headers["x-request-id"], raw.method) == (200, "r1", "GET")
        assert raw.http_request.url == raw.url and raw.url.path == "/v4/knowledge-bases/kb1"
        assert raw.http_response.status_code == 200 and raw.retries_taken == 0
        assert raw.is_closed and raw.elapsed.total_seconds() >= 0
        assert raw.json()["knowledge_base_id"] == raw.parse().knowledge_base_id
        assert json.loads(raw.text()) == raw.json() and raw.read() == raw.http_response.content

    async def main() -> tuple[Any, ...]:
        async with sg.AsyncSgpClient(api_key="k", account_id="a", base_url=server.url) as c:
            raw = await c.knowledge_bases.with_raw_response.retrieve("kb1")
            assert type(raw).__name__ == "AsyncAPIResponse" and raw.is_closed
            parsed = await raw.parse()
            return parsed, await raw.json(), await raw.text(), await raw.read(), raw.method

    parsed, body, text, content, method = run(main())
    assert isinstance(parsed, sg.models.KnowledgeBaseItemV2) and method == "GET"
    assert body == json.loads(text) == json.loads(content)


def test_an_empty_path_parameter_is_refused_before_any_request(server: Server) -> None:
    """As Stainless's clients do: ``retrieve("")`` would send ``GET /v4/knowledge-bases/``
    (another endpoint), so it raises ``ValueError`` naming the parameter."""
    server.reset(lambda s: json_reply(KB))
    message = "Expected a non-empty value for `knowledge_base_id` but received ''"
    with sg.SgpClient(api_key="k", account_id="a", base_url=server.url) as client:
        with pytest.raises(ValueError, match=message):
            client.knowledge_bases.retrieve("")
        with pytest.raises(ValueError, match=message):
            client.knowledge_bases.with_raw_response.retrieve("")

    async def main() -> None:
        async with sg.AsyncSgpClient(api_key="k", account_id="a", base_url=server.url) as c:
            with pytest.raises(ValueError, match=message):
                await c.knowledge_bases.retrieve("")

    run(main())
    assert server.script.seen == []


# --- async variants of the auth and retry tests ------------------------------------------------


def test_async_auth_headers_of_both_apis(server: Server) -> None:
    page = {"items": [], "current_page": 1, "total_item_count": 0, "items_per_page": 10}

    async def llm_engine(**credentials: str) -> str:
        server.reset(lambda s: json_reply(COMPLETION))
        async with le.AsyncLlmEngineClient(base_url=server.url, **credentials) as client:
            await client.chat.completions.create(model="m", messages=MESSAGES)
        return str(server.script.seen[0].headers["authorization"])

    async def sgp() -> Seen:
        server.reset(lambda s: json_reply(page))
        async with sg.AsyncSgpClient(api_key="k", account_id="acc", base_url=server.url) as c:
            await c.knowledge_bases.list()
        return server.script.seen[0]

    basic = base64.b64encode(b"secret:").decode()
    assert run(llm_engine(api_key="secret")) == f"Basic {basic}"
    assert run(llm_engine(bearer_token="tok")) == "Bearer tok"
    seen = run(sgp())
    assert seen.headers["x-api-key"] == "k" and seen.headers["x-selected-account-id"] == "acc"


def test_async_retries_fail_twice_then_succeed(server: Server, fast_retries: None) -> None:
    server.reset(sequence(json_reply({}, 503), json_reply({}, 429), json_reply(COMPLETION)))

    async def main() -> Any:
        async with le.AsyncLlmEngineClient(
            api_key="k", base_url=server.url, max_retries=2
        ) as client:
            return await client.chat.completions.create(model="m", messages=MESSAGES)

    assert run(main()).id == "c1" and len(server.script.seen) == 3


def test_async_retry_after_is_honoured(server: Server) -> None:
    server.reset(sequence(json_reply({}, 429, {"retry-after": "1"}), json_reply(COMPLETION)))

    async def main() -> None:
        async with le.AsyncLlmEngineClient(api_key="k", base_url=server.url) as client:
            await client.chat.completions.create(model="m", messages=MESSAGES)

    start = time.monotonic()
    run(main())
    assert time.monotonic() - start >= 0.9 and len(server.script.seen) == 2


def test_async_400_is_not_retried(server: Server, fast_retries: None) -> None:
    server.reset(lambda s: json_reply({"detail": "bad"}, 400))

    async def main() -> None:
        async with le.AsyncLlmEngineClient(
            api_key="k", base_url=server.url, max_retries=3
        ) as client:
            await client.chat.completions.create(model="m", messages=MESSAGES)

    with pytest.raises(le.BadRequestError):
        run(main())
    assert len(server.script.seen) == 1


def test_an_array_body_is_items_as_in_scale_gp(server: Server) -> None:
    """``[client] array_body = "items"`` (specs/sgp.toml): scale-gp's keyword of an array
    body, ``test_cases.batch(items=[...])``; the array is the JSON body."""
    server.reset(lambda s: json_reply([]))
    cases = [{"test_case_data": {"input": "2+2", "expected_output": "4"}}]
    with sg.SgpClient(api_key="k", account_id="a", base_url=server.url) as client:
        client.evaluation_datasets.test_cases.batch("d1", items=cases)  # type: ignore[list-item]
    [seen] = server.script.seen
    assert seen.path == "/v4/evaluation-datasets/d1/test-cases/batch"
    assert json.loads(seen.body) == cases
