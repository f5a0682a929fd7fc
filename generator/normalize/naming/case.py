"""Every case rule of the generator, once: how spec text becomes a class name, a
snake_case identifier, a client attribute, a package or a distribution name.

The rules differ where the names they make already differ in generated code (so output
stays what it was); each says what it is for, and ``tests/normalize/test_naming_rules.py``
pins where they part:

    rule                   HTTPServer    café    (empty)
    pascal_case            HTTPServer    Cafe
    capitalized_words      HTTPServer    Caf
    client_pascal_case     Httpserver    Caf     X
    snake_case             http_server   cafe
    python_snake_case      http_server   caf     unnamed
    client_snake_case      httpserver    caf     x

Everything here is a function of its arguments only (keywords are hardcoded, not read from
the running Python), so the generated names never depend on the environment.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# keyword.kwlist of Python 3.10 to 3.13, hardcoded.
PY_KEYWORDS = frozenset(
    {
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
        "return", "try", "while", "with", "yield",
    }
)  # fmt: skip

_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")
_NON_ALNUM_KEEP_UNDERSCORE = re.compile(r"[^0-9A-Za-z_]+")
# camelCase boundaries: ``aB`` / ``1B`` (lower or digit, then upper), and ``ABc`` (the end
# of an upper-case run, before a capitalized word). Applied in either order, same result.
_CAMEL_1 = re.compile(r"([a-z0-9])([A-Z])")
_CAMEL_2 = re.compile(r"([A-Z]+)([A-Z][a-z])")

_LATIN = str.maketrans(
    {"ß": "ss", "æ": "ae", "Æ": "AE", "ø": "o", "Ø": "O", "œ": "oe", "Œ": "OE", "ł": "l",
     "Ł": "L", "đ": "d", "Đ": "D", "þ": "th", "Þ": "Th", "ð": "d", "Ð": "D"}
)  # fmt: skip


def ascii_text(text: str) -> str:
    """``text`` with accents stripped (``ø`` -> ``o``, ``ß`` -> ``ss``) and any other
    non-ASCII character dropped."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKD", text.translate(_LATIN))
    return text.encode("ascii", "ignore").decode("ascii")


def words(text: str) -> list[str]:
    """The alphanumeric runs of ``text`` (ASCII only, accents stripped)."""
    return [w for w in _NON_ALNUM.split(ascii_text(text)) if w]


def _snake_words(text: str, *, acronyms: bool = True) -> str:
    """``text`` split at camelCase boundaries and at every run of characters outside
    ``[A-Za-z0-9]`` (non-ASCII letters too), lower-cased and joined by ``_``; ``""`` when
    nothing is left. Without ``acronyms``, an upper-case run does not end before a
    capitalized word (``HTTPServer`` -> ``httpserver``)."""
    text = _CAMEL_1.sub(r"\1_\2", text)
    if acronyms:
        text = _CAMEL_2.sub(r"\1_\2", text)
    return "_".join(w.lower() for w in _NON_ALNUM.split(text) if w)


# --- PascalCase ------------------------------------------------------------------------------


def pascal_case(text: str) -> str:
    """Model class names: ``"SGP_ERROR_CODES"`` -> ``"SgpErrorCodes"``,
    ``"chatCompletion-v2"`` -> ``"ChatCompletionV2"``, ``"café"`` -> ``"Cafe"``. Accents are
    stripped; all-caps words are capitalized, other words keep their case after an
    upper-cased first letter."""
    out = []
    for word in words(text):
        if word.isupper() and len(word) > 1:
            word = word.capitalize()
        out.append(word[0].upper() + word[1:])
    return "".join(out)


def capitalized_words(text: str, *, keep_underscores: bool = False) -> str:
    """Names made from a title or a package name (the client class, a component named
    after a schema title): each run of ASCII letters and digits (with
    ``keep_underscores``, of letters, digits and ``_``) gets an upper-case first letter
    and keeps the rest as it is. Unlike :func:`pascal_case`, all-caps words stay
    (``"SGP api"`` -> ``"SGPApi"``) and non-ASCII letters separate words (``"café"`` ->
    ``"Caf"``)."""
    split = _NON_ALNUM_KEEP_UNDERSCORE if keep_underscores else _NON_ALNUM
    return "".join(part[:1].upper() + part[1:] for part in split.split(text) if part)


def client_pascal_case(text: str) -> str:
    """The client's resource class names: :func:`client_snake_case`'s words, each with an
    upper-case first letter (``"chat-completions"`` -> ``"ChatCompletions"``,
    ``"HTTPServer"`` -> ``"Httpserver"``, ``"2fa"`` -> ``"N2fa"``)."""
    return "".join(p[:1].upper() + p[1:] for p in client_snake_case(text).split("_") if p)


# --- snake_case ------------------------------------------------------------------------------


def snake_case(text: str) -> str:
    """The base of derived method and field names: ``"POST-V4-/chat-completions"`` ->
    ``"post_v4_chat_completions"``, ``"getHTTPResponse"`` -> ``"get_http_response"``,
    ``"café"`` -> ``"cafe"`` (accents stripped). ``""`` when nothing is left; no keyword or
    leading-digit handling (the callers add their own prefix or suffix)."""
    return _snake_words(ascii_text(text))


@lru_cache(maxsize=4096)
def python_snake_case(text: str) -> str:
    """The identifiers the IR derives for parameters, and for operations without
    ``x-apismith-name``: ``createChatCompletion`` / ``POST-V4-/v2/chat-completions`` ->
    ``create_chat_completion`` / ``post_v4_v2_chat_completions``. Unlike
    :func:`snake_case`, non-ASCII letters are separators (``café`` -> ``caf``), and the
    result is always an identifier: ``unnamed`` when empty, ``n_`` before a leading digit,
    ``_`` after a keyword, ``self`` or ``cls``."""
    text = _snake_words(text)
    if not text:
        return "unnamed"
    if text[0].isdigit():
        text = f"n_{text}"
    return f"{text}_" if text in PY_KEYWORDS or text in ("self", "cls") else text


def client_snake_case(text: str) -> str:
    """The client's attribute names (resources from tags and path segments, method
    suffixes, keyword arguments): ``"Chat Completions"`` -> ``"chat_completions"``,
    ``"maxTokens"`` -> ``"max_tokens"``. Unlike :func:`python_snake_case`, an acronym
    before a capitalized word is not split (``HTTPServer`` -> ``httpserver``), empty text
    is ``x``, a leading digit gets ``n`` (``2fa`` -> ``n2fa``), and only keywords get
    ``_`` (``self`` stays)."""
    name = _snake_words(text, acronyms=False) or "x"
    if name[0].isdigit():
        name = f"n{name}"
    return f"{name}_" if name in PY_KEYWORDS else name


# --- packages --------------------------------------------------------------------------------


def package_name(text: str) -> str:
    """A lower-case Python package name from any title or file name: runs outside
    ``[A-Za-z0-9]`` become ``_``, no camelCase split (``"LLM Engine"`` -> ``"llm_engine"``,
    ``"myAPI"`` -> ``"myapi"``); ``api`` when empty, ``api_`` before a leading digit, ``_``
    after a keyword."""
    name = "_".join(w.lower() for w in _NON_ALNUM.split(text) if w) or "api"
    if name[0].isdigit():
        name = f"api_{name}"
    return f"{name}_" if name in PY_KEYWORDS else name


def distribution_name(package: str) -> str:
    """The PEP 503 normalized project name of a package (``llm_engine`` -> ``llm-engine``):
    runs outside ``[A-Za-z0-9]`` become ``-``, lower-cased; ``api`` when empty."""
    return "-".join(w.lower() for w in _NON_ALNUM.split(package) if w) or "api"
