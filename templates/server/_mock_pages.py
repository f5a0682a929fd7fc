"""The mock's pages: a list operation's answer cut into pages that end, as the client walks
them (cursor, page number or offset; see :class:`Pager`). Copied verbatim into each
generated package with a server, beside ``_mock_engine.py``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["STATELESS_PAGES", "Pager", "paged"]

STATELESS_PAGES = 3  # without --stateful, a paged list has the table's items on 3 pages
_TOKEN = re.compile(r"after-([0-9]{1,9})")  # the cursors the mock hands out


@dataclass(frozen=True)
class Pager:
    """How a list operation pages, as the client walks it: ``style`` "cursor", "page" or
    "offset"; ``items``, the answer's array of items (None: the answer is the array);
    ``param``, the query parameter that selects the page (a cursor, a page number, an
    offset; ``first``: the first page's number); ``size``, the page size's parameter ("":
    none); the answer's fields ``next`` (the next cursor), ``current`` (the page number),
    ``total`` (the count of all items) and ``more`` (whether more pages follow), each ""
    when the answer has none."""

    style: str
    items: str | None = None
    param: str = ""
    size: str = ""
    next: str = ""
    current: str = ""
    total: str = ""
    more: str = ""
    first: int = 1


def paged(pager: Pager, answer: Any, query: Mapping[str, Any], per_page: int) -> Any:
    """One page of a list ``answer``, as ``query`` selects it: its items are those of
    ``answer`` (the records), or with ``per_page`` 0 the table's items repeated over
    :data:`STATELESS_PAGES` pages (a page each); the answer's fields say where the next
    page is and that the last is the last. A cursor the mock never gave selects the end
    (an empty page), so every walk of the pages ends."""
    rows = answer.get(pager.items) if isinstance(answer, dict) and pager.items else answer
    if not isinstance(rows, list):
        return answer
    if per_page == 0:
        per_page, rows = max(len(rows), 1), rows * STATELESS_PAGES
    size = query.get(pager.size) if pager.size else None
    size = size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else per_page
    start = _start(pager, query.get(pager.param) if pager.param else None, size, len(rows))
    end = min(start + size, len(rows))
    items, more = copy.deepcopy(rows[start:end]), end < len(rows)
    if not isinstance(answer, dict) or not pager.items:
        return items
    out = {**answer, pager.items: items}
    if pager.next:
        out[pager.next] = f"after-{end}" if more else None
    if pager.current:
        out[pager.current] = start // size + pager.first
    if pager.total:
        out[pager.total] = len(rows)
    if pager.more:
        out[pager.more] = more
    return out


def _start(pager: Pager, value: Any, size: int, count: int) -> int:
    """The index of a page's first item: from its cursor (none: the first page), its page
    number or its offset."""
    if pager.style == "cursor":
        if value is None or value == "":
            return 0
        found = _TOKEN.fullmatch(str(value))
        return min(int(found.group(1)), count) if found else count
    try:
        number = int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        number = None
    if number is None:
        return 0
    start = (number - pager.first) * size if pager.style == "page" else number
    return min(max(start, 0), count)
