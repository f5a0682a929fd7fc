"""``--out`` never destroys what apismith did not write (issue 9, finding 6).

- A directory without an apismith ``MANIFEST.json``, or a file, is refused (exit 2, one
  line) and left byte for byte as it was; ``--force`` replaces it.
- The kill test: ``apismith generate`` is SIGKILLed at seeded random moments over an
  existing output, alternating two spec versions. After every kill the old or the new
  output is in place, imports, and passes ``apismith check`` for its version; the next run
  leaves no staging or old folder. Half of the kills are spread over a whole run, the other
  half land in the write itself (just after the staging folder appears).
- The two-rename fallback (``APISMITH_NO_RENAME_EXCHANGE=1``): a SIGKILL between the two
  renames leaves no package at ``--out``; the next run puts the old one back and says so.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.write import recover
from tests.conftest import (
    cli_env,
    describe,
    error_lines,
    import_package,
    run_cli,
    small_spec,
    tree_bytes,
    write_json,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and flock")

LEFTOVER = re.compile(r"\.pets\.apismith-(staging|old)-\d+-\d+")


def spec_version(version: str) -> dict[str, Any]:
    """The small spec with a client and a server (two paths), at ``version``."""
    spec = small_spec()
    spec["info"]["version"] = version
    spec["components"]["schemas"]["Pet"]["description"] = f"A pet (spec {version})."
    pet = {"$ref": "#/components/schemas/Pet"}
    spec["paths"] = {
        "/pets/{pet_id}": {
            "get": {
                "operationId": "getPet",
                "parameters": [
                    {
                        "name": "pet_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "integer"},
                    }
                ],
                "responses": {
                    "200": {"description": "OK", "content": {"application/json": {"schema": pet}}}
                },
            }
        },
        "/pets": {
            "post": {
                "operationId": "createPet",
                "requestBody": {"required": True, "content": {"application/json": {"schema": pet}}},
                "responses": {
                    "201": {"description": "Made", "content": {"application/json": {"schema": pet}}}
                },
            }
        },
    }
    return spec


def leftovers(parent: Path) -> list[str]:
    return sorted(name for name in os.listdir(parent) if LEFTOVER.fullmatch(name))


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root``, caches and dot-files included."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


# --- refusing what apismith did not write ------------------------------------------------


@pytest.fixture
def specs(tmp_path: Path) -> tuple[Path, Path]:
    return (
        write_json(tmp_path / "spec_a.json", spec_version("1.0.0")),
        write_json(tmp_path / "spec_b.json", spec_version("2.0.0")),
    )


def assert_refused(proc: subprocess.CompletedProcess[str], out: Path) -> None:
    assert proc.returncode == 2, describe(proc)
    assert "Traceback" not in proc.stdout + proc.stderr, describe(proc)
    lines = error_lines(proc.stderr)
    assert len(lines) == 1, describe(proc)
    assert lines[0].startswith(f"apismith: error: {out}: "), describe(proc)
    assert "--force" in lines[0] and "internal error" not in lines[0], describe(proc)


def test_user_directory_is_refused_and_intact(tmp_path: Path, specs: tuple[Path, Path]) -> None:
    out = tmp_path / "pets"
    (out / "sub").mkdir(parents=True)
    (out / "notes.txt").write_text("my notes\n", encoding="utf-8")
    (out / "sub" / "data.bin").write_bytes(bytes(range(256)))
    (out / ".hidden").write_bytes(b"x")
    before = snapshot(out)
    proc = run_cli("generate", "--spec", specs[0], "--out", out, cwd=tmp_path)
    assert_refused(proc, out)
    assert "did not write" in proc.stderr
    assert snapshot(out) == before
    assert leftovers(tmp_path) == []

    proc = run_cli("generate", "--spec", specs[0], "--out", out, "--force", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert not (out / "notes.txt").exists() and (out / "MANIFEST.json").is_file()
    assert leftovers(tmp_path) == []
    proc = run_cli("check", "--spec", specs[0], "--out", out, cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)


def test_foreign_manifest_is_refused(tmp_path: Path, specs: tuple[Path, Path]) -> None:
    """A ``MANIFEST.json`` that is not apismith's (another tool's, or broken) is no pass."""
    for text in ('{"name": "some other tool", "files": []}\n', "[1, 2]\n", "{not json"):
        out = tmp_path / "pets"
        out.mkdir(exist_ok=True)
        (out / "MANIFEST.json").write_text(text, encoding="utf-8")
        proc = run_cli("generate", "--spec", specs[0], "--out", out, cwd=tmp_path)
        assert_refused(proc, out)
        assert (out / "MANIFEST.json").read_text(encoding="utf-8") == text


def test_user_file_is_refused_and_intact(tmp_path: Path, specs: tuple[Path, Path]) -> None:
    out = tmp_path / "pets"
    out.write_bytes(b"precious\x00bytes\n")
    proc = run_cli("generate", "--spec", specs[0], "--out", out, cwd=tmp_path)
    assert_refused(proc, out)
    assert "a file" in proc.stderr
    assert out.read_bytes() == b"precious\x00bytes\n"
    assert leftovers(tmp_path) == []

    dangling = tmp_path / "link"
    dangling.symlink_to(tmp_path / "nowhere")
    proc = run_cli("generate", "--spec", specs[0], "--out", dangling, cwd=tmp_path)
    assert_refused(proc, dangling)
    assert dangling.is_symlink() and not (tmp_path / "nowhere").exists()

    # --force replaces the file with the package
    proc = run_cli("generate", "--spec", specs[0], "--out", out, "--force", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert (out / "MANIFEST.json").is_file()
    assert leftovers(tmp_path) == []


def test_empty_directory_and_own_output_are_replaced(
    tmp_path: Path, specs: tuple[Path, Path]
) -> None:
    out = tmp_path / "pets"
    out.mkdir()
    proc = run_cli("generate", "--spec", specs[0], "--out", out, cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert proc.stderr == "", describe(proc)
    proc = run_cli("generate", "--spec", specs[1], "--out", out, cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert (
        json.loads((out / "openapi.json").read_text(encoding="utf-8"))["info"]["version"] == "2.0.0"
    )
    assert leftovers(tmp_path) == []
    # a symlink to an apismith output is followed: the link stays, its target is replaced
    link = tmp_path / "link"
    link.symlink_to(out)
    proc = run_cli("generate", "--spec", specs[0], "--out", link, cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert link.is_symlink() and "1.0.0" in (out / "openapi.json").read_text(encoding="utf-8")


def test_meta_project_is_replaced(tmp_path: Path, specs: tuple[Path, Path]) -> None:
    """With --meta the manifest is at OUT/MANIFEST.json and the package in OUT/pets/."""
    out = tmp_path / "pets"
    for spec in specs:
        args = ("generate", "--spec", spec, "--out", out, "--package", "pets", "--meta")
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode == 0, describe(proc)
        assert (out / "MANIFEST.json").is_file() and (out / "pets" / "__init__.py").is_file()
        assert leftovers(tmp_path) == []
    proc = run_cli("check", "--spec", specs[1], "--out", out, cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)


def test_stray_files_of_an_own_output_are_named(tmp_path: Path, specs: tuple[Path, Path]) -> None:
    out = tmp_path / "pets"
    assert run_cli("generate", "--spec", specs[0], "--out", out, cwd=tmp_path).returncode == 0
    (out / "notes.txt").write_text("x", encoding="utf-8")
    proc = run_cli("generate", "--spec", specs[0], "--out", out, cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert "deleting 1 file(s) not in its manifest: notes.txt" in proc.stderr, describe(proc)


# --- repairing leftovers -------------------------------------------------------------------


def test_leftovers_are_repaired_and_foreign_folders_untouched(
    tmp_path: Path, specs: tuple[Path, Path]
) -> None:
    """The state a kill between the two renames leaves, made by hand: no ``pets``, its old
    copy, a staging folder. The next run, even one that fails on a bad spec, puts the old
    copy back and removes the rest, one line each; other dot-folders are not touched."""
    out = tmp_path / "pets"
    assert run_cli("generate", "--spec", specs[0], "--out", out, cwd=tmp_path).returncode == 0
    old_tree = tree_bytes(out)
    out.rename(tmp_path / ".pets.apismith-old-4242-0")
    (tmp_path / ".pets.apismith-staging-4242-1" / "docs").mkdir(parents=True)
    (tmp_path / ".pets.apismith-staging-4243-0").mkdir()
    foreign = [".pets.backup", ".pets.old.abc123", ".other.apismith-staging-1-0", ".pets"]
    for name in foreign:
        (tmp_path / name).mkdir()
        (tmp_path / name / "keep.txt").write_text(name, encoding="utf-8")
    bad = spec_version("3.0.0")
    bad["components"]["schemas"]["Dangling"] = {"$ref": "#/components/schemas/Missing"}
    write_json(tmp_path / "bad.json", bad)
    proc = run_cli("generate", "--spec", "bad.json", "--out", out, cwd=tmp_path)
    assert proc.returncode == 2, describe(proc)
    notes = [line for line in error_lines(proc.stderr) if line.startswith("apismith: note:")]
    assert notes == [
        f"apismith: note: restored {out} from .pets.apismith-old-4242-0,"
        " left by an interrupted run",
        f"apismith: note: removed {tmp_path / '.pets.apismith-staging-4242-1'},"
        " left by an interrupted run",
        f"apismith: note: removed {tmp_path / '.pets.apismith-staging-4243-0'},"
        " left by an interrupted run",
    ], describe(proc)
    assert tree_bytes(out) == old_tree
    assert leftovers(tmp_path) == []
    for name in foreign:
        assert (tmp_path / name / "keep.txt").read_text(encoding="utf-8") == name
    # nothing left: nothing said
    assert recover(out, say=lambda line: pytest.fail(line)) == []


def test_kill_between_the_two_renames(tmp_path: Path, specs: tuple[Path, Path]) -> None:
    """A real SIGKILL between the renames of the fallback swap (a hook in write.py)."""
    out = tmp_path / "pets"
    assert run_cli("generate", "--spec", specs[0], "--out", out, cwd=tmp_path).returncode == 0
    old_tree = tree_bytes(out)
    code = textwrap.dedent(
        """
        import os, signal, sys
        import generator.write as write
        write._between_renames = lambda: os.kill(os.getpid(), signal.SIGKILL)
        from generator.cli import main
        main(sys.argv[1:])
        """
    )
    args = ["generate", "--spec", str(specs[1]), "--out", str(out)]
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=tmp_path,
        env=cli_env({"APISMITH_NO_RENAME_EXCHANGE": "1", "APISMITH_WORKERS": "0"}),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == -signal.SIGKILL, describe(proc)
    assert not out.exists()
    left = leftovers(tmp_path)
    assert [LEFTOVER.fullmatch(n).group(1) for n in left] == ["old", "staging"]  # type: ignore[union-attr]
    assert tree_bytes(tmp_path / left[0]) == old_tree

    proc = run_cli("check", "--spec", specs[0], "--out", out, cwd=tmp_path)
    assert proc.returncode != 0  # nothing at --out yet
    proc = run_cli(
        "generate", "--spec", specs[1], "--out", out, cwd=tmp_path,
        env={"APISMITH_NO_RENAME_EXCHANGE": "1"},
    )  # fmt: skip
    assert proc.returncode == 0, describe(proc)
    assert f"apismith: note: restored {out} from {left[0]}" in proc.stderr, describe(proc)
    assert f"apismith: note: removed {tmp_path / left[1]}" in proc.stderr, describe(proc)
    assert leftovers(tmp_path) == []
    proc = run_cli("check", "--spec", specs[1], "--out", out, cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)


# --- the kill test -----------------------------------------------------------------------


class KillRig:
    """Two reference outputs (spec A and B), a work output, and a way to kill runs."""

    def __init__(self, root: Path, specs: tuple[Path, Path], env: dict[str, str]) -> None:
        self.root, self.specs, self.env = root, specs, env
        self.work = root / "work"
        self.work.mkdir()
        self.out = self.work / "pets"
        self.refs = []
        for label, spec in zip("ab", specs, strict=True):
            ref = root / f"ref_{label}" / "pets"
            proc = run_cli("generate", "--spec", spec, "--out", ref, cwd=root, env=env)
            assert proc.returncode == 0, describe(proc)
            self.refs.append(tree_bytes(ref))
        assert self.refs[0] != self.refs[1]
        self.imports = 0
        self.durations: list[float] = []
        self.lives: list[float] = []

    def popen(self, spec: Path, *, stderr: int = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
        args = ["generate", "--spec", str(spec), "--out", str(self.out)]
        return subprocess.Popen(
            [sys.executable, "-m", "generator", *args],
            cwd=self.root,
            env=cli_env(self.env),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,  # SIGKILL the whole run: the model worker and ruff too
        )

    def run(self, spec: Path) -> str:
        """One uninterrupted run; returns its stderr. Measures how long it takes and how
        long its staging folder exists (the kills aim with the last few)."""
        clean = not leftovers(self.work)
        start = time.perf_counter()
        proc = self.popen(spec, stderr=subprocess.PIPE)
        seen = watch(self, proc)
        while proc.poll() is None and leftovers(self.work):
            time.sleep(0.0002)
        gone = time.perf_counter()
        _, err = proc.communicate()
        stderr = err.decode()
        assert proc.returncode == 0, stderr
        self.durations.append(time.perf_counter() - start)
        if clean and seen is not None:
            self.lives.append(gone - seen)
        return stderr

    @property
    def duration(self) -> float:
        return statistics.median(self.durations[-3:])

    @property
    def life(self) -> float:
        assert self.lives, "the staging folder was never seen"
        return statistics.median(self.lives[-3:])

    def version(self) -> int:
        """Which reference is at ``out`` (0 or 1); fails if neither."""
        tree = tree_bytes(self.out)
        assert tree in self.refs, f"neither output at {self.out}: {sorted(tree)[:8]}"
        return self.refs.index(tree)

    def assert_usable(self, version: int) -> None:
        """It imports (with its server and mock) and passes ``apismith check``."""
        name = f"_kill_pets_{self.imports}"
        self.imports += 1
        saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
        try:
            module = import_package(self.out, name)
            __import__(f"{name}.server")
            __import__(f"{name}.mock")
            assert hasattr(module, "__all__")
        finally:
            sys.dont_write_bytecode = saved
            for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
                del sys.modules[key]
        # in-process: the same command as `apismith check --spec S --out OUT`, cheaper
        args = ["check", "--spec", str(self.specs[version]), "--out", str(self.out)]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output


def watch(rig: KillRig, proc: subprocess.Popen[bytes]) -> float | None:
    """Wait until a staging folder appears beside ``out`` (or the run ends); return the
    time it appeared (perf_counter), or None."""
    while proc.poll() is None:
        if any(n.startswith(".pets.apismith-staging-") for n in os.listdir(rig.work)):
            return time.perf_counter()
        time.sleep(0.0002)
    return None


def kill_runs(
    rig: KillRig, count: int, seed: int, *, atomic: bool, mid_write: int = 0
) -> dict[str, int]:
    """Runs until ``count`` were SIGKILLed and ``mid_write`` of the kills hit the write,
    alternating the spec; even attempts at a random moment of a whole run, odd ones at a
    random moment of the write (while the staging folder exists). A run that ended before
    its kill counts as ``finished``. The aim is by timings measured in this run, which a
    loaded machine changes: such a run takes more attempts, it does not fail."""
    rng = random.Random(seed)
    names = ("kills", "finished", "old", "new", "mid-write", "swapped-not-cleaned", "restored")
    stats = dict.fromkeys(names, 0)
    for spec in (*rig.specs, *rig.specs[:1]):
        rig.run(spec)
    current = 0
    attempts = 0
    while (stats["kills"] < count or stats["mid-write"] < mid_write) and attempts < 8 * count:
        attempt, attempts = attempts, attempts + 1
        assert leftovers(rig.work) == []
        new = 1 - current
        proc = rig.popen(rig.specs[new])
        if attempt % 2 == 0:
            time.sleep(rng.uniform(0, 1.1 * rig.duration))
        else:
            delay = rng.uniform(0.2, 1.2) * rig.life  # most of it is the import check
            watch(rig, proc)
            time.sleep(delay)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            stats["kills"] += 1
        else:
            stats["finished"] += 1
        proc.wait()
        left = leftovers(rig.work)
        stats["mid-write"] += bool(left)
        if atomic or rig.out.exists():
            version = rig.version()
            assert version in (current, new)
        else:
            # the fallback, killed between its renames: only the old copy is left
            assert [n for n in left if "-old-" in n], left
            version = -1
        if version >= 0:
            stats["new" if version == new else "old"] += 1
            stats["swapped-not-cleaned"] += bool(left) and version == new
            rig.assert_usable(version)
        # the next run: repairs, says so, and leaves nothing behind
        after = rig.run(rig.specs[new])
        for name in left:
            assert f"{name}, left by an interrupted run" in after, after
        if version < 0:
            assert f"restored {rig.out} from" in after, after
            stats["restored"] += 1
        assert leftovers(rig.work) == []
        assert rig.version() == new
        current = new
    print(f"kill test ({'exchange' if atomic else 'fallback'}): {attempts} runs to kill, median"
          f" {statistics.median(rig.durations):.2f} s, staging folder lives"
          f" {statistics.median(rig.lives) * 1000:.1f} ms; {stats}")  # fmt: skip
    return stats


@pytest.mark.slow
def test_kill_test_atomic_exchange(tmp_path: Path, specs: tuple[Path, Path]) -> None:
    rig = KillRig(tmp_path, specs, {})
    stats = kill_runs(rig, 20, seed=9, atomic=True, mid_write=5)
    assert stats["kills"] >= 20, stats
    assert stats["mid-write"] >= 5, stats  # the write itself was hit, not only the startup


@pytest.mark.slow
def test_kill_test_two_rename_fallback(tmp_path: Path, specs: tuple[Path, Path]) -> None:
    rig = KillRig(tmp_path, specs, {"APISMITH_NO_RENAME_EXCHANGE": "1"})
    stats = kill_runs(rig, 8, seed=6, atomic=False, mid_write=2)
    assert stats["kills"] >= 8, stats
    assert stats["mid-write"] >= 2, stats


def test_an_import_failure_names_module_line_model_and_field(tmp_path: Path) -> None:
    """A pydantic schema error is named by where it is in the generated code."""
    from generator.errors import ApismithError
    from generator.import_check import verify_import

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from . import models\n")
    (package / "models.py").write_text(
        "from pydantic import BaseModel, Field\n\n\n"
        "class Good(BaseModel):\n    x: int\n\n\n"
        'class Chat(BaseModel):\n    role: str = Field(pattern="[[A-Z0-9]{1,18}")\n'
    )
    with pytest.raises(ApismithError) as info:
        verify_import(package)
    message = str(info.value)
    where = 'models.py:8: class Chat, field "role"'
    assert message.startswith(f"generated code does not import: {where}")
    assert "unclosed character class" in message and "\n" not in message


def test_an_import_failure_in_a_subfolder_is_named_by_its_path_in_the_package(
    tmp_path: Path,
) -> None:
    """A failure in ``_mock/<resource>.py`` names that module, not the one importing it."""
    from generator.errors import ApismithError
    from generator.import_check import verify_import

    package = tmp_path / "pkg"
    (package / "_mock").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "mock.py").write_text("from ._mock import pets\n")
    (package / "_mock" / "__init__.py").write_text("")
    (package / "_mock" / "pets.py").write_text("X = 1\nY = loads('{}')\n")
    (package / "server.py").write_text("from . import mock\n")
    with pytest.raises(ApismithError) as info:
        verify_import(package)
    message = str(info.value)
    assert message.startswith("generated code does not import: _mock/pets.py:2: NameError"), message
