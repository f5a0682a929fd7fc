"""The "Try it" console's HTML and script data (issue 27), without a browser: spec text
reaches them only escaped (entities in attributes and text, ``\\uXXXX`` in the script's
JSON), the block is one line of raw HTML, and the form has what the script reads."""

from __future__ import annotations

import html
import json
import re

from generator.ir import Operation, Parameter, RequestBody, TypeRef
from generator.render.docs.try_it import MOCK_URL, escape, script_json, try_it_html
from tests.docs.vectors import HTML_VECTORS

EVIL = '"><script>alert(1)</script>`{x}|*_[a](javascript:b)\n\n</details>'


def _op(name: str = EVIL) -> Operation:
    string = TypeRef(kind="primitive", primitive="string")
    return Operation(
        operation_id="evil",
        python_name="evil",
        method="post",
        path=f"/things/{{{name}}}",
        parameters=(
            Parameter(name=name, python_name="a", location="path", required=True, schema=string),
            Parameter(name="q", python_name="q", location="query", required=False, schema=string),
            Parameter(name="X-H", python_name="x", location="header", required=True, schema=string),
        ),
        request_body=RequestBody(required=True, content_type="application/json", schema=string),
        security=((name,),),
    )


def test_spec_text_is_escaped_once() -> None:
    sample = json.dumps({"note": EVIL, "vectors": HTML_VECTORS}, indent=2)
    block = try_it_html(_op(), sample)
    assert "\n" not in block  # one raw HTML block: no blank line can end it
    for raw in ("<script", "`", "{", "|", "*", "[", "\\"):
        assert raw not in block, raw  # markup of HTML or Markdown: entities only
    assert block.count("<details") == 1 and block.endswith("</details>")
    # the attributes hold the spec text, as entities (what the browser reads back)
    samples = re.findall(r'data-sample="([^"]*)"', block)
    assert [json.loads(html.unescape(s)) for s in samples] == [json.loads(sample)]
    names = [html.unescape(n) for n in re.findall(r'data-name="([^"]*)"', block)]
    assert names == [EVIL, "q", "X-H"]
    assert html.unescape(re.findall(r'data-path="([^"]*)"', block)[0]) == f"/things/{{{EVIL}}}"
    assert html.unescape(re.findall(r'data-scheme="([^"]*)"', block)[0]) == EVIL


def test_form_has_what_the_script_reads() -> None:
    block = try_it_html(_op("id"), None)
    assert f'value="{MOCK_URL}"' in block and "apismith-try-it__base" in block
    assert 'data-method="POST"' in block and 'type="password"' in block
    assert block.count("required") >= 2  # the path parameter and the header
    assert 'data-in="path"' in block and 'data-in="query"' in block
    assert 'data-in="header"' in block and "<textarea" in block
    assert "localStorage" not in block and "cookie" not in block
    plain = Operation(operation_id="g", python_name="g", method="get", path="/x")
    assert "<textarea" not in try_it_html(plain, None)
    assert "data-scheme" not in try_it_html(plain, None)


def test_script_json_cannot_end_a_script() -> None:
    value = {"</script><!--": "a&b\u2028\u2029>"}
    text = script_json(value)
    assert not re.search("[<>&\u2028\u2029]", text)
    assert json.loads(text) == value
    assert escape("a\x00b<") == "ab&#60;"
