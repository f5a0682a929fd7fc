"""The one error type the CLI turns into a single clear line and a non-zero exit."""

from __future__ import annotations

import re


class ApismithError(Exception):
    """A user-facing failure: bad input, broken output, or a failed check.

    ``exit_code`` is 2 for bad input (unreadable spec, dangling ``$ref``, unsupported
    construct) and 1 for everything else.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        pointer: str | None = None,
        line: int | None = None,
        column: int | None = None,
        exit_code: int = 2,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.pointer = pointer
        self.line = line
        self.column = column
        self.exit_code = exit_code

    def __reduce__(self) -> tuple[object, ...]:
        # Keep every field across a process boundary (the model worker raises these).
        return (
            _rebuild,
            (self.message, self.file, self.pointer, self.line, self.column, self.exit_code),
        )

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        at = f" (at {self.pointer or '#'})" if self.pointer is not None else ""
        return one_line(f"{where}{self.message}{at}")


# a URL's scheme and userinfo, also as a JSON pointer token writes it (``~1`` for ``/``)
_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*:(?://|~1~1))(?:[^/?#@\s~]|~0)*@")


def redact_userinfo(text: str) -> str:
    """``text`` with the user and password of every URL in it (``https://u:pw@host``,
    or in a pointer ``https:~1~1u:pw@host``) replaced by ``***``: a message may end up in
    a log."""
    return _USERINFO.sub(r"\1***@", text) if "@" in text else text


def one_line(text: str) -> str:
    """``text`` with every unprintable character (newlines, NUL, lone surrogates...)
    backslash-escaped: spec text in a message or pointer keeps the error on one line.
    URLs lose their userinfo (:func:`redact_userinfo`)."""
    text = redact_userinfo(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def _rebuild(
    message: str,
    file: str | None,
    pointer: str | None,
    line: int | None,
    column: int | None,
    exit_code: int,
) -> ApismithError:
    return ApismithError(
        message, file=file, pointer=pointer, line=line, column=column, exit_code=exit_code
    )
