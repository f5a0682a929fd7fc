"""The check runner the SDK call scripts share (they run in the SDKs' own venvs, never in
apismith's: this file imports nothing but the standard library).

A script registers its calls with :func:`check` and ends with :func:`main`, which runs
every call in order (each one isolated: an exception fails that call only) and prints one
JSON document on stdout::

    {"sdk": "openai", "versions": {...}, "checks": [{"name": ..., "ok": ..., "error": ...}]}

``error`` is ``None`` on success, else ``"ExceptionType: message"`` (first 600 chars).
Each call gets ``--check-timeout`` seconds (a SIGALRM interrupts it), so a stream that
never ends fails its check instead of hanging the script.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
import traceback
from collections.abc import Callable
from importlib import metadata
from typing import Any

Call = Callable[[str], None]
_CALLS: list[tuple[str, Call]] = []


class CheckFailed(AssertionError):
    """The call returned, but not data its user could read."""


class CheckTimeout(Exception):
    """The call did not finish within ``--check-timeout`` seconds."""


def _alarm(signum: int, frame: object) -> None:
    raise CheckTimeout("no answer within the time limit")


def expect(condition: object, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def check(name: str) -> Callable[[Call], Call]:
    """Register ``fn(base_url)`` as the check ``name``."""

    def register(fn: Call) -> Call:
        _CALLS.append((name, fn))
        return fn

    return register


def describe(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".replace("\n", " ")
    return text if len(text) <= 600 else text[:597] + "..."


def versions(*distributions: str) -> dict[str, str]:
    found = {"python": sys.version.split()[0]}
    for name in distributions:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "missing"
    return found


def main(
    sdk: str, distributions: tuple[str, ...], setup: Callable[[str], None] | None = None
) -> None:
    """Run the registered checks against the URL on the command line (``setup(url)``
    first) and print the report."""
    parser = argparse.ArgumentParser(description=f"Run the {sdk} SDK calls against a mock.")
    parser.add_argument("base_url", help="the mock's root URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--only", action="append", help="run only these checks (repeatable)")
    parser.add_argument("--traceback", action="store_true", help="tracebacks on stderr")
    parser.add_argument(
        "--check-timeout", type=float, default=60.0, help="seconds one call may take (SIGALRM)"
    )
    args = parser.parse_args()
    base_url = args.base_url.rstrip("/")
    if setup is not None:
        setup(base_url)
    signal.signal(signal.SIGALRM, _alarm)
    results: list[dict[str, Any]] = []
    for name, fn in _CALLS:
        if args.only and name not in args.only:
            continue
        start = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, args.check_timeout)
        try:
            fn(base_url)
            error = None
        except Exception as exc:
            error = describe(exc)
            if args.traceback:
                traceback.print_exc()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        seconds = round(time.perf_counter() - start, 3)
        results.append({"name": name, "ok": error is None, "error": error, "seconds": seconds})
    doc = {"sdk": sdk, "versions": versions(*distributions), "checks": results}
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")
