"""Normalization pass `text`: clean descriptions and drop titles that restate a name.

**Descriptions and summaries** (of schemas at any depth, properties, parameters, request
bodies, responses, headers, operations, path items, security schemes, tags, servers and
``info``) are cleaned the way :func:`inspect.cleandoc` cleans a docstring, conservatively:

- ``\\r\\n`` and ``\\r`` become ``\\n``;
- trailing whitespace is stripped from every line, and leading and trailing blank lines
  are dropped; the first line loses its leading whitespace;
- the lines after the first lose their common indentation (tabs in the indentation count
  to the next multiple of 8, as in ``cleandoc``; tabs elsewhere are kept); a text that
  starts on a blank line, as a docstring does, loses it from every line. Relative
  indentation stays, so fenced code, nested lists and indented code blocks keep their
  shape.

The common indentation is kept when removing it could change what the Markdown means:

- the first line is a list item or a block quote: the lines after it are indented
  relative to its marker (a nested list would become a sibling);
- a line that starts an indented code block (four or more spaces, after a blank line)
  would lose that, unless the text is docstring-shaped: it starts on a blank line, or its
  second line continues the first paragraph.

The one Markdown construct that does not survive is a hard line break written as two
trailing spaces: it becomes a soft break (none occurs in the vendored specs).

**Titles that restate a name** are dropped: pydantic (and so FastAPI) gives every field the
title ``name.title().replace("_", " ")``, stripped since pydantic 2 (``best_of`` ->
``Best Of``, ``url`` -> ``Url``, ``id_`` -> ``Id`` or ``Id ``), and every model the title
of its class name. A property's title equal to that of its wire name, a parameter schema's
equal to that of the parameter name, and a component's equal to the component's name say
nothing the name does not, and are removed. Any other title (``URL``, ``Error Type`` on
``type``, a component's name from before the `names` pass) is kept.

**Library boilerplate** is dropped: pydantic 1's generic models leak the docstring of
``typing.Generic`` ("Abstract base class for generic types. ...", 20 lines about
``Mapping[KT, VT]``) as the description of every schema built from them (SGP's 47
``Paginated...`` schemas). It describes Python's typing module, not the API.

The pass reports nothing: these changes are routine, and there are thousands of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from generator.methods import HTTP_METHODS
from generator.normalize.diagnostics import PassResult
from generator.normalize.walk import json_copy, walk_schemas

NAME = "text"

TEXT_KEYS = ("description", "summary")
# A Markdown list item (bullet or ordered) or block quote at the start of a line.
_BLOCK_MARKER = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)|>")


def restated_titles(name: str) -> tuple[str, ...]:
    """The titles pydantic 2 and pydantic 1 derive from a field name."""
    v1 = name.title().replace("_", " ")
    return (v1.strip(), v1)


def _indent(line: str) -> int:
    """The width of a line's leading whitespace, tabs to the next multiple of 8."""
    width = 0
    for char in line:
        if char == " ":
            width += 1
        elif char == "\t":
            width += 8 - width % 8
        else:
            break
    return width


def _dedent(line: str, width: int) -> str:
    """``line`` without ``width`` columns of leading whitespace (tabs expanded there)."""
    body = line.lstrip(" \t")
    return " " * (_indent(line) - width) + body


def clean_text(text: str) -> str:
    """A description cleaned as :func:`inspect.cleandoc` would, keeping its Markdown."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    first_blank = not lines[0]
    while lines and not lines[0]:
        del lines[0]
    while lines and not lines[-1]:
        del lines[-1]
    if not lines:
        return ""
    if first_blank:  # a docstring's shape: every line carries the source's indentation
        common = min(_indent(line) for line in lines if line)
        return "\n".join(_dedent(line, common) if line else line for line in lines)
    first, rest = lines[0].lstrip(), lines[1:]
    common = min((_indent(line) for line in rest if line), default=0)
    if common and not _keeps_indentation(first, rest, common):
        rest = [_dedent(line, common) if line else line for line in rest]
    return "\n".join([first, *rest])


def _keeps_indentation(first: str, rest: list[str], common: int) -> bool:
    """Whether removing ``common`` columns from ``rest`` could change the Markdown."""
    if _BLOCK_MARKER.match(first):
        return True
    if rest and rest[0]:
        return False  # docstring-shaped: the second line continues the first
    previous = first
    for line in rest:
        if line and not previous and _indent(line) >= 4 and _indent(line) - common < 4:
            return True  # an indented code block would become a paragraph
        previous = line
    return False


# The first line of ``typing.Generic.__doc__`` (the same in Python 3.7 to 3.13).
GENERIC_DOC = "Abstract base class for generic types."


def _clean_keys(obj: Any) -> None:
    if isinstance(obj, dict):
        for key in TEXT_KEYS:
            value = obj.get(key)
            if isinstance(value, str):
                obj[key] = clean_text(value)
        description = obj.get("description")
        if isinstance(description, str) and description.startswith(GENERIC_DOC):
            del obj["description"]


def _drop_title(schema: Any, name: Any) -> None:
    if isinstance(schema, dict) and isinstance(name, str):
        title = schema.get("title")
        if title is not None and title in restated_titles(name):
            del schema["title"]


def _parameter(param: Any) -> None:
    if not isinstance(param, dict):
        return
    _clean_keys(param)
    _drop_title(param.get("schema"), param.get("name"))
    for content in (param.get("content") or {}).values():
        if isinstance(content, dict):
            _drop_title(content.get("schema"), param.get("name"))


def _body(obj: Any) -> None:
    """A request body, response or header: its text and its headers' text."""
    if not isinstance(obj, dict):
        return
    _clean_keys(obj)
    for header in (obj.get("headers") or {}).values():
        _body(header)


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(doc: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``doc`` is the caller's to give (see :mod:`generator.normalize`)."""
    for schema in walk_schemas(doc):
        _clean_keys(schema)
        properties = schema.get("properties")
        if isinstance(properties, dict):
            for name, prop in properties.items():
                _drop_title(prop, name)
    _clean_keys(doc.get("info"))
    for key in ("tags", "servers"):
        for item in doc.get(key) or []:
            _clean_keys(item)
    components = doc.get("components") or {}
    for name, schema in (components.get("schemas") or {}).items():
        if isinstance(schema, dict) and schema.get("title") == name:
            del schema["title"]  # the class or type alias is called that already
    for param in (components.get("parameters") or {}).values():
        _parameter(param)
    for kind in ("requestBodies", "responses", "headers"):
        for obj in (components.get(kind) or {}).values():
            _body(obj)
    for scheme in (components.get("securitySchemes") or {}).values():
        _clean_keys(scheme)
    for item in (doc.get("paths") or {}).values():
        if not isinstance(item, dict):
            continue
        _clean_keys(item)
        for param in item.get("parameters") or []:
            _parameter(param)
        for method in HTTP_METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            _clean_keys(op)
            for param in op.get("parameters") or []:
                _parameter(param)
            _body(op.get("requestBody"))
            for response in (op.get("responses") or {}).values():
                _body(response)
    return PassResult(spec=doc)
