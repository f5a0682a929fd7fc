"""Import benchmark: ``import <package>; <Client>()`` for the generated GitHub REST package,
beside baselines measured in the same run, each in a fresh interpreter.

    .venv/bin/python bench/import_time.py [--runs 5] [--package-dir DIR] [--target 1.0]
    make bench-import                     # BENCH_IMPORT_ARGS="--runs 9"

Without ``--package-dir`` the GitHub spec (``bench/scale.py``'s pinned ``@octokit/openapi``
file, fetched into ``~/.cache/apismith-bench/scale`` once) is generated into a temporary
directory (``apismith generate``, ~30 s); ``--package-dir`` takes a package generated
before (its folder name is its import name).

Every case runs in its own ``python -c`` subprocess (no module cached from an earlier one),
timed inside it with ``time.perf_counter`` around the statement, so the interpreter's own
start-up is left out. Each case runs once unmeasured first, which writes the bytecode
caches (an installed package has them); then the cases alternate, ``--runs`` times each,
so that a slow moment of the machine hits all alike; the table gives medians. The cases:

- ``import httpx, pydantic``: the floor, what any generated client imports;
- LLM Engine (``generated/llm_engine``, 25 resources): ``import llm_engine;
  LlmEngineClient()``, a small package;
- GitHub: ``import <package>; <Client>()``, the target (under ``--target`` seconds);
- GitHub ``import <package>.models`` (2,900 pydantic classes): what the first use of the
  models costs, for scale; the client does not pay it until a resource's first call.

Each row also says whether the statement left ``<package>.models`` in ``sys.modules``: a
client must be made without it. The exit code is 1 when GitHub's import and construction
misses the target (or imported the models), else 0.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale  # a sibling script (bench/ is no package)

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
LLM_ENGINE = ROOT / "generated" / "llm_engine"
GITHUB_PACKAGE = "github_rest"  # not ``github``: PyGithub's import name

# run in the child: argv[1] the folder holding the package (or ""), argv[2] the package (or
# ""), argv[3] the statement's kind; prints {"seconds", "models"} as JSON
CHILD = r"""
import json, sys, time
where, package, kind = sys.argv[1:4]
if where:
    sys.path.insert(0, where)
start = time.perf_counter()
if kind == "baseline":
    import httpx, pydantic
elif kind == "client":
    root = __import__(package)
    name = next(n for n in root.__all__ if n.endswith("Client") and not n.startswith("Async"))
    getattr(root, name)()
else:
    __import__(package + ".models")
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "models": package + ".models" in sys.modules}))
"""


@dataclass
class Case:
    label: str
    where: str
    package: str
    kind: str  # baseline, client, models
    seconds: list[float] = field(default_factory=list)
    models: bool = False

    def run(self) -> float:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, self.where, self.package, self.kind],
            capture_output=True,
            text=True,
            check=False,
            cwd=tempfile.gettempdir(),
            timeout=300,
        )
        if proc.returncode != 0:
            sys.exit(f"{self.label}: exit {proc.returncode}\n{proc.stderr.strip()}")
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        self.models = self.models or bool(result["models"])
        return float(result["seconds"])

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def generate_github(cache: Path, into: Path) -> Path:
    """The GitHub package, generated from the pinned spec into ``into/github_rest``."""
    spec = next(s for s in scale.SPECS if s.key == "github")
    scale.fetch(spec, cache)
    out = into / GITHUB_PACKAGE
    cmd = [str(BIN / "apismith"), "generate", "--spec", str(cache / "specs" / spec.file)]
    print(f"generating {spec.title} into {out} ...", file=sys.stderr)
    start = time.perf_counter()
    subprocess.run([*cmd, "--out", str(out), "-q"], cwd=into, check=True)
    print(f"  {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return out


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}×" if b > 0 else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="import + client construction time")
    parser.add_argument("--runs", type=int, default=5, help="runs per case (median)")
    parser.add_argument("--package-dir", type=Path, help="a generated GitHub package")
    parser.add_argument("--target", type=float, default=1.0, help="seconds, GitHub client")
    parser.add_argument("--cache", type=Path, default=scale.DEFAULT_CACHE, help="spec cache")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs takes 1 or more")
    with tempfile.TemporaryDirectory(prefix="apismith-import-") as tmp:
        if args.package_dir is not None:
            github = args.package_dir.expanduser().resolve()
            if not (github / "__init__.py").is_file():
                parser.error(f"{github}: no package (__init__.py)")
        else:
            github = generate_github(args.cache.expanduser().resolve(), Path(tmp))
        baseline = Case("`import httpx, pydantic`", "", "", "baseline")
        small = Case(
            "LLM Engine: `import llm_engine; LlmEngineClient()`",
            str(LLM_ENGINE.parent),
            LLM_ENGINE.name,
            "client",
        )
        target = Case(
            f"GitHub: `import {github.name}; <Client>()`", str(github.parent), github.name, "client"
        )
        models = Case(
            f"GitHub: `import {github.name}.models` (first use)",
            str(github.parent),
            github.name,
            "models",
        )
        cases = [baseline, small, target, models]
        for case in cases:  # unmeasured: writes the bytecode caches
            case.run()
        for _ in range(args.runs):
            for case in cases:
                case.seconds.append(case.run())
    print(
        f"Import and client construction, fresh interpreter each, median of {args.runs} "
        f"(Python {platform.python_version()}, {platform.machine()}):\n"
    )
    print("| statement | median | min | vs httpx+pydantic | vs LLM Engine | models imported |")
    print("|---|---:|---:|---:|---:|:---:|")
    for case in cases:
        print(
            f"| {case.label} | {case.median * 1000:.0f} ms | {min(case.seconds) * 1000:.0f} ms"
            f" | {ratio(case.median, baseline.median)} | {ratio(case.median, small.median)}"
            f" | {'yes' if case.models else 'no'} |"
        )
    ok = target.median < args.target and not target.models
    verdict = "PASS" if ok else "FAIL"
    print(
        f"\n{verdict}: GitHub import + construct {target.median:.3f} s "
        f"(target < {args.target:g} s; {ratio(target.median, baseline.median)} the "
        f"httpx + pydantic import, {target.median - baseline.median:.3f} s above it)"
        + ("" if not target.models else "; it imported the models")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
