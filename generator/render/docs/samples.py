"""Example values and code samples of the docs (computed here, presented by the templates).

Request samples send the *minimal valid* request (required parameters and fields only,
built by the mock's ``Synthesizer``), so every sample runs against the generated mock
server. Response examples show every field (optional ones too, down to a few levels).
Each operation gets a sync and an async Python sample (and a streaming one when a body
flag switches streaming on), a curl command (and its streaming form) and the raw HTTP
request, whose credentials are placeholders (``<$SGP_API_KEY>``).
Samples read the base URL and credentials from the environment variables the client
honours (``<PREFIX>_BASE_URL``, ``<PREFIX>_API_KEY``, ...).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from generator.ir import Api, Field, Model, Operation, Parameter, TypeRef
from generator.render.docs.text import as_json
from generator.render.examples import MockError, Synthesizer, budget_for
from generator.render.examples.budget import larger_than
from generator.render.surface import Method, Param

FILE_SAMPLE = ("example.txt", b"hello")


class Examples(Synthesizer):
    """``Synthesizer`` with every field filled in (down to ``depth`` models), for docs."""

    def __init__(self, api: Api, depth: int = 3) -> None:
        super().__init__(api)
        self.depth = depth
        self._filled: dict[tuple[str, int], Any] = {}

    def _model(self, name: str) -> Any:
        # the depth counts objects only: an alias (such as a hoisted array item naming a
        # union, ``...MetricScoresItem``) adds a name, not a level of the example
        level = sum(
            1 for n in self._active if (m := self.models.get(n)) is not None and m.kind != "alias"
        )
        if level >= self.depth:
            return super()._model(name)  # minimal below the depth limit
        return self._memo(name, (name, level), self._filled, self._build_full)

    def value(self, t: TypeRef) -> Any:
        if t.kind == "union" and t.discriminator is not None:
            # the member's own tag value (a mapping key is always a string, the tag may be
            # a boolean: ``restore: false``)
            prop = t.discriminator.property_name
            for tag, name in t.discriminator.mapping.items():
                try:
                    found = self._model(name)
                except MockError:
                    continue
                if isinstance(found, dict):
                    return {**found, prop: found.get(prop, self._tag(name, prop, tag))}
        if t.kind == "array" and not t.prefix_items and t.items is not None:
            count = int(t.constraints.get("minItems", 0) or 0)
            cap = t.constraints.get("maxItems")
            if count == 0 and (cap is None or cap > 0):
                try:
                    return [self.value(t.items)]
                except MockError:
                    return []
        if t.kind == "primitive" and t.primitive == "string" and not t.format:
            c = t.constraints
            if not c.get("pattern") and len("string") >= int(c.get("minLength", 0) or 0):
                if c.get("maxLength") is None or c["maxLength"] >= len("string"):
                    return "string"
        return super().value(t)

    def _build_full(self, model: Model) -> Any:
        if model.kind != "object":
            return self._build(model)
        out: dict[str, Any] = {}
        for f in model.fields:
            try:
                out[f.name] = self.value(f.type)
            except MockError:
                if f.required:
                    out[f.name] = None
        return out


EXAMPLE_DEPTHS = (3, 2, 1, 0)  # models filled in, tried in turn while too large


def example(api: Api, t: TypeRef | None, cache: dict[str, Examples]) -> str | None:
    """A pretty JSON example of ``t`` (None when none can be built): every field down to
    three levels of models, or fewer levels when that is larger than the mock's budget of
    one value (``budget_for``: on an API of thousands of operations, such as Microsoft
    Graph, two levels of its entities are thousands of lines)."""
    if t is None:
        return None
    nodes = budget_for(len(api.operations)).nodes
    for depth in EXAMPLE_DEPTHS:
        key = f"depth-{depth}"
        builder = cache.get(key)
        if builder is None:  # one per API and depth (``setdefault`` would build one a call)
            builder = cache[key] = Examples(api, depth=depth)
        try:
            value = builder.value(t)
            if depth and larger_than(value, nodes):
                continue
            return as_json(value, indent=2)
        except (MockError, RecursionError, TypeError, ValueError):
            return None
    return None


# --- request values --------------------------------------------------------------------------


def _minimal(synth: Synthesizer, t: TypeRef) -> Any:
    try:
        return synth.value(t)
    except MockError:
        return None


def _body_fields(api: Api, op: Operation) -> dict[str, Field]:
    """The fields of the body a sample sends: the body model's, or for a union of object
    models (whose fields the client takes as keywords) its first member's."""
    body = op.request_body
    if body is None or body.schema.kind != "model" or not body.schema.name:
        return {}
    model = api.model(body.schema.name)
    root = model.root
    if not model.fields and root is not None and root.kind == "union" and root.members:
        first = root.members[0]
        if first.kind == "model" and first.name:
            model = api.model(first.name)
    return {f.name: f for f in model.fields}


def required_params(api: Api, op: Operation, method: Method) -> list[Param]:
    """The client call's required arguments. Body fields are required when the body model
    requires them (the client makes them optional when the body may be passed whole)."""
    fields = _body_fields(api, op)
    out = []
    for p in method.params:
        if p.location in ("body", "file"):
            f = fields.get(p.wire)
            if f is not None and f.required:
                out.append(p)
        elif p.location != "model" and p.required:
            out.append(p)
    return out


def request_values(
    api: Api, op: Operation, method: Method, synth: Synthesizer
) -> list[tuple[str, str, Any]]:
    """(python name, location, value) of each required argument of the client call."""
    fields = _body_fields(api, op)
    body = op.request_body
    params: dict[tuple[str, str], Parameter] = {(p.name, p.location): p for p in op.parameters}
    out: list[tuple[str, str, Any]] = []
    for p in required_params(api, op, method):
        if p.location in ("path", "query", "header"):
            param = params.get((p.wire, p.location))
            value = _minimal(synth, param.schema) if param else "string"
        elif p.location == "file":
            value = FILE_SAMPLE
            f = fields.get(p.wire)
            if f is not None and f.type.kind == "array":
                value = [FILE_SAMPLE]
        elif p.location == "body":
            f = fields.get(p.wire)
            value = _minimal(synth, f.type) if f else None
        elif p.location == "whole" and body is not None:
            value = _minimal(synth, body.schema)
        else:
            continue
        out.append((p.name, p.location, value))
    return out


def _py(value: Any) -> str:
    return repr(value)


def _invocation(call: str, values: list[tuple[str, str, Any]], stream: str | None) -> str:
    """The client call with its arguments: on one line when it fits, else one a line."""
    args = [f"{name}={_py(value)}" for name, _, value in values]
    if stream is not None and stream != "always":
        args.append(f"{stream}=True")
    one_line = f"{call}({', '.join(args)})"
    if len(one_line) + 9 <= 88:
        return one_line
    return f"{call}(\n" + "".join(f"    {a},\n" for a in args) + ")"


def python_sample(
    package: str,
    client_class: str,
    call: str,
    values: list[tuple[str, str, Any]],
    *,
    stream: str | None,
) -> str:
    """A runnable sync sample. ``stream``: None, "always", or the Python name of the body
    flag that switches streaming on (passed as ``True``)."""
    invocation = _invocation(call, values, stream)
    lines = [
        f"from {package} import {client_class}",
        "",
        f"client = {client_class}()  # credentials and base URL from the environment",
    ]
    if stream and "\n" in invocation:
        lines += [f"stream = {invocation}", "for chunk in stream:", "    print(chunk)"]
    elif stream:
        lines += [f"for chunk in {invocation}:", "    print(chunk)"]
    else:
        lines += [f"result = {invocation}", "print(result)"]
    return "\n".join(lines)


def async_sample(
    package: str,
    client_class: str,
    call: str,
    values: list[tuple[str, str, Any]],
    *,
    stream: str | None,
) -> str:
    """The runnable sample of the async client (``Async<Client>``): the same call, awaited
    (a stream is awaited, then iterated with ``async for``)."""
    invocation = _invocation(call, values, stream).replace("\n", "\n    ")
    body = [f"    client = Async{client_class}()  # credentials and base URL from the environment"]
    if stream:
        body += [
            f"    stream = await {invocation}",
            "    async for chunk in stream:",
            "        print(chunk)",
        ]
    else:
        body += [f"    result = await {invocation}", "    print(result)"]
    body.append("    await client.close()")
    return "\n".join(
        [
            "import asyncio",
            "",
            f"from {package} import Async{client_class}",
            "",
            "",
            "async def main() -> None:",
            *body,
            "",
            "",
            "asyncio.run(main())",
        ]
    )


def _sh(text: str) -> str:
    return shlex.quote(text)


_PLAIN_IN_DOUBLE_QUOTES = re.compile(r'[^$`\\"!]*')


def sh_env(before: str, env: str, after: str = "") -> str:
    """One shell word: ``before``, the value of the variable ``env``, then ``after``.
    Spec text (a path, a header name) may hold ``$(...)`` or backticks, which a copied
    command must never run: it is double-quoted only when nothing in it expands there,
    and single-quoted otherwise."""
    if _PLAIN_IN_DOUBLE_QUOTES.fullmatch(before + after):
        joined = "{" + env + "}" if after[:1].isalnum() or after[:1] == "_" else env
        return f'"{before}${joined}{after}"'
    quoted = (
        shlex.quote(before) if before else "",
        f'"${env}"',
        shlex.quote(after) if after else "",
    )
    return "".join(quoted)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


@dataclass
class _Request:
    """The parts of a sample's minimal request: path (values in, with the query string),
    headers, and the body: JSON (``payload``), or multipart fields and files."""

    target: str
    headers: list[tuple[str, str]]
    payload: Any = None
    has_payload: bool = False
    fields: list[tuple[str, str]] = dc_field(default_factory=list)
    files: list[str] = dc_field(default_factory=list)
    multipart: bool = False


def _request(
    op: Operation, values: list[tuple[str, str, Any]], wires: dict[str, str], stream: str | None
) -> _Request:
    path = op.path
    query: list[tuple[str, str]] = []
    headers: list[tuple[str, str]] = []
    body: dict[str, Any] = {}
    form: list[str] = []
    whole: Any = None
    has_whole = False
    for name, location, value in values:
        wire = wires.get(name, name)
        if location == "path":
            path = path.replace("{" + wire + "}", quote(_text(value), safe=""))
        elif location == "query":
            items = value if isinstance(value, list) else [value]
            query += [(wire, _text(v)) for v in items]
        elif location == "header":
            headers.append((wire, _text(value)))
        elif location == "body":
            body[wire] = value
        elif location == "file":
            count = len(value) if isinstance(value, list) else 1
            form += [wire] * count
        elif location == "whole":
            whole, has_whole = value, True
    out = _Request(path + (f"?{urlencode(query)}" if query else ""), headers)
    rb = op.request_body
    if rb is not None and rb.content_type.startswith("multipart/"):
        out.multipart = True
        out.fields = [(k, _text(v)) for k, v in body.items()]
        out.files = form
    elif rb is not None:
        payload = whole if has_whole else body
        if stream:
            payload = {**payload, stream: True} if isinstance(payload, dict) else payload
        out.payload, out.has_payload = payload, True
    return out


def curl_sample(
    op: Operation,
    values: list[tuple[str, str, Any]],
    wires: dict[str, str],
    env_base: str,
    auth: list[str],
    *,
    stream: str | None,
) -> str:
    """A curl command for the minimal request (``auth``: curl options, env vars unquoted);
    ``stream``: the wire name of the body flag that switches streaming on, if any."""
    req = _request(op, values, wires, stream)
    lines = [f"curl -X {op.method.upper()} {sh_env('', env_base, req.target)}"]
    lines += auth
    lines += [f"-H {_sh(f'{k}: {v}')}" for k, v in req.headers]
    if stream:
        lines.append("-N")
    if req.multipart:
        lines += [f"-F {_sh(f'{k}={v}')}" for k, v in req.fields]
        lines += [f"-F {_sh(f'{w}=@{FILE_SAMPLE[0]}')}" for w in req.files]
    elif req.has_payload:
        lines.append("-H 'Content-Type: application/json'")
        lines.append(f"-d {_sh(as_json(req.payload))}")
    return " \\\n  ".join(lines)


BOUNDARY = "apismith-boundary"


def http_sample(
    op: Operation,
    values: list[tuple[str, str, Any]],
    wires: dict[str, str],
    base_url: str,
    auth: list[tuple[str, str]],
) -> str:
    """The raw HTTP request of the minimal call: request line, headers (``auth``: the
    credentials' headers, values as placeholders), blank line, body."""
    req = _request(op, values, wires, None)
    url = urlsplit(base_url or "https://api.example.com")
    prefix = url.path.rstrip("/")
    lines = [f"{op.method.upper()} {prefix}{req.target} HTTP/1.1", f"Host: {url.netloc}"]
    lines += [f"{k}: {v}" for k, v in auth]
    lines += [f"{k}: {v}" for k, v in req.headers]
    body = ""
    if req.multipart:
        lines.append(f"Content-Type: multipart/form-data; boundary={BOUNDARY}")
        parts = [
            f'--{BOUNDARY}\nContent-Disposition: form-data; name="{k}"\n\n{v}'
            for k, v in req.fields
        ]
        parts += [
            f'--{BOUNDARY}\nContent-Disposition: form-data; name="{w}"; '
            f'filename="{FILE_SAMPLE[0]}"\n\n{FILE_SAMPLE[1].decode()}'
            for w in req.files
        ]
        body = "\n".join([*parts, f"--{BOUNDARY}--"])
    elif req.has_payload:
        lines.append("Content-Type: application/json")
        body = as_json(req.payload, indent=2)
    return "\n".join(lines) + (f"\n\n{body}" if body else "")


def body_json(
    op: Operation, values: list[tuple[str, str, Any]], wires: dict[str, str]
) -> str | None:
    """The minimal request's JSON body, indented (None: no JSON body)."""
    req = _request(op, values, wires, None)
    return as_json(req.payload, indent=2) if req.has_payload else None
