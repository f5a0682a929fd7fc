"""Benchmark: apismith's mock (``apismith serve``) beside Prism (``prism mock``) on the same
normalized specs (``generated/<package>/openapi.json``), in the same run.

    make bench-mock       # or: .venv/bin/python bench/mock_vs_prism.py [--requests 1000]
                          #     [--prism-version 5.16.0] [--out results.md]

1. The official SDKs' calls (``tests/server/sdk_calls/*_calls.py``, the ones
   ``tests/server/test_official_sdks.py`` runs; their venvs are the test's cached ones)
   against each mock: pass/fail per call, and why.
2. Latency: ``--requests`` sequential requests per mock and API (a fixed round-robin mix
   of GET and POST operations with valid bodies and credentials, one keep-alive httpx
   client, 127.0.0.1, every request with a timeout, after a short warm-up); p50 and p90
   and the ratio apismith / Prism.

Only one server runs at a time. Prism (``@stoplight/prism-cli``, pinned) is installed
with npm into ``$APISMITH_BENCH_CACHE/prism`` (default ``~/.cache/apismith-bench``), never
into the repo; it needs node and npm. It validates requests and credentials as apismith's
mock does, and answers the spec's examples (static mode, deterministic). The output is
Markdown, to paste into the README. Not a test: nothing here fails on a slow result.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator import __version__  # noqa: E402
from tests.server.sdk_calls.harness import (  # noqa: E402
    SDKS,
    free_port,
    run_calls,
    sdk_python,
    serving,
)

PRISM_VERSION = "5.16.0"
APIS = {"llm-engine": "llm_engine", "sgp": "sgp"}
MOCKS = ("apismith", "Prism")
NPM_TIMEOUT = 900.0
REQUEST_TIMEOUT = 10.0
WARMUP = 20

# A fixed mix per API: (method, path, JSON body). Every request is valid for the spec.
_COMPLETION_V1 = {"prompt": "hi", "max_new_tokens": 20, "temperature": 0.2}
_CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
MIX: dict[str, list[tuple[str, str, Any]]] = {
    "llm-engine": [
        ("GET", "/v1/llm/model-endpoints", None),
        ("GET", "/v1/files", None),
        ("POST", "/v1/llm/completions-sync?model_endpoint_name=m", _COMPLETION_V1),
        ("POST", "/v2/chat/completions", _CHAT),
    ],
    "sgp": [
        ("GET", "/v4/models", None),
        ("GET", "/v4/knowledge-bases", None),
        ("POST", "/v4/completions", {"model": "gpt-4", "prompt": "hi"}),
        ("POST", "/v4/chat-completions", {**_CHAT, "model": "gpt-4"}),
    ],
}
# What each mock's security accepts (any value; the SDKs send the same kind).
AUTH: dict[str, dict[str, str]] = {
    "llm-engine": {"Authorization": "Basic dGVzdC10b2tlbjo="},  # test-token:
    "sgp": {"x-api-key": "test-key", "x-selected-account-id": "test-account"},
}


@dataclass
class Latency:
    seconds: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)

    def quantile(self, q: float) -> float:
        ordered = sorted(self.seconds)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    @property
    def not_2xx(self) -> int:
        bad = sum(n for status, n in self.statuses.items() if not 200 <= status < 300)
        return bad + sum(self.errors.values())


# --- Prism -----------------------------------------------------------------------------------


def cache_dir() -> Path:
    return Path(os.environ.get("APISMITH_BENCH_CACHE") or Path.home() / ".cache/apismith-bench")


def prism_binary(version: str) -> Path:
    """Prism ``version``, npm-installed into the cache (once)."""
    prefix = cache_dir() / "prism"
    binary = prefix / "node_modules" / ".bin" / "prism"
    if binary.exists() and prism_version(binary) == version:
        return binary
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("bench/mock_vs_prism.py: npm not found (Prism is an npm package)")
    prefix.mkdir(parents=True, exist_ok=True)
    print(f"installing @stoplight/prism-cli@{version} into {prefix} ...", file=sys.stderr)
    subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error"]
        + [f"@stoplight/prism-cli@{version}"],
        check=True,
        timeout=NPM_TIMEOUT,
        cwd=prefix,
    )
    return binary


def prism_version(binary: Path) -> str:
    proc = subprocess.run(
        [str(binary), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    return proc.stdout.strip()


def node_version() -> str:
    node = shutil.which("node")
    if node is None:
        return "missing"
    return subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout


# --- the servers -----------------------------------------------------------------------------


def apismith_command() -> list[str]:
    script = Path(sys.executable).with_name("apismith")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "generator"]


@contextmanager
def mock(kind: str, api: str, prism: Path, logs: Path) -> Iterator[str]:
    port = free_port()
    log = logs / f"{kind}-{api}.log"
    if kind == "apismith":
        argv = [*apismith_command(), "serve", api, "--host", "127.0.0.1", "--port", str(port)]
    else:
        spec = ROOT / "generated" / APIS[api] / "openapi.json"
        argv = [str(prism), "mock", "-h", "127.0.0.1", "-p", str(port), str(spec)]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "APISMITH_DEBUG")}
    with serving(argv, port, log, cwd=ROOT, env=env) as url:
        yield url


# --- measuring -------------------------------------------------------------------------------


def latency(url: str, api: str, requests: int) -> Latency:
    import httpx

    mix = MIX[api]
    result = Latency()
    with httpx.Client(base_url=url, headers=AUTH[api], timeout=REQUEST_TIMEOUT) as client:
        for i in range(WARMUP + requests):
            method, path, body = mix[i % len(mix)]
            start = time.perf_counter()
            try:
                status = client.request(method, path, json=body).status_code
            except httpx.HTTPError as exc:
                status = None
                error = type(exc).__name__
            elapsed = time.perf_counter() - start
            if i < WARMUP:
                continue
            result.seconds.append(elapsed)
            if status is None:
                result.errors[error] += 1
            else:
                result.statuses[status] += 1
    return result


def run(requests: int, prism_version_wanted: str) -> dict[str, Any]:
    prism = prism_binary(prism_version_wanted)
    pythons = {sdk.venv: sdk_python(sdk.venv) for sdk in SDKS.values()}
    calls: dict[str, dict[str, dict[str, Any]]] = {kind: {} for kind in MOCKS}
    sdk_versions: dict[str, dict[str, str]] = {}
    latencies: dict[tuple[str, str], Latency] = {}
    with tempfile.TemporaryDirectory(prefix="mock-vs-prism-") as tmp:
        for api in APIS:
            for kind in MOCKS:
                print(f"{kind} on {api} ...", file=sys.stderr)
                with mock(kind, api, prism, Path(tmp)) as url:
                    for sdk in SDKS.values():
                        if sdk.api != api:
                            continue
                        report = run_calls(sdk, pythons[sdk.venv], url)
                        sdk_versions.setdefault(sdk.name, report.get("versions", {}))
                        for check in report["checks"]:
                            calls[kind][check["name"]] = check
                    latencies[api, kind] = latency(url, api, requests)
    return {
        "calls": calls,
        "latencies": latencies,
        "versions": versions(prism, sdk_versions),
        "requests": requests,
    }


def versions(prism: Path, sdks: dict[str, dict[str, str]]) -> dict[str, str]:
    """What ran: the mocks and their stacks, then each SDK's venv (its distributions)."""
    found = {"apismith": __version__}
    for name in ("fastapi", "uvicorn", "pydantic"):
        found[name] = metadata.version(name)
    found["Python"] = platform.python_version()
    found["Prism (@stoplight/prism-cli)"] = prism_version(prism)
    found["node"] = node_version().strip()
    for sdk, seen in sdks.items():
        found[f"SDK {sdk}"] = ", ".join(f"{k} {v}" for k, v in seen.items() if k != "python")
    return found


# --- the report ------------------------------------------------------------------------------


def short(error: str | None, limit: int = 150) -> str:
    text = (error or "").replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def markdown(result: dict[str, Any]) -> str:
    calls = result["calls"]
    names = list(dict.fromkeys(n for sdk in SDKS.values() for n in sdk.checks))
    lines = [
        "### Official SDKs against the mocks",
        "",
        "| SDK call | apismith serve | Prism |",
        "|---|:---:|:---:|",
    ]
    passed = Counter[str]()
    for name in names:
        cells = []
        for kind in MOCKS:
            ok = calls[kind].get(name, {}).get("ok", False)
            passed[kind] += ok
            cells.append("pass" if ok else "**fail**")
        lines.append(f"| `{name}` | {cells[0]} | {cells[1]} |")
    totals = [f"**{passed[kind]}/{len(names)}**" for kind in MOCKS]
    lines.append(f"| **total** | {totals[0]} | {totals[1]} |")
    for kind in MOCKS:
        failed = [(n, calls[kind].get(n, {}).get("error")) for n in names]
        failed = [(n, e) for n, e in failed if not calls[kind].get(n, {}).get("ok", False)]
        if failed:
            lines += ["", f"Failures with {kind}:", ""]
            lines += [f"- `{n}`: {short(e)}" for n, e in failed]
    n = result["requests"]
    lines += [
        "",
        f"### Latency: {n:,} sequential requests per mock and API (127.0.0.1, keep-alive)",
        "",
        "| API | mock | p50 (ms) | p90 (ms) | not 2xx |",
        "|---|---|---:|---:|---:|",
    ]
    ratios = []
    for api in APIS:
        for kind in MOCKS:
            lat = result["latencies"][api, kind]
            p50, p90 = lat.quantile(0.5) * 1000, lat.quantile(0.9) * 1000
            lines.append(f"| {api} | {kind} | {p50:.2f} | {p90:.2f} | {lat.not_2xx} |")
        ours, theirs = (result["latencies"][api, kind] for kind in MOCKS)
        ratios.append(
            f"{api}: p50 {ours.quantile(0.5) / theirs.quantile(0.5):.2f}x,"
            f" p90 {ours.quantile(0.9) / theirs.quantile(0.9):.2f}x"
        )
    lines += ["", "apismith / Prism: " + "; ".join(ratios) + " (below 1: apismith is faster)."]
    mixes = "; ".join(
        f"{api}: " + ", ".join(f"`{m} {p.split('?')[0]}`" for m, p, _ in MIX[api]) for api in APIS
    )
    lines += ["", f"Request mix (round-robin, after {WARMUP} warm-up requests): {mixes}."]
    statuses = []
    for (api, kind), lat in result["latencies"].items():
        seen = ", ".join(f"{s}: {c}" for s, c in sorted(lat.statuses.items()))
        seen += "".join(f", {e}: {c}" for e, c in sorted(lat.errors.items()))
        statuses.append(f"{kind} on {api}: {seen}")
    lines += ["", "Statuses: " + "; ".join(statuses) + "."]
    lines += ["", "Versions:", ""]
    lines += [f"- {k}: {v}" for k, v in result["versions"].items()]
    lines.append(f"- machine: {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000, help="per mock and API")
    parser.add_argument("--prism-version", default=PRISM_VERSION)
    parser.add_argument("--out", type=Path, help="also write the Markdown here")
    args = parser.parse_args()
    if args.requests < 1:
        parser.error("--requests must be at least 1")
    result = run(args.requests, args.prism_version)
    text = markdown(result)
    print(text, end="")
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
