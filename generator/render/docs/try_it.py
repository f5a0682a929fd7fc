"""The "Try it" console of an operation's docs section (issue 27).

``try_it_html`` writes, for one operation, a collapsed ``<details>`` holding a form: the
base URL (the local ``apismith serve`` mock by default, editable), one credential field
per security scheme the operation needs (a password input, never stored: no
``localStorage``, no cookie), one input per path, query and header parameter (required
ones marked), a JSON editor (a ``<textarea>``) prefilled with the body's sample, and a
Send button; the response's status, headers and body show beneath it.

The page's script (``try-it.js``, :func:`try_it_script`, shipped with the site: no CDN,
works offline) sends the request with ``fetch`` and writes the response with
``textContent`` only. Everything it needs is in ``data-*`` attributes, escaped here:
spec text is untrusted, and every character HTML or Markdown reads as markup becomes an
entity (the same table as :mod:`.text`'s code), so the block is one line of raw HTML that
Python-Markdown stashes as is, and reads as the same text whatever it decides. The
security schemes (how a credential is sent) are the site's, in the script: JSON whose
``<``, ``>``, ``&`` and line separators are ``\\uXXXX`` escapes.
"""

from __future__ import annotations

import json
import re
from typing import Any

from generator.ir import Api, Operation, SecurityScheme
from generator.ir.model import ParameterLocation
from generator.render.templates import render

MOCK_URL = "http://127.0.0.1:4010"  # `apismith serve`'s default address
SCRIPT = "javascripts/try-it.js"  # under the pages: mkdocs copies it into the site
_LOCATIONS: tuple[tuple[ParameterLocation, str], ...] = (
    ("path", "Path parameters"),
    ("query", "Query parameters"),
    ("header", "Headers"),
)
# every character HTML or Markdown reads as markup, and newlines, as numeric entities
_MARKUP = re.compile(r"[&<>\"'`\\*_\[\]{}|~\n\r\t]")
_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}
_SCRIPT_ESCAPES |= {"\u2028": "\\u2028", "\u2029": "\\u2029"}


def escape(text: str) -> str:
    """``text`` as HTML text or a quoted attribute value that Markdown leaves alone too:
    each markup character (and each newline) a numeric entity; control characters
    dropped."""
    clean = re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", "", text)
    return _MARKUP.sub(lambda m: f"&#{ord(m.group())};", clean)


def script_json(value: Any) -> str:
    """``value`` as JSON safe in a script (inline or a file): no ``<``, ``>`` or ``&``
    (so never ``</script>`` or ``<!--``), and no U+2028/U+2029 line separators."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=True)
    return re.sub("[<>&\u2028\u2029]", lambda m: _SCRIPT_ESCAPES[m.group()], text)


def _credentials(op: Operation) -> list[str]:
    """The security schemes of the operation's first requirement alternative (the one the
    console fills in); none for an anonymous operation."""
    return list(op.security[0]) if op.security else []


def _field(label: str, control: str, hint: str = "") -> str:
    hint_html = f' <span class="apismith-try-it__hint">{hint}</span>' if hint else ""
    return f'<label class="apismith-try-it__field"><span>{label}{hint_html}</span>{control}</label>'


def _params(op: Operation) -> list[str]:
    parts = []
    for location, legend in _LOCATIONS:
        params = op.parameters_in(location)
        if not params:
            continue
        fields = []
        for p in params:
            default = "" if not p.has_default or p.default is None else p.default
            value = default if isinstance(default, str) else json.dumps(default)
            required = " required" if p.required else ""
            control = (
                f'<input type="text" data-in="{location}" data-name="{escape(p.name)}"'
                f' value="{escape(value)}"{required} autocomplete="off" spellcheck="false">'
            )
            mark = '<abbr title="required">&#42;</abbr>' if p.required else ""
            fields.append(_field(f"<code>{escape(p.name)}</code>{mark}", control))
        parts.append(f"<fieldset><legend>{legend}</legend>{''.join(fields)}</fieldset>")
    return parts


def _body(op: Operation, body_sample: str | None) -> str:
    body = op.request_body
    if body is None:
        return ""
    rows = min(max((body_sample or "").count("\n") + 2, 4), 20)
    control = (
        f'<textarea class="apismith-try-it__body" rows="{rows}" spellcheck="false"'
        f' data-type="{escape(body.content_type)}" data-sample="{escape(body_sample or "")}">'
        "</textarea>"
    )
    kind = escape(body.content_type)
    json_body = "json" in body.content_type
    return _field(f"Body ({kind})", control, "JSON" if json_body else "JSON, sent as fields")


def try_it_html(op: Operation, body_sample: str | None) -> str:
    """The "Try it" console of ``op``: one line of HTML (a ``<details>`` block).

    ``body_sample`` is the JSON text of the request body's example, or None (an empty
    editor)."""
    auth = "".join(
        _field(
            f"Credential <code>{escape(name)}</code>",
            f'<input type="password" data-scheme="{escape(name)}" autocomplete="off">',
            "sent with this request only, never stored",
        )
        for name in _credentials(op)
    )
    base = _field(
        "Base URL",
        f'<input type="url" class="apismith-try-it__base" value="{MOCK_URL}"'
        ' autocomplete="off" spellcheck="false">',
        "apismith serve",
    )
    form = "".join([base, auth, *_params(op), _body(op, body_sample)])
    return (
        f'<details class="apismith-try-it" data-method="{escape(op.method.upper())}"'
        f' data-path="{escape(op.path)}">'
        "<summary>Try it</summary>"
        f'<div class="apismith-try-it__form" role="form">{form}'
        '<button type="button" class="apismith-try-it__send md-button md-button--primary">'
        "Send</button></div>"
        '<div class="apismith-try-it__response" hidden>'
        '<p class="apismith-try-it__status"></p>'
        '<pre class="apismith-try-it__headers"></pre>'
        '<pre class="apismith-try-it__output"></pre></div></details>'
    )


def _scheme(scheme: SecurityScheme) -> dict[str, str]:
    """How the script sends a credential of ``scheme``: where (header, query, cookie) and
    under what name, and the prefix (``Bearer ``) or encoding (``basic``)."""
    if scheme.kind == "api-key" and scheme.parameter_name:
        return {"in": scheme.location or "header", "name": scheme.parameter_name, "as": "raw"}
    if scheme.kind == "http-basic" or (scheme.kind == "http" and scheme.scheme == "basic"):
        return {"in": "header", "name": "Authorization", "as": "basic"}
    return {"in": "header", "name": "Authorization", "as": "bearer"}


def try_it_script(api: Api, templates: str | None = None) -> str:
    """The site's ``try-it.js``: the console's behaviour, with the API's security schemes
    (scheme name -> how its credential is sent)."""
    schemes = {s.name: _scheme(s) for s in api.security_schemes}
    return render("docs/try-it.js.jinja", {"schemes": script_json(schemes)}, templates)
