"""Stage 5: format Python sources with ruff (``check --fix`` then ``format``); ruff also
formats the Python code blocks of Markdown files, so the generated docs go through it too.

Runs ruff in isolated mode with its defaults, so the result does not depend on any
ruff configuration around the output directory: generated code then passes
``ruff check`` and ``ruff format --check`` under default settings anywhere.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from generator.errors import ApismithError

RUFF_ARGS = ("--isolated", "--target-version", "py310")


def ruff_binary() -> str:
    from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

    return str(find_ruff_bin())


def format_python(files: Mapping[str, str]) -> dict[str, str]:
    """Format every ``*.py`` and ``*.md`` entry of ``files`` (relative path -> text); others
    pass through."""
    py = {name: text for name, text in files.items() if name.endswith((".py", ".md"))}
    if not py:
        return dict(files)
    ruff = ruff_binary()
    with tempfile.TemporaryDirectory(prefix="apismith-fmt-") as tmp:
        root = Path(tmp)
        for name, text in py.items():
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        for args in (
            ("check", "--fix-only", "--exit-zero", "--quiet", "--extend-select", "I", *RUFF_ARGS),
            ("format", "--quiet", *RUFF_ARGS),
        ):
            proc = subprocess.run(
                [ruff, *args, "."], cwd=root, capture_output=True, text=True, check=False
            )
            if proc.returncode != 0:
                first = (proc.stderr or proc.stdout).strip().splitlines()
                raise ApismithError(
                    f"ruff {args[0]} failed on generated code: {first[0] if first else '?'}",
                    exit_code=1,
                )
        out = dict(files)
        for name in py:
            out[name] = (root / name).read_text(encoding="utf-8")
    return out
