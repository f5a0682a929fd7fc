"""schemathesis (positive mode) against the mock of packages apismith generated from real
public specs: issue 23's "0 failures other than authentication" on 20 packages.

    .venv/bin/python bench/corpus_schemathesis.py RESULTS.json [--count 20] [--out FILE]

``RESULTS.json`` is what ``bench/corpus.py`` wrote; the first ``--count`` specs apismith
generated, in the order of their sha256 (a fixed, unbiased pick), are generated again,
served with ``python -m <pkg>.server`` on 127.0.0.1 and run through ``schemathesis run``
with the package's own normalized ``openapi.json``: positive data, the examples and
fuzzing phases, 3 examples an operation, the checks ``not_a_server_error``,
``status_code_conformance``, ``content_type_conformance`` and
``response_schema_conformance``. Header credentials (API keys, bearer, basic) are sent
for every scheme the spec declares; a failure whose response is a 401 or 403 counts as
authentication. Prints one line per package and a summary; writes the rows as JSON.
"""

from __future__ import annotations

import argparse
import base64
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


def auth_headers(spec: dict[str, Any]) -> list[str]:
    """``-H`` arguments presenting every header credential the spec declares."""
    schemes = (spec.get("components") or {}).get("securitySchemes") or {}
    args: list[str] = []
    for scheme in schemes.values():
        kind = scheme.get("type")
        if kind == "apiKey" and scheme.get("in") == "header":
            args += ["-H", f"{scheme['name']}: {SECRET}"]
        elif kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
            token = base64.b64encode(f"{SECRET}:{SECRET}".encode()).decode()
            args += ["-H", f"Authorization: Basic {token}"]
        elif kind in ("http", "oauth2", "openIdConnect"):
            args += ["-H", f"Authorization: Bearer {SECRET}"]
    return args


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


def failures(output: str) -> tuple[int, int, list[str]]:
    """(failures, of which authentication, a few failure lines) read off the report."""
    blocks = re.split(r"\n(?=_{5,} )", output)
    found = [b for b in blocks if b.startswith(("_" * 5,)) or "Failed to" in b]
    statuses = [re.findall(r"\[(\d{3})\]", b) for b in found]
    auth = sum(bool(s) and all(x in ("401", "403") for x in s) for s in statuses)
    lines = [b.strip().splitlines()[0] for b in found][:5]
    return len(found), auth, lines


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
    port = free_port()
    server = serve(pkg, port, tmp / "server.log")
    try:
        st = shutil.which("schemathesis", path=str(BIN)) or "schemathesis"
        proc = subprocess.run(
            [st, "run", str(pkg / "openapi.json"), "--url", f"http://127.0.0.1:{port}"]
            + auth_headers(normalized)
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
    count, auth, lines = failures(proc.stdout)
    return {
        "spec": spec,
        "status": "ok" if proc.returncode == 0 else "failures",
        "rc": proc.returncode,
        "failures": count,
        "authentication": auth,
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
        other = row.get("failures", 0) - row.get("authentication", 0)
        print(f"[{len(rows)}] {row['status']} other={other} {spec}", flush=True)
    args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    clean = sum(r["status"] == "ok" for r in rows)
    only_auth = sum(
        r["status"] == "failures" and r.get("failures", 0) == r.get("authentication", 0)
        for r in rows
    )
    print(
        f"\n{len(rows)} packages: {clean} without failures, {only_auth} with authentication"
        f" failures only, {len(rows) - clean - only_auth} with others; rows: {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
