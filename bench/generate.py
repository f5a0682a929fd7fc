"""Benchmark: whole-process time of `apismith generate llm-engine` against
datamodel-codegen alone on the same spec, and of a no-op `apismith check`.

Not a test: it prints medians and ratios measured in the same run.

    make bench            # or: .venv/bin/python bench/generate.py [--runs N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SPEC = ROOT / "specs" / "llm-engine" / "openapi.json"

# The flags that make datamodel-codegen's output comparable to ours (pydantic v2,
# Annotated constraints, `X | None`, literals, type aliases, ruff formatting).
DCG_FLAGS = [
    "--input-file-type", "openapi",
    "--output-model-type", "pydantic_v2.BaseModel",
    "--target-python-version", "3.10",
    "--use-union-operator", "--use-standard-collections", "--use-annotated",
    "--field-constraints", "--use-double-quotes", "--disable-timestamp",
    "--extra-fields", "allow", "--allow-population-by-field-name", "--strict-nullable",
    "--output-datetime-class", "datetime", "--enum-field-as-literal", "all",
    "--use-type-alias", "--use-schema-description",
    "--formatters", "ruff-format",
]


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"benchmark command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    return elapsed


def median_of(cmd: list[str], runs: int, cwd: Path) -> tuple[float, list[float]]:
    timed(cmd, cwd)  # warm the OS file cache; not counted
    samples = [timed(cmd, cwd) for _ in range(runs)]
    return statistics.median(samples), samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="apismith-bench-"))
    try:
        dcg = [str(BIN / "datamodel-codegen"), "--input", str(SPEC), "--output", str(tmp / "m.py"), *DCG_FLAGS]
        gen = [str(BIN / "apismith"), "generate", "--config", str(ROOT / "specs" / "llm-engine.toml"),
               "--out", str(tmp / "llm_engine")]
        check = [str(BIN / "apismith"), "check", "llm-engine"]
        rows = []
        # Interleave nothing: each command's runs are back to back, all in this one process run.
        base, base_s = median_of(dcg, args.runs, ROOT)
        ours, ours_s = median_of(gen, args.runs, ROOT)
        noop, noop_s = median_of(check, args.runs, ROOT)
        rows.append(("datamodel-codegen alone (baseline)", base, 1.0))
        rows.append(("apismith generate llm-engine", ours, ours / base))
        rows.append(("apismith check llm-engine (no-op)", noop, noop / base))
        print(f"spec: {SPEC.relative_to(ROOT)}  runs: {args.runs} (median, whole process)")
        for name, med, ratio in rows:
            print(f"  {name:<40} {med * 1000:8.0f} ms   {ratio:5.2f}x baseline")
        print(f"target: generate <= 1.10x baseline -> {'met' if ours / base <= 1.10 else 'NOT met'} ({ours / base:.2f}x)")
        print(f"target: no-op check < 300 ms -> {'met' if noop < 0.3 else 'NOT met'} ({noop * 1000:.0f} ms)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
