"""Generation is deterministic: two runs under different hash seeds give the same bytes, and
those bytes are the committed generated/<package>/."""

from __future__ import annotations

import difflib
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import GENERATED, PACKAGES, SPECS, cli_env, tree_bytes

APIS = ["llm-engine", "sgp"]
SEEDS = ["0", "12345"]


@dataclass(frozen=True)
class Run:
    out: Path
    returncode: int
    output: str


def first_difference(a: dict[str, bytes], b: dict[str, bytes], a_name: str, b_name: str) -> str:
    """'' when equal; else the file lists or a unified diff of the first differing file."""
    if a == b:
        return ""
    if sorted(a) != sorted(b):
        return f"files differ: {a_name}: {sorted(a)}\n{b_name}: {sorted(b)}"
    differing = sorted((n for n in a if a[n] != b[n]), key=lambda n: (n == "MANIFEST.json", n))
    name = differing[0]  # the manifest only echoes the others' hashes: show it last
    try:
        left = a[name].decode().splitlines(keepends=True)
        right = b[name].decode().splitlines(keepends=True)
    except UnicodeDecodeError:
        return f"{name}: binary contents differ"
    diff = "".join(difflib.unified_diff(left, right, f"{a_name}/{name}", f"{b_name}/{name}", n=2))
    lines = diff.splitlines()
    shown = "\n".join(lines[:80]) + (
        f"\n... {len(lines) - 80} more lines" if len(lines) > 80 else ""
    )
    return (
        f"differing files: {', '.join(differing)}; first: {name}\n"
        f"{shown or '(differs only in line endings or bytes)'}"
    )


def generate_twice(api: str, root: Path) -> dict[str, Run]:
    """Generate ``api`` once per seed, concurrently, each from its own empty cwd."""
    procs = []
    for seed in SEEDS:
        target = root / f"seed{seed}" / PACKAGES[api]
        cwd = root / f"cwd-seed{seed}"
        cwd.mkdir(parents=True)
        command = [
            sys.executable,
            "-m",
            "generator",
            "generate",
            "--config",
            str(SPECS / f"{api}.toml"),
            "--out",
            str(target),
        ]
        proc = subprocess.Popen(
            command,
            cwd=cwd,
            env=cli_env({"PYTHONHASHSEED": seed}),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        procs.append((seed, target, proc))
    runs = {}
    for seed, target, proc in procs:
        stdout, stderr = proc.communicate(timeout=600)
        runs[seed] = Run(target, proc.returncode, stdout + stderr)
    return runs


@pytest.mark.parametrize("api", APIS)
def test_deterministic_and_committed(api: str, tmp_path: Path) -> None:
    """Both seeds give identical bytes, identical to generated/<package>/."""
    runs = generate_twice(api, tmp_path)
    for seed, run in runs.items():
        assert run.returncode == 0, f"generate {api} (PYTHONHASHSEED={seed}): {run.output}"
    a, b = (tree_bytes(runs[seed].out) for seed in SEEDS)
    problem = first_difference(a, b, f"PYTHONHASHSEED={SEEDS[0]}", f"PYTHONHASHSEED={SEEDS[1]}")
    assert not problem, f"{api} output depends on the hash seed\n{problem}"
    committed = tree_bytes(GENERATED / PACKAGES[api])
    assert committed, f"generated/{PACKAGES[api]} is not committed"
    problem = first_difference(committed, a, f"generated/{PACKAGES[api]}", "regenerated")
    assert not problem, f"{api}: committed output differs from a fresh generation\n{problem}"
