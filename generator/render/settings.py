"""The config's tables checked against the IR, once per generation: the settings that the
client, server and docs renderers all read (:class:`ApiSettings`).

Here an operation is named by its Python name, whatever name the config used (its
``operationId`` or its Python name), and the deprecated spellings of ``[uploads]`` are
translated (:mod:`generator.config.tables`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from generator.config.tables import ENV_PREFIX, IDENT, AuthHeader, StreamTable
from generator.errors import ApismithError
from generator.media import sequence_format
from generator.normalize.naming.resources import path_shape

if TYPE_CHECKING:
    from generator.config.api import ApiConfig
    from generator.ir import Api, MediaType, Operation
    from generator.normalize.diagnostics import Diagnostic


@dataclass(frozen=True)
class ApiSettings:
    """What the renderers need of the config, bound to the IR."""

    name: str  # the client classes are <name>Client and Async<name>Client
    env_prefix: str  # env fallbacks <prefix>_API_KEY, <prefix>_BASE_URL, ...
    methods: Mapping[str, str] = field(default_factory=dict)  # python_name -> dotted
    resources: Mapping[str, str] = field(default_factory=dict)  # path prefix or tag -> dotted
    streaming: Mapping[str, StreamTable] = field(default_factory=dict)  # python_name -> entry
    uploads: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # python_name -> fields
    auth_headers: tuple[AuthHeader, ...] = ()
    array_body: str = "body"  # [client] array_body: the keyword of an array request body
    env_names: Mapping[str, str] = field(default_factory=dict)  # [client.env]: param -> var
    model_aliases: Mapping[str, str] = field(default_factory=dict)  # [models.aliases]
    diagnostics: tuple[Diagnostic, ...] = ()  # deprecation warnings of the config
    names: tuple[Diagnostic, ...] = ()  # every client name and what chose it (-v; the pipeline's)

    def env(self, param: str) -> str:
        """The env var a constructor parameter falls back to: ``[client.env]``, else
        ``<prefix>_<PARAM>``."""
        return self.env_names.get(param) or f"{self.env_prefix}_{param.upper()}"


class _Binder:
    """Checks the tables against the IR; every mistake is one line."""

    def __init__(self, config: ApiConfig, api: Api) -> None:
        self.api = api
        self.where = str(config.config_file) if config.config_file else None

    def fail(self, message: str) -> ApismithError:
        return ApismithError(f"config: {message}", file=self.where)

    def operation(self, key: str, section: str) -> Operation:
        for op in self.api.operations:
            if key in (op.operation_id, op.python_name):
                return op
        raise self.fail(f"{section}: unknown operation {key!r}")

    def model(self, name: str, section: str) -> str:
        try:
            self.api.model(name)
        except KeyError:
            raise self.fail(f"{section}: unknown model {name!r}") from None
        return name

    def body_fields(self, op: Operation) -> set[str]:
        body = op.request_body
        if body is None or body.schema.kind != "model" or not body.schema.name:
            return set()
        return {f.name for f in self.api.model(body.schema.name).fields}

    def methods(self, table: Mapping[str, str]) -> dict[str, str]:
        return {
            self.operation(key, "[client] methods").python_name: dotted
            for key, dotted in table.items()
        }

    def resources(self, table: Mapping[str, str]) -> dict[str, str]:
        """``[client.resources]``: each path prefix starts some operation's path, each tag
        is some operation's first tag."""
        tags = {op.tags[0] for op in self.api.operations if op.tags}
        shapes = {path_shape(op.path) for op in self.api.operations}
        for key in table:
            if key.startswith("/"):
                prefix = path_shape(key)
                if not any(shape[: len(prefix)] == prefix for shape in shapes):
                    raise self.fail(f"[client] resources: no operation's path starts with {key!r}")
            elif key not in tags:
                raise self.fail(
                    f"[client] resources: {key!r} is neither a path prefix (starting with '/')"
                    " nor the first tag of an operation"
                )
        return dict(table)

    def streaming(self, table: Mapping[str, StreamTable]) -> dict[str, StreamTable]:
        streaming: dict[str, StreamTable] = {}
        for key, entry in table.items():
            section = f"[streaming.{key}]"
            op = self.operation(key, section)
            if entry.flag is not None and entry.flag not in self.body_fields(op):
                raise self.fail(
                    f"{section}: flag {entry.flag!r} is not a field of the request body"
                )
            self.model(entry.chunk, section)
            if entry.response is not None:
                self.model(entry.response, section)
            streaming[op.python_name] = entry
        return streaming

    def uploads(self, table: Mapping[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        uploads: dict[str, tuple[str, ...]] = {}
        for key, names in table.items():
            op = self.operation(key, "[uploads]")
            body = op.request_body
            multipart = body is not None and body.content_type.startswith("multipart/")
            if body is None or not multipart or not body.schema.name:
                raise self.fail(f"[uploads] {key}: the operation has no multipart body")
            known = self.body_fields(op)
            if not known or not set(names) <= known:
                raise self.fail(
                    f"[uploads] {key}: expected a list of body fields of {sorted(known)}"
                )
            uploads[op.python_name] = names
        return uploads

    def model_aliases(self, table: Mapping[str, str]) -> dict[str, str]:
        """``[models.aliases]``: each target is a model class, no alias a schema's name."""
        for alias, target in table.items():
            section = f"[models] aliases.{alias}"
            if self.api.model(self.model(target, section)).kind != "object":
                raise self.fail(f"{section}: {target!r} is not a model class (an object)")
            if any(m.name == alias for m in self.api.models):
                raise self.fail(f"{section}: a schema is already named {alias!r}")
        return dict(table)

    def model_uploads(self, fields: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
        """``[server] upload_fields`` (``"Model.field"``) as ``[uploads]`` entries: the field
        of every operation whose multipart body is that model."""
        uploads: dict[str, tuple[str, ...]] = {}
        for item in fields:
            model_name, _, name = item.partition(".")
            model = self.api.model(self.model(model_name, "[server] upload_fields"))
            if name not in {f.name for f in model.fields}:
                raise self.fail(f"[server] upload_fields: {model_name} has no field {name!r}")
            for op in self.api.operations:
                body = op.request_body
                if (
                    body is not None
                    and body.content_type.startswith("multipart/")
                    and body.schema.name == model_name
                ):
                    uploads[op.python_name] = (*uploads.get(op.python_name, ()), name)
        return uploads


def implied_streams(api: Api, configured: Mapping[str, StreamTable]) -> dict[str, StreamTable]:
    """The operations without a ``[streaming]`` entry whose success answer is a stream of
    one model: an OpenAPI 3.2 ``itemSchema`` (server-sent events, JSON Lines, json-seq;
    the end event the spec declares, else none), or a 3.0/3.1 ``text/event-stream`` with a
    model schema (Clever Cloud's network group streams: events of that model, no end
    event). Each streams as a ``[streaming]`` entry with that ``chunk``, ``terminator`` and
    ``format`` would say."""
    found: dict[str, StreamTable] = {}
    for op in api.operations:
        media = _answer_media(op)
        if op.python_name in configured or media is None or media.schema.kind != "model":
            continue
        fmt = media.sequence or sequence_format(media.content_type)
        if fmt is not None and (fmt == "sse" or media.sequence is not None):
            terminator = media.terminator or "none"
            chunk = media.schema.name or ""
            found[op.python_name] = StreamTable(chunk, None, None, terminator, fmt)
    return found


def _answer_media(op: Operation) -> MediaType | None:
    ok = op.success_response
    return ok.media if ok is not None else None


def stream_warnings(api: Api, implied: Mapping[str, StreamTable]) -> list[Diagnostic]:
    """The warnings of the 3.0/3.1 event streams :func:`implied_streams` found (a 3.2
    ``itemSchema`` says what it streams): the chunk type each assumed."""
    from generator.load import escape_token
    from generator.normalize.diagnostics import Diagnostic

    found = []
    for op in api.operations:
        entry = implied.get(op.python_name)
        media = _answer_media(op)
        if entry is None or media is None or media.sequence is not None:
            continue
        pointer = "#/paths/" + escape_token(op.path) + f"/{op.method}"
        message = (
            f"operation {op.operation_id or op.python_name} answers text/event-stream: it"
            f" streams events of {entry.chunk} with no end event ([streaming.{op.python_name}]"
            " says otherwise)"
        )
        found.append(Diagnostic("config", "warning", pointer, message))
    return found


def tag_resources(api: Api) -> dict[str, str]:
    """The resource of each tag nested under another (OpenAPI 3.2 ``parent``), as a
    ``[client.resources]`` entry would give it: ``Completions`` under ``Chat`` is
    ``chat.completions``. A parent chain that loops, or names no tag, stops there."""
    from generator.normalize.naming import client_snake_case
    from generator.normalize.naming.resources import TAG_REMARK

    tags = {t.name: t for t in api.tags}
    found: dict[str, str] = {}
    for tag in api.tags:
        chain, seen = [tag.name], {tag.name}
        parent = tag.parent
        while parent in tags and parent not in seen:
            chain.append(parent)
            seen.add(parent)
            parent = tags[parent].parent
        if len(chain) > 1:
            attrs = [client_snake_case(TAG_REMARK.sub("", t) or t) for t in reversed(chain)]
            found[tag.name] = ".".join(attrs)
    return found


def default_client_name(package: str) -> str:
    """The client class stem of a package when ``[client] name`` is not given."""
    from generator.normalize.naming import capitalized_words

    return capitalized_words(package) or "Api"


def bind_settings(config: ApiConfig, api: Api) -> ApiSettings:
    """The settings of ``config`` for ``api``: unknown operations, models and fields, a
    streaming flag that is not a body field and a ``[client.resources]`` prefix or tag that
    no operation has are refused here, once. (A ``[client.methods]`` name that is taken is
    refused where the client's names are settled: ``generator.pipeline.build_api``.)"""
    from generator.normalize.diagnostics import Diagnostic

    bind = _Binder(config, api)
    client = config.client
    name = client.name if client.name is not None else default_client_name(config.package)
    if not IDENT.match(name):
        raise bind.fail(f"[client] name {name!r} is not a Python identifier")
    prefix = client.env_prefix if client.env_prefix is not None else config.package.upper()
    if not ENV_PREFIX.match(prefix):
        raise bind.fail(f"[client] env_prefix {prefix!r} must be UPPER_SNAKE_CASE")
    methods = bind.methods(client.methods)
    resources = {**tag_resources(api), **bind.resources(client.resources)}
    streaming = bind.streaming(config.streaming)
    implied = implied_streams(api, streaming)
    streaming.update(implied)
    uploads = bind.uploads(config.uploads)
    for op_name, fields in bind.model_uploads(config.server.upload_fields).items():
        uploads[op_name] = tuple(dict.fromkeys((*uploads.get(op_name, ()), *fields)))
    where = str(config.config_file or config.spec)
    settings = ApiSettings(
        name=name,
        env_prefix=prefix,
        methods=methods,
        resources=resources,
        streaming=streaming,
        uploads=uploads,
        auth_headers=client.auth_headers,
        array_body=client.array_body or "body",
        env_names=dict(client.env),
        model_aliases=bind.model_aliases(config.models.aliases),
        diagnostics=(
            *(Diagnostic("config", "warning", where, d) for d in config.deprecations),
            *stream_warnings(api, implied),
        ),
    )
    return settings
