"""scale-gp's own test suite as the judge of our SGP client (issue 25).

    .venv/bin/python bench/scale_gp_suite.py [--jobs N] [--only A|B] [-k EXPR]

scale-gp 0.1.0a62's sdist ships ``tests/api_resources``: ~4,800 Stainless-generated tests
that call every method (minimal and all parameters, raw and streaming, sync and async)
against a mock server at ``TEST_API_BASE_URL``. This script runs them against
``apismith serve sgp``, twice:

- **A**: unchanged, with the official client (the ``scale-gp`` wheel);
- **B**: adapted mechanically to our client (``bench/scale_gp_adapt.py``: regex rewrites,
  each counted and printed; ``bench/scale_gp_support.py`` at run time).

It prints A and B (passed, failed, skipped), their intersection (passed by both), and the
tests A passes and B fails, grouped by failure (exception type and first line; a family
gathers the classes that differ only in quoted names and numbers), most common first; and
writes everything, with every test's outcome, to ``report.json`` in the cache.

Everything lives in ``$APISMITH_SCALE_GP_CACHE`` (default ``~/.cache/apismith-scale-gp``):
the sdist (downloaded with pip once), a venv (made once per requirement list and
interpreter: the wheel, the suite's test dependencies, pinned as in its
``requirements-dev.lock``), and the two runs' folders. Our package is imported from
``generated/`` (``PYTHONPATH``), as committed. Nothing is installed anywhere else. Used by
``tests/client/test_scale_gp_suite.py``, which skips when the registry cannot be reached.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale_gp_adapt import REWRITES, adapt_tree, copy_suite, type_uses  # noqa: E402

from tests.server.sdk_calls.harness import free_port, sdk_env, serving  # noqa: E402

PIN = "scale-gp==0.1.0a62"
SDIST = "scale_gp-0.1.0a62"
# The wheel and what tests/api_resources needs, pinned as in the sdist's requirements-dev.lock
# (httpx-aiohttp and aiohttp: the async tests' "aiohttp" client).
REQUIREMENTS = (
    PIN,
    "pytest==8.4.2",
    "pytest-asyncio==1.2.0",
    "pytest-xdist==3.8.0",
    "respx==0.22.0",
    "httpx==0.28.1",
    "pydantic==2.12.5",
    "typing-extensions==4.15.0",
    "anyio==4.12.1",
    "httpx-aiohttp==0.1.12",
    "aiohttp==3.13.3",
)
SIDES = ("A", "B")
ALLOWED = ROOT / "tests" / "data" / "scale_gp_suite_allowed.json"
PIP_TIMEOUT = 900.0  # hang guards, not expectations
RUN_TIMEOUT = 3600.0
# What pip prints when it cannot reach the index (then the test skips instead of failing).
_OFFLINE = re.compile(
    r"NewConnectionError|Failed to establish a new connection|Network is unreachable|"
    r"Temporary failure in name resolution|Name or service not known|Max retries exceeded|"
    r"ConnectTimeout|ReadTimeoutError|No matching distribution found"
)


class RegistryUnreachable(RuntimeError):
    """pip could not reach the package index for something not yet in the cache."""


def cache_dir() -> Path:
    found = os.environ.get("APISMITH_SCALE_GP_CACHE")
    return Path(found) if found else Path.home() / ".cache" / "apismith-scale-gp"


def _pip(python: Path, *args: str) -> None:
    argv = [str(python), "-m", "pip", *args]
    proc = subprocess.run(
        argv, env=sdk_env(), capture_output=True, text=True, timeout=PIP_TIMEOUT, check=False
    )
    if proc.returncode != 0:
        output = proc.stdout[-3000:] + proc.stderr[-3000:]
        kind = RegistryUnreachable if _OFFLINE.search(output) else RuntimeError
        raise kind(f"{' '.join(argv)}: exit {proc.returncode}\n{output}")


def ensure_venv() -> Path:
    """The suite's interpreter: a venv under the cache with :data:`REQUIREMENTS`, made once
    (under a file lock; ``.complete``, holding ``pip freeze``, marks it finished)."""
    key = json.dumps([sys.implementation.name, sys.version_info[:2], REQUIREMENTS])
    root = cache_dir() / f"venv-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    python = root / "bin" / "python"
    if (root / ".complete").is_file():
        return python
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.with_name(root.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (root / ".complete").is_file():
            return python
        shutil.rmtree(root, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, timeout=PIP_TIMEOUT)
        _pip(python, "install", "-q", "--retries", "2", *REQUIREMENTS)
        frozen = subprocess.run(
            [str(python), "-m", "pip", "freeze"], capture_output=True, text=True, timeout=120
        )
        (root / ".complete").write_text(frozen.stdout, encoding="utf-8")
    return python


def ensure_sdist(python: Path) -> Path:
    """The extracted sdist of :data:`PIN` (downloaded with pip, from source only)."""
    base = cache_dir() / "sdist"
    tree = base / SDIST
    if (tree / ".complete").is_file():
        return tree
    base.mkdir(parents=True, exist_ok=True)
    archive = base / f"{SDIST}.tar.gz"
    if not archive.is_file():
        _pip(python, "download", PIN, "--no-deps", "--no-binary", ":all:", "--retries", "2",
             "-d", str(base))  # fmt: skip
    shutil.rmtree(tree, ignore_errors=True)
    with tarfile.open(archive) as tar:
        tar.extractall(base, filter="data")
    (tree / ".complete").write_text(PIN, encoding="utf-8")
    return tree


# --- running ------------------------------------------------------------------------------


def _test_id(case: ET.Element) -> str:
    """``tests/api_resources/x/test_y.py::TestY::test_z[loose]`` from a junit test case."""
    parts = case.get("classname", "").split(".")
    at = next((i for i, p in enumerate(parts) if p[:4] == "Test"), len(parts))
    path = "/".join(parts[:at]) + ".py"
    return "::".join([path, *parts[at:], case.get("name", "")])


_ISINSTANCE = re.compile(r"isinstance\((\w+)\(.*<class '([\w.]+)'>\)")


def _first_line(text: str) -> str:
    """The first line of a failure; for a failed ``isinstance`` check, with what it got and
    what it expected (pytest puts that on the next line)."""
    first = (text.splitlines() or [""])[0]
    found = _ISINSTANCE.search(text)
    if found and first.endswith("assert False"):
        first += f" (isinstance: got {found.group(1)}, expected {found.group(2)})"
    return first[:300]


def parse_junit(path: Path) -> dict[str, dict[str, str]]:
    """Every test case's outcome (passed, failed, skipped) and first line of why."""
    found: dict[str, dict[str, str]] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome, message = "passed", ""
        for kind in ("skipped", "error", "failure"):  # a failure outranks a teardown error
            child = case.find(kind)
            if child is not None:
                outcome = "skipped" if kind == "skipped" else "failed"
                message = _first_line(child.get("message") or (child.text or "").strip())
        test = _test_id(case)
        if found.get(test, {}).get("outcome") != "failed":  # a teardown error: its own case
            found[test] = {"outcome": outcome, "message": message}
    return found


def run_side(side: str, python: Path, tree: Path, jobs: int, k: str | None) -> dict[str, Any]:
    """The suite of ``tree`` with ``python`` against a fresh ``apismith serve sgp``."""
    port, junit, gaps = free_port(), tree / "junit.xml", tree / "spec_gaps.jsonl"
    junit.unlink(missing_ok=True)
    gaps.unlink(missing_ok=True)
    serve = [Path(sys.executable).with_name("apismith"), "serve", "sgp"]
    serve += ["--host", "127.0.0.1", "--port", str(port)]
    argv = [str(python), "-m", "pytest", "tests/api_resources", "-q", "-p", "no:cacheprovider"]
    argv += ["-n", str(jobs if jobs > 1 else 0), f"--junitxml={junit}"] + (["-k", k] if k else [])
    with serving(serve, port, tree / "serve.log", cwd=ROOT, env=sdk_env()) as url:
        extra = {"TEST_API_BASE_URL": url}
        if side == "B":
            extra["PYTHONPATH"] = str(ROOT / "generated")
            extra["SGP_ADAPT_RECORD"] = str(gaps)
        with (tree / "pytest.log").open("w", encoding="utf-8") as log:
            proc = subprocess.run(
                argv,
                cwd=tree,
                env=sdk_env(extra),
                stdout=log,
                stderr=subprocess.STDOUT,
                timeout=RUN_TIMEOUT,
                check=False,
            )
    if not junit.is_file():
        tail = (tree / "pytest.log").read_text(encoding="utf-8", errors="replace")[-3000:]
        raise RuntimeError(f"run {side}: pytest exited {proc.returncode} with no report:\n{tail}")
    tests = parse_junit(junit)
    counts = Counter(t["outcome"] for t in tests.values())
    found = {"exit": proc.returncode, "counts": dict(counts), "tests": tests}
    if side == "B":
        found["spec_gaps"] = spec_gaps(gaps, tests)
    return found


def spec_gaps(path: Path, tests: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The fields of scale-gp's classes that the structural checks skipped because our spec
    names no such property (``tests/sgp_adapt.py``): which, and how many of B's passes
    skipped one."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    records = [json.loads(line) for line in lines]
    fields = Counter(r["field"] for r in records)
    where = sorted({f"{r['scale_gp']}.{r['field']}" for r in records})
    passed = {t for t, r in tests.items() if r["outcome"] == "passed"}
    relied = passed & {r["test"] for r in records}  # pytest's node ids, as _test_id makes them
    return {"fields": dict(fields.most_common()), "where": where, "passed_tests": len(relied)}


def stand_ins(python: Path, tests: Path) -> dict[str, Any]:
    """Which scale-gp types the adapted suite checks by our class of the same name, and which
    by shape (no class of ours has the name), with how many checks name each."""
    uses, pages = type_uses(tests)
    probe = (
        "import json, sys, sgp.models as m; "
        "print(json.dumps([n for n in json.load(sys.stdin) if hasattr(m, n)]))"
    )
    names = sorted({full.rsplit(".", 1)[1] for full in uses})
    proc = subprocess.run(
        [str(python), "-c", probe], input=json.dumps(names), capture_output=True, text=True,
        env=sdk_env({"PYTHONPATH": str(ROOT / "generated")}), timeout=300, check=True,
    )  # fmt: skip
    ours = set(json.loads(proc.stdout))
    structural = {full: n for full, n in uses.items() if full.rsplit(".", 1)[1] not in ours}
    return {
        "types": len(uses),
        "by_name": len(uses) - len(structural),
        "by_name_checks": sum(n for full, n in uses.items() if full not in structural),
        "structural": dict(sorted(structural.items(), key=lambda kv: (-kv[1], kv[0]))),
        "structural_checks": sum(structural.values()),
        "page_checks": pages,
    }


# --- comparing ----------------------------------------------------------------------------

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
_NUMBER = re.compile(r"\b\d+(\.\d+)?\b|0x[0-9a-f]+")
_CALLABLE = re.compile(r"\b\w+(\.\w+)*\(\)")  # AsyncKnowledgeBasesResource.create()


def failure_class(message: str) -> tuple[str, str]:
    """(family, class) of a failure's first line: the class with numbers blanked, the family
    with quoted text blanked too."""
    fine = _NUMBER.sub("N", message.strip()) or "(no message)"
    return _CALLABLE.sub("….…()", _QUOTED.sub("'…'", fine)), fine


def allowed_list() -> list[dict[str, str]]:
    """The failures B may have where A passes: the spec lacks the route or parameter
    (``tests/data/scale_gp_suite_allowed.json``)."""
    return json.loads(ALLOWED.read_text(encoding="utf-8"))["allowed"]


def _allowed_why(message: str, allowed: list[dict[str, str]]) -> str | None:
    return next((e["why"] for e in allowed if re.search(e["error"], message)), None)


def _families(groups: dict[str, dict[str, list[str]]], b: dict[str, Any]) -> list[dict[str, Any]]:
    allowed, families = allowed_list(), []
    for family, classes in groups.items():
        rows = []
        for fine, tests in sorted(classes.items(), key=lambda kv: -len(kv[1])):
            error = b["tests"].get(tests[0], {}).get("message", "")
            why = _allowed_why(error, allowed)
            rows.append({"class": fine, "count": len(tests), "examples": tests[:2],
                         "error": error, "allowed": why, "tests": tests})  # fmt: skip
        families.append({"family": family, "count": sum(r["count"] for r in rows), "classes": rows})
    return sorted(families, key=lambda f: -f["count"])


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The intersection (passed by A and by B) and the tests A passes and B fails,
    grouped by failure family and class, most common first, with examples; which of them
    the allow-list explains, and its entries that explain none (stale)."""
    passed_a = {t for t, r in a["tests"].items() if r["outcome"] == "passed"}
    passed_b = {t for t, r in b["tests"].items() if r["outcome"] == "passed"}
    lost = sorted(passed_a - passed_b)
    groups: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for test in lost:
        found = b["tests"].get(test) or {"outcome": "missing", "message": "not run in B"}
        message = found["message"] if found["outcome"] == "failed" else found["outcome"]
        family, fine = failure_class(message)
        groups[family][fine].append(test)
    families = _families(groups, b)
    rows = [r for f in families for r in f["classes"]]
    used = {r["allowed"] for r in rows}
    share = len(passed_a & passed_b) / len(passed_a) if passed_a else 0.0
    return {
        "passed_A": len(passed_a),
        "intersection": len(passed_a & passed_b),
        "share": round(share, 4),
        "lost": lost,
        "unexplained": sorted(t for r in rows if not r["allowed"] for t in r["tests"]),
        "stale_allowed": [e["why"] for e in allowed_list() if e["why"] not in used],
        "families": families,
    }


def print_report(report: dict[str, Any], top: int = 25) -> None:
    for side in SIDES:
        if side in report["sides"]:
            counts = report["sides"][side]["counts"]
            line = ", ".join(f"{counts.get(o, 0)} {o}" for o in ("passed", "failed", "skipped"))
            print(f"{side}: {line}")
            if "spec_gaps" in report["sides"][side]:
                print_gaps(report["sides"][side]["spec_gaps"])
    if "compare" not in report:
        return
    cmp = report["compare"]
    print(f"intersection (passed by A and B): {cmp['intersection']} of {cmp['passed_A']} "
          f"({cmp['share']:.1%}); A passed, B did not: {len(cmp['lost'])}, of which "
          f"{len(cmp['unexplained'])} not on the allow-list (the spec lacks the route or "
          f"parameter: {ALLOWED.relative_to(ROOT)})")  # fmt: skip
    if cmp["stale_allowed"]:
        print(f"stale allow-list entries (explain no lost test): {cmp['stale_allowed']}")
    for family in cmp["families"][:top]:
        print(f"\n{family['count']:5d}  {family['family']}")
        for row in family["classes"][:5]:
            tag = f"  [allowed: {row['allowed']}]" if row["allowed"] else ""
            print(f"         {row['count']:4d}  {row['class'][:150]}{tag}")
            for example in row["examples"]:
                print(f"               e.g. {example}")


def print_gaps(gaps: dict[str, Any]) -> None:
    top = sorted(gaps["fields"].items(), key=lambda kv: -kv[1])[:8]
    fields = ", ".join(f"{name} ({n})" for name, n in top)
    print(
        f"B: fields of scale-gp's classes that our class and its schema in our spec lack, skipped"
        f" by the structural check: {len(gaps['where'])} (class, field) pairs; fields (checks): "
        f"{fields}; "
        f"{gaps['passed_tests']} of B's passes skipped at least one"
    )


def print_adaptation(adaptation: dict[str, Any]) -> None:
    print("rewrites (times fired):")
    for rule in REWRITES:
        print(f"  {adaptation['rewrites'][rule.name]:5d}  {rule.name}: {rule.why}")
    types = adaptation["stand_ins"]
    print(
        f"types: {types['types']} scale-gp types; {types['by_name']} checked as our class of "
        f"the same name ({types['by_name_checks']} checks), {len(types['structural'])} by shape "
        f"against scale-gp's class ({types['structural_checks']} checks); "
        f"{types['page_checks']} page checks"
    )


# --- main ---------------------------------------------------------------------------------


def prepare(
    python: Path, sdist: Path, sides: tuple[str, ...]
) -> tuple[dict[str, Path], dict[str, Any]]:
    """The run folders (A: the suite as shipped, B: adapted) and what the adaptation did."""
    runs, adaptation = {}, {}
    if "A" in sides:
        runs["A"] = copy_suite(sdist, cache_dir() / "runs" / "A")
    if "B" in sides:
        runs["B"] = tree = cache_dir() / "runs" / "B"
        adaptation["rewrites"] = dict(adapt_tree(sdist, tree))
        adaptation["stand_ins"] = stand_ins(python, tree / "tests")
    return runs, adaptation


def run_suite(jobs: int = 2, only: str | None = None, k: str | None = None) -> dict[str, Any]:
    """Build what is missing, run A then B (or ``only`` one), compare; the report (also
    written to ``report.json`` in the cache). Raises :class:`RegistryUnreachable`."""
    sides = (only,) if only else SIDES
    python = ensure_venv()
    sdist = ensure_sdist(python)
    runs, adaptation = prepare(python, sdist, sides)
    if adaptation:
        print_adaptation(adaptation)
    report: dict[str, Any] = {"pin": PIN, "k": k, "adaptation": adaptation, "sides": {}}
    for side in sides:
        print(f"run {side}...", flush=True)
        report["sides"][side] = run_side(side, python, runs[side], jobs, k)
    if len(sides) == 2:
        report["compare"] = compare(report["sides"]["A"], report["sides"]["B"])
    path = cache_dir() / "report.json"
    path.write_text(json.dumps(report, indent=1, sort_keys=True), encoding="utf-8")
    print_report(report)
    print(f"\nreport: {path}")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="pytest-xdist workers (default 2)")
    parser.add_argument("--only", choices=SIDES, help="run one side only")
    parser.add_argument("-k", dest="k", help="pytest -k expression (both sides)")
    args = parser.parse_args(argv)
    try:
        run_suite(args.jobs, args.only, args.k)
    except RegistryUnreachable as exc:
        print(f"the package registry is unreachable: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
