"""Helpers for the outside-in tests: apismith's wheel, a fresh venv it is installed into,
and running that venv's programs the way a user would (clean environment, the repo not on
the path, never the repo as the working directory).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import REPO_ROOT, describe

# how long one pip or pre-commit run may take (pre-commit pip-installs apismith)
SLOW_TIMEOUT = 600.0


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a user's shell: nothing pointing at the repo or its .venv."""
    drop = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "APISMITH_DEBUG", "PRE_COMMIT_HOME"}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("GIT_")}
    repo = str(REPO_ROOT.resolve())
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if p and not p.startswith(repo)
    )
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra or {})
    return env


def run(
    argv: list[str | Path],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in ``cwd`` with :func:`clean_env`; never raises on a non-zero exit."""
    return subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=clean_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def build_wheel(dest: Path) -> Path:
    """apismith's wheel, built from the working tree into ``dest``."""
    built = run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dest, REPO_ROOT],
        cwd=dest.parent,
        timeout=SLOW_TIMEOUT,
    )
    assert built.returncode == 0, describe(built)
    (wheel,) = dest.glob("apismith-*.whl")
    return wheel


@dataclass(frozen=True)
class Venv:
    root: Path

    def bin(self, name: str) -> Path:
        return self.root / "bin" / name

    def pip_install(self, *args: str | Path) -> None:
        proc = run(
            [self.bin("pip"), "install", "--disable-pip-version-check", "-q", *args],
            cwd=self.root,
            timeout=SLOW_TIMEOUT,
        )
        assert proc.returncode == 0, describe(proc)

    def apismith(
        self, *args: str | Path, cwd: Path, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        """This venv's ``apismith ARGS``, as a user runs it: never from inside the repo."""
        assert not cwd.resolve().is_relative_to(REPO_ROOT.resolve()), f"cwd in the repo: {cwd}"
        return run([self.bin("apismith"), *args], cwd=cwd, timeout=timeout)

    def python(self, code: str, *, cwd: Path) -> subprocess.CompletedProcess[str]:
        return run([self.bin("python"), "-c", code], cwd=cwd)


def make_venv(root: Path, *requirements: str | Path) -> Venv:
    """A fresh venv at ``root`` with ``requirements`` pip-installed (dependencies from the
    package index)."""
    made = run([sys.executable, "-m", "venv", root], cwd=root.parent, timeout=SLOW_TIMEOUT)
    assert made.returncode == 0, describe(made)
    venv = Venv(root)
    if requirements:
        venv.pip_install(*requirements)
    return venv


FINGERPRINT_CODE = (
    "import json; from generator.manifest import generator_fingerprint; "
    "print(json.dumps(generator_fingerprint(), sort_keys=True))"
)


def fingerprint_of(proc: subprocess.CompletedProcess[str]) -> dict[str, str]:
    assert proc.returncode == 0, describe(proc)
    fingerprint: dict[str, str] = json.loads(proc.stdout)
    return fingerprint


# --- git --------------------------------------------------------------------------------------


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``git -C cwd ARGS`` (on the repo itself: read-only commands only); must succeed."""
    proc = run(["git", "-C", cwd, *args], cwd=cwd.parent)
    assert proc.returncode == 0, describe(proc)
    return proc


def git_init(root: Path) -> None:
    git("init", "-q", "-b", "main", cwd=root)
    git("config", "user.email", "tests@apismith.invalid", cwd=root)
    git("config", "user.name", "apismith tests", cwd=root)
    git("config", "commit.gpgsign", "false", cwd=root)


def git_commit_all(root: Path, message: str) -> None:
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", message, cwd=root)


def snapshot_repo(dest: Path) -> Path:
    """A git repo at ``dest`` whose one commit is the apismith working tree as it is now:
    tracked and untracked files, not the ignored ones.

    ``pre-commit try-repo PATH`` uses PATH's HEAD plus its modified *tracked* files only
    (``git add -u``), so a file not committed yet (this repo's ``.pre-commit-hooks.yaml``
    or a new module, before the commit that adds them) would be missing from it.
    """
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO_ROOT)
    dest.mkdir(parents=True)
    for name in filter(None, listed.stdout.split("\0")):
        source = REPO_ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is left out
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    git_init(dest)
    git_commit_all(dest, "snapshot of the apismith working tree")
    return dest


# --- editing files ----------------------------------------------------------------------------


def flip_one_byte(path: Path) -> bytes:
    """Change one ASCII letter near the middle of ``path``; return the original bytes."""
    original = path.read_bytes()
    data = bytearray(original)
    middle = len(data) // 2
    index = next(i for i in [*range(middle, len(data)), *range(middle)] if chr(data[i]).isalpha())
    data[index] = ord("x") if data[index] != ord("x") else ord("y")
    path.write_bytes(bytes(data))
    return original


def wheel_venv(shared: Path) -> Venv:
    """apismith installed from its wheel into a venv under ``shared`` (built once for
    every pytest-xdist worker of the run, under a lock). apismith comes from the wheel;
    its dependencies are the test venv's own (a ``.pth`` line naming its site-packages,
    whose own ``.pth`` files, the editable install among them, are not processed), so no
    download is needed."""
    import fcntl
    import site

    root = shared / "apismith-wheel-venv"
    shared.mkdir(parents=True, exist_ok=True)
    with (shared / "apismith-wheel-venv.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        venv = Venv(root)
        if (root / ".ready").is_file():
            return venv
        shutil.rmtree(root, ignore_errors=True)
        wheel = build_wheel(shared / "apismith-wheel")
        venv = make_venv(root)
        version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
        pth = root / "lib" / version / "site-packages" / "apismith-test-deps.pth"
        pth.write_text("\n".join(deps) + "\n")
        venv.pip_install("--no-deps", wheel)
        (root / ".ready").write_text("ok\n")
        return venv


@dataclass(frozen=True)
class Measured:
    """A finished process: exit code, output, and what it and its waited-for descendants
    used (CPU seconds, user + system; peak resident memory in bytes)."""

    returncode: int
    stdout: str
    stderr: str
    cpu_seconds: float
    max_rss: int
    args: list[str]

    def describe(self) -> str:
        return (
            f"$ {' '.join(self.args)}\nexit {self.returncode}, {self.cpu_seconds:.2f} CPU-s,"
            f" {self.max_rss / 2**20:.0f} MiB\n--- stdout\n{self.stdout[-3000:]}"
            f"\n--- stderr\n{self.stderr[-3000:]}"
        )


def run_measured(
    argv: list[str | Path],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    cpu_limit: int = 60,
    hang_guard: float = 900.0,
) -> Measured:
    """Run ``argv`` (in :func:`clean_env`) and measure it with ``os.wait4``: CPU time and
    peak memory, bounds that do not depend on how busy the machine is. ``cpu_limit``
    (RLIMIT_CPU) ends a runaway; ``hang_guard`` only ends a process that never exits
    (blocked, using no CPU), long after any healthy run."""
    import resource
    import signal
    import tempfile
    import threading

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 5))
        os.setsid()

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [str(a) for a in argv], cwd=cwd, env=clean_env(env), stdout=out, stderr=err,
            stdin=subprocess.DEVNULL, preexec_fn=limits,
        )  # fmt: skip
        guard = threading.Timer(hang_guard, lambda: os.killpg(proc.pid, signal.SIGKILL))
        guard.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            guard.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Measured(
            proc.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
            usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss * 1024,  # (KiB on Linux)
            [str(a) for a in argv],
        )
