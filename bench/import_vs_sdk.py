"""Import cost against the official SDKs (issue 25): a process that imports the client,
makes one and reaches two resources, with apismith's generated package and with the
official SDK it replaces, paired in one run, in the same interpreter (the SDK's venv, which
has both packages' dependencies).

    .venv/bin/python bench/import_vs_sdk.py [--runs 9]

The venvs are the ones the official-SDK tests build (``tests/server/sdk_calls/harness.py``:
``scale-gp==0.1.0a62`` and ``scale-llm-engine==0.0.0b45`` from PyPI, cached in
``~/.cache/apismith-tests``); the generated packages are ``generated/`` (on ``PYTHONPATH``).
Every case runs in its own ``python -c`` (no module cached), timed inside it with
``time.perf_counter`` around the statement, once unmeasured first (the bytecode caches),
then alternating, ``--runs`` times each; the table gives medians and the ratio to the
SDK's median. The statements:

- SGP: ``import sgp; c = sgp.SgpClient(...); c.knowledge_bases; c.evaluations`` against
  ``import scale_gp; c = scale_gp.SGPClient(...); c.knowledge_bases; c.evaluations``;
- LLM Engine: ``import llm_engine; c = llm_engine.LlmEngineClient(...); c.completions;
  c.model_endpoints`` against ``import llmengine; llmengine.Completion; llmengine.Model``
  (the official one has no client object: its classes are its resources).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.server.sdk_calls.harness import sdk_python  # noqa: E402

CHILD = "import json, time\nstart = time.perf_counter()\n{stmt}\n" + (
    "print(json.dumps(time.perf_counter() - start))"
)
CACHE = Path(tempfile.gettempdir()) / "apismith-import-vs-sdk-pycache"
PAIRS = {  # API -> (venv, ours, theirs)
    "SGP": (
        "openai-scale-gp",
        "import sgp; c = sgp.SgpClient(api_key='k', account_id='a');"
        " c.knowledge_bases; c.evaluations",
        "import scale_gp; c = scale_gp.SGPClient(api_key='k', account_id='a');"
        " c.knowledge_bases; c.evaluations",
    ),
    "LLM Engine": (
        "llmengine",
        "import llm_engine; c = llm_engine.LlmEngineClient(api_key='k');"
        " c.completions; c.model_endpoints",
        "import llmengine; llmengine.Completion; llmengine.Model",
    ),
}


@dataclass
class Case:
    python: Path
    stmt: str
    seconds: list[float] = field(default_factory=list)

    def run(self) -> float:
        env = {"PYTHONPATH": str(ROOT / "generated"), "PATH": "/usr/bin:/bin"}
        env["PYTHONPYCACHEPREFIX"] = str(CACHE)  # bytecode for all, never in generated/
        proc = subprocess.run(
            [str(self.python), "-c", CHILD.format(stmt=self.stmt)],
            capture_output=True,
            text=True,
            check=False,
            cwd=tempfile.gettempdir(),
            env=env,
            timeout=300,
        )
        if proc.returncode != 0:
            sys.exit(f"{self.stmt}: exit {proc.returncode}\n{proc.stderr.strip()[-2000:]}")
        return float(json.loads(proc.stdout.strip().splitlines()[-1]))

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="import + client + two resources vs the SDKs")
    parser.add_argument("--runs", type=int, default=9, help="runs per case (median)")
    args = parser.parse_args(argv)
    cases = {
        api: (Case(sdk_python(venv), ours), Case(sdk_python(venv), theirs))
        for api, (venv, ours, theirs) in PAIRS.items()
    }
    flat = [c for pair in cases.values() for c in pair]
    for case in flat:
        case.run()  # unmeasured: the bytecode caches
    for _ in range(args.runs):
        for case in flat:
            case.seconds.append(case.run())
    print(f"Import + client + two resources, fresh interpreter each, median of {args.runs}:\n")
    print("| API | apismith | official SDK | apismith / SDK |")
    print("|---|---:|---:|---:|")
    worst = 0.0
    for api, (ours, theirs) in cases.items():
        ratio = ours.median / theirs.median
        worst = max(worst, ratio)
        print(
            f"| {api} | {ours.median * 1000:.0f} ms | {theirs.median * 1000:.0f} ms"
            f" | {ratio:.2f}× |"
        )
    print(f"\n{'PASS' if worst <= 1.0 else 'FAIL'}: the largest ratio is {worst:.2f}× (≤ 1.0×)")
    return 0 if worst <= 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
