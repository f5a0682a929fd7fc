"""The tables of an API config besides ``[api]`` and ``[passes]``, typed: read and
shape-checked once, when the config is read (:func:`read_tables`), and checked against the
IR once, later (:func:`generator.render.settings.bind_settings`)::

    [client]
    name = "LlmEngine"           # classes <name>Client / Async<name>Client (default: from package)
    env_prefix = "LLM_ENGINE"    # env fallbacks <prefix>_API_KEY, <prefix>_BASE_URL, ...
    array_body = "items"         # the keyword of a request body that is an array ("body")

    [client.env]                 # env fallbacks by constructor parameter, over the prefix's
    base_url = "LLM_ENGINE_BASE_PATH"
    api_key = "SCALE_API_KEY"

    [client.resources]           # grouping overrides: path prefix or tag -> "resource[.sub]"
    "/v4/knowledge-bases/{knowledge_base_id}/uploads" = "knowledge_bases.uploads"
    "Chat Themes" = "themes"     # (the rules name the methods and sub-resources below)

    [client.methods]             # per operation, over all: operation -> "resource[.sub].method"
    create_completion_sync_task_v1_llm_completions_sync_post = "llm.completions.create"

    [client.auth.headers.account_id]   # an extra credential sent as a header
    header = "x-selected-account-id"
    env = "SGP_ACCOUNT_ID"

    [streaming.<operation>]      # server-sent events, for the client and the server alike
    chunk = "CompletionStreamV1Response"   # the model of each `data:` event
    flag = "stream"                         # optional: body field that switches streaming on
    response = "CreateChatCompletionResponse"  # optional (with flag): the non-streamed return
    terminator = "none"          # optional: "[DONE]" (the default) ends the stream with
                                 # `data: [DONE]`; "none" sends no end event
    format = "jsonl"             # optional: "sse" (the default), "jsonl" (a JSON value per
                                 # line) or "json-seq" (RFC 7464)

    [uploads]                    # multipart fields that are files (besides format: binary),
    upload_file_v1_files_post = ["file"]    # for the client and the server alike

    [models.aliases]             # more names for model classes, bound at the end of models.py
    ApplicationDeployment = "ApplicationDeploymentResponse"   # (an official SDK's names)

An ``<operation>`` is its ``operationId`` or its Python name. Two older spellings of
``[uploads]`` are still read, each with a deprecation warning: ``[client.uploads]`` (the
same table under ``[client]``) and ``[server] upload_fields = ["Model.field", ...]`` (the
field of every multipart operation whose body is ``Model``). Every mistake is one line.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from generator.config.mock import MockTable, read_mock
from generator.errors import ApismithError

CLIENT_KEYS = {"name", "env_prefix", "env", "resources", "methods", "uploads", "auth"}
CLIENT_KEYS |= {"array_body"}
STREAM_KEYS = {"chunk", "flag", "response", "terminator", "format"}
STREAM_FORMATS = ("sse", "jsonl", "json-seq")
TERMINATORS = ("[DONE]", "none")
SERVER_KEYS = {"upload_fields"}
MODELS_KEYS = {"aliases"}
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DOTTED = re.compile(r"^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)+$")
RESOURCE = re.compile(r"^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$")
ENV_PREFIX = re.compile(r"^[A-Z_][A-Z0-9_]*$")
MODEL_FIELD = re.compile(r"^[^.\s]+\.[^.\s]+$")
CLIENT_UPLOADS_DEPRECATED = (
    "[client.uploads] is deprecated: move its entries to a top-level [uploads] table"
)
SERVER_UPLOADS_DEPRECATED = (
    "[server] upload_fields is deprecated: list the fields per operation in a top-level"
    ' [uploads] table (<operation> = ["field", ...])'
)


@dataclass(frozen=True)
class AuthHeader:
    """An extra credential of the client, sent as a header."""

    param: str
    header: str
    env: str | None = None


@dataclass(frozen=True)
class ClientTable:
    """``[client]`` as given (``None``: take the default, see ``bind_settings``)."""

    name: str | None = None
    env_prefix: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)  # constructor parameter -> env var
    methods: Mapping[str, str] = field(default_factory=dict)  # operation -> dotted
    auth_headers: tuple[AuthHeader, ...] = ()
    resources: Mapping[str, str] = field(default_factory=dict)  # path prefix or tag -> dotted
    array_body: str | None = None  # the keyword of a body that is an array (default "body")

    def recorded(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.name is not None:
            out["name"] = self.name
        if self.array_body is not None:
            out["array_body"] = self.array_body
        if self.env_prefix is not None:
            out["env_prefix"] = self.env_prefix
        if self.env:
            out["env"] = dict(self.env)
        if self.resources:
            out["resources"] = dict(self.resources)
        if self.methods:
            out["methods"] = dict(self.methods)
        if self.auth_headers:
            out["auth"] = {
                "headers": {
                    h.param: {"header": h.header, **({"env": h.env} if h.env else {})}
                    for h in self.auth_headers
                }
            }
        return out


@dataclass(frozen=True)
class StreamTable:
    """One ``[streaming.<operation>]`` entry."""

    chunk: str
    flag: str | None = None
    response: str | None = None
    terminator: str = "[DONE]"  # the data of the stream's last event; "none": no such event
    format: str = "sse"  # "sse", "jsonl" or "json-seq" (generator.media.sequence_format)

    def recorded(self) -> dict[str, str]:
        out = {"chunk": self.chunk}
        if self.flag is not None:
            out["flag"] = self.flag
        if self.response is not None:
            out["response"] = self.response
        if self.terminator != "[DONE]":
            out["terminator"] = self.terminator
        if self.format != "sse":
            out["format"] = self.format
        return out


@dataclass(frozen=True)
class ServerTable:
    """``[server]``: only the deprecated ``upload_fields`` (``"Model.field"``) today."""

    upload_fields: tuple[str, ...] = ()

    def recorded(self) -> dict[str, Any]:
        return {"upload_fields": list(self.upload_fields)} if self.upload_fields else {}


@dataclass(frozen=True)
class ModelsTable:
    """``[models]``: ``aliases``, another name -> a model class (checked against the IR by
    :func:`generator.render.settings.bind_settings`)."""

    aliases: Mapping[str, str] = field(default_factory=dict)

    def recorded(self) -> dict[str, Any]:
        return {"aliases": dict(self.aliases)} if self.aliases else {}


@dataclass(frozen=True)
class Tables:
    client: ClientTable = ClientTable()
    server: ServerTable = ServerTable()
    streaming: Mapping[str, StreamTable] = field(default_factory=dict)  # operation -> entry
    uploads: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # operation -> fields
    mock: MockTable = MockTable()
    models: ModelsTable = ModelsTable()
    deprecations: tuple[str, ...] = ()  # one line each, for the old spellings read

    def recorded(self) -> dict[str, Any]:
        """The tables as the manifest records them (they read back to the same tables)."""
        return {
            "client": self.client.recorded(),
            "server": self.server.recorded(),
            "streaming": {key: s.recorded() for key, s in self.streaming.items()},
            "uploads": {key: list(names) for key, names in self.uploads.items()},
            **({"mock": self.mock.recorded()} if self.mock.recorded() else {}),
            **({"models": self.models.recorded()} if self.models.recorded() else {}),
        }


class _Reader:
    """Shape checks of the tables, one line per mistake, naming the config and the key."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, message: str) -> ApismithError:
        return ApismithError(f"config: {message}", file=self.where)

    def table(self, value: object, section: str) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"{section} must be a table")
        return value

    def names(self, value: object, section: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
            raise self.fail(f"{section}: expected a list of body fields, got {value!r}")
        return tuple(value)

    def client(self, value: object) -> tuple[ClientTable, dict[str, tuple[str, ...]]]:
        """``[client]``, and the entries of its deprecated ``uploads`` sub-table."""
        table = self.table(value, "[client]")
        unknown = sorted(set(table) - CLIENT_KEYS)
        if unknown:
            raise self.fail(f"[client] unknown key(s) {unknown}; expected {sorted(CLIENT_KEYS)}")
        name = table.get("name")
        if name is not None and (not isinstance(name, str) or not IDENT.match(name)):
            raise self.fail(f"[client] name {name!r} is not a Python identifier")
        prefix = table.get("env_prefix")
        if prefix is not None and (not isinstance(prefix, str) or not ENV_PREFIX.match(prefix)):
            raise self.fail(f"[client] env_prefix {prefix!r} must be UPPER_SNAKE_CASE")
        env: dict[str, str] = {}
        for key, var in self.table(table.get("env", {}), "[client] env").items():
            if not IDENT.match(key) or not isinstance(var, str) or not ENV_PREFIX.match(var):
                raise self.fail(
                    f"[client] env.{key}: {var!r} must be an UPPER_SNAKE_CASE variable name"
                )
            env[key] = var
        methods: dict[str, str] = {}
        for key, dotted in self.table(table.get("methods", {}), "[client] methods").items():
            if not isinstance(dotted, str) or not DOTTED.match(dotted):
                raise self.fail(
                    f"[client] methods.{key}: {dotted!r} is not 'resource.method' (snake_case)"
                )
            methods[key] = dotted
        uploads = self.uploads(table.get("uploads", {}), "[client] uploads")
        auth = self.auth(table.get("auth", {}))
        resources = self.resources(table.get("resources", {}))
        array_body = table.get("array_body")
        if array_body is not None and (
            not isinstance(array_body, str) or not RESOURCE.match(array_body) or "." in array_body
        ):
            raise self.fail(f"[client] array_body {array_body!r} is not a snake_case name")
        client = ClientTable(name, prefix, env, methods, auth, resources, array_body)
        return client, uploads

    def resources(self, value: object) -> dict[str, str]:
        """``[client.resources]``: a path prefix (``/...``) or a tag -> a dotted resource."""
        resources: dict[str, str] = {}
        for key, dotted in self.table(value, "[client] resources").items():
            if not key.strip():
                raise self.fail("[client] resources: an empty key (a path prefix or a tag)")
            if not isinstance(dotted, str) or not RESOURCE.match(dotted):
                raise self.fail(
                    f"[client] resources.{key!r}: {dotted!r} is not 'resource[.sub]' (snake_case)"
                )
            resources[key] = dotted
        return resources

    def auth(self, value: object) -> tuple[AuthHeader, ...]:
        auth: list[AuthHeader] = []
        table = self.table(value, "[client] auth")
        if sorted(set(table) - {"headers"}):
            raise self.fail("[client] auth: only [client.auth.headers.<param>] tables are allowed")
        for param, spec in self.table(table.get("headers", {}), "[client] auth.headers").items():
            where = f"[client] auth.headers.{param}"
            spec = self.table(spec, where)
            if not IDENT.match(param) or not isinstance(spec.get("header"), str):
                raise self.fail(f"{where}: needs a Python name and header = '<name>'")
            if sorted(set(spec) - {"header", "env"}):
                raise self.fail(f"{where}: only header and env are allowed")
            env = spec.get("env")
            if env is not None and not isinstance(env, str):
                raise self.fail(f"{where}: env must be a string")
            auth.append(AuthHeader(param, spec["header"], env))
        return tuple(auth)

    def streaming(self, value: object) -> dict[str, StreamTable]:
        streaming: dict[str, StreamTable] = {}
        for key, spec in self.table(value, "[streaming]").items():
            section = f"[streaming.{key}]"
            spec = self.table(spec, section)
            if sorted(set(spec) - STREAM_KEYS) or "chunk" not in spec:
                raise self.fail(
                    f"{section}: needs chunk (and optional flag, response, terminator, format);"
                    f" got {sorted(spec)}"
                )
            for name in sorted(spec):
                if not isinstance(spec[name], str):
                    raise self.fail(f"{section}: {name} must be a string, got {spec[name]!r}")
            if "response" in spec and "flag" not in spec:
                raise self.fail(f"{section}: response needs flag")
            terminator = spec.get("terminator", "[DONE]")
            if terminator not in TERMINATORS:
                raise self.fail(
                    f"{section}: terminator must be one of {list(TERMINATORS)}, got {terminator!r}"
                )
            fmt = spec.get("format", "sse")
            if fmt not in STREAM_FORMATS:
                raise self.fail(
                    f"{section}: format must be one of {list(STREAM_FORMATS)}, got {fmt!r}"
                )
            streaming[key] = StreamTable(
                spec["chunk"], spec.get("flag"), spec.get("response"), terminator, fmt
            )
        return streaming

    def uploads(self, value: object, section: str = "[uploads]") -> dict[str, tuple[str, ...]]:
        return {
            key: self.names(names, f"{section} {key}")
            for key, names in self.table(value, section).items()
        }

    def server(self, value: object) -> ServerTable:
        table = self.table(value, "[server]")
        unknown = sorted(set(table) - SERVER_KEYS)
        if unknown:
            raise self.fail(f"[server] unknown key(s) {unknown}; expected {sorted(SERVER_KEYS)}")
        fields = table.get("upload_fields", [])
        if not isinstance(fields, list) or not all(
            isinstance(f, str) and MODEL_FIELD.match(f) for f in fields
        ):
            raise self.fail(
                f"[server] upload_fields must be a list of 'Model.field', got {fields!r}"
            )
        return ServerTable(tuple(fields))

    def models(self, value: object) -> ModelsTable:
        table = self.table(value, "[models]")
        unknown = sorted(set(table) - MODELS_KEYS)
        if unknown:
            raise self.fail(f"[models] unknown key(s) {unknown}; expected {sorted(MODELS_KEYS)}")
        aliases: dict[str, str] = {}
        for alias, target in self.table(table.get("aliases", {}), "[models] aliases").items():
            if not IDENT.match(alias) or keyword.iskeyword(alias) or alias.startswith("_"):
                raise self.fail(f"[models] aliases: {alias!r} is not a public Python name")
            if not isinstance(target, str) or not IDENT.match(target):
                raise self.fail(f"[models] aliases.{alias}: {target!r} is not a model's name")
            aliases[alias] = target
        return ModelsTable(dict(sorted(aliases.items())))


def read_tables(where: str, options: Mapping[str, Any]) -> Tables:
    """The typed ``client``, ``server``, ``streaming`` and ``uploads`` tables of ``options``
    (a config entry, or options recorded in a manifest); ``where`` names it in errors."""
    read = _Reader(where)
    client, client_uploads = read.client(options.get("client") or {})
    server = read.server(options.get("server") or {})
    uploads = read.uploads(options.get("uploads") or {})
    deprecations = []
    if client_uploads:
        deprecations.append(CLIENT_UPLOADS_DEPRECATED)
    if server.upload_fields:
        deprecations.append(SERVER_UPLOADS_DEPRECATED)
    return Tables(
        client=client,
        server=server,
        streaming=read.streaming(options.get("streaming") or {}),
        uploads={**client_uploads, **uploads},
        mock=read_mock(options.get("mock") or {}, where),
        models=read.models(options.get("models") or {}),
        deprecations=tuple(deprecations),
    )
