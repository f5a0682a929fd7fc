"""The spec fuzzer at scale (issue 11): N random valid OpenAPI documents (default 2,000,
from ``tests/fuzz/strategies.py``) through ``generate``, judged as ``tests/test_spec_fuzzer.py``
judges them. Prints the counts of exit 0, exit 2 (legitimate or false) and failures (known
causes of ``tests/fuzz/known.py`` and new ones, by error class), with timings, and writes
every spec that did not generate to the output folder, for triage:

    OUT/NNNN.json    the spec (``apismith generate --spec OUT/NNNN.json --out x`` replays it)
    OUT/NNNN.txt     its verdict, error line, features and traceback
    OUT/index.tsv    one line per spec: number, verdict, cause or class, error line

Not a test. ``--shrink REGEX`` instead searches for one example whose error line matches
REGEX and reduces it (deleting every key and item it can while the error class stays
the same): it prints the reduced spec. ``--reduce SPEC`` reduces a spec it wrote.

    .venv/bin/python bench/fuzz.py [-n 2000] [--seed S] [--out DIR] [--cli] [--strict]
    .venv/bin/python bench/fuzz.py --shrink 'KeyError' [-n 5000]
    .venv/bin/python bench/fuzz.py --reduce OUT/0042.json
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from tests.fuzz.known import KNOWN, known_cause, legitimate_refusal  # noqa: E402
from tests.fuzz.run import OK, REFUSED, Outcome, generate_cli, generate_in_process  # noqa: E402
from tests.fuzz.strategies import FuzzSpec, fuzz_specs  # noqa: E402


def error_class(line: str) -> str:
    """The error line without what varies between examples of one bug (paths, quoted
    names, pointers, numbers), to group failures."""
    line = re.sub(r"^\S*spec\.json: ", "", line)
    line = re.sub(r"\(at #[^)]*\)", "(at #...)", line)
    line = re.sub(r"'[^']*'|\"[^\"]*\"", "'...'", line)
    line = re.sub(r"^mock \S+:", "mock <op>:", line)
    line = re.sub(r"(no mock response for|schemas without a model:) \S+", r"\1 ...", line)
    line = re.sub(r"\b\d+\b", "N", line)
    return line[:140]


def judge(spec: FuzzSpec, outcome: Outcome, strict: bool) -> tuple[str, str]:
    """(verdict, group): ok, refused (legitimate), known (cause), false-refusal or
    failure (error class)."""
    if outcome.status == OK:
        return "ok", ""
    if outcome.status == REFUSED and legitimate_refusal(spec, outcome):
        return "refused", str(legitimate_refusal(spec, outcome))
    cause = None if strict else known_cause(spec, outcome, KNOWN)
    if cause:
        return "known", cause
    verdict = "false-refusal" if outcome.status == REFUSED else "failure"
    return verdict, error_class(outcome.line)


class Run:
    def __init__(self, out: Path, *, cli: bool, strict: bool) -> None:
        self.out, self.cli, self.strict = out, cli, strict
        self.counts: collections.Counter[str] = collections.Counter()
        self.groups: dict[str, collections.Counter[str]] = collections.defaultdict(
            collections.Counter
        )
        self.seconds: list[float] = []
        self.written = 0

    def example(self, spec: FuzzSpec) -> tuple[str, str, Outcome]:
        root = Path(tempfile.mkdtemp(prefix="apismith-fuzz-"))
        try:
            run = generate_cli if self.cli else generate_in_process
            outcome = run(spec.doc, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        verdict, group = judge(spec, outcome, self.strict)
        self.counts[verdict] += 1
        self.seconds.append(outcome.seconds)
        if verdict != "ok":
            self.groups[verdict][group] += 1
            self.write(spec, outcome, verdict, group)
        return verdict, group, outcome

    def write(self, spec: FuzzSpec, outcome: Outcome, verdict: str, group: str) -> None:
        n = f"{self.written:04d}"
        self.written += 1
        self.out.mkdir(parents=True, exist_ok=True)
        doc = json.dumps(spec.doc, indent=1, ensure_ascii=False)
        (self.out / f"{n}.json").write_text(doc + "\n", encoding="utf-8")
        text = (
            f"verdict: {verdict}\ngroup: {group}\nline: {outcome.line}\n"
            f"features: {' '.join(sorted(spec.features))}\n\n{outcome.detail}"
        )
        (self.out / f"{n}.txt").write_text(text, encoding="utf-8")
        with (self.out / "index.tsv").open("a", encoding="utf-8") as index:
            index.write(f"{n}\t{verdict}\t{group}\t{outcome.line}\n")

    def report(self, total_seconds: float) -> None:
        n = sum(self.counts.values())
        exit2 = self.counts["refused"] + self.counts["false-refusal"]
        crashes = self.counts["known"] + self.counts["failure"]
        print(f"examples: {n}  wall: {total_seconds:.0f} s")
        if self.seconds:
            s = sorted(self.seconds)
            print(
                f"per example: median {statistics.median(s) * 1000:.0f} ms,"
                f" p95 {s[int(len(s) * 0.95)] * 1000:.0f} ms, max {s[-1] * 1000:.0f} ms"
            )
        print(f"  exit 0 (generated and imported)   {self.counts['ok']:6d}")
        print(f"  exit 2 (clean refusal)            {exit2:6d}")
        print(f"    of an invalid spec (right)      {self.counts['refused']:6d}")
        print(f"    of a valid spec (false)         {self.counts['false-refusal']:6d}")
        print(f"  crash / broken output             {crashes:6d}")
        print(f"    known (tests/fuzz/known.py)     {self.counts['known']:6d}")
        print(f"    new                             {self.counts['failure']:6d}")
        for verdict in ("known", "failure", "false-refusal", "refused"):
            for group, count in self.groups[verdict].most_common():
                print(f"  {count:6d}  {verdict:<13} {group}")
        if self.written:
            print(f"failing specs: {self.out}/NNNN.json (index.tsv lists them)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--examples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=None, help="default: a random one")
    parser.add_argument("--out", type=Path, default=None, help="default: a new temp folder")
    parser.add_argument("--cli", action="store_true", help="the real CLI in a subprocess")
    parser.add_argument("--strict", action="store_true", help="ignore tests/fuzz/known.py")
    parser.add_argument("--version", choices=["3.0.3", "3.1.0"], default=None)
    parser.add_argument("--shrink", metavar="REGEX", help="find and reduce one such failure")
    parser.add_argument("--reduce", metavar="SPEC", type=Path, help="reduce this failing spec")
    args = parser.parse_args(argv)
    chosen = args.seed if args.seed is not None else random.randrange(2**32)
    out = args.out or Path(tempfile.mkdtemp(prefix="apismith-fuzz-failures-"))
    if args.out and out.exists() and any(out.iterdir()):
        parser.error(f"{out} is not empty")
    print(f"seed: {chosen}  examples: {args.examples}  mode: {'cli' if args.cli else 'in-process'}")
    run = Run(out, cli=args.cli, strict=args.strict)
    if args.shrink or args.reduce:
        return shrink(run, args, chosen)
    start = time.perf_counter()

    @seed(chosen)
    @settings(**_settings(args.examples))
    @given(spec=fuzz_specs(args.version))
    def explore(spec: FuzzSpec) -> None:
        run.example(spec)
        if len(run.seconds) % 200 == 0:
            print(f"  ... {len(run.seconds)} examples, {dict(run.counts)}", flush=True)

    explore()
    run.report(time.perf_counter() - start)
    return 1 if run.counts["failure"] or run.counts["false-refusal"] else 0


def _settings(examples: int) -> dict[str, Any]:
    return {
        "max_examples": examples,
        "deadline": None,
        "database": None,
        "derandomize": False,
        "suppress_health_check": list(HealthCheck),
    }


def shrink(run: Run, args: argparse.Namespace, chosen: int) -> int:
    """Find one example whose error line matches ``--shrink``, then reduce it: delete every
    key and item whose removal keeps the same error class (greedy, to a fixed point)."""
    pattern = re.compile(args.shrink or "")
    attempt = generate_cli if args.cli else generate_in_process
    found: list[tuple[FuzzSpec, Outcome]] = []

    def outcome_of(doc: dict[str, Any]) -> Outcome:
        root = Path(tempfile.mkdtemp(prefix="apismith-fuzz-"))
        try:
            return attempt(doc, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    @seed(chosen)
    @settings(**_settings(args.examples), phases=[Phase.generate])
    @given(spec=fuzz_specs(args.version))
    def search(spec: FuzzSpec) -> None:
        if not found:
            outcome = outcome_of(spec.doc)
            if outcome.status != OK and pattern.search(outcome.line):
                found.append((spec, outcome))

    if args.reduce:
        doc = json.loads(args.reduce.read_text(encoding="utf-8"))
        found.append((FuzzSpec(doc, frozenset()), outcome_of(doc)))
    else:
        search()
    if not found:
        print(f"no example in {args.examples} matched {args.shrink!r}")
        return 1
    spec, outcome = found[0]
    wanted = error_class(outcome.line)
    print(f"found: {outcome.line}\nfeatures: {' '.join(sorted(spec.features))}", flush=True)

    def same(doc: dict[str, Any]) -> bool:
        got = outcome_of(doc)
        return got.status == outcome.status and error_class(got.line) == wanted

    doc = reduce(spec.doc, same)
    print(f"line: {outcome_of(doc).line}")
    print(json.dumps(doc, ensure_ascii=False))
    return 0


def reduce(doc: dict[str, Any], same: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """``doc`` with every dict key or list item deleted whose deletion keeps ``same``."""
    changed = True
    while changed:
        changed = False
        for path in list(_paths(doc)):
            candidate = copy.deepcopy(doc)
            try:
                parent = candidate
                for step in path[:-1]:
                    parent = parent[step]
                del parent[path[-1]]
            except (KeyError, IndexError, TypeError):
                continue  # gone with an earlier deletion
            if _consistent(candidate) and same(candidate):
                doc, changed = candidate, True
    return doc


def _consistent(node: Any) -> bool:
    """No object schema requires a property it no longer defines (a reduction that only
    deletes the definition says nothing)."""
    if isinstance(node, dict):
        if isinstance(node.get("required"), list) and isinstance(node.get("properties"), dict):
            if not set(node["required"]) <= set(node["properties"]):
                return False
        return all(_consistent(child) for child in node.values())
    return not isinstance(node, list) or all(_consistent(child) for child in node)


def _required(path: tuple[Any, ...]) -> bool:
    key, parent = path[-1], path[:-1]
    if not parent:
        return key in ("openapi", "info", "paths")
    if parent == ("info",):
        return key in ("title", "version")
    if len(parent) >= 2 and parent[-2] == "responses":
        return bool(key == "description")  # of a response
    if len(parent) >= 2 and parent[-2] == "parameters" and isinstance(parent[-1], int):
        return key in ("name", "in", "required")
    return bool(parent[-1] == "discriminator" and key == "propertyName")


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Any:
    """Every key and item path under ``node``, outermost first (big deletions first),
    but for the fields OpenAPI requires (the reduced spec stays valid)."""
    children = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
    for key, _ in reversed(children):
        if not _required((*prefix, key)):
            yield (*prefix, key)
    for key, child in children:
        if isinstance(child, (dict, list)):
            yield from _paths(child, (*prefix, key))


if __name__ == "__main__":
    sys.exit(main())
