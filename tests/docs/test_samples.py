"""Every Python (sync and async), curl and raw HTTP sample of the generated docs runs
against the generated mock server. Python samples run in one subprocess per API (importing
SGP's models once), each in a fresh namespace; curl samples run under bash with
``--fail``; HTTP samples are sent as written, to the mock's host, the credentials'
placeholders filled in. (An operation's opening call, a ``py`` block, is a signature.)"""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from generator.config import load_config
from tests.conftest import GENERATED, SPECS, cli_env
from tests.docs.support import ENV, SERVED, fences, mock_server, rendered

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

RUNNER = r"""
import contextlib, io, json, sys, traceback
samples = json.load(open(sys.argv[1], encoding="utf-8"))
failures, outputs = [], {}
for where, code in samples:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, where, "exec"), {"__name__": "__sample__"})
    except BaseException:
        failures.append([where, traceback.format_exc(limit=3)[-2000:]])
    outputs[where] = out.getvalue()
json.dump({"failures": failures, "outputs": outputs}, sys.stdout)
"""
# Every streaming sample must yield chunks from the mock (both APIs' mocks stream).
NOT_STREAMED_BY_THE_MOCK: dict[str, set[str]] = {}


def samples(name: str, lang: str) -> list[tuple[str, str]]:
    return [
        (f"{page}:{line}", code)
        for page, text in rendered(name).pages.items()
        for line, code in fences(text, lang)
    ]


@pytest.mark.parametrize("name", sorted(SERVED))
def test_every_python_sample_runs_against_the_mock(name: str, tmp_path: Path) -> None:
    package = SERVED[name]
    found = samples(name, "python")
    ops = len(rendered(name).api.operations)
    assert len(found) > ops  # at least one per operation, plus the index
    (tmp_path / "samples.json").write_text(json.dumps(found), encoding="utf-8")
    with mock_server(package, tmp_path / "server.log") as url:
        env = {k: v.format(url=url) for k, v in ENV[package].items()}
        env["PYTHONPATH"] = str(GENERATED)
        proc = subprocess.run(
            [sys.executable, "-c", RUNNER, str(tmp_path / "samples.json")],
            cwd=tmp_path,
            env=cli_env(env, repo_on_path=False) | {"PYTHONPATH": str(GENERATED)},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    failures = result["failures"]
    for where, code in found:
        page = where.split(":")[0]
        if "for chunk in" in code and page not in NOT_STREAMED_BY_THE_MOCK.get(name, ()):
            assert result["outputs"][where].strip(), f"{where}: the stream yielded nothing"
        elif "for chunk in" not in code and "result = " in code:
            assert result["outputs"][where].strip(), f"{where}: printed nothing"
    report = "\n\n".join(f"{where}\n{trace}" for where, trace in failures[:10])
    assert not failures, f"{len(failures)} of {len(found)} samples failed:\n{report}"


@pytest.mark.parametrize("name", sorted(SERVED))
def test_every_curl_sample_runs_against_the_mock(name: str, tmp_path: Path) -> None:
    assert shutil.which("curl"), "curl is a test dependency (.ci/run installs it)"
    package = SERVED[name]
    found = samples(name, "sh")
    assert len(found) > len(rendered(name).api.operations)
    (tmp_path / "example.txt").write_text("hello", encoding="utf-8")
    failures = []
    with mock_server(package, tmp_path / "server.log") as url:
        env = cli_env({k: v.format(url=url) for k, v in ENV[package].items()})
        for where, code in found:
            if "/..." in code:  # the index's auth lines show the options, not a request
                continue
            command = code.replace("curl ", "curl -sS -o /dev/null --fail-with-body ", 1)
            proc = subprocess.run(
                ["bash", "-c", command],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            if proc.returncode != 0:
                failures.append(f"{where}: {proc.returncode} {proc.stderr[-500:]}\n{code}")
    assert not failures, f"{len(failures)} of {len(found)} failed:\n" + "\n\n".join(failures[:10])


def _send(client: httpx.Client, sample: str, env: dict[str, str]) -> httpx.Response:
    """An HTTP sample sent as written: its Host replaced by the mock's, each ``<$VAR>``
    placeholder by the variable's value (``<base64 of $VAR:>`` encoded)."""

    def fill(value: str) -> str:
        value = re.sub(
            r"<base64 of \$(\w+):>",
            lambda m: base64.b64encode(f"{env.get(m.group(1), '')}:".encode()).decode(),
            value,
        )
        return re.sub(r"<\$(\w+)>", lambda m: env.get(m.group(1), ""), value)

    head, _, body = sample.partition("\n\n")
    request_line, *lines = head.split("\n")
    method, target, _version = request_line.split(" ")
    headers = dict(line.split(": ", 1) for line in lines)
    headers.pop("Host")
    return client.request(
        method,
        target,
        headers={k: fill(v) for k, v in headers.items()},
        content=body.replace("\n", "\r\n") if "multipart/" in str(headers) else body,
    )


@pytest.mark.parametrize("name", sorted(SERVED))
def test_every_http_sample_runs_against_the_mock(name: str, tmp_path: Path) -> None:
    package = SERVED[name]
    http = [(where, code) for where, code in samples(name, "http") if " HTTP/1.1\n" in code]
    assert len(http) == len(rendered(name).api.operations)
    # the target holds the base URL's path (/llm-engine): the mock serves at its root
    base = load_config(SPECS / f"{name}.toml").base_url or rendered(name).api.servers[0].url
    prefix = urlsplit(base).path.rstrip("/")
    failures = []
    with mock_server(package, tmp_path / "server.log") as url:
        env = {k: v.format(url=url) for k, v in ENV[package].items()}
        with httpx.Client(base_url=url, timeout=60) as client:
            for where, code in http:
                method, target = code.split(" ", 2)[:2]
                assert target.startswith(prefix), (where, target)
                sample = code.replace(f"{method} {prefix}", f"{method} ", 1)
                response = _send(client, sample, env)
                if response.status_code >= 400:
                    failures.append(f"{where}: {response.status_code} {response.text[:300]}")
    assert not failures, f"{len(failures)} of {len(http)} failed:\n" + "\n".join(failures[:10])
