"""Two versions of an API's IR compared: operations, parameters, request bodies,
responses, security and servers (the values themselves: :mod:`generator.diff.schemas`).

An operation is keyed by its method and path template with the parameter names erased
(``GET /v1/things/{}``), so renaming a path parameter keeps the operation; a parameter by
its location and name, a path parameter by its position in the template. Locations read
``POST /v1/things request.body.owner.name``, ``GET /v1/things/{id} request.query.limit``,
``GET /v1/things/{id} response.200.body.color``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from generator.diff.change import Change
from generator.diff.rules import change
from generator.diff.schemas import Walk, compare
from generator.ir import (
    Api,
    MediaType,
    Operation,
    Parameter,
    RequestBody,
    Requirement,
    Response,
)

_PATH_PARAM = re.compile(r"\{([^{}]*)\}")


def api_changes(old: Api, new: Api, *, base_url: str | None = None) -> list[Change]:
    """Every change from ``old`` to ``new`` on the spec side, unordered (``base_url``: the
    configured one, which the client uses instead of the spec's first server)."""
    found = servers(old, new, base_url) + security_schemes(old, new)
    before, after = operations(old), operations(new)
    for key, op in before.items():
        if key not in after:
            found.append(change("operation-removed", label(op), "operation removed"))
    for key, op in after.items():
        if key not in before:
            found.append(change("operation-added", label(op), "operation added"))
    for key, op in before.items():
        if key in after:
            found += operation_changes(old, new, op, after[key])
    return found


def operation_key(op: Operation) -> str:
    """``GET /v1/things/{}``: method and path template, parameter names erased."""
    return f"{op.method.upper()} {_PATH_PARAM.sub('{}', op.path)}"


def label(op: Operation) -> str:
    """``GET /v1/things/{id}``: how locations name an operation."""
    return f"{op.method.upper()} {op.path}"


def operations(api: Api) -> dict[str, Operation]:
    """The operations of ``api`` by :func:`operation_key` (the first of equal keys)."""
    found: dict[str, Operation] = {}
    for op in api.operations:
        found.setdefault(operation_key(op), op)
    return found


def operation_changes(old_api: Api, new_api: Api, old: Operation, new: Operation) -> list[Change]:
    """What changed in one operation present in both versions."""
    where = label(new)
    found: list[Change] = []
    if new.deprecated and not old.deprecated:
        found.append(change("operation-deprecated", where, "operation deprecated"))
    if old.operation_id and new.operation_id and old.operation_id != new.operation_id:
        message = f"operationId {old.operation_id} -> {new.operation_id}"
        found.append(change("operation-id-changed", where, message))
    request = Walk(old_api, new_api, "request", found)
    parameters(request, old, new, where)
    request_body(request, old.request_body, new.request_body, where)
    response = Walk(old_api, new_api, "response", found)
    responses(response, old.responses, new.responses, where)
    found += security(old.security, new.security, where)
    return found


def _parameter_key(op: Operation, p: Parameter) -> str:
    if p.location == "path":
        names = _PATH_PARAM.findall(op.path)
        return f"path #{names.index(p.name)}" if p.name in names else f"path {p.name}"
    return f"{p.location} {p.name.lower() if p.location == 'header' else p.name}"


def parameters(w: Walk, old: Operation, new: Operation, where: str) -> None:
    """Parameters removed, added (required or not), renamed (path), made required or
    optional, and their values compared."""
    before = {_parameter_key(old, p): p for p in old.parameters}
    after = {_parameter_key(new, p): p for p in new.parameters}
    for key, p in before.items():
        if key not in after:
            w.add("parameter-removed", _at(where, p), "parameter removed")
    for key, p in after.items():
        if key not in before:
            kind = "required" if p.required else "optional"
            w.add(f"parameter-added-{kind}", _at(where, p), f"new {kind} parameter")
    for key, p in before.items():
        q = after.get(key)
        if q is None:
            continue
        if p.location == "path" and p.name != q.name:
            w.add("parameter-renamed", _at(where, q), f"path parameter {p.name} renamed {q.name}")
        if p.required != q.required:
            now = "required" if q.required else "optional"
            w.add(f"parameter-became-{now}", _at(where, q), f"parameter became {now}")
        compare(w, p.schema, q.schema, _at(where, q))


def _at(where: str, p: Parameter) -> str:
    return f"{where} request.{p.location}.{p.name}"


def request_body(w: Walk, old: RequestBody | None, new: RequestBody | None, where: str) -> None:
    """The request body added, removed, made required or optional, its media types,
    and its value compared."""
    at = f"{where} request.body"
    if old is None and new is None:
        return
    if old is None or new is None:
        if new is not None:
            kind = "required" if new.required else "optional"
            w.add(f"body-added-{kind}", at, f"new {kind} request body ({new.content_type})")
        else:
            w.add("body-removed", at, "request body removed")
        return
    if old.required != new.required:
        now = "required" if new.required else "optional"
        w.add(f"body-became-{now}", at, f"request body became {now}")
    media_types(w, _types(old.content, old.content_type), _types(new.content, new.content_type), at)
    compare(w, old.schema, new.schema, at)


def _types(content: Iterable[MediaType], preferred: str | None) -> list[str]:
    found = [m.content_type for m in content]
    return found or ([preferred] if preferred else [])


def media_types(w: Walk, old: list[str], new: list[str], where: str) -> None:
    """The media types of a body no longer offered, and new ones."""
    for name in (t for t in old if t not in new):
        w.add("media-type-removed", where, f"media type {name} removed")
    for name in (t for t in new if t not in old):
        w.add("media-type-added", where, f"media type {name} added")


def responses(w: Walk, old: tuple[Response, ...], new: tuple[Response, ...], where: str) -> None:
    """Response statuses removed and added, and each kept one compared."""
    before = {r.status: r for r in old}
    after = {r.status: r for r in new}
    for status, r in before.items():
        if status not in after:
            rule = "success-status-removed" if r.is_success else "status-removed"
            w.add(rule, f"{where} response.{status}", f"response {status} removed")
    for status in after:
        if status not in before:
            w.add("status-added", f"{where} response.{status}", f"response {status} added")
    for status, r in before.items():
        if status in after:
            response(w, r, after[status], f"{where} response.{status}")


def response(w: Walk, old: Response, new: Response, at: str) -> None:
    """One response's media types and body."""
    media_types(w, _types(old.content, old.content_type), _types(new.content, new.content_type), at)
    if old.schema is None and new.schema is None:
        return
    if old.schema is None or new.schema is None:
        if new.schema is None:
            w.add("body-removed", f"{at}.body", "response body removed")
        else:
            w.add("body-added", f"{at}.body", f"response body added ({new.content_type})")
        return
    compare(w, old.schema, new.schema, f"{at}.body")


def security(
    old: tuple[Requirement, ...], new: tuple[Requirement, ...], where: str
) -> list[Change]:
    """An operation's effective security: a way to authenticate that the old version
    accepted and the new one does not is breaking; new ways, or fewer credentials, not."""
    before = [frozenset(r) for r in old] or [frozenset()]
    after = [frozenset(r) for r in new] or [frozenset()]
    found = []
    lost = [r for r in before if not any(n <= r for n in after)]
    if lost:
        message = f"requests with {_ways(lost)} are refused: now needs {_ways(after)}"
        found.append(change("security-requirement-added", where, message))
    eased = [r for r in after if r not in before]
    if not lost and eased:
        message = f"now accepts {_ways(after)} (was {_ways(before)})"
        found.append(change("security-requirement-relaxed", where, message))
    return found


def _ways(requirements: list[frozenset[str]]) -> str:
    """``key``, ``oauth + key``, ``no credentials``, joined by `` or ``."""
    spelled = sorted(" + ".join(sorted(r)) if r else "no credentials" for r in requirements)
    return " or ".join(spelled)


def security_schemes(old: Api, new: Api) -> list[Change]:
    """Security schemes added, removed, or changed in how credentials are sent."""
    before = {s.name: s for s in old.security_schemes}
    after = {s.name: s for s in new.security_schemes}
    found = []
    for name, scheme in before.items():
        at = f"security scheme {name}"
        other = after.get(name)
        if other is None:
            found.append(change("security-scheme-removed", at, "removed"))
            continue
        was = (scheme.kind, scheme.location, scheme.parameter_name, scheme.scheme)
        now = (other.kind, other.location, other.parameter_name, other.scheme)
        if was != now:
            message = f"{_scheme(was)} -> {_scheme(now)}"
            found.append(change("security-scheme-changed", at, message))
    for name in after:
        if name not in before:
            found.append(change("security-scheme-added", f"security scheme {name}", "added"))
    return found


def _scheme(parts: tuple[str | None, ...]) -> str:
    return " ".join(p for p in parts if p)


def servers(old: Api, new: Api, base_url: str | None) -> list[Change]:
    """The first server's URL changed (the client's default), servers removed or added."""
    before = [s.url for s in old.servers]
    after = [s.url for s in new.servers]
    note = f" (the client uses base_url {base_url} from the config)" if base_url else ""
    found = []
    old_rest, new_rest = before, after
    if before and after and before[0] != after[0] and before[0] not in after:
        message = f"default server {before[0]} -> {after[0]}{note}"
        found.append(change("server-url-changed", "servers", message))
        old_rest, new_rest = before[1:], after[1:]
    for url in (u for u in old_rest if u not in after):
        found.append(change("server-removed", "servers", f"server {url} removed{note}"))
    for url in (u for u in new_rest if u not in before):
        found.append(change("server-added", "servers", f"server {url} added"))
    return found
