"""Many APIs at once (``generate``/``check`` with several APIs, ``--jobs``): the same bytes,
output and errors as a serial run (``--jobs 1``), in config order."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from generator.errors import ApismithError
from generator.parallel import ApiPool, _failure, jobs_for
from tests.conftest import REPO_ROOT, SPECS, describe, run_cli, tree_bytes

GOLDEN = REPO_ROOT / "tests" / "golden"
SMALL = ("discriminator", "names", "tuple-items")  # three small specs, one API each


def _small_project(root: Path, broken: dict[str, str] | None = None) -> Path:
    """A project with the three small APIs in ``[tool.apismith.apis.*]``; ``broken``:
    API name -> text that replaces its spec."""
    root.mkdir(parents=True)
    entries = []
    for name in SMALL:
        spec = root / "api" / name / "spec.json"
        spec.parent.mkdir(parents=True)
        shutil.copy(GOLDEN / name / "spec.json", spec)
        if broken and name in broken:
            spec.write_text(broken[name], encoding="utf-8")
        entries.append(
            f'[tool.apismith.apis.{name}]\nspec = "api/{name}/spec.json"\nout = "out/{name}"\n'
        )
    (root / "pyproject.toml").write_text("\n".join(entries), encoding="utf-8")
    return root


def _vendored_project(root: Path) -> Path:
    """The repo's three vendored APIs (``specs/*.toml``), their outputs under ``root``."""
    root.mkdir(parents=True)
    shutil.copytree(SPECS, root / "specs")
    return root


def _same(serial: subprocess.CompletedProcess[str], parallel: Any, a: Path, b: Path) -> None:
    """Same exit code, stdout and stderr (paths aside) and the same files, byte for byte."""
    assert serial.returncode == parallel.returncode, describe(parallel)
    assert serial.stdout.replace(str(a), "ROOT") == parallel.stdout.replace(str(b), "ROOT")
    assert serial.stderr.replace(str(a), "ROOT") == parallel.stderr.replace(str(b), "ROOT")
    want = tree_bytes(a / "out") or tree_bytes(a / "generated")
    got = tree_bytes(b / "out") or tree_bytes(b / "generated")
    assert want.keys() == got.keys()
    assert [name for name in want if want[name] != got[name]] == []


def test_jobs_for() -> None:
    assert jobs_for(1, None) == 1  # one API: no pool
    assert jobs_for(0, 4) == 1
    assert jobs_for(3, 1) == 1  # --jobs 1: serial
    assert jobs_for(3, 8) == 3  # at most one worker per API
    assert jobs_for(5, 2) == 2
    assert 1 <= jobs_for(3, None) <= 3


def test_workers_0_means_serial(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APISMITH_WORKERS", "0")
    assert jobs_for(3, 3) == 1


def test_small_apis_in_parallel_are_the_serial_bytes(tmp_path: Path) -> None:
    a, b = _small_project(tmp_path / "a"), _small_project(tmp_path / "b")
    serial = run_cli("generate", "--jobs", "1", cwd=a)
    assert serial.returncode == 0, describe(serial)
    assert [line.split(":")[0] for line in serial.stdout.splitlines()] == list(SMALL)
    parallel = run_cli("generate", "--jobs", "3", "--timings", cwd=b)
    assert parallel.returncode == 0, describe(parallel)
    assert "import check" in parallel.stderr  # it ran in the workers
    parallel = run_cli("generate", "--jobs", "3", cwd=b)  # again, over its own output
    _same(serial, parallel, a, b)
    for root in (a, b):  # check, in parallel too: clean
        proc = run_cli("check", "--full", "--jobs", "3", cwd=root)
        assert proc.returncode == 0, describe(proc)
        assert [line.split(":")[0] for line in proc.stdout.splitlines()] == list(SMALL)


def test_check_in_parallel_reports_like_a_serial_run(tmp_path: Path) -> None:
    a, b = _small_project(tmp_path / "a"), _small_project(tmp_path / "b")
    for root in (a, b):
        assert run_cli("generate", cwd=root).returncode == 0
        for name in SMALL[1:]:  # drift in the last two, a stray file in the second
            models = root / "out" / name / "models.py"
            models.write_text(models.read_text() + "# edited\n")
        (root / "out" / SMALL[1] / "notes.txt").write_text("mine\n")
    for args in ((), ("--full", "--quiet")):
        serial = run_cli("check", "--jobs", "1", *args, cwd=a)
        assert serial.returncode == 1 and "drifted" in serial.stderr, describe(serial)
        parallel = run_cli("check", "--jobs", "3", *args, cwd=b)
        assert serial.stdout.replace(str(a), "ROOT") == parallel.stdout.replace(str(b), "ROOT")
        assert serial.stderr.replace(str(a), "ROOT") == parallel.stderr.replace(str(b), "ROOT")
        assert parallel.returncode == 1


def test_the_first_error_in_config_order_wins(tmp_path: Path) -> None:
    # the second and the third API are bad input; the second is the one a serial run
    # stops at, so that is the one reported (the third has the bigger spec: it starts first)
    broken = {SMALL[1]: "{not json", SMALL[2]: '{"openapi": "4.0.0", "info": {}}' + " " * 9000}
    a = _small_project(tmp_path / "a", broken)
    b = _small_project(tmp_path / "b", broken)
    serial = run_cli("generate", "--jobs", "1", cwd=a)
    assert serial.returncode == 2, describe(serial)
    assert f"api/{SMALL[1]}/spec.json" in serial.stderr
    for _ in range(2):
        parallel = run_cli("generate", "--jobs", "3", cwd=b)
        _same(serial, parallel, a, b)  # nothing written, the same one line
        assert len(parallel.stderr.splitlines()) == 1
        check = run_cli("check", "--jobs", "3", cwd=b)
        assert check.returncode == 2 and f"api/{SMALL[1]}/spec.json" in check.stderr


def test_a_failed_import_check_stops_the_writes_there(tmp_path: Path) -> None:
    # the second API's package does not import (a template override breaks it): the
    # first is written, the second and third are not, exit 1, as in a serial run
    roots = []
    for side in ("a", "b"):
        root = _small_project(tmp_path / side)
        (root / "broken").mkdir()
        (root / "broken" / "package").mkdir()
        (root / "broken" / "package" / "__init__.py.jinja").write_text(
            '{{ header }}\nraise RuntimeError("broken on purpose")\n'
        )
        text = (root / "pyproject.toml").read_text()
        entry = f'out = "out/{SMALL[1]}"\n'
        (root / "pyproject.toml").write_text(text.replace(entry, entry + 'templates = "broken"\n'))
        roots.append(root)
    a, b = roots
    serial = run_cli("generate", "--jobs", "1", cwd=a)
    assert serial.returncode == 1 and "broken on purpose" in serial.stderr, describe(serial)
    assert (a / "out" / SMALL[0]).is_dir() and not (a / "out" / SMALL[1]).exists()
    parallel = run_cli("generate", "--jobs", "3", cwd=b)
    _same(serial, parallel, a, b)


@pytest.mark.slow
def test_the_vendored_apis_in_parallel_are_the_serial_bytes(tmp_path: Path) -> None:
    a, b = _vendored_project(tmp_path / "a"), _vendored_project(tmp_path / "b")
    start = time.perf_counter()
    serial = run_cli("generate", "--jobs", "1", cwd=a)
    middle = time.perf_counter()
    parallel = run_cli("generate", "--jobs", "3", cwd=b)
    end = time.perf_counter()
    print(f"serial {middle - start:.2f} s, parallel {end - middle:.2f} s")
    assert serial.returncode == 0, describe(serial)
    _same(serial, parallel, a, b)
    assert [line.split(":")[0] for line in parallel.stdout.splitlines() if ":" in line] == [
        "llm-engine",
        "sgp-chat-request",
        "sgp",
    ]
    for root in (a, b):
        models = root / "generated" / "sgp" / "models.py"
        models.write_bytes(models.read_bytes() + b"# edited\n")
    serial = run_cli("check", "--full", "--jobs", "1", cwd=a)
    parallel = run_cli("check", "--full", "--jobs", "3", cwd=b)
    assert serial.returncode == parallel.returncode == 1, describe(parallel)
    assert serial.stdout.replace(str(a), "ROOT") == parallel.stdout.replace(str(b), "ROOT")
    assert serial.stderr.replace(str(a), "ROOT") == parallel.stderr.replace(str(b), "ROOT")


# --- the pool itself --------------------------------------------------------------------------


def _task(config: Any, models: Any, stage: Any) -> str:
    stage("working")
    time.sleep(config.sleep)
    if config.error:
        raise ApismithError(config.error, file=config.name)
    return f"{config.name} done"


def _fake(name: str, *, sleep: float = 0.0, error: str = "") -> SimpleNamespace:
    return SimpleNamespace(name=name, spec=Path("/nonexistent"), sleep=sleep, error=error)


def test_the_pool_hands_results_over_in_config_order() -> None:
    configs = [_fake("a", sleep=0.3), _fake("b"), _fake("c", sleep=0.1), _fake("d")]
    stages: list[tuple[int, str | None]] = []
    with ApiPool(_task, 2) as pool:
        got = list(pool.results(configs, lambda i, label: stages.append((i, label))))  # type: ignore[arg-type]
    assert got == ["a done", "b done", "c done", "d done"]
    assert sorted(i for i, label in stages if label == "working") == [0, 1, 2, 3]
    assert sorted(i for i, label in stages if label is None) == [0, 1, 2, 3]


def test_the_pool_raises_the_first_error_in_config_order() -> None:
    # "b" fails at once, "a" later: a serial run would have stopped at "a"
    configs = [_fake("a", sleep=0.4, error="first"), _fake("b", error="second"), _fake("c")]
    with pytest.raises(ApismithError) as info, ApiPool(_task, 3) as pool:
        list(pool.results(configs, lambda i, label: None))  # type: ignore[arg-type]
    assert str(info.value) == "a: first"


def test_a_worker_exception_keeps_its_name_and_message() -> None:
    class Odd(Exception):  # a local class: it does not pickle
        pass

    failure = _failure(Odd("strange\nsecond line"))
    exc = failure.exception()
    assert type(exc).__name__ == "Odd" and str(exc) == "strange\nsecond line"
    error = _failure(ApismithError("bad", file="x.json", exit_code=2)).exception()
    assert isinstance(error, ApismithError) and str(error) == "x.json: bad"
