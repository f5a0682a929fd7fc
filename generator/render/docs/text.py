r"""Markdown helpers of the docs renderer: spec text is untrusted.

Spec text reaches a page only through this module (``markdown``, ``inline``, ``cell``,
``code`` and ``python_md``), which escapes it once, for HTML and for Markdown, with one
guarantee: **no character of spec text that HTML or Markdown reads as markup reaches the
Markdown raw**, whatever Python-Markdown (mkdocs) decides is code.

- Outside code, every ``<`` becomes ``&lt;`` (no tag, comment, script or autolink can be
  written) and every backtick ``&#96;`` (so Markdown never sees a code span of the spec's:
  only those written here); ``{``/``}`` become entities (attribute lists, macros); ``&`` is
  left alone, since an entity only ever renders as text.
- Code, what the spec marks as code (code spans, found as Python-Markdown finds them, and
  fenced blocks) and what the docs show as code (``code``), is written here: as HTML,
  ``<code>``/``<pre><code>`` whose text has each character HTML or Markdown reads (``&<>``
  and ``\`*_[]{}|~``) as an entity, so it renders as the same text whether or not Markdown
  agrees it is code. A value with none of ``<\`|`` (``max_tokens``, ``"user"``,
  ``/v1/items/{id}``, ``detail[].loc``) stays a backtick span: Markdown reads it as code by
  construction (the only backticks of the page's spec text are those of such spans, each
  holding no backtick or backslash, which a table's cell splitting would read as escaping
  a backtick, and no ``|``, which splits a cell on GitHub even inside code).
- Links: only ``http``, ``https`` and ``mailto`` targets. A link to anything else
  (``javascript:``, ``data:``, relative or anchor links, which would also break ``mkdocs
  build --strict``) keeps its text and loses its target; then every ``](`` and ``]:`` left
  that is not followed by a safe target is escaped, so Markdown can read no other link or
  reference definition, and every ``![`` (no images). Autolinks (``<https://...>``) become
  ``<a>`` tags written here.
- Control characters are dropped (Python-Markdown's placeholders are made of them).
- Headings are pushed below the page's own headings; setext underlines are escaped.

``inline`` and ``cell`` also keep the text on one line and escape ``|`` (a table's cell
separator). ``python_md`` writes a Python annotation (which may hold a spec's ``Literal``
strings) the same way.

Lists survive: in prose (``markdown``) a list that interrupts a paragraph gets the blank
line Python-Markdown (mkdocs) needs before it, and in a table cell (``cell``, one line)
each item starts a ``<br>`` line with a bullet. Both split list items that a docstring's
line continuation ran together (``- a.            - b.``, SGP's chat ``role`` docs).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

# a fence (CommonMark: the info string of a backtick fence holds no backtick)
_FENCE = re.compile(r"^( {0,3})(`{3,}(?=[^`]*$)|~{3,})")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # after \r\n -> \n: keeps \t and \n
# Python-Markdown's BACKTICK_RE: pairs of backslashes before a backtick, or a backtick
_TICK = re.compile(r"(?<!\\)((?:\\{2})+)(?=`+)|(?<!\\)`")
# the text of code: HTML's characters and Markdown's, each as an entity
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", **{c: f"&#{ord(c)};" for c in "\\`*_[]{}|~"}}
_LITERAL = re.compile("[" + re.escape("".join(_ENTITIES)) + "]")
# what a backtick span must not hold: no "<" of the spec is raw; nothing ends or splits it
_MARKUP = re.compile(r"[<\\`|]")
_STASHED = re.compile(r"\x00(\d+)\x00")
# a Python annotation's names and string literals (which may hold spec text: ``Literal``)
_PY_TOKEN = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\b[A-Za-z_]\w*\b")
_AUTOLINK = re.compile(r"<(https?://[^\s<>\x00]+|mailto:[^\s<>\x00]+)>", re.I)
# [text](dest "title") and ![alt](dest): dest without spaces or parentheses, or <dest>
_INLINE_LINK = re.compile(
    r"(!?)\[((?:[^\[\]\\]|\\.)*)\]\(\s*(<[^<>\n]*>|(?:[^\s()]|\([^\s()]*\))*)(\s+[^)]*)?\)"
)
_SAFE_TARGET = r"\s*(?:https?://|mailto:)"
# a "](" or "]:" not followed by a safe target, and a "![", after their backslashes
_UNSAFE_LINK = re.compile(r"(\\*)(\](?=[(:])(?![(:]" + _SAFE_TARGET + r")|!(?=\[))", re.I)
_ESCAPED_TICK = re.compile(r"(\\*)`")
_SAFE_SCHEME = re.compile(r"^(https?://|mailto:)", re.I)
_HEADING = re.compile(r"^( {0,3})(#{1,6})(?=\s|$)", re.M)
_SETEXT = re.compile(r"^( {0,3})(=+|-+)\s*$", re.M)
_EXT_MARK = re.compile(r"^( {0,3})(===|\?\?\?|!!!|:)(?=[ \t+])", re.M)  # tabs, details, dl
# a list item: its indentation, its marker (a bullet, or a number and ``.`` or ``)``)
_ITEM = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+(?=\S)")


def _clean(text: str) -> str:
    """Spec text with ``\\n`` line ends and no control character but tabs and newlines."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def _literal(text: str) -> str:
    """``text`` as HTML text that Markdown leaves alone: each markup character an entity."""
    return _LITERAL.sub(lambda m: _ENTITIES[m.group(0)], text)


class _Stash:
    """HTML written here, kept out of the escaping of the text around it as ``\\x00N\\x00``
    (spec text holds no control character: ``_clean``)."""

    def __init__(self) -> None:
        self.html: list[str] = []

    def put(self, html: str) -> str:
        self.html.append(html)
        return f"\x00{len(self.html) - 1}\x00"

    def restore(self, text: str) -> str:
        return _STASHED.sub(lambda m: self.html[int(m.group(1))], text)


_RUN = re.compile(r"`+")


def _pair(text: str, begin: int) -> tuple[int, int | None]:
    """Where the code of the span opened by the backticks at ``begin`` starts and ends (None:
    no span), as Python-Markdown's ``BacktickInlineProcessor.find_code_spans`` reads it: the
    next run of as many backticks closes; failing one, the first of the longest shorter
    runs does, with the opening trimmed to its length."""
    start = begin
    while start < len(text) and text[start] == "`":
        start += 1
    ticks = start - begin
    longest, end = 0, 0
    for run in _RUN.finditer(text, start):
        length = run.end() - run.start()
        if length == ticks:
            return start, run.start()
        if length > longest:
            longest, end = length, run.start()
    if 0 < longest < ticks:
        return start - (ticks - longest), end
    return start, None


def _code_spans(line: str) -> list[tuple[int, int, str]]:
    """(start, end, code) of each code span of one line, found as Python-Markdown finds
    them: backslash pairs before a backtick are text, and the backtick is not escaped."""
    spans: list[tuple[int, int, str]] = []
    pos = 0
    while (m := _TICK.search(line, pos)) is not None:
        begin = m.end() if m.group(1) else m.start()  # the backtick, after any pairs
        start, end = _pair(line, begin)
        if end is None:
            pos = start
            continue
        close = end + (start - begin)
        spans.append((begin, close, line[start:end]))
        pos = close
    return spans


def _safe_url(url: str) -> bool:
    return bool(_SAFE_SCHEME.match(url.strip("<>").strip()))


def _autolink(url: str) -> str:
    """An ``<a>`` tag for a safe URL: its target percent-encoded, its text literal."""
    href = quote(url, safe="/:?#@!$&'()*+,;=%-._~").replace("&", "&amp;").replace("'", "%27")
    return f'<a href="{href}">{_literal(url)}</a>'


def _unescaped(backslashes: str) -> str:
    """The backslashes before a character that becomes an entity: pairs stay (each shows
    one backslash), an odd one, which escaped the character, goes."""
    return backslashes[: len(backslashes) // 2 * 2]


def _links(text: str) -> str:
    """Links to unsafe targets and images reduced to their words; then whatever Markdown
    could still read as another link, reference definition or image becomes an entity
    (even after a backslash: Python-Markdown reads a reference definition unescaped)."""

    def inline_link(m: re.Match[str]) -> str:
        bang, label, dest = m.group(1), m.group(2), m.group(3)
        if bang or not _safe_url(dest):
            return label
        return m.group(0)

    text = _INLINE_LINK.sub(inline_link, text)
    return _UNSAFE_LINK.sub(lambda m: _unescaped(m.group(1)) + f"&#{ord(m.group(2))};", text)


def _prose(text: str, shift: int, stash: _Stash, pipes: bool = False) -> str:
    """Escape spec Markdown whose code is stashed (headings pushed down ``shift`` levels,
    ``|`` escaped with ``pipes``)."""
    text = _AUTOLINK.sub(lambda m: stash.put(_autolink(m.group(1))), text)
    text = text.replace("<", "&lt;")
    # a backtick escaped by the spec or not: an entity (backslash pairs stay text)
    text = _ESCAPED_TICK.sub(lambda m: _unescaped(m.group(1)) + "&#96;", text)
    # attribute lists ({: onclick=...}) and Jinja/mkdocs macros must stay text
    text = text.replace("{", "&#123;").replace("}", "&#125;")
    text = _links(text)
    if shift:

        def demote(m: re.Match[str]) -> str:
            level = min(6, len(m.group(2)) + shift)
            return m.group(1) + "#" * level

        text = _HEADING.sub(demote, text)
    if pipes:
        text = text.replace("|", "\\|")
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
    spans = [(a, b) for a, b, _ in _code_spans(line)]
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
    line or reads the items as the paragraph's text (so does a pipe table: raw ``| --- |``).
    A nested item indented less than four columns past the list's first item gets four
    (GitHub nests it either way; Python-Markdown only then). Indented code is left alone."""
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
            if not gap and line.lstrip().startswith("|") and out[-1].lstrip()[:1] != "|":
                out.append("")  # a table after a paragraph line is its text, else
            out.append(line)
        gap = False
    return out


def _escape(text: str, shift: int, pipes: bool = False) -> str:
    """Spec Markdown without fenced code, escaped: the code spans of each line become
    ``code``, the rest ``_prose`` (headings pushed down ``shift`` levels, ``|`` escaped
    with ``pipes``). A code span never runs across lines here (Python-Markdown's may, in a
    paragraph): its backticks are then text, shown as such."""
    stash = _Stash()
    lines = []
    for line in text.split("\n"):
        out, last = [], 0
        for start, end, body in _code_spans(line):
            out += [line[last:start], stash.put(code(body))]
            last = end
        out.append(line[last:])
        lines.append("".join(out))
    return stash.restore(_prose("\n".join(lines), shift, stash, pipes))


def _pre(lines: list[str]) -> str:
    """A code block written as HTML (its text literal: ``_literal``)."""
    return "<pre><code>" + "\n".join(_literal(line) for line in lines) + "</code></pre>"


def pre(text: str) -> str:
    """``text`` (a value the docs show, such as a long default) as a code block in HTML."""
    return _pre(_clean(text).split("\n"))


def _blocks(lines: list[str]) -> list[tuple[bool, list[str]]]:
    """(is code, lines) of each stretch of prose and each fenced block (its fences off, its
    lines without the fence's indentation; an unclosed fence runs to the end)."""
    blocks: list[tuple[bool, list[str]]] = []
    fence: str | None = None
    indent = 0
    for line in lines:
        m = _FENCE.match(line)
        if fence is None:
            if m:
                fence, indent = m.group(2), len(m.group(1))
                blocks.append((True, []))
                continue
            if not blocks or blocks[-1][0]:
                blocks.append((False, []))
            blocks[-1][1].append(line)
        elif m and m.group(2)[0] == fence[0] and len(m.group(2)) >= len(fence):
            if not line[m.end() :].strip():
                fence = None
                continue
            blocks[-1][1].append(line)
        else:
            blocks[-1][1].append(line[min(indent, len(line) - len(line.lstrip(" "))) :])
    return blocks


def _setext(text: str) -> str:
    """Setext underlines (``===``, ``---``) and the site's block markers (tabs, details,
    admonitions, definitions) escaped into plain text."""
    text = _EXT_MARK.sub(lambda m: f"{m[1]}&#{ord(m[2][0])};{m[2][1:]}", text)
    return _SETEXT.sub(
        lambda m: m.group(1) + ("&#61;" if m.group(2)[0] == "=" else "&#45;") + m.group(2)[1:],
        text,
    )


def markdown(text: str | None, floor: int = 4) -> str:
    """Spec Markdown made safe to embed in a page whose own headings stop above ``floor``.

    Fenced code becomes a ``<pre><code>`` block (``_pre``); the rest is escaped by
    ``_escape``. Setext underlines would make the line above a heading outside the page's
    outline: they are escaped into plain text."""
    if not text:
        return ""
    lines = _clean(text).split("\n")
    # the spec's top heading level becomes ``floor`` (an approximation: fenced lines count)
    levels = [len(m.group(2)) for m in _HEADING.finditer("\n".join(lines))]
    shift = max(0, floor - min(levels)) if levels else 0
    out = [
        _pre(block) if is_code else _escape(_setext("\n".join(_list_lines(block))), shift)
        for is_code, block in _blocks(lines)
    ]
    return "\n\n".join(block.strip("\n") for block in out if block.strip())


def inline(text: str | None) -> str:
    """Spec text as one line of Markdown (a summary, a heading, a list item, a table
    cell's line): ``|`` is escaped, since the line may be (a link in) a table cell."""
    if not text:
        return ""
    one = _escape(" ".join(_clean(text).split()), 0, pipes=True)
    # a leading '#', '>', '-', '+', '*' or '1.' would start a block
    return re.sub(r"^([#>+*-]|\d+[.)])", r"\\\1", one)


def cell(text: str | None) -> str:
    """Spec text inside a table cell, which Markdown keeps on one line: ``|`` escaped;
    paragraphs apart by an empty line (``<br><br>``); each list item, line of fenced code
    (as ``code``) and table row on a line of its own (``<br>``).

    A list item reads ``• item`` (``◦`` nested; an ordered item keeps its number), not
    ``<ul><li>``: Python-Markdown (mkdocs) reads a cell as inline text, where a block tag is
    out of place, and mkdocs-material's list margins would stretch the row; ``<br>`` lines
    render the same on GitHub and in the site, and match the cell's other ``<br>`` lines."""
    if not text:
        return ""
    return "".join(
        sep + marker + (body if kind == "code" else inline(body))
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

    for line in _clean(text).split("\n"):
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


def code(value: str) -> str:
    r"""``value`` as code, on one line: a backtick span if it holds none of ``<\`|``
    (nothing Markdown could misread), else a ``<code>`` tag with its text literal."""
    value = " ".join(_clean(value).split())
    if not value:
        return "` `"
    if _MARKUP.search(value) is None:
        return f"`{value}`"
    return f"<code>{_literal(value)}</code>"


def python_md(annotation: str, link: Callable[[str], str | None]) -> str:
    """A Python annotation (``list[Model] | None``) as Markdown: a name ``link`` knows as its
    link, other names and string literals as ``code``, the punctuation between them (Python
    syntax) backslash-escaped."""
    out: list[str] = []
    last = 0
    for m in _PY_TOKEN.finditer(annotation):
        out.append(_punctuation(annotation[last : m.start()]))
        out.append(link(m.group(0)) or code(m.group(0)))
        last = m.end()
    out.append(_punctuation(annotation[last:]))
    return "".join(out)


def _punctuation(text: str) -> str:
    """Python syntax between an annotation's tokens, escaped (``<>&``, which it never holds,
    as entities)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([\\`*_\[\]|])", r"\\\1", text)


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
