"""Benchmark of the generated LLM Engine client against raw httpx, in the same run, over
``httpx.MockTransport`` (no network):

- per-call overhead: ``LlmEngineClient.chat.completions.create(...)`` with a typical
  OpenAI-style request and response, against ``json.dumps`` + ``post`` + ``json.loads``;
- SSE throughput: typed chunks per second through ``Stream``, against a bare SSE line parse
  into dicts.

Targets (issue 3): per call at most 2.5x raw httpx; SSE at least 25% of raw.

    .venv/bin/python bench/client.py [--calls N] [--chunks N]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent

REQUEST = {
    "model": "llama-3-8b-instruct",
    "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Write a haiku about the sea."},
    ],
    "max_tokens": 64,
    "temperature": 0.2,
}
RESPONSE = {
    "id": "chatcmpl-123",
    "object": "chat.completion",
    "created": 1700000000,
    "model": "llama-3-8b-instruct",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "Waves fold into foam,\nsalt wind..."},
            "finish_reason": "stop",
            "logprobs": None,
        }
    ],
    "usage": {"prompt_tokens": 25, "completion_tokens": 17, "total_tokens": 42},
}
CHUNK = {
    "id": "chatcmpl-123",
    "object": "chat.completion.chunk",
    "created": 1700000000,
    "model": "llama-3-8b-instruct",
    "choices": [{"index": 0, "delta": {"content": "Waves"}, "finish_reason": None}],
}


def load_package() -> Any:
    path = ROOT / "generated" / "llm_engine"
    spec = importlib.util.spec_from_file_location(
        "llm_engine", path / "__init__.py", submodule_search_locations=[str(path)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["llm_engine"] = module
    spec.loader.exec_module(module)
    return module


def best(fn: Any, n: int, repeat: int = 5) -> float:
    """The best of ``repeat`` runs of ``n`` calls, in seconds per call."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(n)
        times.append((time.perf_counter() - start) / n)
    return min(times)


def per_call(le: Any, calls: int) -> tuple[float, float]:
    body = json.dumps(RESPONSE).encode()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    transport = httpx.MockTransport(handler)
    raw_http = httpx.Client(transport=transport, base_url="https://x")

    def raw(n: int) -> None:
        for _ in range(n):
            r = raw_http.post(
                "/v2/chat/completions",
                content=json.dumps(REQUEST),
                headers={"content-type": "application/json", "authorization": "Basic a2V5Og=="},
            )
            json.loads(r.content)

    client = le.LlmEngineClient(
        api_key="key", base_url="https://x", http_client=httpx.Client(transport=transport)
    )

    def typed(n: int) -> None:
        create = client.chat.completions.create
        for _ in range(n):
            create(**REQUEST)

    typed(50)  # warm up (adapters, pools)
    raw(50)
    return best(raw, calls), best(typed, calls)


def sse(le: Any, chunks: int) -> tuple[float, float]:
    payload = b"".join(f"data: {json.dumps(CHUNK)}\n\n".encode() for _ in range(chunks))
    payload += b"data: [DONE]\n\n"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=payload, headers={"content-type": "text/event-stream"})

    transport = httpx.MockTransport(handler)
    raw_http = httpx.Client(transport=transport, base_url="https://x")

    def raw(_: int) -> None:
        with raw_http.stream("POST", "/v2/chat/completions", content=json.dumps(REQUEST)) as r:
            out = []
            for line in r.iter_lines():
                if line.startswith("data: "):
                    data = line[6:]
                    if data == "[DONE]":
                        break
                    out.append(json.loads(data))
        assert len(out) == chunks

    client = le.LlmEngineClient(
        api_key="key", base_url="https://x", http_client=httpx.Client(transport=transport)
    )

    def typed(_: int) -> None:
        n = sum(1 for _ in client.chat.completions.create(**REQUEST, stream=True))
        assert n == chunks

    typed(1)
    raw(1)
    return best(raw, 1) / chunks, best(typed, 1) / chunks


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--chunks", type=int, default=20000)
    args = parser.parse_args()
    le = load_package()
    raw_call, typed_call = per_call(le, args.calls)
    print(
        f"per call   raw httpx {raw_call * 1e6:8.1f} us   LlmEngineClient"
        f" {typed_call * 1e6:8.1f} us   ratio {typed_call / raw_call:.2f}x (target <= 2.5x)"
    )
    raw_chunk, typed_chunk = sse(le, args.chunks)
    print(
        f"SSE        raw parse {1 / raw_chunk:10,.0f} chunks/s   Stream"
        f" {1 / typed_chunk:10,.0f} chunks/s   {raw_chunk / typed_chunk:.0%} of raw (target >= 25%)"
    )


if __name__ == "__main__":
    main()
