"""Helpers of the docs tests: the rendered docs of each API (in memory, computed once per
worker), their files written into a tmp dir, Markdown parsing (fences, tables, anchors),
and the generated mock server under uvicorn on 127.0.0.1 with a free port."""

from __future__ import annotations

import html
import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import httpx

from generator.config import load_config
from generator.ir import Api, build_ir
from generator.pipeline import load_and_normalize
from generator.render.docs import render_docs
from generator.render.settings import bind_settings
from tests.conftest import GENERATED, SPECS, cli_env

APIS = {"llm-engine": "llm_engine", "sgp": "sgp", "sgp-chat-request": "sgp_chat_request"}
SERVED = {"llm-engine": "llm_engine", "sgp": "sgp"}
ENV = {
    "llm_engine": {"SCALE_API_KEY": "test-key", "LLM_ENGINE_BASE_PATH": "{url}"},
    "sgp": {
        "SGP_API_KEY": "test-key",
        "SGP_ACCOUNT_ID": "acc-test",
        "SGP_CLIENT_BASE_URL": "{url}",
    },
}


@dataclass(frozen=True)
class Rendered:
    api: Api
    files: dict[str, str]

    def page(self, name: str) -> str:
        return self.files[f"docs/pages/{name}"]

    @property
    def pages(self) -> dict[str, str]:
        """The Markdown pages, by name (the stylesheet is not a page)."""
        return {
            k.removeprefix("docs/pages/"): v
            for k, v in self.files.items()
            if k.startswith("docs/pages/") and k.endswith(".md")
        }


@cache
def rendered(name: str) -> Rendered:
    config = load_config(SPECS / f"{name}.toml")
    _doc, normalized = load_and_normalize(config)
    api = build_ir(normalized.spec)
    files = render_docs(api, config, bind_settings(config, api), None, normalized.diagnostics)
    return Rendered(api, files)


def write(files: dict[str, str], root: Path) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


# --- Markdown ----------------------------------------------------------------------------------

# a fence at the start of a line, or indented in a tab (``=== "Python"``), closed by the
# same fence at the same indentation
_FENCE = re.compile(r"^( *)(`{3,})(\w*)\n(.*?)\n\1\2$", re.M | re.S)


def fences(text: str, lang: str) -> list[tuple[int, str]]:
    """(line number, code) of each fenced block in ``lang`` (a tab's indentation removed)."""
    return [
        (text.count("\n", 0, m.start()) + 1, _dedent(m.group(4), len(m.group(1))))
        for m in _FENCE.finditer(text)
        if m.group(3) == lang
    ]


def _dedent(code: str, width: int) -> str:
    return "\n".join(line[width:] if line[:width].isspace() else line for line in code.split("\n"))


def split_row(line: str) -> list[str]:
    """The cells of a Markdown table row (``\\|`` and pipes inside code spans kept)."""
    cells, current, i, ticks = [], "", 0, 0
    body = line.strip()[1:-1] if line.strip().startswith("|") else line.strip()
    while i < len(body):
        ch = body[i]
        if ch == "`":
            run = len(body[i:]) - len(body[i:].lstrip("`"))
            ticks = 0 if ticks == run else (run if ticks == 0 else ticks)
            current += "`" * run
            i += run
            continue
        if ch == "\\" and i + 1 < len(body) and body[i + 1] == "|":
            current += "|"
            i += 2
            continue
        if ch == "|" and ticks == 0:
            cells.append(current.strip())
            current = ""
        else:
            current += ch
        i += 1
    cells.append(current.strip())
    return cells


def tables(text: str) -> list[list[dict[str, str]]]:
    """Every Markdown table of ``text`` as rows keyed by the header cells, and every group
    of field blocks (``field_blocks``) as the table it replaces, in page order (a table
    inside a field's description is part of the field's description)."""
    out: list[list[dict[str, str]]] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines) - 1:
        if lines[i] == FIELDS_OPEN:
            rows, i = field_blocks(lines, i)
            out.append(rows)
        elif lines[i].startswith("|") and re.fullmatch(r"\|(\s*-+\s*\|)+", lines[i + 1].strip()):
            header = split_row(lines[i])
            rows = []
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                rows.append(dict(zip(header, split_row(lines[j]), strict=True)))
                j += 1
            out.append(rows)
            i = j
        else:
            i += 1
    return out


FIELDS_OPEN = '<div class="api-fields" markdown="1">'
_HEAD_PART = re.compile(r'<span class="api-(name|type|badge api-\w+)">(.*?)</span>(?= <span|</p>)')
_SUMMARY = re.compile(r'<summary markdown="span">Fields of (.*)</summary>')


def field_blocks(lines: list[str], i: int) -> tuple[list[dict[str, str]], int]:
    """The field blocks of ``generator/render/docs/tables.py`` opened at ``lines[i]`` as the
    rows of the table they replace (``field`` or, for parameters, ``name`` and ``in``;
    ``type``, ``required``, ``default`` and ``constraints`` if a row has one, and
    ``description``; a nested field named ``↳ parent.child``), and the line after them."""
    rows: list[dict[str, str]] = []
    paths: list[str] = []  # the dotted path of each open level of nested fields
    desc: list[str] | None = None
    divs = 0  # open <div>s: the group ends when its own closes
    for j in range(i, len(lines)):
        line = lines[j]
        if desc is not None:
            if line == "</div>":
                rows[-1]["description"] = "\n".join(desc).strip("\n")
                rows[-1]["default"] = rows[-1]["default"] or _long_default(desc)
                desc = None
                divs -= 1
            else:
                desc.append(line)
            continue
        if line.startswith("<div"):
            divs += 1
            if line == '<div class="api-desc" markdown="1">':
                desc = []
        elif line == "</div>":
            divs -= 1
            if divs == 0:
                return _as_table(rows), j + 1
        elif line.startswith('<p class="api-head"'):
            rows.append(_head(line, paths))
        elif m := _SUMMARY.match(line):
            paths.append(m.group(1).strip("`"))
        elif line == "</details>":
            paths.pop()
    return _as_table(rows), len(lines)


def _long_default(desc: list[str]) -> str:
    """A default too long for its badge: the code block after its ``Default:`` summary, as
    compact JSON (as ``as_json`` writes it)."""
    text = "\n".join(desc)
    m = re.search(r'<summary markdown="span">Default: .*?<pre><code>(.*?)</code></pre>', text, re.S)
    if m is None:
        return ""
    value = json.loads(html.unescape(m.group(1)))
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _head(line: str, paths: list[str]) -> dict[str, str]:
    parts = dict(m.groups() for m in _HEAD_PART.finditer(line))
    name = f"`{paths[-1]}.{parts['name'].strip('`')}`" if paths else parts["name"]
    return {
        "name": "↳ " * len(paths) + name,
        "in": parts.get("badge api-in", ""),
        "type": parts.get("type", ""),
        "required": parts.get("badge api-required", ""),
        "default": parts.get("badge api-default", "").removeprefix("default "),
        "constraints": "<br>".join(
            m.group(2) for m in _HEAD_PART.finditer(line) if m.group(1) == "badge api-constraint"
        ),
        "description": "",
    }


def _as_table(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Rows keyed as the old tables' columns: sparse ``default``/``constraints`` only if a
    row has one, ``in`` only for parameters."""
    keys = ["name", "in"] if any(r["in"] for r in rows) else ["field"]
    keys += ["type", "required"]
    keys += [k for k in ("default", "constraints") if any(r[k] for r in rows)]
    keys.append("description")
    return [{k: r["name" if k == "field" else k] for k in keys} for r in rows]


def section(text: str, anchor: str) -> str:
    """The part of a page from ``<a id="anchor">`` to the next anchor of the same kind."""
    start = text.index(f'<a id="{anchor}"></a>')
    kind = anchor.split("-", 1)[0]
    nxt = text.find(f'<a id="{kind}-', start + 1)
    return text[start : nxt if nxt != -1 else len(text)]


def plain(cell: str) -> str:
    """A cell's text without code ticks or ``<code>`` tags, links' targets and the nesting
    arrow, its entities read."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", cell)
    text = re.sub(r"</?code>", "", text.replace("`", "").replace("↳", ""))
    return html.unescape(text).strip()


# --- the mock server -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def mock_server(package: str, log: Path) -> Iterator[str]:
    """``python -m <package>.server`` (the committed package) on a free port; its URL."""
    port = free_port()
    with log.open("w", encoding="utf-8") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", f"{package}.server", "--host", "127.0.0.1", "--port", str(port)],
            cwd=log.parent,
            env=cli_env({"PYTHONPATH": str(GENERATED)}),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"server exited: {log.read_text(encoding='utf-8')[-3000:]}")
                try:
                    httpx.get(f"{url}/openapi.json", timeout=2)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline:
                        raise RuntimeError("server did not start within 60 s") from None
                    time.sleep(0.2)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover
                proc.kill()
                proc.wait()


_EXAMPLE_TAB = re.compile(r'^=== "(\w+)"\n\n( {4})(`{3,})json\n(.*?)\n\2\3$', re.M | re.S)


def response_examples(text: str) -> dict[str, str]:
    """An operation section's response examples (its ``Response:`` tabs): status -> JSON."""
    part = text.split("\nResponse:\n", 1)[1] if "\nResponse:\n" in text else ""
    part = re.split(r"\n#{1,4} ", part, maxsplit=1)[0]
    return {m.group(1): _dedent(m.group(4), 4) for m in _EXAMPLE_TAB.finditer(part)}
