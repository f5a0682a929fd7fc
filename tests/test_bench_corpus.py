"""``bench/corpus.py``: its classification of outcomes, its sampling, and a smoke run on two
tiny specs (apismith and datamodel-codegen only: openapi-python-client lives in a venv of
its own, which a test machine need not have)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO_ROOT


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_corpus", REPO_ROOT / "bench" / "corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


corpus = _load()

WARNING = (
    "/x/dcg/parser/openapi.py:1344: UserWarning: No schemas found\n"
    "  self._parse_specification(specification, path_parts)\n"
)
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "x.py", line 1, in <module>\n'
    "    main()\n"
    "KeyError: 'api_key'\n"
)
RICH_TRACEBACK = (
    "╭──── Traceback (most recent call last) ────╮\n"
    "│ ❱ 163 │   errors = generate(               │\n"
    "╰───────────────────────────────────────────╯\n"
    "ValueError: Duplicate key A in enum \n"
    "Grade; consider setting literal_enums\n"
)


ERR = "apismith: error: "
INTERNAL = ERR + "internal error: KeyError: 'api_key' (APISMITH_DEBUG=1)"
DUPLICATE = "ValueError: Duplicate key A in enum Grade; consider setting literal_enums"
CASES = {
    "success": (0, "x: 3 schemas -> 3 classes\n", "", False, ("success", "", "")),
    "refusal": (2, "", ERR + "a.json: bad\n", False, ("refusal", "", ERR + "a.json: bad")),
    "refusal-after-warning": (2, "", WARNING + "No models\n", False, ("refusal", "", "No models")),
    "two-lines": (2, "", ERR + "one\nsecond\n", False, ("crash", "exit 2", ERR + "one")),
    "internal-error": (1, "", INTERNAL + "\n", False, ("crash", "internal error", INTERNAL)),
    "internal-error-exit-2": (2, "", INTERNAL, False, ("crash", "internal error", INTERNAL)),
    "traceback": (1, "", TRACEBACK, False, ("crash", "traceback", "KeyError: 'api_key'")),
    "rich-traceback": (1, "", RICH_TRACEBACK, False, ("crash", "traceback", DUPLICATE)),
    "exit-1": (1, "", ERR + "failed: boom\n", False, ("crash", "exit 1", ERR + "failed: boom")),
    "timeout": (-9, "", "", True, ("crash", "timeout", "timeout")),
}


@pytest.mark.parametrize(
    ("rc", "stdout", "stderr", "timed_out", "expected"), CASES.values(), ids=CASES.keys()
)
def test_classify(
    rc: int, stdout: str, stderr: str, timed_out: bool, expected: tuple[str, str, str]
) -> None:
    assert corpus.classify(rc, stdout, stderr, timed_out) == expected


def test_error_key_groups_one_cause() -> None:
    a = ERR + "s/a.json: server: no mock response for getX: no string matches pattern '^arn:.*$'"
    b = ERR + "s/b.json: server: no mock response for listY: no string matches pattern '[a-z]'"
    assert corpus.error_key(a, "s/a.json") == corpus.error_key(b, "s/b.json")


def test_stratified_sample_takes_one_spec_a_group_first() -> None:
    specs = [corpus.Spec(Path(f"{g}/{i}.json"), g, "3.0.0", 1) for g in "abc" for i in range(5)]
    specs += [corpus.Spec(Path("d/0.json"), "d", "3.1.0", 1)]
    picked = corpus.stratified_sample(specs, 4, seed=1)
    assert sorted(s.group for s in picked) == ["a", "b", "c", "d"]
    assert corpus.stratified_sample(specs, 4, seed=1) == picked  # the seed fixes it
    assert len(corpus.stratified_sample(specs, 100, seed=1)) == len(specs)


def test_size_filter_comes_before_the_sample() -> None:
    specs = [corpus.Spec(Path(f"{g}/{n}.json"), g, "3.0.0", n) for g in "ab" for n in (10, 50, 90)]
    assert [s.bytes for s in corpus.by_size(specs, 50, 90)] == [50, 90, 50, 90]
    assert len(corpus.by_size(specs, 0, 0)) == len(specs)
    assert [s.bytes for s in corpus.by_size(specs, 60)] == [90, 90]
    picked = corpus.stratified_sample(corpus.by_size(specs, 0, 50), 2, seed=3)
    assert sorted(s.group for s in picked) == ["a", "b"]
    assert all(s.bytes <= 50 for s in picked)


def test_percentile() -> None:
    assert corpus.percentile([1.0], 90) == 1.0
    assert corpus.percentile([float(n) for n in range(1, 12)], 90) == 10.0
    assert corpus.percentile([1.0, 2.0], 50) == 1.5


def test_summary_ratio_and_failures() -> None:
    ok = {"outcome": "success", "detail": "", "seconds": 2.0, "peak_rss_mb": 50.0, "error": ""}
    refused = {**ok, "outcome": "refusal", "error": ERR + "b: x"}
    rows = [
        {"spec": "a", "apismith": ok, "dcg": {**ok, "seconds": 1.0}},
        {"spec": "b", "apismith": refused, "dcg": ok},
    ]
    summary = corpus.summarize(rows)
    assert summary["tools"]["apismith"]["success"] == 1
    assert summary["tools"]["apismith"]["refusal"] == 1
    assert summary["time_ratio"]["median"] == 2.0
    assert summary["time_ratio"]["p90"] == 2.0
    assert list(summary["apismith_failures"]) == ["refusal: x"]


PET = {"type": "object", "properties": {"id": {"type": "integer"}}}
PARAMETER = {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
RESPONSE = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}
PETS = {
    "openapi": "3.0.3",
    "info": {"title": "Pets", "version": "1"},
    "paths": {
        "/pets/{id}": {
            "get": {
                "operationId": "getPet",
                "parameters": [PARAMETER],
                "responses": {"200": {"description": "ok", **RESPONSE}},
            }
        }
    },
    "components": {"schemas": {"Pet": PET}},
}
# a Swagger 2.0 document (read) with a misspelt key (refused)
SWAGGER = {
    "swagger": "2.0",
    "info": {"title": "Old", "version": "1"},
    "paths": {},
    "defintions": {},
}


def test_smoke_run_on_two_specs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two" / "vendor").mkdir(parents=True)
    (tmp_path / "one" / "pets.json").write_text(json.dumps(PETS), encoding="utf-8")
    (tmp_path / "two" / "vendor" / "old.json").write_text(json.dumps(SWAGGER), encoding="utf-8")
    (tmp_path / "two" / "notes.json").write_text('{"not": "a spec"}', encoding="utf-8")
    out = tmp_path / "results.json"
    argv = [str(tmp_path / "one"), str(tmp_path / "two"), "--tools", "apismith,dcg"]
    assert corpus.main([*argv, "--timeout", "60", "--out", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    rows = {Path(row["spec"]).name: row for row in data["rows"]}
    assert set(rows) == {"pets.json", "old.json"}
    assert rows["pets.json"]["apismith"]["outcome"] == "success"
    assert rows["pets.json"]["dcg"]["outcome"] == "success"
    assert rows["old.json"]["apismith"]["outcome"] == "refusal"
    assert "did you mean 'definitions'" in rows["old.json"]["apismith"]["error"]
    assert rows["old.json"]["group"] == "vendor/old.json"
    assert rows["pets.json"]["apismith"]["peak_rss_mb"] > 0
    assert data["summary"]["tools"]["apismith"]["success"] == 1
    assert out.with_suffix(".tsv").read_text(encoding="utf-8").count("\n") == 3
    printed = capsys.readouterr().out
    assert "apismith failures by error line" in printed
    assert ", p90 " in printed  # both generated pets.json
    small = tmp_path / "small.json"
    assert corpus.main([*argv, "--max-bytes", "200", "--timeout", "60", "--out", str(small)]) == 0
    meta = json.loads(small.read_text(encoding="utf-8"))["meta"]
    assert (meta["found"], meta["sized"], meta["max_bytes"]) == (2, 1, 200)
