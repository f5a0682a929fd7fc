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


class _Reader:
    """Reads the ``[client]`` table against the IR; every mistake is one line."""

    def __init__(self, config: ApiConfig, api: Api) -> None:
        self.api = api
        self.where = str(config.config_file) if config.config_file else None

    def fail(self, message: str) -> ApismithError:
        return ApismithError(f"config: [client] {message}", file=self.where)

    def operation(self, key: str, section: str) -> Operation:
        for op in self.api.operations:
            if key in (op.operation_id, op.python_name):
                return op
        raise self.fail(f"{section}: unknown operation {key!r}")

    def model(self, name: object, section: str) -> str:
        if not isinstance(name, str):
            raise self.fail(f"{section}: expected a model name, got {name!r}")
        try:
            self.api.model(name)
        except KeyError:
            raise self.fail(f"{section}: unknown model {name!r}") from None
        return name

    def table_of(self, value: object, section: str) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"{section} must be a table")
        return value

    def methods(self, table: object) -> dict[str, str]:
        methods: dict[str, str] = {}
        for key, dotted in self.table_of(table, "methods").items():
            if not isinstance(dotted, str) or not DOTTED.match(dotted):
                raise self.fail(f"methods.{key}: {dotted!r} is not 'resource.method' (snake_case)")
            methods[self.operation(key, "methods").python_name] = dotted
        return methods

    def streaming(self, table: object) -> dict[str, StreamSpec]:
        streaming: dict[str, StreamSpec] = {}
        for key, spec in self.table_of(table, "[streaming]").items():
            section = f"[streaming.{key}]"
            spec = self.table_of(spec, section)
            extra = sorted(set(spec) - STREAM_KEYS)
            if extra or "chunk" not in spec:
                raise self.fail(
                    f"{section}: needs chunk (and optional flag, response); got {sorted(spec)}"
                )
            op = self.operation(key, section)
            flag = spec.get("flag")
            if flag is not None:
                body = op.request_body
                fields = (
                    self.api.model(body.schema.name).fields if body and body.schema.name else ()
                )
                if not any(f.name == flag for f in fields):
                    raise self.fail(f"{section}: flag {flag!r} is not a field of the request body")
            response = self.model(spec["response"], section) if "response" in spec else None
            if response is not None and flag is None:
                raise self.fail(f"{section}: response needs flag")
            streaming[op.python_name] = StreamSpec(
                self.model(spec["chunk"], section), flag, response
            )
        return streaming

    def uploads(self, table: object) -> dict[str, tuple[str, ...]]:
        uploads: dict[str, tuple[str, ...]] = {}
        for key, names in self.table_of(table, "uploads").items():
            op = self.operation(key, "uploads")
            body = op.request_body
            if (
                body is None
                or not body.content_type.startswith("multipart/")
                or not body.schema.name
            ):
                raise self.fail(f"uploads.{key}: the operation has no multipart body")
            known = {f.name for f in self.api.model(body.schema.name).fields}
            if not isinstance(names, list) or not all(n in known for n in names):
                raise self.fail(f"uploads.{key}: expected a list of body fields of {sorted(known)}")
            uploads[op.python_name] = tuple(names)
        return uploads

    def auth(self, table: object) -> tuple[AuthHeader, ...]:
        auth: list[AuthHeader] = []
        auth_table = self.table_of(table, "auth")
        if sorted(set(auth_table) - {"headers"}):
            raise self.fail("auth: only [client.auth.headers.<param>] tables are allowed")
        for param, spec in self.table_of(auth_table.get("headers", {}), "auth.headers").items():
            spec = self.table_of(spec, f"auth.headers.{param}")
            if not IDENT.match(param) or not isinstance(spec.get("header"), str):
                raise self.fail(f"auth.headers.{param}: needs a Python name and header = '<name>'")
            if sorted(set(spec) - {"header", "env"}):
                raise self.fail(f"auth.headers.{param}: only header and env are allowed")
            env = spec.get("env")
            if env is not None and not isinstance(env, str):
                raise self.fail(f"auth.headers.{param}: env must be a string")
            auth.append(AuthHeader(param, spec["header"], env))
        return tuple(auth)


def client_config(config: ApiConfig, api: Api) -> ClientConfig:
    table: Mapping[str, Any] = config.client or {}
    read = _Reader(config, api)
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise read.fail(f"unknown key(s) {unknown}; expected {sorted(KEYS)}")
    name = table.get("name", _pascal(config.package) or "Api")
    if not isinstance(name, str) or not IDENT.match(name):
        raise read.fail(f"name {name!r} is not a Python identifier")
    prefix = table.get("env_prefix", config.package.upper())
    if not isinstance(prefix, str) or not re.match(r"^[A-Z_][A-Z0-9_]*$", prefix):
        raise read.fail(f"env_prefix {prefix!r} must be UPPER_SNAKE_CASE")
    return ClientConfig(
        name,
        prefix,
        read.methods(table.get("methods", {})),
        read.streaming(dict(config.streaming)),
        read.uploads(table.get("uploads", {})),
        read.auth(table.get("auth", {})),
    )
