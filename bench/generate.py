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
    "--input-file-type",
    "openapi",
    "--output-model-type",
    "pydantic_v2.BaseModel",
    "--target-python-version",
    "3.10",
    "--use-union-operator",
    "--use-standard-collections",
    "--use-annotated",
    "--field-constraints",
    "--use-double-quotes",
    "--disable-timestamp",
    "--extra-fields",
    "allow",
    "--allow-population-by-field-name",
    "--strict-nullable",
    "--output-datetime-class",
    "datetime",
    "--enum-field-as-literal",
    "all",
    "--use-type-alias",
    "--use-schema-description",
    "--formatters",
    "ruff-format",
]


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"benchmark command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    return elapsed


def medians(cmds: list[list[str]], runs: int, cwd: Path) -> list[float]:
    """Median wall time of each command; the runs are interleaved (A B C A B C ...) so that
    a slow moment of the machine hits every command alike."""
    for cmd in cmds:
        timed(cmd, cwd)  # warm the OS file cache; not counted
    samples: list[list[float]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            samples[i].append(timed(cmd, cwd))
    return [statistics.median(s) for s in samples]


def verdict(target: str, met: bool, figure: str) -> None:
    print(f"target: {target} -> {'met' if met else 'NOT met'} ({figure})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="apismith-bench-"))
    try:
        dcg = [str(BIN / "datamodel-codegen"), "--input", str(SPEC),
               "--output", str(tmp / "m.py"), *DCG_FLAGS]  # fmt: skip
        config = ROOT / "specs" / "llm-engine.toml"
        gen = [str(BIN / "apismith"), "generate", "--config", str(config),
               "--out", str(tmp / "llm_engine")]  # fmt: skip
        # the same API with only the models rendered: what datamodel-codegen alone produces
        models_only = tmp / "models-only.toml"
        models_only.write_text(
            f'[api]\npackage = "llm_engine"\nspec = "{SPEC.as_posix()}"\noutputs = ["models"]\n',
            encoding="utf-8",
        )
        gen_models = [
            str(BIN / "apismith"),
            "generate",
            "--config",
            str(models_only),
            "--out",
            str(tmp / "llm_engine_models"),
        ]
        check = [str(BIN / "apismith"), "check", "llm-engine"]
        rows = []
        base, models, ours, noop = medians([dcg, gen_models, gen, check], args.runs, ROOT)
        rows.append(("datamodel-codegen alone (baseline)", base, 1.0))
        rows.append(("apismith generate (models only)", models, models / base))
        rows.append(("apismith generate llm-engine (all)", ours, ours / base))
        rows.append(("apismith check llm-engine (no-op)", noop, noop / base))
        print(f"spec: {SPEC.relative_to(ROOT)}  runs: {args.runs} (median, whole process)")
        for name, med, ratio in rows:
            print(f"  {name:<40} {med * 1000:8.0f} ms   {ratio:5.2f}x baseline")
        verdict("models-only generate <= 1.10x", models / base <= 1.10, f"{models / base:.2f}x")
        verdict("generate with client <= 1.25x", ours / base <= 1.25, f"{ours / base:.2f}x")
        verdict("no-op check < 300 ms", noop < 0.3, f"{noop * 1000:.0f} ms")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
