"""Formatter-neutral layout: ruff format and black agree on almost everything. Where they
do not, the templates write the shape both leave alone, sometimes depending on whether a
line fits; these helpers decide that, measuring lines the way both formatters do (the
format stage, :mod:`generator.format`, then leaves such code as it is)."""

from __future__ import annotations

import re
import unicodedata

LINE_LENGTH = 88  # the default of both ``ruff format`` and ``black``


def text_width(text: str) -> int:
    """The columns ``text`` takes (East Asian wide characters take two, combining ones none)."""
    if text.isascii():
        return len(text)
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
        for c in text
    )


def fits(line: str) -> bool:
    """Whether ``line`` (indentation included) fits the formatters' line length."""
    return text_width(line) <= LINE_LENGTH


_UNION_SYNTAX = re.compile(r"""[\\'"()\[\]{}|]""")  # what is_union looks at


def is_union(annotation: str) -> bool:
    """Whether ``annotation`` is ``A | B`` at its top level (not inside brackets or strings)."""
    if "|" not in annotation:
        return False
    depth, quote, skip = 0, "", -1
    for match in _UNION_SYNTAX.finditer(annotation):
        at, c = match.start(), match.group()
        if at == skip:  # escaped by the backslash before it
            continue
        if quote:
            if c == "\\":
                skip = at + 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "|" and depth == 0:
            return True
    return False


def parameter_annotation(name: str, annotation: str, default: str | None, indent: int) -> str:
    """The annotation of one parameter of an exploded signature (one parameter a line, each
    ending with a comma), written so that black and ruff format both keep it as it is.

    A union on a line that is too long: black puts it in parentheses and breaks it at the
    ``|`` inside them; ruff format breaks it at the ``|`` without parentheses, but keeps
    parentheses that are there (and then agrees with black). Parentheses around a union
    that fits are removed by black and kept by ruff, so they are added only when needed.
    """
    line = f"{' ' * indent}{name}: {annotation}{f' = {default}' if default else ''},"
    if fits(line) or not is_union(annotation):
        return annotation
    return f"({annotation})"
