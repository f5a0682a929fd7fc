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

Lists survive: in prose (``markdown``) a list that interrupts a paragraph gets the blank
line Python-Markdown (mkdocs) needs before it, and in a table cell (``cell``, one line)
each item starts a ``<br>`` line with a bullet. Both split list items that a docstring's
line continuation ran together (``- a.            - b.``, SGP's chat ``role`` docs).
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
# a list item: its indentation, its marker (a bullet, or a number and ``.`` or ``)``)
_ITEM = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+(?=\S)")


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


def _width(indent: str) -> int:
    return len(indent.expandtabs(4))


def _split_items(line: str) -> list[str]:
    """A bullet item holding more items that a line continuation ran into it
    (``- a.            - b.``), one item per line. Only a run of two or more spaces before
    the item's own marker splits, and never inside a code span."""
    m = _ITEM.match(line)
    if m is None or m.group(2) not in ("-", "*", "+"):
        return [line]
    run_on = re.compile(r"[ \t]{2,}(?=" + re.escape(m.group(2)) + r"[ \t]+\S)")
    spans = [(c.start(), c.end()) for c in _CODE_SPAN.finditer(line)]
    pieces: list[str] = []
    last = 0
    for r in run_on.finditer(line, m.end()):
        if not any(a <= r.start() < b for a, b in spans):
            pieces.append(line[last : r.start()])
            last = r.end()
    pieces.append(line[last:])
    return [pieces[0], *(m.group(1) + p for p in pieces[1:])]


def _starts_item(m: re.Match[str] | None, after_text: bool) -> bool:
    """Whether a line matched by ``_ITEM`` starts a list item; right after a paragraph line
    only a bullet or ``1.`` does (CommonMark's rule for a list interrupting a paragraph)."""
    if m is None:
        return False
    return not after_text or not m.group(2)[0].isdigit() or m.group(2)[:-1] == "1"


def _list_lines(lines: list[str]) -> list[str]:
    """Prose lines with run-on items split, and a blank line before a list that interrupts
    a paragraph: CommonMark (GitHub) allows that, Python-Markdown (mkdocs) needs the blank
    line or reads the items as the paragraph's text. A nested item indented less than
    four columns past the list's first item gets four (GitHub nests it either way;
    Python-Markdown only then). Indented code is left alone."""
    out: list[str] = []
    in_list = False
    base = 0  # the indentation of the current list's first item
    gap = True  # at the start, or after a blank line
    for line in lines:
        if not line.strip():
            out.append(line)
            gap = True
            continue
        m = _ITEM.match(line)
        indent = _width(line[: len(line) - len(line.lstrip(" \t"))])
        if (in_list or indent < 4) and _starts_item(m, not gap and not in_list):
            if not gap and not in_list:
                out.append("")
            if not in_list:
                base = indent
            elif base < indent < base + 4:
                line = " " * (base + 4) + line.lstrip(" \t")
            in_list = True
            out.extend(_split_items(line))
        else:
            if gap and indent < 2:
                in_list = False
            out.append(line)
        gap = False
    return out


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
            block = "\n".join(_list_lines(prose))
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
    """Spec text inside a table cell, which Markdown keeps on one line: ``|`` escaped
    outside code spans; paragraphs apart by an empty line (``<br><br>``); each list item,
    line of fenced code and table row on a line of its own (``<br>``).

    A list item reads ``• item`` (``◦`` nested; an ordered item keeps its number), not
    ``<ul><li>``: Python-Markdown (mkdocs) reads a cell as inline text, where a block tag is
    out of place, and mkdocs-material's list margins would stretch the row; ``<br>`` lines
    render the same on GitHub and in the site, and match the cell's other ``<br>`` lines."""
    if not text:
        return ""
    return "".join(
        sep + marker + (body if kind == "code" else _cell_line(body))
        for sep, marker, body, kind in _cell_pieces(text)
    )


def _cell_pieces(text: str) -> list[list[str]]:
    """[separator before it, marker, spec text, kind] of each line of a cell: the separator
    is ``<br><br>`` after a blank line, else ``<br>`` ("" first); kind is ``text``, ``item``,
    ``row`` (of a table) or ``code`` (a ready code span)."""
    pieces: list[list[str]] = []  # [separator, marker, text, kind]
    gap = False
    fence: str | None = None
    base: int | None = None  # the indentation of the current list's first item

    def add(marker: str, body: str, kind: str) -> None:
        sep = "" if not pieces else "<br><br>" if gap else "<br>"
        pieces.append([sep, marker, body, kind])

    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        m = _FENCE.match(line)
        if fence is not None:
            if m and m.group(2)[0] == fence[0] and len(m.group(2)) >= len(fence):
                fence = None
            elif line.strip():
                add("", code(line), "code")
                gap = False
            continue
        if m:
            fence = m.group(2)
            continue
        if not line.strip():
            gap = True
            continue
        item = _ITEM.match(line)
        if item is not None:
            width = _width(item.group(1))
            base = width if base is None or width < base else base
            bullet = item.group(2) in ("-", "*", "+")
            marker = ("◦ " if width >= base + 2 else "• ") if bullet else item.group(2) + " "
            for one in _split_items(line):
                start = (_ITEM.match(one) or item).end()
                add(("&emsp;" if width >= base + 2 else "") + marker, one[start:], "item")
                gap = False
            continue
        if line.lstrip().startswith("|"):
            add("", line, "row")
        elif pieces and not gap and pieces[-1][3] in ("text", "item"):
            pieces[-1][2] += " " + line.strip()
        else:
            if gap:
                base = None
            add("", line, "text")
        gap = False
    return pieces


def _cell_line(text: str) -> str:
    """Spec text as one line of a cell, ``|`` escaped outside code spans."""
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
    if "`" not in value:
        return f"`{value}`"
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
