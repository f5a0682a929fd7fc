"""schemathesis (positive mode) against the mock of packages apismith generated from real
public specs: issue 23's "0 failures other than authentication" on 20 packages.

    .venv/bin/python bench/corpus_schemathesis.py RESULTS.json [--count 20] [--out FILE]

``RESULTS.json`` is what ``bench/corpus.py`` wrote; the first ``--count`` specs apismith
generated, in the order of their sha256 (a fixed, unbiased pick), are generated again,
served with ``python -m <pkg>.server`` on 127.0.0.1 and run through ``schemathesis run``
with the package's own normalized ``openapi.json``: positive data, the examples and
fuzzing phases, 3 examples an operation, the checks ``not_a_server_error``,
``status_code_conformance``, ``content_type_conformance`` and
``response_schema_conformance``. Credentials are presented for every scheme the spec
declares: API keys (in a header, the query or a cookie) and HTTP Basic and Bearer through
a ``schemathesis.toml`` of ``[auth.openapi.<scheme>]`` tables, OAuth 2 and OpenID Connect
tokens as a Bearer header. A failure whose response is a 401 or 403 counts as
authentication; one where schemathesis cannot serialize a request body in its declared
media type (``application/x-json-smile``: "Serialization not possible") counts as the
tool's, not the mock's. Prints one line per package and a summary; writes the rows as
JSON.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
CHECKS = (
    "not_a_server_error,status_code_conformance,content_type_conformance,"
    "response_schema_conformance"
)
SECRET = "apismith-bench"


def pick(results: Path, count: int) -> list[str]:
    rows = json.loads(results.read_text(encoding="utf-8"))["rows"]
    done = [r["spec"] for r in rows if r.get("apismith", {}).get("outcome") == "success"]
    return sorted(done, key=lambda s: hashlib.sha256(s.encode()).hexdigest())[:count]


def auth_config(spec: dict[str, Any]) -> tuple[str, list[str]]:
    """(a ``schemathesis.toml`` presenting the spec's API keys and HTTP credentials, ``-H``
    arguments presenting its OAuth 2 and OpenID Connect tokens)."""
    schemes = (spec.get("components") or {}).get("securitySchemes") or {}
    tables: list[str] = []
    args: list[str] = []
    for name, scheme in schemes.items():
        kind = scheme.get("type")
        table = f"[auth.openapi.{json.dumps(str(name))}]"
        if kind == "apiKey":
            tables += [table, f'api_key = "{SECRET}"']
        elif kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
            tables += [table, f'username = "{SECRET}"', f'password = "{SECRET}"']
        elif kind == "http":
            tables += [table, f'bearer = "{SECRET}"']
        elif kind in ("oauth2", "openIdConnect") and not args:
            args = ["-H", f"Authorization: Bearer {SECRET}"]
    return "\n".join(tables) + "\n", args


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(pkg: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [str(BIN / "python"), "-m", f"{pkg.name}.server", "--port", str(port)],
        cwd=pkg.parent,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    import httpx

    deadline = time.monotonic() + 120  # a hang guard
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=2)
            break
        except httpx.TransportError:
            time.sleep(0.2)
    return proc


def failures(output: str) -> tuple[int, int, int, list[str]]:
    """(failures, of which authentication, of which the tool's own, a few failure lines)
    read off the report."""
    # the ERRORS and FAILURES sections, one block per operation, each titled
    # ``___ GET /path ___`` (`` GET /path `` when the path is long)
    start = min((i for i in (output.find("= ERRORS ="), output.find("= FAILURES =")) if i >= 0),
                default=len(output))  # fmt: skip
    end = output.find("= SUMMARY =", start)
    sections = output[start : end if end >= 0 else len(output)]
    methods = "GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS|TRACE|QUERY"
    blocks = re.split(rf"\n(?=[_ ]*(?:{methods}) /)", sections)
    found = [b for b in blocks[1:] if b.strip()]
    statuses = [re.findall(r"\[(\d{3})\]", b) for b in found]
    auth = sum(bool(s) and all(x in ("401", "403") for x in s) for s in statuses)
    tool = sum(not s and "Serialization not possible" in b for s, b in zip(statuses, found))
    lines = [b.strip().splitlines()[0] for b in found if "Serialization not possible" not in b]
    return len(found), auth, tool, lines[:5]


def run_one(spec: str, tmp: Path) -> dict[str, Any]:
    pkg = tmp / "pkg"
    gen = subprocess.run(
        [str(BIN / "apismith"), "generate", "--spec", spec, "--out", str(pkg)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if gen.returncode != 0:
        return {"spec": spec, "status": "not generated", "detail": gen.stderr[-300:]}
    normalized = json.loads((pkg / "openapi.json").read_text(encoding="utf-8"))
    config, headers = auth_config(normalized)
    (tmp / "schemathesis.toml").write_text(config, encoding="utf-8")
    port = free_port()
    server = serve(pkg, port, tmp / "server.log")
    try:
        st = shutil.which("schemathesis", path=str(BIN)) or "schemathesis"
        proc = subprocess.run(
            [st, "run", str(pkg / "openapi.json"), "--url", f"http://127.0.0.1:{port}"]
            + headers
            + ["--mode", "positive", "--phases", "examples,fuzzing", "--max-examples", "3"]
            + ["--checks", CHECKS, "--workers", "1", "--seed", "1"]
            + ["--suppress-health-check", "all", "--no-color"],
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
    finally:
        server.terminate()
        server.wait(10)
    count, auth, tool, lines = failures(proc.stdout)
    return {
        "spec": spec,
        "status": "ok" if proc.returncode == 0 else "failures",
        "rc": proc.returncode,
        "failures": count,
        "authentication": auth,
        "tool": tool,
        "lines": lines,
        "tail": proc.stdout.strip().splitlines()[-12:],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "st.json")
    args = parser.parse_args()
    rows = []
    for spec in pick(args.results, args.count):
        with tempfile.TemporaryDirectory(prefix="apismith-st-") as name:
            try:
                row = run_one(spec, Path(name))
            except subprocess.TimeoutExpired:
                row = {"spec": spec, "status": "timeout"}
        rows.append(row)
        other = row.get("failures", 0) - row.get("authentication", 0) - row.get("tool", 0)
        print(f"[{len(rows)}] {row['status']} other={other} {spec}", flush=True)
    args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    clean = sum(r["status"] == "ok" for r in rows)
    only_auth = sum(
        r["status"] == "failures"
        and r.get("failures", 0) == r.get("authentication", 0) + r.get("tool", 0)
        for r in rows
    )
    print(
        f"\n{len(rows)} packages: {clean} without failures, {only_auth} with authentication"
        f" (or schemathesis's own serialization) failures only,"
        f" {len(rows) - clean - only_auth} with others; rows: {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
