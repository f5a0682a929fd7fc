"""Normalization pass `patterns`: every ``pattern`` is one pydantic can compile. Always on.

Generated models and servers check ``pattern`` with pydantic, whose default engine is
Rust's ``regex`` crate. That engine accepts things Python's ``re`` does not (``\\p{L}``),
and refuses things ``re`` accepts (look-around, backreferences). So a pattern is judged by
pydantic itself (:func:`pattern_error`), never by ``re``:

- one pydantic compiles is kept as it is;
- one written in ECMA-262 syntax that Rust spells differently (a ``-`` right after a class
  escape, ``[\\w-.]``; ``[^]``; ``\\0``) is rewritten (:func:`rust_syntax`), with a warning;
- one that uses what Rust's engine does not support (look-around, backreferences) is
  dropped, with a warning: the generated code could not import with it (Python's ``re``
  may not read it either: ``(?!\\s+$)[\\p{L}]``);
- so is one that neither engine compiles but that is no broken regex, only one of
  another dialect or past an engine's limit: a Unicode property Rust does not know (Java's
  ``\\p{Print}``), an escape or flag it does not know, a compiled size over its limit
  (``[^\\p{C}]{1,2048}``). One bad ``pattern`` does not refuse the whole spec;
- one that is malformed in any dialect (:data:`MALFORMED`: ``(``, ``[``, ``a{2,1}``, a
  trailing ``\\``) is an error: exit 2 with its pointer;
- a ``pattern`` that is not a string is dropped, with a warning.

:func:`matches` tests a string against a pattern the same way, for the passes and
renderers that need an example value (invalid defaults, mock values).
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

from generator.errors import ApismithError
from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.walk import Schema, iter_schemas_with, json_copy

NAME = "patterns"


@lru_cache(maxsize=2048)
def _compiled(pattern: str) -> tuple[Any, str | None]:
    """(a pydantic-core validator of strings matching ``pattern``, None) or (None, why)."""
    from pydantic_core import SchemaError, SchemaValidator, core_schema

    try:
        return SchemaValidator(core_schema.str_schema(pattern=pattern)), None
    except SchemaError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        why = next((line for line in reversed(lines) if line.startswith("error:")), None)
        return None, (why or (lines[-1] if lines else "invalid")).removeprefix("error: ")
    except Exception as exc:  # e.g. a NUL byte or a pattern that exhausts a limit
        return None, str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def pattern_error(pattern: str) -> str | None:
    """Why pydantic refuses ``pattern`` (its regex engine's message), or None."""
    return _compiled(pattern)[1]


def matches(pattern: str, text: str) -> bool:
    """Whether pydantic accepts ``text`` for a string with this ``pattern`` (a search, as
    JSON Schema means it). A pattern pydantic refuses matches nothing."""
    validator = _compiled(pattern)[0]
    if validator is None:
        return False
    try:
        validator.validate_python(text)
    except Exception:
        return False
    return True


_CLASS_ESCAPE_DASH = re.compile(r"(\\[dDwWsS])-(?!\])")
_NUL = re.compile(r"\\0(?![0-9])")


def rust_syntax(pattern: str) -> str:
    """``pattern`` with what ECMA-262 (JSON Schema's dialect) accepts and Rust's ``regex``
    spells otherwise rewritten: in a class, ``-`` after ``\\d``/``\\w``/``\\s`` is a literal
    ``-``; ``[^]`` is any character; ``\\0`` is NUL."""
    text = _CLASS_ESCAPE_DASH.sub(r"\1\\-", pattern)
    return _NUL.sub(r"\\x00", text.replace("[^]", r"[\s\S]"))


# What Rust's engine says of a pattern that is malformed in every dialect (unbalanced,
# a repetition of nothing or with a bad range, an escape cut off, a bad group name).
MALFORMED = (
    "unclosed",
    "unopened",
    "repetition",
    "incomplete escape",
    "capture group name",
    "character class range",
    "hexadecimal",
    "decimal",
)


def _malformed(why: str) -> bool:
    return any(text in why for text in MALFORMED)


def _python_compiles(pattern: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. FutureWarning: possible nested set
            re.compile(pattern)
    except (re.error, ValueError, OverflowError, RecursionError):
        return False
    return True


def _show(pattern: object) -> str:
    text = json.dumps(pattern) if isinstance(pattern, str) else repr(pattern)
    return text if len(text) <= 80 else text[:77] + "..."


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(spec: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``spec`` is the caller's to give (see :mod:`generator.normalize`)."""
    diags: list[Diagnostic] = []
    for pointer, schema in _with_pattern(spec):
        pattern = schema["pattern"]
        if not isinstance(pattern, str):
            del schema["pattern"]
            message = f"pattern {_show(pattern)} is not a string: dropped"
            diags.append(Diagnostic(NAME, "drop", pointer + "/pattern", message))
            continue
        why = pattern_error(pattern)
        if why is None:
            continue
        rewritten = rust_syntax(pattern)
        if rewritten != pattern and pattern_error(rewritten) is None:
            schema["pattern"] = rewritten
            message = (
                f"pattern {_show(pattern)} is ECMA-262 syntax pydantic's regex engine does not "
                f"read ({why}): rewritten as {_show(rewritten)}"
            )
            diags.append(Diagnostic(NAME, "warning", pointer + "/pattern", message))
            continue
        if _python_compiles(pattern) or not _malformed(why):
            del schema["pattern"]
            message = (
                f"pattern {_show(pattern)} is not supported by pydantic's regex engine "
                f"({why}): dropped"
            )
            diags.append(Diagnostic(NAME, "drop", pointer + "/pattern", message))
            continue
        raise ApismithError(
            f"invalid regular expression in pattern {_show(pattern)}: {why}",
            pointer=pointer + "/pattern",
        )
    return PassResult(spec=spec, diagnostics=tuple(diags))


def _with_pattern(spec: dict[str, Any]) -> Iterator[tuple[str, Schema]]:
    """(pointer, schema) of every schema with a ``pattern``, in :func:`iter_schemas` order."""
    return iter_schemas_with(spec, "pattern")
