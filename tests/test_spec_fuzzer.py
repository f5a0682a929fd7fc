"""The spec fuzzer (issue 11): random valid OpenAPI 3.0, 3.1 and 3.2 documents
(``tests/fuzz/strategies.py``) through ``generate``. For every example, generation

- succeeds: the package (models, client, server, mock, docs) imports, and every operation
  of its mock service answers a valid response (or declines with 501);
- or refuses cleanly, exit 2 with one line and no "internal error", and only where the
  document is not valid as it stands (``FuzzSpec.refusable``): the strategies make valid
  documents, so any other refusal is a false one;

never an internal error, a traceback, "schemas without a model" or output that does not
import. Failures already known (``tests/fuzz/known.py``, issue 11's root causes) are
counted and reported, not failed; ``FUZZ_STRICT=1`` fails them too. Each known class
also has a minimal spec (``tests/fuzz/reproductions.py``), an xfail while it is known.

``make test`` runs 200 examples: four shards of 50 (so that pytest-xdist spreads them),
each derandomized from its own seed, in-process with every output (about 0.1 s an
example), plus a few through the real CLI in a subprocess. ``FUZZ_EXAMPLES=N`` sets the
examples per shard, ``FUZZ_RANDOM=1`` explores randomly, ``FUZZ_KEEP=DIR`` writes every
failing spec to DIR, ``FUZZ_MOCK=0`` leaves the mock service uncalled (the property as
issue 11 states it: generated and importable). ``bench/fuzz.py`` runs thousands and
writes the failures for triage.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from tests.fuzz.known import KNOWN, known_cause, legitimate_refusal  # noqa: E402
from tests.fuzz.reproductions import REPRODUCTIONS  # noqa: E402
from tests.fuzz.run import (  # noqa: E402
    OK,
    REFUSED,
    Outcome,
    generate_cli,
    generate_in_process,
)
from tests.fuzz.strategies import FuzzSpec, fuzz_specs  # noqa: E402

SHARDS = 4
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "50"))  # per shard
RANDOM = os.environ.get("FUZZ_RANDOM") == "1"
STRICT = os.environ.get("FUZZ_STRICT") == "1"
# No shrinking unless FUZZ_SHRINK=1: it costs minutes of generations; the failure message
# has the whole spec, and bench/fuzz.py --reduce SPEC reduces it in a minute.
PHASES = tuple(p for p in Phase if p is not Phase.shrink or os.environ.get("FUZZ_SHRINK") == "1")
MOCK = os.environ.get("FUZZ_MOCK") != "0"  # FUZZ_MOCK=0: do not call the mock service
CLI_EXAMPLES = 6


class KnownFuzzFailures(UserWarning):
    """Examples that failed with an error of tests/fuzz/known.py (shown in the summary)."""


def verdict(spec: FuzzSpec, outcome: Outcome) -> tuple[str, str]:
    """("ok" | "refused" | "known" | "FAIL", why): how the test counts ``outcome``."""
    if outcome.status == OK:
        return "ok", ""
    if outcome.status == REFUSED:
        why = legitimate_refusal(spec, outcome)
        if why:
            return "refused", why
    cause = None if STRICT else known_cause(spec, outcome, KNOWN)
    if cause:
        return "known", cause
    if outcome.status == REFUSED:
        return "FAIL", "a false refusal: the document is valid"
    return "FAIL", "a failure"


def describe(spec: FuzzSpec, outcome: Outcome, why: str) -> str:
    """The failure message: the error line, the features and the spec (written to
    ``FUZZ_KEEP`` too, when set), and the end of the traceback."""
    keep = os.environ.get("FUZZ_KEEP")
    if keep:
        digest = hashlib.sha256(json.dumps(spec.doc, sort_keys=True).encode()).hexdigest()
        name = f"fail-{digest[:12]}.json"
        target = Path(keep) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(spec.doc, indent=1, ensure_ascii=False), encoding="utf-8")
    return (
        f"{why}: {outcome.line}\n"
        f"features: {sorted(spec.features)}\n"
        f"spec: {json.dumps(spec.doc, ensure_ascii=False)}\n"
        f"{outcome.detail[-3000:]}"
    )


def run_example(spec: FuzzSpec) -> tuple[str, str, Outcome]:
    """Generate ``spec`` in a fresh folder (removed after) and judge the outcome."""
    root = Path(tempfile.mkdtemp(prefix="apismith-fuzz-"))
    try:
        outcome = generate_in_process(spec.doc, root, mock=MOCK)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    kind, why = verdict(spec, outcome)
    return kind, why, outcome


def _property(shard: int, tally: collections.Counter[str]) -> Callable[[], None]:
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        # the same examples every run, so that CI is deterministic; FUZZ_RANDOM=1 explores
        derandomize=not RANDOM,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        phases=PHASES,
    )
    @given(spec=fuzz_specs())
    def prop(spec: FuzzSpec) -> None:
        kind, why, outcome = run_example(spec)
        tally[kind] += 1
        if kind == "known":
            tally[f"known: {why}"] += 1
        assert kind != "FAIL", describe(spec, outcome, why)

    # each shard derandomizes from its own seed (derandomize alone would repeat one run)
    return prop if RANDOM else seed(shard)(prop)


@pytest.mark.parametrize("shard", range(SHARDS))
def test_generate_exits_0_or_2(shard: int) -> None:
    tally: collections.Counter[str] = collections.Counter()
    _property(shard, tally)()
    known = {k.removeprefix("known: "): n for k, n in tally.items() if k.startswith("known: ")}
    summary = (
        f"spec fuzzer shard {shard}: {tally['ok']} ok, {tally['refused']} refused (invalid"
        f" spec), {tally['known']} known failures"
    )
    print(summary)
    for cause, n in sorted(known.items()):
        print(f"  {n:4d}  {cause}")
    if known:
        detail = "; ".join(f"{c} x{n}" for c, n in sorted(known.items()))
        warnings.warn(f"{summary}: {detail}", KnownFuzzFailures, stacklevel=1)
    assert tally["ok"] > tally["known"], "most valid documents should generate"


@pytest.mark.parametrize("name", sorted(REPRODUCTIONS))
def test_reproduction(name: str) -> None:
    """Each known failure class's minimal spec: an expected failure while its KNOWN entry
    stands; it must generate (or be refused, if invalid) once the entry is deleted."""
    spec = REPRODUCTIONS[name]
    kind, why, outcome = run_example(spec)
    if kind == "known":
        pytest.xfail(f"{why}: {outcome.line}")
    assert kind != "FAIL", describe(spec, outcome, why)


@settings(
    max_examples=CLI_EXAMPLES,
    deadline=None,
    database=None,
    derandomize=not RANDOM,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=PHASES,
)
@given(spec=fuzz_specs())
def test_cli_agrees(spec: FuzzSpec) -> None:
    """The real CLI in a subprocess gives the in-process verdict: exit 0, or one stderr
    line with the same message; never a traceback."""
    root = Path(tempfile.mkdtemp(prefix="apismith-fuzz-cli-"))
    try:
        inside = generate_in_process(spec.doc, root / "a", mock=False)
        outside = generate_cli(spec.doc, root / "b")
        assert "Traceback" not in outside.detail, outside.detail
        assert outside.status == inside.status, (outside, inside)
        # the same message, up to the spec's folder (and the CLI's APISMITH_DEBUG hint)
        same = inside.line.replace(str(root / "a"), "ROOT")
        assert same in outside.line.replace(str(root / "b"), "ROOT"), (outside, inside)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_the_drawings_cover_inline_responses_and_and_security() -> None:
    """The fuzzer draws what issue 23 added: inline object responses (which become models
    named after the method) and security requirements that need every scheme at once."""
    seen: collections.Counter[str] = collections.Counter()

    @settings(max_examples=150, derandomize=True, database=None, phases=PHASES, deadline=None)
    @given(fuzz_specs())
    def draw(spec: FuzzSpec) -> None:
        seen.update(spec.features)

    draw()
    assert seen["response:inline-object"] >= 5, seen
    assert seen["security:and"] >= 2, seen


def test_the_drawings_cover_openapi_32() -> None:
    """A third of the documents are OpenAPI 3.2 (issue 24), with what 3.2 adds."""
    seen: collections.Counter[str] = collections.Counter()

    @settings(max_examples=400, derandomize=True, database=None, phases=PHASES, deadline=None)
    @given(fuzz_specs())
    def draw(spec: FuzzSpec) -> None:
        seen.update(spec.features)

    draw()
    assert seen["openapi:3.2"] >= 80, seen
    for feature in ("query", "querystring", "tags:parent", "$self", "additionalOperations"):
        assert seen[f"openapi32:{feature}"] >= 1, (feature, seen)
    assert sum(n for f, n in seen.items() if f.startswith("openapi32:itemSchema:")) >= 5, seen
