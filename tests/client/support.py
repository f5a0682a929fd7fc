"""Test support for the generated clients: a real HTTP server (uvicorn on 127.0.0.1, a free
port) serving a scriptable FastAPI app, sample values built from the spec, and the
per-operation case table (built from the IR, never hand-written).
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response, StreamingResponse

from generator.config import load_config
from generator.ir import Api, build_ir
from generator.pipeline import load_and_normalize
from generator.render.settings import bind_settings
from generator.render.surface import Method, build_resources
from tests.conftest import GENERATED, SPECS, import_package

APIS = {"llm-engine": "llm_engine", "sgp": "sgp"}
HANG_GUARD = 600.0  # seconds: a guard against a hang, never a measure of speed


# --- the server ------------------------------------------------------------------------------


@dataclass
class Seen:
    """One request as the server saw it."""

    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def multipart(self) -> list[tuple[str, str | None, str, bytes]]:
        """(field name, filename, content type, content) of each part."""
        raw = b"content-type: " + self.headers["content-type"].encode() + b"\r\n\r\n" + self.body
        message = BytesParser(policy=HTTP).parsebytes(raw)
        parts = []
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            parts.append(
                (
                    str(name),
                    part.get_filename(),
                    part.get_content_type(),
                    part.get_payload(decode=True),
                )
            )
        return parts


Reply = tuple[int, dict[str, str], bytes | Iterator[bytes]]


@dataclass
class Script:
    """What the server answers: ``handler(seen) -> (status, headers, body)``."""

    seen: list[Seen] = field(default_factory=list)
    handler: Callable[[Seen], Reply] = lambda seen: (200, {}, b"{}")
    closed: list[bool] = field(default_factory=list)


def make_app(script: Script) -> Any:
    app = FastAPI()

    @app.api_route("/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
    async def everything(request: Request, path: str) -> Any:
        seen = Seen(
            request.method,
            request.url.path,
            list(request.query_params.multi_items()),
            {k.lower(): v for k, v in request.headers.items()},
            await request.body(),
        )
        script.seen.append(seen)
        status, headers, body = script.handler(seen)
        if isinstance(body, bytes):
            if isinstance(body, bytes) and headers.get("x-sleep"):
                await asyncio.sleep(float(headers["x-sleep"]))
            return Response(
                body, status, headers, media_type=headers.get("content-type", "application/json")
            )

        async def chunks() -> Any:
            try:
                for chunk in body:
                    yield chunk
                    await asyncio.sleep(0)
            finally:
                script.closed.append(True)

        return StreamingResponse(chunks(), status, headers, media_type="text/event-stream")

    return app


class Server:
    """uvicorn in a thread, on 127.0.0.1 and a port the OS picked, serving ``app`` (by
    default the scriptable app of :meth:`reset`)."""

    def __init__(self, app: Any = None) -> None:
        import uvicorn

        self.script = Script()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        app = make_app(self.script) if app is None else app
        started = threading.Event()

        class Started(uvicorn.Server):
            async def startup(self, sockets: Any = None) -> None:
                await super().startup(sockets)
                started.set()

        config = uvicorn.Config(app, log_level="error", lifespan="off")
        self.server = Started(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self.thread.start()
        # a hang guard only: start-up is waited on as an event, never timed
        if not started.wait(timeout=HANG_GUARD):  # pragma: no cover
            raise RuntimeError("uvicorn did not start (a hang)")

    def reset(self, handler: Callable[[Seen], Reply] | None = None) -> Script:
        self.script.seen.clear()
        self.script.closed.clear()
        self.script.handler = handler or (lambda seen: (200, {}, b"{}"))
        return self.script

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=HANG_GUARD)


def sse(*events: Any, done: bool = True) -> Iterator[bytes]:
    for event in events:
        if isinstance(event, tuple):  # (event name, data)
            yield f"event: {event[0]}\ndata: {json.dumps(event[1])}\n\n".encode()
        else:
            yield f"data: {json.dumps(event)}\n\n".encode()
    if done:
        yield b"data: [DONE]\n\n"


# --- packages, specs, IR ---------------------------------------------------------------------


def package(api: str) -> ModuleType:
    return import_package(GENERATED / APIS[api], APIS[api])


@cache
def spec_and_ir(api: str) -> tuple[dict[str, Any], Api]:
    config = load_config(SPECS / f"{api}.toml")
    _, normalized = load_and_normalize(config)
    return normalized.spec, build_ir(normalized.spec)


@cache
def methods(api: str) -> list[tuple[tuple[str, ...], Method]]:
    """Every method with its resource path (attribute names from the client down)."""
    config = load_config(SPECS / f"{api}.toml")
    _, ir = spec_and_ir(api)
    root, _ = build_resources(ir, bind_settings(config, ir), "Client")
    out: list[tuple[tuple[str, ...], Method]] = []

    def walk(node: Any, trail: tuple[str, ...]) -> None:
        for m in node.methods:
            out.append((trail, m))
        for attr, child in node.children.items():
            walk(child, (*trail, attr))

    walk(root, ())
    return out


# --- sample values from the spec -------------------------------------------------------------


class Sampler:
    """A minimal valid JSON value for a (normalized) schema: required properties only,
    the first member of a union, the first enum value."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.schemas = spec.get("components", {}).get("schemas", {})

    def __call__(self, schema: Any, depth: int = 0) -> Any:
        if not isinstance(schema, dict) or depth > 60:
            return None
        if "$ref" in schema:
            return self(self.schemas[schema["$ref"].rsplit("/", 1)[-1]], depth + 1)
        disc = schema.get("discriminator")
        if isinstance(disc, dict) and disc.get("mapping"):
            tag, ref = next(iter(disc["mapping"].items()))
            value = self({"$ref": ref}, depth + 1)
            if isinstance(value, dict):  # the member's own const wins (a bool tag, say)
                member = self.schemas.get(ref.rsplit("/", 1)[-1], {})
                prop = member.get("properties", {}).get(disc["propertyName"], {})
                value[disc["propertyName"]] = prop.get("const", (prop.get("enum") or [tag])[0])
            return value
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return next((v for v in schema["enum"] if v is not None), None)
        for key in ("oneOf", "anyOf"):
            if key in schema:
                members = [
                    m for m in schema[key] if not (isinstance(m, dict) and m.get("type") == "null")
                ]
                return self(members[0], depth + 1) if members else None
        if "allOf" in schema:
            merged: dict[str, Any] = {}
            for member in schema["allOf"]:
                value = self(member, depth + 1)
                if isinstance(value, dict):
                    merged.update(value)
            return merged
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        if kind == "object" or "properties" in schema:
            props = schema.get("properties", {})
            return {
                name: self(props[name], depth + 1)
                for name in schema.get("required", [])
                if name in props
            }
        if kind == "array":
            if "prefixItems" in schema:
                return [self(s, depth + 1) for s in schema["prefixItems"]]
            count = max(1, schema.get("minItems", 1))
            return [self(schema.get("items", {}), depth + 1) for _ in range(count)]
        if kind == "integer":
            return max(1, int(schema.get("minimum", 1)))
        if kind == "number":
            return float(max(0.5, schema.get("minimum", 0.5)))
        if kind == "boolean":
            return True
        if kind == "string":
            fmt = schema.get("format")
            if fmt == "date-time":
                return "2024-01-02T03:04:05Z"
            if fmt == "date":
                return "2024-01-02"
            if fmt == "duration":
                return "PT1S"
            if fmt == "uuid":
                return "12345678-1234-5678-1234-567812345678"
            if "pattern" in schema:
                for candidate in ("x", "123456789012", "abc", "a1", "x-1"):
                    if re.search(schema["pattern"], candidate):
                        return candidate
            return "x" * max(1, schema.get("minLength", 1))
        return {}


@dataclass
class Case:
    """One operation: how to call it and what the server must see."""

    api: str
    trail: tuple[str, ...]
    method: Method
    kwargs: dict[str, Any]
    http_method: str
    path: str
    query: dict[str, Any]
    headers: dict[str, str]
    body: Any  # JSON body, or None
    files: list[str]  # multipart file fields
    response: Any  # JSON the server answers
    stream: bool

    @property
    def id(self) -> str:
        return f"{self.api}:{'.'.join(self.trail)}.{self.method.name}"


def self_enum(sample: Sampler, schema: dict[str, Any]) -> bool:
    """Whether a parameter's schema (through a $ref) only takes listed values."""
    if "$ref" in schema:
        schema = sample.schemas.get(schema["$ref"].rsplit("/", 1)[-1], {})
    return "enum" in schema or "const" in schema


def _param_schema(op_spec: dict[str, Any], name: str, location: str) -> dict[str, Any]:
    for p in op_spec.get("parameters", []):
        if p.get("name") == name and p.get("in") == location:
            return dict(p.get("schema", {}))
    return {"type": "string"}


@cache
def cases(api: str) -> list[Case]:
    spec, ir = spec_and_ir(api)
    sample = Sampler(spec)
    out = []
    for trail, m in methods(api):
        op = m.op
        op_spec = spec["paths"][op.path][op.method]
        kwargs: dict[str, Any] = {}
        path = op.path
        query: dict[str, Any] = {}
        headers: dict[str, str] = {}
        for p in m.params:
            if p.location in ("path", "query", "header") and p.required:
                value = sample(_param_schema(op_spec, p.wire, p.location))
                if p.location == "path":
                    if not self_enum(sample, _param_schema(op_spec, p.wire, p.location)):
                        value = f"id-{p.name}"
                    path = path.replace("{" + p.wire + "}", value)
                elif p.location == "query":
                    query[p.wire] = value
                else:
                    value = str(value)
                    headers[p.wire.lower()] = value
                kwargs[p.name] = value
        body: Any = None
        files: list[str] = []
        body_schema = None
        if op.request_body is not None:
            media = op_spec["requestBody"]["content"][op.request_body.content_type]
            body_schema = media.get("schema", {})
        if m.files is not None:
            files = list(m.files)
            body = {}
            value = sample(body_schema)
            for p in m.params:
                if p.location == "file":
                    kwargs[p.name] = (
                        [b"file-bytes"]
                        if p.annotation.startswith("builtins.list")
                        else b"file-bytes"
                    )
                elif p.location == "body" and p.required:
                    kwargs[p.name] = value.get(p.wire)
                    body[p.wire] = value.get(p.wire)
        elif m.body_fields:
            value = sample(body_schema)
            body = {}
            for p in m.body_fields:
                if p.wire in value:
                    kwargs[p.name] = value[p.wire]
                    body[p.wire] = value[p.wire]
        elif m.whole_body is not None:
            body = sample(body_schema)
            kwargs[m.whole_body.name] = body
        ok = op.success_response
        response: Any = None
        is_stream = m.stream is not None and m.stream_flag is None
        if is_stream:
            response = sample({"$ref": f"#/components/schemas/{m.stream.removeprefix('_m.')}"})
        elif ok is not None and ok.schema is not None:
            if m.stream_flag is not None:
                name = m.overloads[0].returns.removeprefix("_m.")
                response = sample({"$ref": f"#/components/schemas/{name}"})
            else:
                response = sample(
                    spec["paths"][op.path][op.method]["responses"][ok.status]["content"][
                        ok.content_type
                    ]["schema"]
                )
        out.append(
            Case(
                api,
                trail,
                m,
                kwargs,
                op.method.upper(),
                path,
                query,
                headers,
                body,
                files,
                response,
                is_stream,
            )
        )
    return out


def resolve(client: Any, case: Case) -> Callable[..., Any]:
    target = client
    for attr in case.trail:
        target = getattr(target, attr)
    return getattr(target, case.method.name)  # type: ignore[no-any-return]


def expected_query(case: Case) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for key, value in case.query.items():
        for item in value if isinstance(value, list) else [value]:
            out.append((key, "true" if item is True else "false" if item is False else str(item)))
    return sorted(out)


def write_file(tmp: Path, name: str, content: bytes) -> Path:
    path = tmp / name
    path.write_bytes(content)
    return path
