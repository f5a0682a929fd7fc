"""The README's quickstart runs verbatim, and every relative link in the docs resolves.

The quickstart is the one ```sh block of README.md's "Quickstart" section. It is run as
is, with ``bash -euo pipefail`` in an empty directory, with this venv's ``bin`` first on
PATH (so ``apismith`` and ``python`` are the ones under test) and no PYTHONPATH.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

README = REPO_ROOT / "README.md"
DOCS = sorted((REPO_ROOT / "docs").glob("*.md"))
MAX_QUICKSTART_LINES = 40
TIMEOUT = 180

FENCE = re.compile(r"^(```+|~~~+)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
HTML_ANCHOR = re.compile(r"""<a\s+(?:name|id)=["']([^"']+)["']""")


# --- Markdown helpers ------------------------------------------------------------------------


def prose_lines(text: str) -> list[tuple[int, str]]:
    """``(line number, line)`` for every line outside fenced code blocks."""
    result = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line.lstrip())
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            result.append((number, line))
    return result


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor a Markdown file defines (headings, with GitHub's -1, -2 suffixes)."""
    text = path.read_text(encoding="utf-8")
    seen: dict[str, int] = {}
    result = set(HTML_ANCHOR.findall(text))
    for _, line in prose_lines(text):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def section(text: str, title: str) -> list[str]:
    """The lines of the ``## title`` section: its heading up to the next heading of its level
    or above, without trailing blank lines."""
    lines = text.splitlines()
    outside = {number for number, _ in prose_lines(text)}
    start = level = None
    end = len(lines)
    for number, line in enumerate(lines, 1):
        match = HEADING.match(line) if number in outside else None
        if not match:
            continue
        if start is None and match.group(2) == title:
            start, level = number, len(match.group(1))
        elif start is not None and level is not None and len(match.group(1)) <= level:
            end = number - 1
            break
    assert start is not None, f"README.md has no section {title!r}"
    body = lines[start - 1 : end]
    while body and not body[-1].strip():
        body.pop()
    return body


def sh_blocks(lines: list[str]) -> list[str]:
    """The contents of every ```sh fenced block in ``lines``."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in lines:
        if current is None and re.fullmatch(r"```(sh|bash|shell)\s*", line):
            current = []
        elif current is not None and line.strip() == "```":
            blocks.append("\n".join(current) + "\n")
            current = None
        elif current is not None:
            current.append(line)
    assert current is None, "an unclosed ```sh block"
    return blocks


def quickstart() -> tuple[list[str], str]:
    lines = section(README.read_text(encoding="utf-8"), "Quickstart")
    blocks = sh_blocks(lines)
    assert len(blocks) == 1, f"the Quickstart needs exactly one ```sh block, found {len(blocks)}"
    return lines, blocks[0]


# --- the quickstart ------------------------------------------------------------------------


def test_quickstart_is_short() -> None:
    lines, _ = quickstart()
    assert len(lines) <= MAX_QUICKSTART_LINES, (
        f"the Quickstart section has {len(lines)} lines (heading and code block included);"
        f" at most {MAX_QUICKSTART_LINES}"
    )


def test_quickstart_comes_first() -> None:
    """Right after the short intro: the Quickstart is the README's first section."""
    headings = [line for _, line in prose_lines(README.read_text(encoding="utf-8"))]
    sections = [line for line in headings if line.startswith("## ")]
    assert sections and sections[0] == "## Quickstart", sections[:3]
    assert "make test" in README.read_text(encoding="utf-8"), "the README names the test command"


@pytest.mark.slow
def test_quickstart_runs_verbatim(tmp_path: Path) -> None:
    _, script = quickstart()
    work = tmp_path / "quickstart"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "APISMITH_DEBUG")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    log = tmp_path / "output.txt"
    with log.open("wb") as output:
        # Output to a file, not a pipe, and a session of its own: a mock server the script
        # left running (after a failure) neither blocks the wait nor outlives the test.
        proc = subprocess.Popen(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            code: int | None = proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
    text = log.read_text(encoding="utf-8", errors="replace")
    shown = f"--- script ---\n{script}--- output ---\n{text[-8000:]}"
    assert code is not None, f"the quickstart did not finish within {TIMEOUT} s\n{shown}"
    assert code == 0, f"the quickstart exited {code}\n{shown}"
    # the steps it shows: a typed answer, a clean check, then drift found with exit 1
    assert "id=" in text, shown
    assert "pets: up to date" in text, shown
    assert re.search(r"pets: drifted: \S*vendor/pets/models\.py", text), shown
    assert "exit 1: drift" in text, shown


# --- links -----------------------------------------------------------------------------------


def relative_links(path: Path) -> list[tuple[int, str]]:
    """``(line, target)`` of every relative link or image outside code."""
    result = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        line = CODE_SPAN.sub("", line)
        for pattern in (LINK, IMAGE):
            for target in pattern.findall(line):
                if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                    result.append((number, target))
    return result


@pytest.mark.parametrize("doc", [README, *DOCS], ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_relative_links_resolve(doc: Path) -> None:
    broken = []
    for number, target in relative_links(doc):
        file_part, _, anchor = target.partition("#")
        where = (doc.parent / file_part).resolve() if file_part else doc
        name = f"{doc.relative_to(REPO_ROOT)}:{number}: {target}"
        if not where.exists():
            broken.append(f"{name} (no such file)")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            broken.append(f"{name} (no heading #{anchor} in {where.name})")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_link_helpers() -> None:
    assert slug("`[tool.apismith]` in `pyproject.toml`") == "toolapismith-in-pyprojecttoml"
    assert slug("`upgrade`: OpenAPI 3.0 → 3.1") == "upgrade-openapi-30--31"
    line = "see [a](docs/a.md#x), `[b](no.md)` and [c](https://example.com) ![i](img.png)"
    doc = "\n".join(["```", "[d](code.md)", "```", line])
    assert [t for _, t in prose_lines(doc)] == [line]
    assert LINK.findall(CODE_SPAN.sub("", line)) == ["docs/a.md#x", "https://example.com"]
    assert IMAGE.findall(line) == ["img.png"]
