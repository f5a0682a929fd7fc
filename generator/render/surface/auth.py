"""The client's credentials: constructor parameters, their environment fallbacks, the
auth alternatives (each a set of headers sent together) and the extra headers of
``[client.auth.headers]`` (the client sends them; the docs show them).

A security requirement lists the schemes that must *all* be satisfied (VTEX's
``{AppKey: [], AppToken: []}``: two headers on every call); the requirements of the spec
(the top-level one, then each operation's) are the alternatives. The client sends the
credentials of the first alternative it has every credential of; alternatives that need
more credentials come first, so a client given both keys sends both, and one given a
single bearer token sends that (a plain OR of schemes keeps its old order: the schemes'
declaration order).

Each scheme the client can send (an API key in a header, the query or a cookie, HTTP
Basic or Bearer, OAuth 2 and OpenID Connect tokens as Bearer) has a constructor parameter
named after its kind (``api_key``, ``bearer_token``). Schemes of one kind share it, the
first declared wins (as an OR of them needs only one), unless one requirement needs two
of them together: those are named after their schemes (``app_key``, ``app_token``). HTTP
Basic sends ``api_key`` as its username, unless the spec also has an API key scheme: then
Basic is named after its scheme (``basic_auth_credential``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.ir import Api, SecurityScheme
from generator.normalize.naming import client_snake_case
from generator.render.settings import ApiSettings

CREDENTIAL = {
    "http-basic": ("api_key", "basic", "Authorization", "API key, sent as the HTTP Basic username"),
    "http-bearer": ("bearer_token", "bearer", "Authorization", "bearer token"),
    "oauth2": ("bearer_token", "bearer", "Authorization", "bearer token"),
    "openid": ("bearer_token", "bearer", "Authorization", "bearer token"),
}
# An API key's location -> how the docs name it
WHERE = {"header": "header", "query": "query parameter", "cookie": "cookie"}
# The constructor's other parameters and the names its body uses: no credential's name.
TAKEN = frozenset(
    {
        "self", "base_url", "timeout", "max_retries", "default_headers", "http_client",
        "strict_response_validation", "idempotency_header", "headers", "os", "copy",
        "basic_auth", "api_key", "bearer_token", "super", "query", "cookies",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Sent:
    """How one scheme's credential is sent: ``kind`` (basic, bearer, or header, query,
    cookie: the value itself) under the name ``header`` (a header's, or the query
    parameter's or cookie's), from the constructor parameter ``param``."""

    kind: str
    header: str
    param: str
    doc: str


def _sent(scheme: SecurityScheme) -> Sent | None:
    """The credential of ``scheme`` under its kind's parameter, or None when the client
    cannot send it (mutual TLS, an API key with no name)."""
    if scheme.kind == "api-key" and scheme.location in WHERE and scheme.parameter_name:
        location = scheme.location
        doc = f"API key, sent as the {scheme.parameter_name} {WHERE[location]}"
        return Sent(location, scheme.parameter_name, "api_key", doc)
    if scheme.kind in CREDENTIAL:
        param, kind, header, doc = CREDENTIAL[scheme.kind]
        return Sent(kind, header, param, doc)
    return None


def _requirements(api: Api) -> list[tuple[str, ...]]:
    """Every distinct requirement, the top-level ones first, then the operations'."""
    found = [*(api.security or ()), *(req for op in api.operations for req in op.security)]
    return list(dict.fromkeys(tuple(req) for req in found if req))


def _own_name(scheme: str, taken: set[str]) -> str:
    base = client_snake_case(scheme)
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_credential" if n == 2 else f"{base}_credential_{n}"
    return name


def _credentials(api: Api, cfg: ApiSettings) -> dict[str, Sent]:
    """Scheme name -> the credential the client sends for it (see the module docstring)."""
    requirements = _requirements(api)
    used = {name for req in requirements for name in req}
    sent = {s.name: c for s in api.security_schemes if s.name in used and (c := _sent(s))}
    together: set[str] = set()  # schemes one requirement needs beside another of their kind
    for req in requirements:
        mine = [n for n in req if n in sent]
        for n in mine:
            if any(sent[m].param == sent[n].param and sent[m] != sent[n] for m in mine):
                together.add(n)
    # an API key and HTTP Basic both want ``api_key``: the API key keeps it (it is one)
    keyed = any(c.kind in WHERE for c in sent.values())
    apart = {n for n, c in sent.items() if keyed and c.kind == "basic"}
    taken = set(TAKEN) | {h.param for h in cfg.auth_headers}
    first: dict[str, Sent] = {}  # param -> the credential it sends
    result: dict[str, Sent] = {}
    for name, credential in sent.items():  # declaration order
        if name in together or name in apart:
            param = _own_name(name, taken)
            taken.add(param)
            where = WHERE.get(credential.kind)
            doc = f"API key of the {name} scheme, sent as the {credential.header} {where}"
            if where is None:
                doc = f"{credential.doc} of the {name} scheme"
            credential = Sent(credential.kind, credential.header, param, doc)
        result[name] = first.setdefault(credential.param, credential)
    return result


def auth_context(api: Api, cfg: ApiSettings) -> dict[str, Any]:
    """Constructor credentials, the auth alternatives (each a list of ``(kind, header,
    param)`` sent together; the first whose parameters are all given wins) and the extra
    headers (``[client.auth.headers]``)."""
    of_scheme = _credentials(api, cfg)
    order = list(dict.fromkeys(of_scheme.values()))  # one a parameter, declaration order
    groups: list[tuple[Sent, ...]] = []
    for req in _requirements(api):
        group = tuple(dict.fromkeys(of_scheme[n] for n in req if n in of_scheme))
        if group and group not in groups:
            groups.append(group)
    groups.sort(key=lambda g: (-len(g), sorted(order.index(c) for c in g)))
    alternatives = [[(c.kind, c.header, c.param) for c in g] for g in groups]
    credentials = [{"param": c.param, "env": cfg.env(c.param), "doc": c.doc} for c in order]
    extra = []
    for h in cfg.auth_headers:
        credentials.append(
            {
                "param": h.param,
                "env": h.env or cfg.env(h.param),
                "doc": f"sent as the {h.header} header",
            }
        )
        extra.append((h.header, h.param))
    return {"credentials": credentials, "alternatives": alternatives, "extra_headers": extra}
