"""schemathesis against the running mock server of each API, with the normalized spec.

Positive data for every operation; checks: response schema, status code and content type
conformance, and no server errors. A bounded number of examples per operation keeps the
two runs (in parallel under xdist) well under 3 minutes on 2 cores.

The spec given to schemathesis is ``generated/<package>/openapi.json`` with one documented
change (docs/server.md, "Fidelity"): a streaming operation's 2xx response also lists
``text/event-stream``, which the spec does not declare.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GENERATED, describe
from tests.server.conftest import AUTH_HEADERS, SERVED, running

pytest.importorskip("schemathesis")

MAX_EXAMPLES = 3

# Operations left out, each for a reason outside the server (docs/server.md lists them).
EXCLUDED: dict[str, dict[str, str]] = {
    "sgp": {
        # schemathesis 4.32 rejects the response schema: it reads 3.1 ``prefixItems``
        # (EmbeddingResponse.embeddings) as an invalid 3.0 ``items`` list
        "POST-V4-/v3/models/{model_deployment_id}/embeddings": "schemathesis: prefixItems",
    },
}


def with_streams(spec: dict[str, Any], streaming: dict[str, Any]) -> dict[str, Any]:
    """``spec`` where each streaming operation's 2xx responses also offer text/event-stream
    (the same addition the generated app makes to its own OpenAPI document)."""
    from generator.render.server.routes import sse_event_schema

    for item in spec["paths"].values():
        for op in item.values():
            if isinstance(op, dict) and op.get("operationId") in streaming:
                chunk = streaming[op["operationId"]].chunk
                for status, response in op["responses"].items():
                    if status.startswith("2"):
                        response.setdefault("content", {})["text/event-stream"] = {
                            "schema": sse_event_schema(chunk)
                        }
    return spec


@pytest.mark.slow
@pytest.mark.parametrize("package", sorted(SERVED.values()))
def test_schemathesis(package: str, tmp_path: Path) -> None:
    import subprocess

    from generator.config import load_config
    from tests.conftest import SPECS

    api = next(a for a, p in SERVED.items() if p == package)
    spec = json.loads((GENERATED / package / "openapi.json").read_text(encoding="utf-8"))
    # [streaming] entries name an operation by operationId or Python name (x-apismith-name)
    ids = {
        op.get("x-apismith-name"): op.get("operationId")
        for item in spec["paths"].values()
        for op in item.values()
        if isinstance(op, dict)
    }
    streaming = {ids.get(k, k): v for k, v in load_config(SPECS / f"{api}.toml").streaming.items()}
    spec_file = tmp_path / "openapi.json"
    spec_file.write_text(json.dumps(with_streams(spec, streaming)), encoding="utf-8")
    st = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or "schemathesis"
    auth = AUTH_HEADERS[package].items()
    headers = [arg for name, value in auth for arg in ("-H", f"{name}: {value}")]
    excluded = [arg for op in EXCLUDED.get(package, {}) for arg in ("--exclude-operation-id", op)]
    server = [sys.executable, "-m", f"{package}.server"]
    env = {"PYTHONPATH": str(GENERATED)}
    with running(server, cwd=GENERATED, log=tmp_path / "server.log", env=env) as url:
        proc = subprocess.run(
            [
                st,
                "run",
                str(spec_file),
                "--url",
                url,
                *headers,
                "--mode",
                "positive",
                "--phases",
                "examples,fuzzing",
                "--max-examples",
                str(MAX_EXAMPLES),
                "--checks",
                "not_a_server_error,status_code_conformance,"
                "content_type_conformance,response_schema_conformance",
                # one worker: with threads, CPython 3.11's ast.parse (hypothesis describes
                # its strategies with it) can fail ("AST constructor recursion depth
                # mismatch"), a race outside this project
                "--workers",
                "1",
                "--seed",
                "1",
                "--suppress-health-check",
                "all",
                "--no-color",
                *excluded,
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert proc.returncode == 0, describe(proc)
