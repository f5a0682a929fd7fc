"""The escaping of spec text (generator/render/docs/text.py), vector by vector: no ``<`` of
the spec reaches the Markdown raw, code is written as HTML or as an inert backtick span,
and what Python-Markdown (with the site's extensions) makes of the result holds only
harmless elements and attributes, whatever it takes for code."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import markdown as md
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.config import ApiConfig
from generator.ir import build_ir
from generator.normalize import normalize
from generator.render.docs import render_docs
from generator.render.docs.text import cell, code, inline, markdown, python_md
from generator.render.settings import bind_settings
from tests.docs.support import fences
from tests.docs.vectors import CELL, ONE, VECTORS

# what mkdocs runs: its built-in extensions, then those of the generated mkdocs.yml
SITE_EXTENSIONS = ["toc", "tables", "fenced_code", "admonition", "pymdownx.highlight"]
SITE_EXTENSIONS += ["pymdownx.superfences"]
ALLOWED_TAGS = {
    *("p", "br", "hr", "em", "strong", "code", "pre", "a", "blockquote", "ul", "ol", "li"),
    *("h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td"),
    *("div", "span"),  # admonitions; pygments
}
ALLOWED_ATTRIBUTES = {"href", "title", "id", "class", "style"}
# the HTML this module writes into Markdown: no other "<" may be in its output
OWN_TAGS = re.compile(r'<(/?code|pre|/pre|br)>|<a href="(https?://|mailto:)[^"<>]*">|</a>')
INERT_SPAN = re.compile(r"`[^`<\\|]+`")
FUNCTIONS: dict[str, Callable[[str], str]] = {
    "markdown": markdown,
    "inline": inline,
    "cell": cell,
    "code": code,
}


class Elements(HTMLParser):
    """Every element and attribute of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def site_html(text: str) -> str:
    return md.markdown(text, extensions=SITE_EXTENSIONS)


def harmful(rendered: str) -> list[str]:
    """What in HTML could run script or load anything: a tag or attribute off the allowed
    lists, an event handler, a link to anything but http(s), mailto and an anchor."""
    parser = Elements()
    parser.feed(rendered)
    bad = []
    for tag, attrs in parser.found:
        if tag not in ALLOWED_TAGS:
            bad.append(f"<{tag}>")
        for name, value in attrs:
            if name not in ALLOWED_ATTRIBUTES:
                bad.append(f"<{tag} {name}>")
            elif name == "href" and not re.match(r"(https?://|mailto:|#)", value or "", re.I):
                bad.append(f"<{tag} href={value}>")
    return bad


def raw_markup(out: str) -> list[str]:
    """What is left of ``<`` and backticks once this module's own HTML and inert backtick
    spans are taken out (nothing may be)."""
    rest = INERT_SPAN.sub("", OWN_TAGS.sub("", out))
    return re.findall(r"[<`]", rest)


def visible(rendered: str) -> str:
    parser = Elements()
    parser.feed(rendered)
    return " ".join("".join(parser.text).split())


@pytest.mark.parametrize("function", sorted(FUNCTIONS))
@pytest.mark.parametrize("vector", VECTORS)
def test_each_vector_is_escaped(function: str, vector: str) -> None:
    out = FUNCTIONS[function](vector)
    assert raw_markup(out) == [], out
    assert not re.search(r"[\x00-\x08\x0b-\x1f]", out)
    page = f"| a |\n|---|\n| {out} |" if function in ("cell", "code", "inline") else out
    rendered = site_html(page)
    assert harmful(rendered) == [], rendered
    if function in ("cell", "code", "inline"):
        assert rendered.count("<td") == 1, rendered  # one cell: no "|" split it
    if function != "markdown":
        assert "\n" not in out


@given(st.text(alphabet=st.sampled_from(list("<>`\\|[]()!:*_~{}&#;\"'= \n-aj/")), max_size=60))
@settings(max_examples=300, derandomize=True, deadline=None)
def test_any_text_is_escaped(text: str) -> None:
    """Random markup soup: the same guarantees, for every function."""
    for name, function in FUNCTIONS.items():
        out = function(text)
        assert raw_markup(out) == [], (name, out)
        page = f"| a |\n|---|\n| {out} |" if name != "markdown" else out
        assert harmful(site_html(page)) == [], (name, out)


# (spec text, the code Python-Markdown reads in it)
CODE_SPANS = [
    ("`a`", ["a"]),
    ("`List<String>`", ["List<String>"]),
    ("``a`b``", ["a`b"]),
    ("```a``", ["`a"]),  # no closing run of three: the opening trimmed to two
    ("`a`` b`", ["a`` b"]),
    ("\\`<b>`", []),  # an escaped backtick opens nothing
    ("\\\\`<b>`", ["<b>"]),  # an escaped backslash, then a span
    ("\\\\\\`<b>`", []),
    ("`a` and `b|c`", ["a", "b|c"]),
    ("x `` y", []),
    ("`  spaced  `", ["spaced"]),
]


@pytest.mark.parametrize(("text", "spans"), CODE_SPANS)
def test_code_spans_are_found_as_python_markdown_finds_them(text: str, spans: list[str]) -> None:
    def codes(rendered: str) -> list[str]:
        return [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", rendered, re.S)]

    assert codes(site_html(text)) == spans  # what mkdocs shows for the raw text
    assert codes(site_html(markdown(text))) == spans
    if "<" not in text:  # (where mkdocs would make a tag of it, the docs show the text)
        assert visible(site_html(markdown(text))) == visible(site_html(text))


def test_the_reported_cases() -> None:
    """Issue 22, finding 4: an escaped backtick before a tag, in prose and in a cell, and a
    ``~~~`` fence opened inside a cell."""
    escaped = "\\`<img src=x onerror=alert(document.domain)>`"
    assert markdown(escaped) == "&#96;&lt;img src=x onerror=alert(document.domain)>&#96;"
    assert cell(escaped) == markdown(escaped)
    assert visible(site_html(markdown(escaped))) == escaped[1:]
    fenced = cell("Run:\n~~~\n<img src=x onerror=alert(1)>\n~~~")
    assert fenced == "Run:<br><code>&lt;img src=x onerror=alert(1)&gt;</code>"


def test_code_stays_readable() -> None:
    assert code("max_tokens") == "`max_tokens`"
    assert code("/v1/items/{id}") == "`/v1/items/{id}`"
    assert code("List<String>") == "<code>List&lt;String&gt;</code>"
    assert code("a|b `c` \\d") == "<code>a&#124;b &#96;c&#96; &#92;d</code>"
    assert visible(site_html(code("List<String>"))) == "List<String>"
    assert visible(site_html(markdown("Use `List<String>` here"))) == "Use List<String> here"
    block = markdown("```python\nif a < b and c[0] | d:\n    print(`x`)\n```")
    assert block.startswith("<pre><code>") and block.endswith("</code></pre>")
    assert visible(site_html(block)) == "if a < b and c[0] | d: print(`x`)"
    assert "\n    print(" in html.unescape(site_html(block))  # indentation kept


def test_return_annotations_keep_spec_literals_as_code() -> None:
    """A client method returning an inline enum: ``Literal['<img ...>']``."""

    def link(name: str) -> str | None:
        return "[Thing](m.md#model-Thing)" if name == "Thing" else None

    listed = python_md("list[Thing] | None", link)
    assert listed == "`list`\\[[Thing](m.md#model-Thing)\\] \\| `None`"
    out = python_md(f"Literal['{ONE}', \"a|b\"]", link)
    assert out == (
        "`Literal`\\[<code>'&lt;img src=x onerror=alert(1)&gt;'</code>, "
        '<code>"a&#124;b"</code>\\]'
    )
    assert raw_markup(out) == []


def test_fences_at_any_indent_and_unclosed() -> None:
    for text in ("  ```\n  <b>x</b>\n  ```", "~~~~\n<b>x</b>\n~~~", "```\n<b>x</b>"):
        out = markdown(text)
        assert out.startswith("<pre><code>&lt;b&gt;x&lt;/b&gt;"), out
    assert markdown("a\n~~~\n<b>\n~~~\nafter").endswith("</code></pre>\n\nafter")


def test_links() -> None:
    out = markdown(
        "[ok](https://example.com) [bad](javascript:alert(1)) [rel](../x) "
        '[t](https://example.com "t<script>") <https://example.com/a_b> <mailto:a@b.c>'
    )
    rendered = site_html(out)
    hrefs = re.findall(r'href="([^"]*)"', rendered)
    assert hrefs == ["https://example.com", "https://example.com", "https://example.com/a_b"] + [
        "mailto:a@b.c"
    ]
    assert "bad" in rendered and "javascript" not in rendered
    # a reference definition to anything else is text, even in a quote or after a backslash
    for text in ("[r]: javascript:x\n\n[go][r]", "> [r]: javascript:x\n\n[r]", "[r\\]: data:x"):
        assert "href" not in site_html(markdown(text)), text
    assert "<img" not in site_html(markdown("![i](https://e.x/p.png) ![j][r]\n\n[r]: https://e.x"))


def test_entities_comments_and_attribute_lists_are_text() -> None:
    out = site_html(markdown("&lt;script&gt; <!-- c --> {: onclick=x } {{ 7*7 }}"))
    assert visible(out) == "<script> <!-- c --> {: onclick=x } {{ 7*7 }}"
    assert harmful(out) == []


def test_control_characters_are_dropped() -> None:
    """Python-Markdown's placeholders are made of STX and ETX: spec text cannot forge one."""
    assert markdown("a\x02wzxhzdk:0\x03b\x00") == "awzxhzdk:0b"
    assert inline("a\x1bb") == "ab" and code("a\x7fb") == "`ab`"


def _hostile_docs(tmp_path: Path, title: str) -> dict[str, str]:
    spec = {
        "openapi": "3.1.0",
        "info": {"title": title, "version": "1"},
        "tags": [{"name": title}],
        "paths": {
            "/x": {
                "get": {
                    "tags": [title],
                    "operationId": "get_x",
                    "parameters": [
                        {
                            "name": "X-Evil",
                            "in": "header",
                            "required": True,
                            "schema": {"type": "string", "enum": [f"a\n```\n{ONE}"]},
                        }
                    ],
                    "responses": {"200": {"description": CELL}},
                }
            }
        },
    }
    api = build_ir(normalize(spec).spec)
    config = ApiConfig(
        name="evil", package="evil", title=None, spec=tmp_path / "s.json", out=tmp_path
    )
    return render_docs(api, config, bind_settings(config, api))


def test_mkdocs_yml_is_yaml_of_the_same_text(tmp_path: Path) -> None:
    """The title's emoji (a JSON surrogate pair in a spec) is one character in YAML, not
    two lone surrogates; markup characters are gone from the site name, the nav titles
    are plain."""
    files = _hostile_docs(tmp_path, 'Emoji \U0001f600 <b>"API"</b>: x # y')

    class Loader(yaml.SafeLoader):
        """YAML, with mkdocs.yml's Python names read as None."""

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda *_: None)
    site = yaml.load(files["docs/mkdocs.yml"], Loader=Loader)
    assert site["site_name"] == "Emoji \U0001f600 bAPI/b: x # y API reference"
    titles = [next(iter(entry)) for entry in site["nav"][1]["Resources"]]
    assert titles == ["Emoji B API B X Y"]  # the resource's name (from the tag), as words
    assert all(not 0xD800 <= ord(c) <= 0xDFFF for c in files["docs/mkdocs.yml"])


def test_a_sample_cannot_close_its_fence(tmp_path: Path) -> None:
    """A curl sample holding a ``` line (a header value from the spec) gets a longer
    fence: the value stays inside the block."""
    page = next(v for k, v in _hostile_docs(tmp_path, "t").items() if k.endswith("/t.md"))
    assert "\n    ````sh\n" in page  # in its tab
    (sample,) = [c for _, c in fences(page, "sh")]
    assert f"-H 'X-Evil: a\n```\n{ONE}'" in sample


def test_the_sites_block_markers_in_spec_text_stay_text() -> None:
    """The site enables tabs (``=== "x"``), details (``???``), admonitions (``!!!``) and
    definition lists (``: ``): a spec description starting a line with one stays text."""
    from generator.render.docs.text import markdown

    out = markdown('a\n: definition\n=== "Tab"\n    body\n??? note\n!!! warning\nok')
    assert "&#58; definition" in out and '&#61;== "Tab"' in out
    assert "&#63;?? note" in out and "&#33;!! warning" in out
