"""Changes as text (grouped by level, one line each; the same change in several operations,
which a shared schema makes, once), Markdown (a heading and a table for a
pull-request comment) or JSON (a sorted list of objects). Every format lists the changes
in the same order (:func:`generator.diff.change.ordered`), so a report is deterministic."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from generator.diff.change import LEVELS, Change, ordered

FORMATS = ("text", "markdown", "json")
# a spec-side location: the operation, then where in it (``GET /v1/x response.200.body.id``)
_IN_OPERATION = re.compile(r"^([A-Z]+ /\S*) (\S.*)$")
GROUP_AT = 3  # the same change in this many operations or more is listed once
NAMED = 3  # operations named in a grouped line


@dataclass(frozen=True)
class Line:
    """One listed line: a change, or the same change in several operations."""

    change: Change
    where: str  # the location, or the place within each operation
    operations: tuple[str, ...] = ()

    @property
    def note(self) -> str:
        """`` (in 30 operations: GET /a, GET /b, POST /c and 27 more)``, or nothing."""
        if not self.operations:
            return ""
        named = ", ".join(self.operations[:NAMED])
        more = len(self.operations) - NAMED
        return f" (in {len(self.operations)} operations: {named}" + (
            f" and {more} more)" if more > 0 else ")"
        )


def _place(c: Change) -> tuple[tuple[str, str, str, str] | None, str]:
    """(the change without its operation, the operation) for a change inside one; else
    (None, "")."""
    match = _IN_OPERATION.match(c.location) if c.side == "spec" else None
    if match is None:
        return None, ""
    return (c.level, c.rule, c.message, match.group(2)), match.group(1)


def grouped(changes: list[Change]) -> list[Line]:
    """``changes`` (in report order) as lines: a change a shared schema makes in
    :data:`GROUP_AT` or more operations (the same rule, message and place within each) is
    one line naming them, where its first occurrence was; JSON keeps every change."""
    groups: dict[tuple[str, str, str, str], list[str]] = {}
    for c in changes:
        key, operation = _place(c)
        if key is not None:
            groups.setdefault(key, []).append(operation)
    lines: list[Line] = []
    done: set[tuple[str, str, str, str]] = set()
    for c in changes:
        key, _ = _place(c)
        if key is None or len(groups[key]) < GROUP_AT:
            lines.append(Line(c, c.location))
        elif key not in done:
            done.add(key)
            operations = tuple(dict.fromkeys(groups[key]))
            lines.append(Line(c, key[3], operations))
    return lines


def format_changes(changes: Iterable[Change], fmt: str = "text") -> str:
    """``changes`` as ``fmt`` (``text``, ``markdown`` or ``json``), ending with a newline."""
    listed = ordered(list(changes))
    if fmt == "text":
        return text(listed)
    if fmt == "markdown":
        return markdown(listed)
    if fmt == "json":
        return json.dumps([c.as_dict() for c in listed], indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"unknown format {fmt!r}; formats are {', '.join(FORMATS)}")


def summary(changes: list[Change]) -> str:
    """``3 changes: 1 breaking, 0 warning, 2 info`` (``no changes``)."""
    if not changes:
        return "no changes"
    counts = ", ".join(f"{sum(c.level == level for c in changes)} {level}" for level in LEVELS)
    return f"{len(changes)} change{'s' if len(changes) != 1 else ''}: {counts}"


def text(changes: list[Change]) -> str:
    """One section per level, most severe first; one line per change."""
    lines = []
    for level in LEVELS:
        group = [c for c in changes if c.level == level]
        if not group:
            continue
        lines.append(f"{level}:")
        for line in grouped(group):
            c = line.change
            side = "python: " if c.side == "python" else ""
            lines.append(f"  {side}{line.where}: {c.message} [{c.rule}]{line.note}")
        lines.append("")
    lines.append(summary(changes))
    return "\n".join(lines) + "\n"


# what a table cell must not contain as is: a pipe ends the cell, the others are markup
_CELL = str.maketrans({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "&#124;", "`": "&#96;", "*": "&#42;",
    "_": "&#95;", "[": "&#91;", "]": "&#93;", "~": "&#126;", "\\": "&#92;",
    "\n": " ", "\r": " ",
})  # fmt: skip


def cell(value: str) -> str:
    """``value`` as literal text in a table cell (GitHub's Markdown and Python-Markdown)."""
    return value.translate(_CELL)


def markdown(changes: list[Change]) -> str:
    """A heading with the counts and a table ``| level | change | where |``."""
    lines = [f"### API changes: {summary(changes)}", ""]
    if changes:
        lines += ["| level | change | where |", "| --- | --- | --- |"]
        for line in grouped(changes):
            c = line.change
            where = f"python: {line.where}" if c.side == "python" else line.where + line.note
            # a rule id is [a-z-]+: safe in a code span
            lines.append(f"| {c.level} | {cell(c.message)} (`{c.rule}`) | {cell(where)} |")
    return "\n".join(lines) + "\n"
