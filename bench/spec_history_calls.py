"""The probes of one pair of versions for ``bench/spec_history.py`` (issue 26): ``apismith
diff`` (:func:`apismith_diff`, :func:`diff_operations`), and, run as a script, the old client
against the new mock (``--variants``: :func:`probe_variants`, the mock's other answers).

The script serves the NEW version's generated mock (uvicorn on 127.0.0.1, a process of
its own: both packages have the same name) and calls, through the OLD version's generated
sync client, the operations both versions have that ``bench/corpus_deep.py``'s rules can
call (required parameters and body fields all scalars), once with
``strict_response_validation=True`` (the default) and once with ``False`` (lenient: a
response that fails its model is built unvalidated). Prints one JSON object:

- ``candidates``: how many operations could be called; ``changed``: how many of them answer
  differently in the new spec (a 2xx response, or a schema it reaches, differs);
- ``strict`` and ``lenient``: ``calls``, ``ok``, ``errors`` (exception class: count) and
  ``examples`` (the first few failures, ``GET /path: Class: message``).

    python bench/spec_history_calls.py OLD_PACKAGE NEW_PACKAGE OLD_SPEC NEW_SPEC
        [--limit N] [--get-only] [--keys JSON] [--serve OPTIONS] [--port N]

``--limit N``: call N operations at most, those whose answer changed first (by path), then
the others evenly spread over the sorted list (deterministic).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pydantic
from corpus_deep import (
    OPTIONS,
    SECRET,
    _arguments,
    _find,
    _free_port,
    _model_typed,
    _validated,
    answering_operations,
    methods,
)

Key = tuple[str, str]  # (METHOD, path)
AUTH_ERRORS = ("AuthenticationError", "PermissionDeniedError")
EXAMPLES = 5
LEVELS = ("breaking", "warning", "info")
BIN = Path(sys.executable).parent  # apismith
VARIANTS = {  # other answers from the new mock (``apismith serve`` options)
    "required-only": "--required-only",  # a field the old client requires, now optional
    "seed 1": "--seed 1",  # other enum values, other union members
}


def _pointer(spec: dict[str, Any], ref: str) -> Any:
    node: Any = spec
    for token in ref[2:].split("/"):
        if not isinstance(node, dict):
            return None
        node = node.get(token.replace("~1", "/").replace("~0", "~"))
    return node


def _refs(node: Any) -> set[str]:
    """The local ``$ref`` targets written anywhere in ``node``."""
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/"):
                found.add(ref)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _answers(spec: dict[str, Any]) -> dict[Key, Any]:
    """(METHOD, path) → the operation's 2xx (and ``default``) responses, as written."""
    found: dict[Key, Any] = {}
    for path, item in (spec.get("paths") or {}).items():
        for method, op in item.items() if isinstance(item, dict) else ():
            if isinstance(op, dict) and isinstance(op.get("responses"), dict):
                answers = {
                    str(s): r
                    for s, r in op["responses"].items()
                    if str(s).startswith("2") or str(s) == "default"
                }
                found[(method.upper(), str(path))] = answers
    return found


def changed_operations(old: dict[str, Any], new: dict[str, Any]) -> set[Key]:
    """The operations of both specs whose success answer differs: as written, or in a
    ``$ref`` target it reaches (transitively, in either spec)."""
    dumps: dict[tuple[int, str], str] = {}
    direct: dict[tuple[int, str], set[str]] = {}

    def dump(which: int, spec: dict[str, Any], ref: str) -> str:
        if (which, ref) not in dumps:
            node = _pointer(spec, ref)
            dumps[(which, ref)] = json.dumps(node, sort_keys=True)
            direct[(which, ref)] = _refs(node)
        return dumps[(which, ref)]

    def differs(start: set[str]) -> bool:
        seen, queue = set(start), list(start)
        while queue:
            ref = queue.pop()
            if dump(0, old, ref) != dump(1, new, ref):
                return True
            for nxt in direct[(0, ref)] | direct[(1, ref)]:
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return False

    before, after = _answers(old), _answers(new)
    changed = set()
    for key in before.keys() & after.keys():
        a, b = before[key], after[key]
        if json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
            changed.add(key)
        elif differs(_refs(a) | _refs(b)):
            changed.add(key)
    return changed


def select(keys: Iterable[Key], changed: set[Key], limit: int | None) -> list[Key]:
    """``limit`` operations at most: those in ``changed`` first, by path, then the others
    evenly spread over their sorted list."""
    ordered = sorted(set(keys), key=lambda k: (k[1], k[0]))
    if limit is None or len(ordered) <= limit:
        return ordered
    first = [k for k in ordered if k in changed][:limit]
    rest = [k for k in ordered if k not in changed]
    room = limit - len(first)
    spread = [rest[i * len(rest) // room] for i in range(room)] if room and rest else []
    return first + spread


def _wait_ready(port: int, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the mock exited with {proc.returncode}")  # see its log
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"the mock did not listen within {timeout:.0f} s")


def start_mock(
    package_dir: Path, port: int, log: Any, serve: list[str] | None, apismith: str | None
) -> subprocess.Popen[bytes]:
    """uvicorn serving ``<package>.mock:create_mock_app()`` (the new version's package),
    its errors written to the file ``log``; with ``serve`` (``apismith serve`` options,
    e.g. ``--required-only``, ``--seed 1``), ``python -m generator serve --root PROJECT``
    (``generator`` from the folder ``apismith`` if given, else the installed one; not ``--out``:
    it reads the overlays of a package generated from a config beside its spec copy)."""
    env = {**os.environ, "PYTHONPATH": str(package_dir.parent)}
    factory = f"{package_dir.name}.mock:create_mock_app"
    cmd = [sys.executable, "-m", "uvicorn", "--factory", factory, "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--log-level", "error"]
    if serve is not None:
        env["PYTHONPATH"] = apismith or ""
        project = package_dir.parent.parent  # PROJECT/generated/<package>
        api = next((project / "specs").glob("*.toml")).stem
        cmd = [sys.executable, "-m", "generator", "serve", api, "--root", str(project)]
        cmd += ["--host", "127.0.0.1", "--port", str(port), *serve]
    return subprocess.Popen(
        cmd, cwd=package_dir.parent, env=env, stdout=subprocess.DEVNULL, stderr=log
    )


def client_class(package: str) -> Any:
    pkg = importlib.import_module(package)
    return next(
        v
        for k, v in vars(pkg).items()
        if inspect.isclass(v)
        and k.endswith("Client")
        and not k.startswith("Async")
        and "With" not in k
        and hasattr(v, "with_options")
    )


def make_clients(cls: Any, port: int, strict: bool) -> list[Any]:
    """A client with every credential, then one per credential (as corpus_deep does)."""
    base: dict[str, Any] = {"base_url": f"http://127.0.0.1:{port}", "max_retries": 0}
    base["strict_response_validation"] = strict
    credentials = [
        p.name
        for p in inspect.signature(cls).parameters.values()
        if p.name not in OPTIONS
        and "str" in str(p.annotation)
        and p.name not in ("idempotency_header", "base_url")
    ]
    clients = [cls(**base, **dict.fromkeys(credentials, SECRET))]
    if len(credentials) > 1:
        clients += [cls(**base, **{c: SECRET}) for c in credentials]
    return clients


def _outcome(result: Any, typed: bool) -> bool:
    """Whether a call's result is what the old client promised (a stream is read whole)."""
    if type(result).__name__ == "Stream":
        items = list(result)
        return all(isinstance(x, pydantic.BaseModel) for x in items) if typed else True
    return not typed or _validated(result)


def call_one(clients: list[Any], verb: str, path: str, method: Any, typed: bool) -> str:
    """'' when the call succeeded, else ``VERB path: Class: message``."""
    cls, name = method
    args = _arguments(getattr(cls, name)) or {}
    failure = ""
    for client in clients:
        try:
            result = getattr(_find(client, cls), name)(**args)
            ok = _outcome(result, typed)
        except Exception as exc:
            failure = f"{verb} {path}: {type(exc).__name__}: {str(exc)[:300]}"
            if type(exc).__name__ in AUTH_ERRORS:
                continue
            return failure
        return "" if ok else f"{verb} {path}: Unvalidated: {type(result).__name__}"
    return failure


def run_calls(clients: list[Any], chosen: Sequence[Any], models: Any) -> dict[str, Any]:
    """Each chosen operation called once: counts, error classes, the failed operations."""
    errors: Counter[str] = Counter()
    failed: list[str] = []
    examples: list[str] = []
    for verb, path, method, returns in chosen:
        failure = call_one(clients, verb, path, method, _model_typed(models, returns))
        if failure:
            errors[failure.split(": ", 2)[1]] += 1
            failed.append(f"{verb} {path}")
            examples += [failure][: EXAMPLES - len(examples)]
    out: dict[str, Any] = {"calls": len(chosen), "ok": len(chosen) - len(failed)}
    return {**out, "errors": dict(errors), "failed": failed, "examples": examples}


def _load(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    if text.lstrip()[:1] == "{":
        return dict(json.loads(text))
    import yaml

    return dict(yaml.safe_load(text))


def has_diff_command() -> bool:
    cmd = [str(BIN / "apismith"), "diff", "--help"]
    return subprocess.run(cmd, capture_output=True, check=False).returncode == 0


def classify(report: Any) -> dict[str, int] | None:
    """breaking / warning / info counts from ``apismith diff --format json`` (a list of
    changes, each with its ``level``; or a summary holding the three counts)."""
    if isinstance(report, dict):
        summary = report.get("summary", report)
        if all(isinstance(summary.get(level), int) for level in LEVELS):
            return {level: int(summary[level]) for level in LEVELS}
        report = report.get("changes")
    if not isinstance(report, list):
        return None
    levels = [str(c.get("level", "")).lower() for c in report if isinstance(c, dict)]
    return {level: levels.count(level) for level in LEVELS}


def apismith_diff(old: Path, new: Path) -> dict[str, Any] | str:
    """``apismith diff OLD NEW --format json``: counts per level, and the commonest rules."""
    if not has_diff_command():
        return "n/a"
    cmd = ["nice", "-n", "10", str(BIN / "apismith"), "diff", str(old), str(new)]
    start = time.perf_counter()
    done = subprocess.run([*cmd, "--format", "json"], capture_output=True, text=True)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        report = None
    counts = classify(report)
    if counts is None:
        return f"unreadable (exit {done.returncode}): {(done.stderr or done.stdout)[-300:]}"
    changes = [c for c in report if isinstance(c, dict)] if isinstance(report, list) else []
    rules = Counter(f"{c.get('level')} {c.get('side', '')} {c.get('rule')}" for c in changes)
    seconds = round(time.perf_counter() - start, 1)
    return {**counts, "seconds": seconds, "rules": dict(rules.most_common(12))}


def diff_operations(old: Path, new: Path) -> dict[str, list[str]] | str:
    """The operations (``VERB /path``) with a breaking, and with a warning, change in the
    spec (``apismith diff --no-surface``)."""
    if not has_diff_command():
        return "n/a"
    cmd = [str(BIN / "apismith"), "diff", str(old), str(new), "--no-surface", "--format", "json"]
    done = subprocess.run(["nice", "-n", "10", *cmd], capture_output=True, text=True)
    try:
        return operations_of(json.loads(done.stdout))
    except (ValueError, TypeError):
        return f"unreadable (exit {done.returncode})"


def operations_of(changes: list[Any]) -> dict[str, list[str]]:
    """``apismith diff``'s changes → the operations with a breaking, and with a warning,
    change (a change's ``location`` starts with ``VERB /path``)."""
    found: dict[str, set[str]] = {"breaking": set(), "warning": set()}
    for change in changes:
        words = str(change.get("location", "")).split()
        if change.get("level") in found and len(words) > 1 and words[0].isupper():
            found[str(change["level"])].add(f"{words[0]} {words[1]}")
    return {level: sorted(ops) for level, ops in found.items()}


def run_probe(packages: list[Path], specs: list[Path], extra: list[str]) -> dict[str, Any]:
    """This script in a process of its own: its JSON, or ``{"error": ...}``."""
    cmd = ["nice", "-n", "10", sys.executable, str(Path(__file__).resolve())]
    cmd += [*map(str, packages), *map(str, specs), *extra]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    except subprocess.TimeoutExpired:
        return {"error": "timeout"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr or done.stdout)[-1500:]}
    return dict(json.loads(lines[-1]))


def probe(old: Path, new: Path, specs: list[Path], extra: list[str]) -> dict[str, Any]:
    """The old package's client against the new package's mock; then, as a baseline, the
    new package's own client on the same operations."""
    found = run_probe([old, new], specs, extra)
    if "chosen" in found:
        keys = ["--keys", json.dumps(found["chosen"])]
        found["baseline"] = run_probe([new, new], [specs[1], specs[1]], keys)
    return found


def probe_variants(
    old: Path, new: Path, specs: list[Path], chosen: list[str], apismith: Path | None
) -> dict[str, Any]:
    """The same operations against the new mock served with each of VARIANTS' options
    (once for both): the old client (``old``) and the new one (``new``, the baseline)."""
    found: dict[str, Any] = {}
    for name, options in VARIANTS.items():
        try:
            with serving(new, options, 900.0, str(apismith) if apismith else None) as port:
                extra = ["--keys", json.dumps(chosen), "--port", str(port)]
                found[name] = {
                    "old": run_probe([old, new], specs, extra),
                    "new": run_probe([new, new], [specs[1], specs[1]], extra),
                }
        except SystemExit as exc:  # the mock did not start
            found[name] = {side: {"error": str(exc)} for side in ("old", "new")}
    return found


def _probe_cell(found: dict[str, Any]) -> str:
    if "strict" not in found:
        return f"error: {str(found.get('error', '?')).strip().splitlines()[-1][:60]}"
    strict = found["strict"]
    errors = ", ".join(f"{k} ×{n}" for k, n in sorted(strict["errors"].items())[:2])
    return f"{strict['ok']}/{strict['calls']}" + (f" ({errors})" if errors else "")


def render_variants(rows: Iterable[dict[str, Any]]) -> str:
    """The Markdown table of ``--variants`` (strict): how many of the operations called
    have a breaking / warning change (``apismith diff``), then per variant the old client
    and the new one."""
    names = list(VARIANTS)
    head = " | ".join(f"{n}: old client | new client" for n in names)
    lines = [f"| old → new | called with a breaking / warning change | {head} |"]
    lines.append("|---|--:|" + "--:|--:|" * len(names))
    for r in rows:
        found, ops = r.get("calls", {}).get("variants"), r.get("diff_ops")
        if not found:
            continue
        chosen = set(r["calls"].get("chosen", ()))
        marked = "/".join(str(len(chosen & set(ops[lv]))) for lv in LEVELS[:2]) if ops else "?"
        cells = [marked] + [_probe_cell(found[n][side]) for n in names for side in ("old", "new")]
        lines.append(f"| {r['old']} → {r['new']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


@contextlib.contextmanager
def serving(
    package_dir: Path, serve: str | None, timeout: float, apismith: str | None = None
) -> Iterator[int]:
    """The new package's mock (see :func:`start_mock`), listening: its port."""
    port = _free_port()
    log = tempfile.TemporaryFile()
    options = None if serve is None else serve.split()
    proc = start_mock(package_dir, port, log, options, apismith)
    try:
        try:
            _wait_ready(port, proc, timeout)
        except (RuntimeError, TimeoutError) as exc:
            log.seek(0)
            raise SystemExit(f"{exc}: {log.read().decode(errors='replace')[-1000:]}") from exc
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name in ("old_package", "new_package", "old_spec", "new_spec"):
        parser.add_argument(name, type=Path)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--get-only", action="store_true")
    parser.add_argument("--keys", help="A JSON list of 'VERB path' to call (no --limit).")
    parser.add_argument("--ready-timeout", type=float, default=600.0)
    parser.add_argument("--serve", help="Serve with these `apismith serve` options instead.")
    parser.add_argument("--port", type=int, help="Call the mock already listening there.")
    args = parser.parse_args(argv)
    old_spec, new_spec = _load(args.old_spec), _load(args.new_spec)
    changed = changed_operations(old_spec, new_spec)
    wanted = answering_operations(new_spec)
    old_dir, new_dir = args.old_package.resolve(), args.new_package.resolve()
    with contextlib.ExitStack() as stack:
        apismith = os.environ.get("APISMITH_PATH")  # where `generator` is, for --serve
        mock = serving(new_dir, args.serve, args.ready_timeout, apismith)
        port = args.port or stack.enter_context(mock)
        sys.path.insert(0, str(old_dir.parent))
        package = old_dir.name
        found = {
            (v, p): (v, p, fn, r)
            for v, p, fn, r in methods(package)
            if (v, p) in wanted
            and (not args.get_only or v == "GET")
            and _arguments(getattr(*fn)) is not None
        }
        keys = select(found, changed, args.limit)
        if args.keys:  # the same operations as another run
            keys = [(x.split(" ", 1)[0], x.split(" ", 1)[1]) for x in json.loads(args.keys)]
        chosen = [found[k] for k in keys if k in found]
        out: dict[str, Any] = {"candidates": len(found), "changed": len(changed & set(found))}
        out["chosen"] = [f"{c[0]} {c[1]}" for c in chosen]
        out["chosen_changed"] = len([c for c in chosen if (c[0], c[1]) in changed])
        models = importlib.import_module(f"{package}.models")
        cls = client_class(package)
        for mode, strict in (("strict", True), ("lenient", False)):
            out[mode] = run_calls(make_clients(cls, port, strict), chosen, models)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
