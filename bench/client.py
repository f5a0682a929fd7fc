"""Benchmark of the generated LLM Engine client beside openai-python, both against raw
httpx, all in the same process and run, over ``httpx.MockTransport`` (no network):

- per-call overhead: ``chat.completions.create(...)`` with a typical OpenAI-style request
  and response, against ``json.dumps`` + ``post`` + ``json.loads``;
- SSE throughput: typed chunks per second through the clients' streams
  (``create(..., stream=True)``), against a bare SSE line parse into dicts.

The clients and the raw baseline take turns within each repeat (the order rotating from
one repeat to the next), so a slow patch of a shared machine hits all of them; each figure
is the median of the repeats.

Targets (issue 13): per call at most 1.5x raw httpx; SSE at least 50% of raw.

Our client needs only httpx and pydantic; openai-python 2.x is measured when importable
(else skipped, and said so). ``make bench-client`` runs this script in the official SDKs'
cached venv (``tests/server/sdk_calls/harness.py``), which has openai 2.x, httpx and
pydantic. The output is Markdown.

    make bench-client [BENCH_CLIENT_ARGS="--calls N --chunks N --repeat N"]
    <python> bench/client.py [--calls N] [--chunks N] [--repeat N]
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import platform
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent

CONTENT = "Waves fold into foam,\nsalt wind..."
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
            "message": {"role": "assistant", "content": CONTENT},
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

PER_CALL_TARGET = 1.5  # ours / raw, at most
SSE_TARGET = 0.5  # ours / raw throughput, at least

RAW = "raw httpx"
OURS = "LlmEngineClient"
OURS_LAX = "LlmEngineClient, strict_response_validation=False"
OPENAI = "openai-python"

Run = Callable[[], None]


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


def load_openai() -> tuple[Any, str | None]:
    """The ``openai`` module (None when not importable) and why it was skipped."""
    try:
        import openai  # type: ignore[import-not-found, unused-ignore]
    except ImportError as exc:
        return None, f"not importable with {sys.executable} ({exc})"
    major = openai.__version__.split(".")[0]
    if major != "2":
        return None, f"openai {openai.__version__} is not 2.x"
    return openai, None


def measure(runs: dict[str, Run], per: int, repeat: int) -> dict[str, float]:
    """Seconds per unit (``per`` units a run) of each run: the median of ``repeat`` rounds,
    the runs taking turns within a round, in an order rotating from round to round."""
    names = list(runs)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeat):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            gc.collect()
            start = time.perf_counter()
            runs[name]()
            times[name].append((time.perf_counter() - start) / per)
    return {name: statistics.median(ts) for name, ts in times.items()}


def json_transport(body: bytes, content_type: str) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"content-type": content_type})

    return httpx.MockTransport(handler)


def clients(le: Any, openai: Any, transport: httpx.MockTransport) -> dict[str, Any]:
    """Each client under test, all on ``transport`` (each with its own httpx.Client)."""
    out: dict[str, Any] = {
        OURS: le.LlmEngineClient(
            api_key="key", base_url="http://test", http_client=httpx.Client(transport=transport)
        ),
        OURS_LAX: le.LlmEngineClient(
            api_key="key",
            base_url="http://test",
            http_client=httpx.Client(transport=transport),
            strict_response_validation=False,
        ),
    }
    if openai is not None:
        out[OPENAI] = openai.OpenAI(
            api_key="k", base_url="http://test/v2", http_client=httpx.Client(transport=transport)
        )
    return out


def per_call(le: Any, openai: Any, calls: int, repeat: int) -> dict[str, float]:
    transport = json_transport(json.dumps(RESPONSE).encode(), "application/json")
    raw_http = httpx.Client(transport=transport, base_url="http://test")
    headers = {"content-type": "application/json", "authorization": "Basic a2V5Og=="}

    def raw(n: int = calls) -> None:
        post = raw_http.post
        for _ in range(n):
            r = post("/v2/chat/completions", content=json.dumps(REQUEST), headers=headers)
            json.loads(r.content)

    def typed(client: Any) -> Callable[..., None]:
        def run(n: int = calls) -> None:
            create = client.chat.completions.create
            for _ in range(n):
                create(**REQUEST)

        return run

    runs: dict[str, Callable[..., None]] = {RAW: raw}
    for name, client in clients(le, openai, transport).items():
        result = client.chat.completions.create(**REQUEST)  # the same answer, typed
        assert result.choices[0].message.content == CONTENT
        assert result.usage.total_tokens == 42
        runs[name] = typed(client)
    for run in runs.values():
        run(100)  # warm up (adapters, pools, caches)
    return measure(runs, calls, repeat)


def sse(le: Any, openai: Any, chunks: int, repeat: int) -> dict[str, float]:
    payload = b"".join(f"data: {json.dumps(CHUNK)}\n\n".encode() for _ in range(chunks))
    payload += b"data: [DONE]\n\n"
    transport = json_transport(payload, "text/event-stream")
    raw_http = httpx.Client(transport=transport, base_url="http://test")

    def raw() -> None:
        with raw_http.stream("POST", "/v2/chat/completions", content=json.dumps(REQUEST)) as r:
            out = []
            for line in r.iter_lines():
                if line.startswith("data: "):
                    data = line[6:]
                    if data == "[DONE]":
                        break
                    out.append(json.loads(data))
        assert len(out) == chunks

    def typed(client: Any) -> Run:
        def run() -> None:
            n = sum(1 for _ in client.chat.completions.create(**REQUEST, stream=True))
            assert n == chunks

        return run

    runs: dict[str, Run] = {RAW: raw}
    for name, client in clients(le, openai, transport).items():
        out = list(client.chat.completions.create(**REQUEST, stream=True))  # typed chunks
        assert len(out) == chunks and out[-1].choices[0].delta.content == "Waves"
        runs[name] = typed(client)
    for run in runs.values():
        run()  # warm up
    return measure(runs, chunks, repeat)


def version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def verdict(ok: bool) -> str:
    return "**PASS**" if ok else "**FAIL**"


def report(args: argparse.Namespace, openai: Any, skipped: str | None) -> list[str]:
    le = load_package()
    calls = per_call(le, openai, args.calls, args.repeat)
    chunk = sse(le, openai, args.chunks, args.repeat)
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    cores = f"{os.cpu_count()} cores" + (f" ({usable} usable)" if usable is not None else "")
    command = " ".join([shlex.quote(sys.executable), *map(shlex.quote, sys.argv)])
    openai_version = version("openai") if openai is not None else f"skipped: {skipped}"
    lines = [
        "### Client overhead: LlmEngineClient"
        + (" and openai-python" if openai is not None else "")
        + " against raw httpx",
        "",
        f"Command: `{command}`",
        "",
        "| | |",
        "|---|---|",
        f"| Python | {platform.python_implementation()} {platform.python_version()} |",
        f"| httpx | {version('httpx')} |",
        f"| pydantic | {version('pydantic')} (pydantic-core {version('pydantic-core')}) |",
        f"| openai | {openai_version} |",
        f"| Machine | {platform.system()} {platform.machine()}, {cpu_model()}, {cores} |",
        "",
        "All in one process over `httpx.MockTransport` (no network), each client with its own"
        " `httpx.Client` on the same transport; the clients and the raw baseline take turns in"
        f" each of {args.repeat} repeats; figures are medians. Clients at their defaults"
        " (ours validates responses, `strict_response_validation=True`; openai-python"
        " constructs them without validation), plus ours with validation off.",
        "",
        f"**Per call**: `chat.completions.create(...)`, {args.calls} calls a repeat; raw ="
        " `json.dumps` + `httpx.Client.post` + `json.loads`.",
        "",
        "| | µs / call | × raw httpx |",
        "|---|---:|---:|",
    ]
    raw_call = calls[RAW]
    for name, seconds in calls.items():
        lines.append(f"| {name} | {seconds * 1e6:.1f} | {seconds / raw_call:.2f}× |")
    lines += [
        "",
        f"**SSE**: `chat.completions.create(..., stream=True)`, {args.chunks} chunks a"
        " repeat, each a typed chunk; raw = `iter_lines` + `json.loads` into dicts.",
        "",
        "| | chunks / s | % of raw |",
        "|---|---:|---:|",
    ]
    raw_chunk = chunk[RAW]
    for name, seconds in chunk.items():
        lines.append(f"| {name} | {1 / seconds:,.0f} | {raw_chunk / seconds:.0%} |")
    ours_call, ours_sse = calls[OURS] / raw_call, raw_chunk / chunk[OURS]
    lines += [
        "",
        "**Targets (issue 13)**, LlmEngineClient at its defaults against raw httpx:",
        "",
        f"- per call ≤ {PER_CALL_TARGET}× raw: {ours_call:.2f}× — "
        f"{verdict(ours_call <= PER_CALL_TARGET)}",
        f"- SSE ≥ {SSE_TARGET:.0%} of raw: {ours_sse:.0%} — {verdict(ours_sse >= SSE_TARGET)}",
    ]
    if openai is not None:
        openai_call, openai_sse = calls[OPENAI] / raw_call, raw_chunk / chunk[OPENAI]
        lines.append(
            f"- for reference, openai-python: per call {openai_call:.2f}× raw, SSE"
            f" {openai_sse:.0%} of raw; LlmEngineClient's time per call is"
            f" {calls[OURS] / calls[OPENAI]:.2f}× openai-python's, its SSE throughput"
            f" {chunk[OPENAI] / chunk[OURS]:.2f}× openai-python's"
        )
    else:
        lines.append(f"- openai-python skipped: {skipped} (`make bench-client` runs it)")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls a repeat")
    parser.add_argument("--chunks", type=int, default=20000, help="SSE chunks a repeat")
    parser.add_argument("--repeat", type=int, default=7, help="repeats (the median is kept)")
    args = parser.parse_args()
    openai, skipped = load_openai()
    if skipped:
        print(f"openai-python skipped: {skipped}", file=sys.stderr)
    print("\n".join(report(args, openai, skipped)))


if __name__ == "__main__":
    main()
