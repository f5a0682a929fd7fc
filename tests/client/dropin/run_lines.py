"""Run the call lines of ``scale_gp_lines.py`` with one client against a server.

    <python> tests/client/dropin/run_lines.py --client scale_gp --base-url URL
    <python> tests/client/dropin/run_lines.py --client apismith --base-url URL [--generated DIR]

``scale_gp``: ``scale_gp.SGPClient`` (scale-gp from PyPI, installed in ``<python>``'s
venv). ``apismith``: our ``sgp.SgpClient``, imported from ``--generated`` (default: the
repo's ``generated/``), put first on ``sys.path``. Both get the same constructor
arguments: ``api_key="k", account_id="a", base_url=URL``, ``timeout``, ``max_retries=0``
and an ``http_client`` (an ``httpx.Client`` whose event hook records what is sent).

``tests/client/test_dropin_scale_gp.py`` runs both sides with the SDK venv's interpreter
(``tests/server/sdk_calls/harness.py``: scale-gp, httpx and pydantic), so that the two
clients see the same httpx and pydantic: that is the drop-in situation, scale-gp's user
swapping one import.

Prints one JSON object a line, one per call line, in order: ``index``, ``kind``, ``code``,
``ok``, ``requests`` (what the line sent: ``[method, path, sorted query pairs, JSON body]``
each, so that the test can tell a line that passes by calling another endpoint); a failure
adds ``error_type`` (the exception's class, or ``CheckFailed`` when the call returned but
``check`` is false) and ``error`` (its message, cut short). Uses the stdlib, httpx and the
client only; exits 0 whatever the lines do.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from contextlib import redirect_stdout
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scale_gp_lines import LINES, Line  # noqa: E402

TIMEOUT = 30.0
MESSAGE_LIMIT = 600


def make_client(kind: str, base_url: str, generated: Path, sent: list[list[Any]]) -> Any:
    """The client ``kind``; every request it sends is appended to ``sent``."""
    http = httpx.Client(timeout=TIMEOUT, event_hooks={"request": [partial(record, sent)]})
    args: dict[str, Any] = {"api_key": "k", "account_id": "a", "base_url": base_url}
    args.update(timeout=TIMEOUT, max_retries=0, http_client=http)
    if kind == "scale_gp":
        from scale_gp import SGPClient

        return SGPClient(**args)
    sys.path.insert(0, str(generated))
    from sgp import SgpClient

    return SgpClient(**args)


def record(sent: list[list[Any]], request: httpx.Request) -> None:
    body: Any = None
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            body = json.loads(request.read() or b"null")
        except ValueError:
            body = "<not JSON>"
    query = sorted(parse_qsl(request.url.query.decode(), keep_blank_values=True))
    sent.append([request.method, request.url.path, query, body])


def short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def run_line(client: Any, line: Line) -> dict[str, Any]:
    scope: dict[str, Any] = {"c": client, "seen": []}
    try:
        with redirect_stdout(io.StringIO()):  # a line that prints must not break the JSON
            try:
                code = compile(line.code, "<line>", "eval")
            except SyntaxError:
                exec(compile(line.code, "<line>", "exec"), scope)
            else:
                scope["r"] = eval(code, scope)
    except Exception as exc:  # every failure of the call is a result
        return {"ok": False, "error_type": type(exc).__name__, "error": short(str(exc))}
    try:
        passed = bool(eval(line.check, scope))
    except Exception as exc:
        why = f"{line.check} raised {type(exc).__name__}: {exc}"
        return {"ok": False, "error_type": "CheckFailed", "error": short(why)}
    if not passed:
        got = repr(scope.get("r", scope["seen"]))
        return {"ok": False, "error_type": "CheckFailed", "error": short(f"{line.check}: {got}")}
    return {"ok": True}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--client", choices=("scale_gp", "apismith"), required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--generated", type=Path, default=HERE.parents[2] / "generated")
    args = parser.parse_args(argv)
    sent: list[list[Any]] = []
    client = make_client(args.client, args.base_url, args.generated, sent)
    for index, line in enumerate(LINES):
        sent.clear()
        result: dict[str, Any] = {"index": index, "kind": line.kind, "code": line.code}
        result.update(run_line(client, line))
        result["requests"] = list(sent)
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
