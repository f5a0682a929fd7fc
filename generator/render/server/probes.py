"""One request per operation that the import check sends the generated mock, in-process
(:func:`generator.import_check.verify_import`): a package whose mock app does not build,
or whose mock answers an operation with a 5xx (501 aside: an operation the mock cannot
answer, already warned about) or crashes, is never reported as generated.

Each request is as small as valid: the path parameters, the required query, header and
cookie parameters (realistic values, :class:`~generator.render.examples.Synthesizer`;
structured ones serialized by their style), credentials for the first alternative of the
operation's security, and the request body when it is JSON or a form (a minimal
instance). A value that cannot be synthesized leaves the operation out.

A probe is plain data (the import check, a later stage, does not import the renderers):
``(operation, method, path and query, headers, body, content type)``, the path already
quoted and the query already encoded.
"""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote, urlencode

from generator.ir import Api, Operation, Parameter, SecurityScheme
from generator.media import media_base
from generator.render.examples import MockError, Synthesizer
from generator.render.server.params import shape

Probe = tuple[str, str, str, tuple[tuple[str, str], ...], bytes | None, str | None]

_SECRET = "apismith-probe"


def text_of(value: Any) -> str:
    """A scalar parameter value as the wire carries it (booleans in lower case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return "" if value is None else str(value)


def query_items(p: Parameter, value: Any, structured: bool) -> list[tuple[str, str]]:
    """The query items of parameter ``p`` holding ``value``, by its style and explode."""
    style = p.style or "form"
    if structured and isinstance(value, dict):
        if style == "deepObject":
            return [(f"{p.name}[{k}]", text_of(v)) for k, v in value.items()]
        if style == "form" and p.explode:
            return [(str(k), text_of(v)) for k, v in value.items()]
        delimiter = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(style, ",")
        pairs = [text_of(x) for k, v in value.items() for x in (k, v)]
        return [(p.name, delimiter.join(pairs))]
    if isinstance(value, list):
        if p.explode or structured:
            return [(p.name, text_of(v)) for v in value]
        return [(p.name, ",".join(text_of(v) for v in value))]
    return [(p.name, text_of(value))]


def _credentials(api: Api, op: Operation) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(query items, headers) presenting the first alternative of ``op``'s security."""
    if not op.security or () in op.security:
        return [], []
    schemes = {s.name: s for s in api.security_schemes}
    query: list[tuple[str, str]] = []
    headers: list[tuple[str, str]] = []
    for name in op.security[0]:
        s: SecurityScheme | None = schemes.get(name)
        if s is None:
            continue
        if s.kind == "api-key" and s.parameter_name:
            if s.location == "query":
                query.append((s.parameter_name, _SECRET))
            elif s.location == "cookie":
                headers.append(("cookie", f"{s.parameter_name}={_SECRET}"))
            else:
                headers.append((s.parameter_name, _SECRET))
        elif s.kind == "http-basic":
            token = base64.b64encode(f"{_SECRET}:{_SECRET}".encode()).decode()
            headers.append(("authorization", f"Basic {token}"))
        else:
            headers.append(("authorization", f"Bearer {_SECRET}"))
    return query, headers


def _body(op: Operation, minimal: Synthesizer) -> tuple[bytes | None, str | None]:
    """The request body (a minimal instance) and its content type, for JSON and forms."""
    body = op.request_body
    if body is None:
        return None, None
    media = media_base(body.content_type)
    value = minimal.value(body.schema)
    if media == "application/json" or media.endswith("+json"):
        return json.dumps(value).encode(), body.content_type
    if media == "application/x-www-form-urlencoded" and isinstance(value, dict):
        return urlencode([(k, text_of(v)) for k, v in value.items()]).encode(), media
    return None, None  # multipart, XML, ...: sent without (the answer may be a 422)


def probe(api: Api, op: Operation, full: Synthesizer, minimal: Synthesizer) -> Probe | None:
    """The request the import check sends for ``op`` (None: a value cannot be built)."""
    try:
        path = op.path.split("#", 1)[0] or "/"
        query, headers = _credentials(api, op)
        for p in op.parameters:
            if p.location != "path" and not p.required:
                continue
            value = full.value(p.schema)
            if p.location == "path":
                text = text_of(value) or _non_empty(p)
                if not text:  # an empty segment reaches no route (PeerTube's enum has "")
                    return None
                path = path.replace("{" + p.name + "}", quote(text, safe=""))
            elif p.location == "query":
                query += query_items(p, value, shape(api, p.schema) is not None)
            elif p.location == "header":
                headers.append((p.name, text_of(value)))
            else:
                headers.append(("cookie", f"{p.name}={text_of(value)}"))
        body, content_type = _body(op, minimal)
    except (MockError, RecursionError):
        return None
    if query:
        path += "?" + urlencode(query)
    return op.python_name, op.method.upper(), path, _headers(headers), body, content_type


def _non_empty(p: Parameter) -> str:
    """A non-empty value among the literals a path parameter allows, or ""."""
    return next((text_of(v) for v in p.schema.literals if text_of(v)), "")


def _headers(headers: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """``headers`` as sent: the cookies in one header, values made ASCII (quoted)."""
    cookies = [value for name, value in headers if name == "cookie"]
    found = [(n, v if v.isascii() else quote(v)) for n, v in headers if n != "cookie"]
    if cookies:
        found.append(("cookie", quote("; ".join(cookies), safe="=; ")))
    return tuple(found)


def server_probes(api: Api) -> tuple[Probe, ...]:
    """A probe per operation of ``api`` (in spec order; those that cannot be built left
    out)."""
    full, minimal = Synthesizer(api, full=True), Synthesizer(api)
    found = (probe(api, op, full, minimal) for op in api.operations)
    return tuple(p for p in found if p is not None)
