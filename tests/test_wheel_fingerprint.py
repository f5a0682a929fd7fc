"""The generator fingerprint (MANIFEST.json "generator") is a property of apismith's
source, not of how it is installed: the wheel's equals the source tree's. Otherwise every
committed manifest would look stale to a user who installed apismith with pip.

Cheap: the wheel is unpacked with ``pip install --no-deps --target``; the dependencies are
the running interpreter's. The full non-editable venv is in tests/test_vendoring.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, describe
from tests.e2e_support import FINGERPRINT_CODE, build_wheel, fingerprint_of, run


def build_sdist(dest: Path) -> Path:
    """apismith's sdist, built from the working tree into ``dest`` (PyPA ``build``)."""
    built = run(
        [sys.executable, "-m", "build", "--sdist", "--outdir", dest, REPO_ROOT],
        cwd=dest.parent,
        timeout=600,
    )
    assert built.returncode == 0, describe(built)
    (sdist,) = dest.glob("apismith-*.tar.gz")
    return sdist


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_installed_fingerprint_equals_the_source_tree(tmp_path: Path, kind: str) -> None:
    """A wheel, and a wheel pip builds from the sdist, give the source tree's fingerprint."""
    (tmp_path / "dist").mkdir()
    if kind == "wheel":
        wheel = build_wheel(tmp_path / "dist")
    else:
        wheel = build_sdist(tmp_path / "dist")
    site = tmp_path / "site"
    unpacked = run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            *(["--no-index"] if kind == "wheel" else []),  # the sdist build needs hatchling
            "--target",
            site,
            wheel,
        ],
        cwd=tmp_path,
    )
    assert unpacked.returncode == 0, describe(unpacked)

    from_wheel = run(
        [
            sys.executable,
            "-c",
            f"import sys; sys.path.insert(0, {str(site)!r}); "
            "import generator; assert generator.__file__.startswith(sys.path[0]); "
            + FINGERPRINT_CODE,
        ],
        cwd=tmp_path,
    )
    from_source = run(
        [sys.executable, "-c", FINGERPRINT_CODE],
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO_ROOT)},
    )
    assert fingerprint_of(from_wheel) == fingerprint_of(from_source), (
        f"wheel:\n{describe(from_wheel)}\nsource tree:\n{describe(from_source)}"
    )
