"""One fuzzed document through the generator, as ``apismith generate --spec FILE --out DIR``
would run it, and what came of it (:class:`Outcome`).

:func:`generate_in_process` runs the pipeline in this process (fast: pydantic, fastapi and
datamodel-code-generator stay imported) and mirrors the CLI's verdicts step by step: a
refusal (``ApismithError``, exit 2), a failure (exit 1: an ``ApismithError`` with exit 1,
schemas without a model, output that does not import), or an internal error (any other
exception, which the CLI reports as ``internal error: Type: message``). On success it also
calls every operation of the generated mock service: each must answer a valid response,
or decline (``NotImplementedError`` or an HTTP 501, which the server answers 501).

:func:`generate_cli` runs the real CLI in a subprocess (slow, about a second): exit code,
the one stderr line, no traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import inspect
import itertools
import json
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import Any

from pydantic import ValidationError

from generator.config import adhoc_config
from generator.errors import ApismithError
from generator.import_check import verify_import
from generator.pipeline import generate
from tests.conftest import run_cli

OK, REFUSED, FAILED = "ok", "refused", "failed"
_COUNTER = itertools.count()


@dataclass(frozen=True)
class Outcome:
    status: str  # OK (exit 0, imports), REFUSED (exit 2, one line), FAILED (anything else)
    line: str = ""  # the error line the CLI would print (after "apismith: error: ")
    detail: str = ""  # a traceback or stderr, for triage
    seconds: float = 0.0
    warnings: tuple[str, ...] = ()


class Timeout(BaseException):
    """One generation ran past its time (a BaseException: ``except Exception`` misses it)."""


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise Timeout(f"over {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def write_spec(doc: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


def generate_in_process(
    doc: dict[str, Any],
    root: Path,
    *,
    outputs: tuple[str, ...] | None = None,
    mock: bool = True,
    timeout: float = 120.0,
) -> Outcome:
    """Generate ``doc`` (written to ``root/spec.json``) into ``root/out/<package>``,
    import-check it the way the CLI does and, with ``mock``, call every mock operation.
    ``outputs``: a subset of the config's outputs (default: all of them)."""
    start = time.perf_counter()
    n = next(_COUNTER)
    package = f"_apismith_fuzz_{os.getpid()}_{n}"
    spec = write_spec(doc, root / "spec.json")
    out = root / "out" / package
    try:
        with _time_limit(timeout):
            outcome = _run(spec, out, package, outputs, mock)
    except Timeout as exc:
        outcome = Outcome(FAILED, f"timeout: {exc}", traceback.format_exc())
    return replace(outcome, seconds=time.perf_counter() - start)


def _run(
    spec: Path, out: Path, package: str, outputs: tuple[str, ...] | None, mock: bool
) -> Outcome:
    config = adhoc_config(spec, out, package=package, fresh=True)
    if outputs is not None:
        config = replace(config, outputs=outputs)
    try:
        result = generate(config)
    except ApismithError as exc:
        return _refusal(exc)
    except RecursionError:  # what the CLI answers
        return Outcome(REFUSED, "spec nests too deeply (recursion limit reached)")
    except Exception as exc:
        first = (str(exc).splitlines() or [""])[0]
        line = f"internal error: {type(exc).__name__}: {first}"
        return Outcome(FAILED, line, traceback.format_exc())
    warnings = tuple(d.line() for d in result.diagnostics if d.kind in ("warning", "drop"))
    if result.summary.unaccounted:
        missing = ", ".join(result.summary.unaccounted)
        return Outcome(
            FAILED, f"{config.name}: schemas without a model: {missing}", "", 0, warnings
        )
    for name, data in result.files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    try:
        verify_import(out)
        problem = check_mock(out, package) if mock and (out / "mock.py").exists() else ""
    except ApismithError as exc:
        return Outcome(FAILED, str(exc), "", 0, warnings)
    if problem:
        return Outcome(FAILED, problem, "", 0, warnings)
    return Outcome(OK, "", "", 0, warnings)


def _refusal(exc: ApismithError) -> Outcome:
    line = str(exc)
    detail = traceback.format_exc()
    if exc.exit_code != 2:
        return Outcome(FAILED, line, detail)
    if "\n" in line or "internal error" in line or not line:
        return Outcome(FAILED, "a refusal that is not one clean line: " + repr(line), detail)
    return Outcome(REFUSED, line, detail)


def check_mock(out: Path, package: str) -> str:
    """Call every operation of the package's ``MockService`` (every parameter None) and
    validate what it answers: "" when each answers or declines (501), else the first
    problem, as one line."""
    name = package + "_mock"
    spec = importlib.util.spec_from_file_location(
        name, out / "__init__.py", submodule_search_locations=[str(out)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
        service = importlib.import_module(f"{name}.mock").MockService()
        for method_name, function in sorted(vars(type(service)).items()):
            if inspect.iscoroutinefunction(function) or inspect.isasyncgenfunction(function):
                problem = _call(getattr(service, method_name), function)
                if problem:
                    return f"mock {method_name}: {problem}"
        return ""
    finally:
        sys.dont_write_bytecode = saved
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]


def _call(method: Any, function: Any) -> str:
    kwargs = {
        p.name: None
        for p in inspect.signature(function).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }

    async def drive() -> None:
        answer = method(**kwargs)
        if inspect.isasyncgen(answer):
            async for _ in answer:
                pass
        else:
            answer = await answer
            if hasattr(answer, "__aiter__"):  # a stream
                async for _ in answer:
                    pass

    try:
        asyncio.run(drive())
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"]))
        given = repr(first.get("input"))[:40]
        return (
            f"ValidationError: {exc.error_count()} for {exc.title}, first at {where}:"
            f" {first['type']} (input {given})"
        )
    except NotImplementedError:
        return ""  # the mock's gap: the server answers 501 (issue 11: never block generation)
    except Exception as exc:
        if getattr(exc, "status_code", None) == 501:
            return ""
        first_line = (str(exc).splitlines() or [""])[0]
        return f"{type(exc).__name__}: {first_line}"
    return ""


def generate_cli(doc: dict[str, Any], root: Path, *, timeout: float = 120.0) -> Outcome:
    """``python -m generator generate --spec root/spec.json --out root/out/pkg``."""
    start = time.perf_counter()
    spec = write_spec(doc, root / "spec.json")
    done = run_cli(
        "generate", "--spec", spec, "--out", root / "out" / "pkg", cwd=root, timeout=timeout
    )
    seconds = time.perf_counter() - start
    lines = done.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("apismith: error: ")]
    if "Traceback" in done.stderr:
        return Outcome(FAILED, "a traceback", done.stderr, seconds)
    if done.returncode == 0:
        return Outcome(OK, "", done.stderr, seconds, tuple(lines[1:]))
    line = errors[-1].removeprefix("apismith: error: ") if errors else done.stderr.strip()
    if done.returncode == 2 and len(lines) == 1 and errors and "internal error" not in line:
        return Outcome(REFUSED, line, done.stderr, seconds)
    return Outcome(FAILED, line or f"exit {done.returncode}", done.stderr, seconds)
