"""Every case rule, pinned on tricky inputs, and where the rules part ways
(``generator/normalize/naming/case.py``); and no case rule outside the naming package."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

from generator.normalize import naming
from generator.normalize.naming import (
    ascii_text,
    capitalized_words,
    client_pascal_case,
    client_snake_case,
    distribution_name,
    package_name,
    pascal_case,
    python_snake_case,
    snake_case,
    words,
)

GENERATOR = Path(naming.__file__).resolve().parents[2]
NAMING = GENERATOR / "normalize" / "naming"

TRICKY = (
    "camelCase",
    "HTTPServer",
    "getHTTPResponse",
    "v2beta",
    "v2Beta",
    "2fa",
    "class",
    "self",
    "match",
    "café",
    "größe",
    "名前",
    "",
    "__",
    "SGP_ERROR_CODES",
    "POST-V4-/v2/chat-completions",
    "My API",
)

# rule -> its output for each of TRICKY, in order
EXPECTED: dict[Callable[[str], str], tuple[str, ...]] = {
    pascal_case: (
        "CamelCase", "HTTPServer", "GetHTTPResponse", "V2beta", "V2Beta", "2fa", "Class",
        "Self", "Match", "Cafe", "Grosse", "", "", "", "SgpErrorCodes",
        "PostV4V2ChatCompletions", "MyApi",
    ),
    capitalized_words: (
        "CamelCase", "HTTPServer", "GetHTTPResponse", "V2beta", "V2Beta", "2fa", "Class",
        "Self", "Match", "Caf", "GrE", "", "", "", "SGPERRORCODES",
        "POSTV4V2ChatCompletions", "MyAPI",
    ),
    client_pascal_case: (
        "CamelCase", "Httpserver", "GetHttpresponse", "V2beta", "V2Beta", "N2fa", "Class",
        "Self", "Match", "Caf", "GrE", "X", "X", "X", "SgpErrorCodes",
        "PostV4V2ChatCompletions", "MyApi",
    ),
    snake_case: (
        "camel_case", "http_server", "get_http_response", "v2beta", "v2_beta", "2fa", "class",
        "self", "match", "cafe", "grosse", "", "", "", "sgp_error_codes",
        "post_v4_v2_chat_completions", "my_api",
    ),
    python_snake_case: (
        "camel_case", "http_server", "get_http_response", "v2beta", "v2_beta", "n_2fa",
        "class_", "self_", "match", "caf", "gr_e", "unnamed", "unnamed", "unnamed",
        "sgp_error_codes", "post_v4_v2_chat_completions", "my_api",
    ),
    client_snake_case: (
        "camel_case", "httpserver", "get_httpresponse", "v2beta", "v2_beta", "n2fa", "class_",
        "self", "match", "caf", "gr_e", "x", "x", "x", "sgp_error_codes",
        "post_v4_v2_chat_completions", "my_api",
    ),
    package_name: (
        "camelcase", "httpserver", "gethttpresponse", "v2beta", "v2beta", "api_2fa", "class_",
        "self", "match", "caf", "gr_e", "api", "api", "api", "sgp_error_codes",
        "post_v4_v2_chat_completions", "my_api",
    ),
    distribution_name: (
        "camelcase", "httpserver", "gethttpresponse", "v2beta", "v2beta", "2fa", "class",
        "self", "match", "caf", "gr-e", "api", "api", "api", "sgp-error-codes",
        "post-v4-v2-chat-completions", "my-api",
    ),
}  # fmt: skip


@pytest.mark.parametrize("rule", list(EXPECTED), ids=lambda rule: rule.__name__)
def test_rule_on_tricky_inputs(rule: Callable[[str], str]) -> None:
    assert dict(zip(TRICKY, map(rule, TRICKY))) == dict(zip(TRICKY, EXPECTED[rule]))


def test_identifier_rules_always_give_identifiers() -> None:
    for rule in (python_snake_case, client_snake_case, client_pascal_case, package_name):
        for text in TRICKY:
            name = rule(text)
            assert name.isascii() and name.isidentifier(), (rule.__name__, text, name)
            assert name not in naming.PY_KEYWORDS, (rule.__name__, text, name)


def test_where_the_snake_rules_part() -> None:
    """The three snake_case rules agree on plain camelCase and separators; they differ on
    acronyms, non-ASCII letters, leading digits, ``self`` and empty text."""
    for text in ("camelCase", "chat-completions", "v2Beta", "max_tokens"):
        assert snake_case(text) == python_snake_case(text) == client_snake_case(text)
    # an acronym before a capitalized word: split, except for the client's attributes
    assert (python_snake_case("HTTPServer"), client_snake_case("HTTPServer")) == (
        "http_server",
        "httpserver",
    )
    # accents: stripped for method and field names, separators for IR identifiers
    assert (snake_case("café"), python_snake_case("café")) == ("cafe", "caf")
    # the identifier rules keep to identifiers, the plain one leaves that to its callers
    assert (snake_case("2fa"), python_snake_case("2fa"), client_snake_case("2fa")) == (
        "2fa",
        "n_2fa",
        "n2fa",
    )
    assert (python_snake_case("cls"), client_snake_case("cls")) == ("cls_", "cls")


def test_where_the_pascal_rules_part() -> None:
    """Class names fold all-caps words and strip accents; names from titles and packages
    keep each word as written; the client's resource classes follow its attributes."""
    assert pascal_case("SGP api") == "SgpApi"
    assert capitalized_words("SGP api") == "SGPApi"
    assert client_pascal_case("SGP api") == "SgpApi"
    assert (pascal_case("ÆON"), capitalized_words("ÆON")) == ("Aeon", "ON")
    assert capitalized_words("chat_request") == "ChatRequest"
    assert capitalized_words("chat_request", keep_underscores=True) == "Chat_request"


def test_ascii_words() -> None:
    assert ascii_text("Straße ﬁle") == "Strasse file"
    assert words("größe-2/Ø") == ["grosse", "2", "O"]
    assert words("名前") == []


# --- no case rule outside the naming package ---------------------------------------------------

# camelCase-boundary regexes: ``([a-z0-9])([A-Z])``, ``([A-Z]+)([A-Z][a-z])``
CAMEL_MARKERS = (")([A-Z]", "])([A-Z]")
CASE_WORDS = ("snake", "pascal", "camel")


def _modules() -> list[Path]:
    return sorted(
        p for p in GENERATOR.rglob("*.py") if NAMING not in p.parents and "templates" not in p.parts
    )


def test_no_case_rule_outside_the_naming_package() -> None:
    """No module outside ``generator/normalize/naming/`` spells a camelCase-boundary regex
    or defines a function named after a case (``snake``, ``pascal``, ``camel``): such a
    rule belongs in ``naming/case.py``, once."""
    wrong = []
    for path in _modules():
        where = path.relative_to(GENERATOR).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if any(marker in node.value for marker in CAMEL_MARKERS):
                    wrong.append(f"{where}:{node.lineno}: a camelCase regex")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(word in node.name.lower() for word in CASE_WORDS):
                    wrong.append(f"{where}:{node.lineno}: def {node.name}")
    assert not wrong, "\n".join(wrong)


def test_the_guard_sees_a_case_rule() -> None:
    assert any(marker in r"([a-z0-9])([A-Z])" for marker in CAMEL_MARKERS)
    assert any(marker in r"([A-Z]+)([A-Z][a-z])" for marker in CAMEL_MARKERS)
    case = (NAMING / "case.py").read_text(encoding="utf-8")
    assert any(marker in case for marker in CAMEL_MARKERS)
    assert GENERATOR / "pipeline.py" in _modules() and NAMING / "case.py" not in _modules()
