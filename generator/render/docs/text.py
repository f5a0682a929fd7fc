"""Markdown helpers of the docs renderer: spec text is untrusted.

The spec's Markdown is kept as Markdown, but made safe for the site:

- no raw HTML: every ``<`` outside code becomes ``&lt;`` (so no tag, comment or script can
  be written); ``&`` is left alone, since an entity only ever renders as text;
- only ``http``, ``https`` and ``mailto`` links survive; any other link (``javascript:``,
  ``data:``, relative or anchor links, which would also break ``mkdocs build --strict``)
  keeps its text and loses its target;
- headings are pushed below the page's own headings;
- code blocks and code spans are left exactly as written (Markdown escapes them).

The functions that put spec text *inside* generated Markdown (``inline``, ``cell``,
``code``) escape what could change the page's structure (``|`` in tables, line breaks,
backticks).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.S)
_AUTOLINK = re.compile(r"<(https?://[^\s<>]+|mailto:[^\s<>]+)>")
# [text](dest "title") and ![alt](dest): dest without spaces or parentheses, or <dest>
_INLINE_LINK = re.compile(
    r"(!?)\[((?:[^\[\]\\]|\\.)*)\]\(\s*(<[^<>\n]*>|(?:[^\s()]|\([^\s()]*\))*)(\s+[^)]*)?\)"
)
# what is left of "](" not followed by a safe target can never start a link
_LEFTOVER = re.compile(r"\]\((?!\s*<?(?:https?://|mailto:))", re.I)
_REF_DEF = re.compile(r"^( {0,3})\[([^\]]+)\]:\s*(\S+).*$", re.M)
_SAFE_SCHEME = re.compile(r"^(https?://|mailto:)", re.I)
_HEADING = re.compile(r"^( {0,3})(#{1,6})(?=\s|$)", re.M)
_SETEXT = re.compile(r"^( {0,3})(=+|-+)\s*$", re.M)


def _safe_url(url: str) -> bool:
    return bool(_SAFE_SCHEME.match(url.strip("<>").strip()))


def _links(text: str) -> str:
    def inline_link(m: re.Match[str]) -> str:
        bang, label, dest = m.group(1), m.group(2), m.group(3)
        if bang or not _safe_url(dest):
            # images and unsafe targets: keep the words only
            return label
        return m.group(0)

    def ref_def(m: re.Match[str]) -> str:
        if _safe_url(m.group(3)):
            return m.group(0)
        return f"{m.group(1)}\\[{m.group(2)}\\]: {m.group(3)}"

    text = _INLINE_LINK.sub(inline_link, text)
    text = _LEFTOVER.sub("]\\(", text)
    return _REF_DEF.sub(ref_def, text)


def _prose(text: str, shift: int) -> str:
    """Escape one stretch of Markdown that holds no code."""
    autolinks: list[str] = []

    def keep(m: re.Match[str]) -> str:
        autolinks.append(m.group(0))
        return f"\x00{len(autolinks) - 1}\x00"

    text = _AUTOLINK.sub(keep, text)
    text = text.replace("<", "&lt;")
    text = _links(text)
    # attribute lists ({: onclick=...}) and Jinja/mkdocs macros must stay text
    text = text.replace("{", "&#123;").replace("}", "&#125;")
    if shift:

        def demote(m: re.Match[str]) -> str:
            level = min(6, len(m.group(2)) + shift)
            return m.group(1) + "#" * level

        text = _HEADING.sub(demote, text)
    text = re.sub(r"\x00(\d+)\x00", lambda m: autolinks[int(m.group(1))], text)
    return text


def _spans(text: str, shift: int) -> str:
    """Escape prose (headings pushed down ``shift`` levels), keep code spans as they are."""
    out: list[str] = []
    last = 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_prose(text[last : m.start()], shift))
        out.append(m.group(0))
        last = m.end()
    out.append(_prose(text[last:], shift))
    return "".join(out)


def markdown(text: str | None, floor: int = 4) -> str:
    """Spec Markdown made safe to embed in a page whose own headings stop above ``floor``.

    Fenced code is kept verbatim (an unclosed fence is closed at the end); the rest is
    escaped by ``_spans``. Setext underlines (``===``, ``---``) would make the line above
    a heading outside the page's outline: they are escaped into plain text."""
    if not text:
        return ""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    # the spec's top heading level becomes ``floor`` (an approximation: fenced lines count)
    levels = [len(m.group(2)) for m in _HEADING.finditer("\n".join(lines))]
    shift = max(0, floor - min(levels)) if levels else 0
    out: list[str] = []
    prose: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if prose:
            block = "\n".join(prose)
            block = _SETEXT.sub(
                lambda m: (
                    m.group(1) + ("&#61;" if m.group(2)[0] == "=" else "&#45;") + m.group(2)[1:]
                ),
                block,
            )
            out.append(_spans(block, shift))
            prose.clear()

    for line in lines:
        m = _FENCE.match(line)
        if fence is None:
            if m:
                flush()
                fence = m.group(2)
                # the info string is spec text too: keep only a plain language name
                info = line[m.end() :].strip()
                lang = info if re.fullmatch(r"[A-Za-z0-9_+-]{1,30}", info) else ""
                out.append("")
                out.append(f"{m.group(1)}{fence}{lang}")
            else:
                prose.append(line)
        else:
            out.append(line)
            if m and m.group(2)[0] == fence[0] and len(m.group(2)) >= len(fence):
                if not line[m.end() :].strip():
                    fence = None
                    out.append("")
    flush()
    if fence is not None:
        out.append(fence)
    return "\n".join(out).strip("\n")


def inline(text: str | None) -> str:
    """Spec text as one line of Markdown (a summary, a heading, a list item)."""
    if not text:
        return ""
    one = " ".join(text.split())
    one = _spans(one, 0)
    # a leading '#', '>', '-', '+', '*' or '1.' would start a block
    one = re.sub(r"^([#>+*-]|\d+[.)])", r"\\\1", one)
    return one


def cell(text: str | None) -> str:
    """Spec text inside a table cell: one line, ``|`` escaped outside code spans."""
    line = inline(text)
    out: list[str] = []
    last = 0
    for m in _CODE_SPAN.finditer(line):
        out.append(line[last : m.start()].replace("|", "\\|"))
        out.append(m.group(0))
        last = m.end()
    out.append(line[last:].replace("|", "\\|"))
    return "".join(out)


def code(value: str) -> str:
    """A code span holding ``value`` verbatim (any backticks inside are fenced around)."""
    value = " ".join(value.split())
    if not value:
        return "` `"
    runs = [len(r) for r in re.findall(r"`+", value)]
    ticks = "`" * (max(runs) + 1 if runs else 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{ticks}{pad}{value}{pad}{ticks}"


def fence(text: str, lang: str = "") -> str:
    """A fenced code block holding ``text`` verbatim (the fence outgrows any inside)."""
    runs = [len(r) for r in re.findall(r"^\s*(`{3,})", text, re.M)]
    ticks = "`" * max(3, max(runs, default=0) + 1)
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def as_json(value: Any, indent: int | None = None) -> str:
    """A JSON value as text: compact on one line, or indented."""
    if indent is None:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return json.dumps(value, ensure_ascii=False, indent=indent)


def constraints(c: Mapping[str, Any]) -> list[str]:
    """Constraints as users read them: ``0 <= x <= 2``, ``length <= 64``, ``pattern ...``."""
    out: list[str] = []
    low = (
        (">", c["exclusiveMinimum"])
        if "exclusiveMinimum" in c
        else (">=", c["minimum"])
        if "minimum" in c
        else None
    )
    high = (
        ("<", c["exclusiveMaximum"])
        if "exclusiveMaximum" in c
        else ("<=", c["maximum"])
        if "maximum" in c
        else None
    )
    if low and high:
        flip = {">": "<", ">=": "<="}
        out.append(f"{as_json(low[1])} {flip[low[0]]} x {high[0]} {as_json(high[1])}")
    elif low:
        out.append(f"x {low[0]} {as_json(low[1])}")
    elif high:
        out.append(f"x {high[0]} {as_json(high[1])}")
    for lo, hi, what in (("minLength", "maxLength", "length"), ("minItems", "maxItems", "items")):
        if lo in c and hi in c:
            out.append(f"{as_json(c[lo])} <= {what} <= {as_json(c[hi])}")
        elif lo in c:
            out.append(f"{what} >= {as_json(c[lo])}")
        elif hi in c:
            out.append(f"{what} <= {as_json(c[hi])}")
    if "multipleOf" in c:
        out.append(f"multiple of {as_json(c['multipleOf'])}")
    if "pattern" in c:
        out.append(f"pattern {c['pattern']}")
    return out
