"""The mock server never answers 5xx on client input (issue 9, finding 8).

``apismith serve`` runs for real (uvicorn on 127.0.0.1, a free port) for fresh copies of
llm-engine and sgp, generated into a temporary directory with the current templates. A
seeded random generator (not hypothesis: deterministic and fast) sends 2,200 bounded
requests over HTTP, spread over every operation of both specs (read from the package's
``openapi.json``): valid ones, and ones with non-finite numbers (``NaN``, ``Infinity``,
``1e999``), wrong types, 2 MB bodies, malformed JSON, wrong content types, unknown paths,
wrong methods and missing credentials.

Asserted: no response is a 5xx and no request fails at the transport level; every 405
has an ``Allow`` header naming exactly the methods of every spec path that matches the
URL; a wrong method always gets 405; a secured operation without credentials always gets
401; valid requests reach the operations (2xx); the server log holds no traceback.
"""

from __future__ import annotations

import json
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.conftest import SPECS, run_cli
from tests.server.conftest import AUTH_HEADERS, running

pytestmark = pytest.mark.slow  # 11 s alone, 25 s on 2 busy cores

SEED = 9
REQUESTS_PER_API = 1100
OVERSIZED = 2 * 1024 * 1024  # bytes
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
NON_FINITE = ("NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1E400")
# Where a non-finite number goes: the JSON text of this string is replaced by the token.
HOLE = "\x00non-finite\x00"

# kind -> weight (of 100)
KINDS: dict[str, int] = {
    "valid": 22,
    "missing_auth": 7,
    "non_finite": 16,
    "wrong_type": 12,
    "malformed": 10,
    "content_type": 9,
    "oversized": 2,
    "unknown_path": 6,
    "wrong_method": 11,
    "odd_text": 5,
}
# Kinds about the request body: an operation without one is swapped for one with a body
# (always, or for NaN and wrong types 70% of the time: the rest go into query parameters).
BODY_KINDS = {"malformed": 1.0, "content_type": 1.0, "oversized": 1.0, "odd_text": 1.0}
BODY_KINDS |= {"non_finite": 0.7, "wrong_type": 0.7}


@dataclass
class Operation:
    path: str  # the spec's template, e.g. /v1/files/{file_id}
    method: str  # lower case
    params: list[dict[str, Any]]
    media_type: str | None  # of the request body
    body_schema: dict[str, Any] | None
    body_required: bool
    secured: bool


@dataclass
class Api:
    package: str
    spec: dict[str, Any]
    operations: list[Operation]
    templates: list[tuple[re.Pattern[str], frozenset[str]]]  # path regex -> METHODS

    def allowed(self, path: str) -> frozenset[str]:
        """The methods of every spec path matching the (decoded) URL path ``path``."""
        found: set[str] = set()
        for regex, methods in self.templates:
            if regex.fullmatch(path):
                found |= methods
        return frozenset(found)


def load_api(package_dir: Path) -> Api:
    spec = json.loads((package_dir / "openapi.json").read_text(encoding="utf-8"))
    top_security = spec.get("security", [])
    operations: list[Operation] = []
    templates = []
    for path, item in spec["paths"].items():
        methods = [m for m in METHODS if m in item]
        regex = re.compile(re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(path)))
        templates.append((regex, frozenset(m.upper() for m in methods)))
        for method in methods:
            op = item[method]
            body = op.get("requestBody") or {}
            content = body.get("content") or {}
            media_type = next(iter(content), None)
            security = op.get("security", top_security)
            operations.append(
                Operation(
                    path=path,
                    method=method,
                    params=[*item.get("parameters", []), *op.get("parameters", [])],
                    media_type=media_type,
                    body_schema=content[media_type].get("schema", {}) if media_type else None,
                    body_required=bool(body.get("required")),
                    secured=bool(security) and {} not in security,
                )
            )
    return Api(package_dir.name, spec, operations, templates)


# --- instances of schemas -----------------------------------------------------------------

_FORMATS = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "00:00:00",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "email": "user@example.com",
    "uri": "https://example.com/",
    "binary": "",
}


class Instances:
    """Small, mostly valid JSON instances of a spec's schemas (required fields, the first
    enum value or alternative, bounds honoured), sometimes with optional fields."""

    def __init__(self, spec: dict[str, Any], rng: random.Random) -> None:
        self.schemas = spec.get("components", {}).get("schemas", {})
        self.rng = rng

    def resolve(self, schema: Any) -> dict[str, Any]:
        seen = 0
        while isinstance(schema, dict) and "$ref" in schema and seen < 50:
            schema = self.schemas.get(schema["$ref"].rsplit("/", 1)[-1], {})
            seen += 1
        return schema if isinstance(schema, dict) else {}

    def value(self, schema: Any, depth: int = 0) -> Any:
        s = self.resolve(schema)
        if "const" in s:
            return s["const"]
        if s.get("enum"):
            return s["enum"][0]
        for key in ("anyOf", "oneOf"):
            options = [o for o in s.get(key, []) if self.resolve(o).get("type") != "null"]
            if options:
                return self.value(options[0], depth + 1)
        if s.get("allOf"):
            merged: dict[str, Any] = {}
            for part in s["allOf"]:
                v = self.value(part, depth + 1)
                if not isinstance(v, dict):
                    return v
                merged.update(v)
            return merged
        t = s.get("type")
        if isinstance(t, list):
            t = next((x for x in t if x != "null"), None)
        if t == "object" or "properties" in s:
            if depth > 8:
                return {}
            props = s.get("properties", {})
            names = list(s.get("required", []))
            names += [n for n in props if n not in names and self.rng.random() < 0.15]
            return {n: self.value(props.get(n, {}), depth + 1) for n in names}
        if t == "array":
            if "prefixItems" in s:
                return [self.value(i, depth + 1) for i in s["prefixItems"]]
            count = s.get("minItems", 0) or (1 if depth < 6 and self.rng.random() < 0.5 else 0)
            return [self.value(s.get("items", {}), depth + 1) for _ in range(count)]
        if t == "string":
            if s.get("format") in _FORMATS:
                return _FORMATS[s["format"]]
            return "a" * max(s.get("minLength", 1), 1)
        if t in ("integer", "number"):
            low = s.get("minimum", s.get("exclusiveMinimum", 0))
            value = low + 1 if isinstance(low, (int, float)) else 1
            high = s.get("maximum")
            if isinstance(high, (int, float)) and value > high:
                value = high
            return int(value) if t == "integer" else float(value)
        if t == "boolean":
            return False
        return "a"


def positions(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) inside a JSON value, the root included."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from positions(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from positions(v, (*path, i))


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    items = list(value)
    items[head] = replaced(items[head], rest, new)
    return items


# --- requests ------------------------------------------------------------------------------


@dataclass
class Request:
    kind: str
    method: str
    path: str  # decoded
    url: str  # encoded
    params: list[tuple[str, str]]
    headers: dict[str, str]
    content: bytes | None = None
    files: list[tuple[str, tuple[str, bytes, str]]] | None = None
    data: dict[str, str] | None = None
    secured: bool = False
    operation: str = ""
    json_body: bool = False  # the operation takes JSON, and the request sends it as JSON


WRONG_VALUES: list[Any] = [
    "text",
    "",
    12345,
    -1,
    0.5,
    True,
    None,
    [],
    {},
    [1, "a", None],
    {"x": {"y": [None, {"z": 1}]}},
    "9" * 40,
    10**30,
    -(10**30),
    1.7e308,
]

ODD_STRINGS = [
    "\ud800",  # a lone surrogate (json.dumps escapes it as \ud800)
    "\udfff\ud800",
    "\x00",
    "é ü 漢字 🙂",
    "\u202e\ufeff",
    "' OR 1=1 --",
    "{{7*7}}",
    "${jndi:ldap://x}",
]


class Traffic:
    """The requests of one API: operations in a shuffled round robin, kinds at random."""

    def __init__(self, api: Api, seed: int) -> None:
        self.api = api
        self.rng = random.Random(seed)
        self.instances = Instances(api.spec, self.rng)
        self.auth = AUTH_HEADERS[api.package]

    def requests(self, count: int) -> Iterator[Request]:
        ops = list(self.api.operations)
        self.rng.shuffle(ops)
        with_body = [op for op in ops if op.media_type is not None]
        kinds, weights = zip(*KINDS.items())
        for i in range(count):
            kind = self.rng.choices(kinds, weights)[0]
            op = ops[i % len(ops)]
            if op.media_type is None and self.rng.random() < BODY_KINDS.get(kind, 0):
                op = self.rng.choice(with_body)
            r = self.build(kind, op)
            r.operation = f"{op.method.upper()} {op.path}"
            yield r

    # -- parts

    def segment(self, schema: Any, odd: bool = False) -> str:
        """A path parameter value: never empty, no '/', not '.' or '..'."""
        if odd:
            text = self.rng.choice(["x y", "ü", "a%b", "-1", "1e999", "NaN", "a;b", "*"])
        else:
            v = self.instances.value(schema)
            text = json.dumps(v) if not isinstance(v, str) else v
        text = text.replace("/", "_") or "a"
        return "a" + text if text in (".", "..") else text

    def location(self, op: Operation, odd: bool = False) -> tuple[str, str]:
        path = op.path
        url = op.path
        for p in op.params:
            if p.get("in") == "path":
                value = self.segment(p.get("schema", {}), odd)
                path = path.replace("{" + p["name"] + "}", value)
                url = url.replace("{" + p["name"] + "}", quote(value, safe=""))
        return path, url

    def query(self, op: Operation, everything: bool = False) -> list[tuple[str, str]]:
        found = []
        for p in op.params:
            if p.get("in") != "query":
                continue
            if p.get("required") or everything or self.rng.random() < 0.2:
                v = self.instances.value(p.get("schema", {}))
                values = v if isinstance(v, list) else [v]
                for item in values:
                    text = item if isinstance(item, str) else json.dumps(item)
                    found.append((p["name"], text))
        return found

    def body(self, op: Operation) -> Any:
        return self.instances.value(op.body_schema or {})

    def multipart(self, op: Operation) -> tuple[list[Any], dict[str, str]]:
        schema = self.instances.resolve(op.body_schema or {})
        files: list[Any] = []
        data: dict[str, str] = {}
        for name, prop in schema.get("properties", {}).items():
            prop = self.instances.resolve(prop)
            is_file = prop.get("format") == "binary" or "contentMediaType" in prop
            items = self.instances.resolve(prop.get("items", {}))
            if is_file or items.get("format") == "binary":
                files.append((name, ("a.txt", b"hello", "text/plain")))
            elif name in schema.get("required", []) or self.rng.random() < 0.3:
                v = self.instances.value(prop)
                data[name] = v if isinstance(v, str) else json.dumps(v)
        return files, data

    def request(
        self, kind: str, op: Operation, method: str | None = None, odd: bool = False
    ) -> Request:
        path, url = self.location(op, odd)
        return Request(
            kind,
            (method or op.method).upper(),
            path,
            url,
            self.query(op),
            dict(self.auth),
            secured=op.secured,
        )

    def with_json(
        self, r: Request, text: str | bytes, content_type: str | None = "application/json"
    ) -> Request:
        r.content = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
        if content_type is not None:
            r.headers["content-type"] = content_type
        return r

    def with_valid_body(self, r: Request, op: Operation) -> Request:
        if op.media_type == "multipart/form-data":
            r.files, r.data = self.multipart(op)
            return r
        if op.media_type is not None:
            return self.with_json(r, json.dumps(self.body(op)))
        return r

    # -- kinds

    def build(self, kind: str, op: Operation) -> Request:
        make: Callable[[Operation], Request] = getattr(self, kind)
        return make(op)

    def valid(self, op: Operation) -> Request:
        return self.with_valid_body(self.request("valid", op), op)

    def missing_auth(self, op: Operation) -> Request:
        r = self.with_valid_body(self.request("missing_auth", op), op)
        for name in self.auth:
            r.headers.pop(name, None)
        return r

    def non_finite(self, op: Operation) -> Request:
        r = self.request("non_finite", op)
        token = self.rng.choice(NON_FINITE)
        numeric = [
            (i, p)
            for i, p in enumerate(op.params)
            if p.get("in") == "query" and _numeric(self.instances.resolve(p.get("schema", {})))
        ]
        if numeric and (op.media_type is None or self.rng.random() < 0.3):
            _, p = self.rng.choice(numeric)
            r.params.append((p["name"], self.rng.choice(["nan", "inf", "-inf", "1e999", token])))
            return self.with_valid_body(r, op)
        body = self.body(op)
        spots = list(positions(body))
        numbers = [p for p, v in spots if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if numbers and self.rng.random() < 0.7:
            body = replaced(body, self.rng.choice(numbers), HOLE)
        elif isinstance(body, dict) and self.rng.random() < 0.5:
            body = {**body, self.rng.choice(["temperature", "top_p", "x", "n"]): HOLE}
        else:
            body = replaced(body, self.rng.choice(spots)[0], HOLE)
        text = json.dumps(body).replace(json.dumps(HOLE), token)
        r.json_body = op.media_type == "application/json"
        return self.with_json(r, text)

    def wrong_type(self, op: Operation) -> Request:
        r = self.request("wrong_type", op)
        params = [p for p in op.params if p.get("in") == "query"]
        if params and (op.media_type is None or self.rng.random() < 0.3):
            p = self.rng.choice(params)
            r.params.append((p["name"], self.rng.choice(["x", "[]", "{}", "-", "1.5", "true"])))
            return self.with_valid_body(r, op)
        if op.media_type == "multipart/form-data":
            r.files, r.data = self.multipart(op)
            r.data = {k: self.rng.choice(["", "x", "[[", "{}", "1e999"]) for k in r.data}
            if r.files and self.rng.random() < 0.5:
                r.data.update({name: "not a file" for name, _ in r.files})
                r.files = None
            return r
        body = self.body(op)
        path = self.rng.choice(list(positions(body)))[0]
        return self.with_json(r, json.dumps(replaced(body, path, self.rng.choice(WRONG_VALUES))))

    def malformed(self, op: Operation) -> Request:
        r = self.request("malformed", op)
        valid = json.dumps(self.body(op))
        depth = self.rng.choice([50, 200, 950, 5000, 100_000])
        choices: list[Callable[[], str | bytes]] = [
            lambda: valid[: self.rng.randrange(max(len(valid), 1))],
            lambda: "{",
            lambda: "not json",
            lambda: "",
            lambda: valid + " trailing",
            lambda: self.rng.randbytes(self.rng.randrange(1, 200)),
            lambda: b'{"a": "\xff\xfe"}',
            lambda: b"\xef\xbb\xbf" + valid.encode(),
            lambda: "[" * depth + "]" * depth,
            lambda: '{"a":' * depth + "1" + "}" * depth,
            lambda: '{"n": 1' + "0" * 5000 + "}",
            lambda: '{"a": 1, "a": 2, "a": NaN}',
            lambda: "\ud800",
            lambda: json.dumps(self.body(op), indent=1)[:-1] + ",}",
        ]
        return self.with_json(r, self.rng.choice(choices)())

    def content_type(self, op: Operation) -> Request:
        r = self.request("content_type", op)
        if op.media_type == "multipart/form-data" and self.rng.random() < 0.5:
            return self.with_json(r, json.dumps(self.body(op)))
        content_type = self.rng.choice(
            [
                None,
                "text/plain",
                "application/xml",
                "application/x-www-form-urlencoded",
                "multipart/form-data",
                "multipart/form-data; boundary=xyz",
                "application/json; charset=utf-16",
                "application/vnd.api+json",
                "application/octet-stream",
                "garbage",
                "application/",
                "; ;",
            ]
        )
        body = json.dumps(self.body(op)) if self.rng.random() < 0.7 else self.rng.randbytes(64)
        return self.with_json(r, body, content_type)

    def oversized(self, op: Operation) -> Request:
        r = self.request("oversized", op)
        if op.media_type == "multipart/form-data":
            r.files, r.data = self.multipart(op)
            r.files = [
                (n, ("big.bin", b"x" * OVERSIZED, "application/octet-stream")) for n, _ in r.files
            ] or [("file", ("big.bin", b"x" * OVERSIZED, "application/octet-stream"))]
            return r
        body = self.body(op)
        choice = self.rng.randrange(3)
        if choice == 0 and isinstance(body, dict):
            text = json.dumps({**body, "padding": "x" * OVERSIZED})
        elif choice == 1:
            text = "[" + "1," * (OVERSIZED // 2) + "1]"
        else:
            text = json.dumps({"a": ["x" * 1000] * (OVERSIZED // 1000)})
        return self.with_json(r, text)

    def unknown_path(self, op: Operation) -> Request:
        r = self.request("unknown_path", op)
        tail = self.rng.choice(["/extra", "/a/b/c", "x", "/%00", "/..%2f..", "/~", "/%ff"])
        prefix = self.rng.choice([r.url, "/v9/nope", "", "/" + "a" * 300])
        r.url = (prefix + tail) if prefix else tail if tail.startswith("/") else "/" + tail
        r.path = httpx.URL("http://h" + r.url).path
        return self.with_valid_body(r, op)

    def wrong_method(self, op: Operation) -> Request:
        r = self.request("wrong_method", op)
        allowed = self.api.allowed(r.path)
        others = [m for m in (*METHODS, "FOO") if m.upper() not in allowed]
        r.method = self.rng.choice(others).upper()
        return self.with_valid_body(r, op)

    def odd_text(self, op: Operation) -> Request:
        r = self.request("odd_text", op, odd=True)
        if op.media_type is None or op.media_type == "multipart/form-data":
            return self.with_valid_body(r, op)
        body = self.body(op)
        strings = [p for p, v in positions(body) if isinstance(v, str)]
        spot = self.rng.choice(strings) if strings else ()
        text = json.dumps(replaced(body, spot, self.rng.choice(ODD_STRINGS)))
        if isinstance(body, dict) and self.rng.random() < 0.3:
            text = json.dumps({**body, self.rng.choice(ODD_STRINGS): 1})
        return self.with_json(r, text)


def _numeric(schema: dict[str, Any]) -> bool:
    t = schema.get("type")
    kinds = t if isinstance(t, list) else [t]
    kinds += [o.get("type") for o in schema.get("anyOf", []) if isinstance(o, dict)]
    return "number" in kinds or "integer" in kinds


# --- the test ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Api, str, Path]]]:
    """Fresh llm_engine and sgp packages (current templates), each served by `apismith
    serve --out`: package -> (its Api, base URL, server log)."""
    from contextlib import ExitStack

    tmp = tmp_path_factory.mktemp("robustness")
    apis: dict[str, tuple[Api, str, Path]] = {}
    with ExitStack() as stack:
        for config, package in (("llm-engine", "llm_engine"), ("sgp", "sgp")):
            proc = run_cli(
                "generate", "--config", SPECS / f"{config}.toml", "--out", tmp / package, cwd=tmp
            )
            assert proc.returncode == 0, proc.stderr
            log = tmp / f"{package}.log"
            args = [sys.executable, "-m", "generator", "serve", "--out", str(tmp / package)]
            url = stack.enter_context(running(args, cwd=tmp, log=log))
            apis[package] = (load_api(tmp / package), url, log)
        yield apis


def send(client: httpx.Client, r: Request) -> httpx.Response:
    request = client.build_request(
        r.method,
        r.url,
        params=list(r.params),
        headers=r.headers,
        content=r.content,
        files=r.files,
        data=r.data,
    )
    return client.send(request)


def test_no_client_input_gets_a_5xx(served: dict[str, tuple[Api, str, Path]]) -> None:
    started = time.monotonic()
    statuses: Counter[tuple[str, int]] = Counter()
    problems: list[str] = []
    hit: Counter[str] = Counter()
    operations: dict[str, set[str]] = {}
    total = 0
    for seed, (package, (api, url, log)) in enumerate(sorted(served.items()), start=SEED):
        operations[package] = set()
        with httpx.Client(base_url=url, timeout=60) as client:
            for r in Traffic(api, seed).requests(REQUESTS_PER_API):
                total += 1
                operations[package].add(r.operation)
                where = f"{package} {r.kind}: {r.method} {r.url} {r.params}"
                try:
                    response = send(client, r)
                except httpx.HTTPError as exc:
                    problems.append(f"{where}: {type(exc).__name__}: {exc}")
                    continue
                status = response.status_code
                statuses[(r.kind, status)] += 1
                hit[f"{package} {r.kind}"] += 1
                if status >= 500:
                    problems.append(f"{where}: {status} {response.text[:300]}")
                if status == 405:
                    allowed = api.allowed(r.path)
                    header = response.headers.get("allow")
                    got = {m.strip() for m in (header or "").split(",") if m.strip()}
                    if header is None or got != allowed:
                        problems.append(
                            f"{where}: 405 Allow {header!r}, the path has {sorted(allowed)}"
                        )
                if r.kind == "wrong_method" and status != 405:
                    problems.append(f"{where}: a wrong method got {status}, not 405")
                if r.json_body and status != 422:
                    problems.append(f"{where}: a non-finite number got {status}, not 422")
                if r.kind == "missing_auth" and r.secured and status != 401:
                    problems.append(f"{where}: no credentials got {status}, not 401")
        text = log.read_text(encoding="utf-8", errors="replace")
        if "Traceback" in text or "Exception in ASGI" in text:
            problems.append(f"{package}: the server log holds a traceback:\n{text[-3000:]}")
    elapsed = time.monotonic() - started
    summary = "\n".join(f"  {kind} {status}: {n}" for (kind, status), n in sorted(statuses.items()))
    assert not problems, (
        f"{len(problems)} problems in {total} requests:\n"
        + "\n".join(problems[:40])
        + f"\n{summary}"
    )
    assert total >= 2000
    valid_2xx = sum(n for (kind, status), n in statuses.items() if kind == "valid" and status < 300)
    valid = sum(n for (kind, _), n in statuses.items() if kind == "valid")
    assert valid_2xx >= valid // 2, f"valid requests rarely reached the operations:\n{summary}"
    for package, (api, _, _) in served.items():
        missed = {f"{op.method.upper()} {op.path}" for op in api.operations} - operations[package]
        assert not missed, f"{package}: operations never requested: {sorted(missed)}"
    for kind in KINDS:
        assert all(hit[f"{p} {kind}"] for p in served), f"no {kind} request sent:\n{summary}"
    print(f"{total} requests in {elapsed:.1f} s:\n{summary}")
