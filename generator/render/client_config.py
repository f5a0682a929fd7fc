"""The ``[client]`` table of an API config, validated against the IR.

    [client]
    name = "LlmEngine"           # classes <name>Client / Async<name>Client (default: from package)
    env_prefix = "LLM_ENGINE"    # env fallbacks <prefix>_API_KEY, <prefix>_BASE_URL, ...

    [client.methods]             # grouping overrides: operation -> "resource[.sub].method"
    create_completion_sync_task_v1_llm_completions_sync_post = "llm.completions.create"

    [streaming.<operation>]      # top level, shared with the server: server-sent events
    chunk = "CompletionStreamV1Response"   # the model of each `data:` event
    flag = "stream"                         # optional: body field that switches streaming on
    response = "CreateChatCompletionResponse"  # optional (with flag): the non-streamed return

    [client.uploads]             # multipart fields that are files (besides format: binary)
    upload_file_v1_files_post = ["file"]

    [client.auth.headers.account_id]   # an extra credential sent as a header
    header = "x-selected-account-id"
    env = "SGP_ACCOUNT_ID"

An ``<operation>`` is its ``operationId`` or its Python name. Every mistake is one line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from generator.config import ApiConfig
from generator.errors import ApismithError
from generator.ir import Api, Operation

KEYS = {"name", "env_prefix", "methods", "uploads", "auth"}
STREAM_KEYS = {"chunk", "flag", "response"}
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DOTTED = re.compile(r"^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)+$")


@dataclass(frozen=True)
class StreamSpec:
    chunk: str
    flag: str | None = None
    response: str | None = None


@dataclass(frozen=True)
class AuthHeader:
    param: str
    header: str
    env: str | None


@dataclass(frozen=True)
class ClientConfig:
    name: str
    env_prefix: str
    methods: Mapping[str, str] = field(default_factory=dict)  # python_name -> dotted
    streaming: Mapping[str, StreamSpec] = field(default_factory=dict)
    uploads: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    auth_headers: tuple[AuthHeader, ...] = ()


def _pascal(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", text) if part)


def client_config(config: ApiConfig, api: Api) -> ClientConfig:
    table: Mapping[str, Any] = config.client or {}
    where = str(config.config_file) if config.config_file else None

    def fail(message: str) -> ApismithError:
        return ApismithError(f"config: [client] {message}", file=where)

    def operation(key: str, section: str) -> Operation:
        for op in api.operations:
            if key in (op.operation_id, op.python_name):
                return op
        raise fail(f"{section}: unknown operation {key!r}")

    def model(name: object, section: str) -> str:
        if not isinstance(name, str):
            raise fail(f"{section}: expected a model name, got {name!r}")
        try:
            api.model(name)
        except KeyError:
            raise fail(f"{section}: unknown model {name!r}") from None
        return name

    def table_of(value: object, section: str) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise fail(f"{section} must be a table")
        return value

    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise fail(f"unknown key(s) {unknown}; expected {sorted(KEYS)}")
    name = table.get("name", _pascal(config.package) or "Api")
    if not isinstance(name, str) or not IDENT.match(name):
        raise fail(f"name {name!r} is not a Python identifier")
    prefix = table.get("env_prefix", config.package.upper())
    if not isinstance(prefix, str) or not re.match(r"^[A-Z_][A-Z0-9_]*$", prefix):
        raise fail(f"env_prefix {prefix!r} must be UPPER_SNAKE_CASE")

    methods: dict[str, str] = {}
    for key, dotted in table_of(table.get("methods", {}), "methods").items():
        if not isinstance(dotted, str) or not DOTTED.match(dotted):
            raise fail(f"methods.{key}: {dotted!r} is not 'resource.method' (snake_case)")
        methods[operation(key, "methods").python_name] = dotted

    streaming: dict[str, StreamSpec] = {}
    for key, spec in table_of(dict(config.streaming), "[streaming]").items():
        section = f"[streaming.{key}]"
        spec = table_of(spec, section)
        extra = sorted(set(spec) - STREAM_KEYS)
        if extra or "chunk" not in spec:
            raise fail(f"{section}: needs chunk (and optional flag, response); got {sorted(spec)}")
        op = operation(key, section)
        flag = spec.get("flag")
        if flag is not None:
            body = op.request_body
            fields = api.model(body.schema.name).fields if body and body.schema.name else ()
            if not any(f.name == flag for f in fields):
                raise fail(f"{section}: flag {flag!r} is not a field of the request body")
        response = model(spec["response"], section) if "response" in spec else None
        if response is not None and flag is None:
            raise fail(f"{section}: response needs flag")
        streaming[op.python_name] = StreamSpec(model(spec["chunk"], section), flag, response)

    uploads: dict[str, tuple[str, ...]] = {}
    for key, names in table_of(table.get("uploads", {}), "uploads").items():
        op = operation(key, "uploads")
        body = op.request_body
        if body is None or not body.content_type.startswith("multipart/") or not body.schema.name:
            raise fail(f"uploads.{key}: the operation has no multipart body")
        known = {f.name for f in api.model(body.schema.name).fields}
        if not isinstance(names, list) or not all(n in known for n in names):
            raise fail(f"uploads.{key}: expected a list of body fields of {sorted(known)}")
        uploads[op.python_name] = tuple(names)

    auth: list[AuthHeader] = []
    auth_table = table_of(table.get("auth", {}), "auth")
    if sorted(set(auth_table) - {"headers"}):
        raise fail("auth: only [client.auth.headers.<param>] tables are allowed")
    for param, spec in table_of(auth_table.get("headers", {}), "auth.headers").items():
        spec = table_of(spec, f"auth.headers.{param}")
        if not IDENT.match(param) or not isinstance(spec.get("header"), str):
            raise fail(f"auth.headers.{param}: needs a Python name and header = '<name>'")
        if sorted(set(spec) - {"header", "env"}):
            raise fail(f"auth.headers.{param}: only header and env are allowed")
        env = spec.get("env")
        if env is not None and not isinstance(env, str):
            raise fail(f"auth.headers.{param}: env must be a string")
        auth.append(AuthHeader(param, spec["header"], env))
    return ClientConfig(name, prefix, methods, streaming, uploads, tuple(auth))
