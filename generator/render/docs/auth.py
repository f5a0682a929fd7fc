"""The docs' words for the spec's security schemes: what a request carries for each (the
``x-api-key`` header, HTTP Basic with the API key as username, a bearer token), and the
matching curl option, with the credential from the client's environment variable."""

from __future__ import annotations

from generator.ir import Api, Requirement, SecurityScheme
from generator.render.docs.samples import sh_env
from generator.render.docs.text import code
from generator.render.settings import ApiSettings

_BEARER = {
    "http-bearer": "bearer token",
    "oauth2": "OAuth2 bearer token",
    "openid": "OpenID Connect bearer token",
}


def scheme_md(scheme: SecurityScheme) -> str:
    """How a request authenticates under ``scheme``, as Markdown: "`x-api-key` header"."""
    if scheme.kind == "api-key" and scheme.parameter_name:
        where = {"header": "header", "query": "query parameter", "cookie": "cookie"}
        return f"{code(scheme.parameter_name)} {where.get(scheme.location or '', 'parameter')}"
    if scheme.kind == "http-basic":
        return "HTTP Basic, with the API key as the username"
    if scheme.kind in _BEARER:
        return f"{_BEARER[scheme.kind]} in the `Authorization` header"
    if scheme.kind == "http" and scheme.scheme:
        return f"HTTP {code(scheme.scheme)} in the `Authorization` header"
    return "the `Authorization` header" if scheme.kind == "http" else scheme.kind


def requirement_md(api: Api, requirement: Requirement) -> str:
    """One alternative of an operation's security: each scheme it needs, named concretely
    ("`x-api-key` header (`APIKeyHeader`)"); "anonymous" when it needs none."""
    parts = []
    for name in requirement:
        try:
            parts.append(f"{scheme_md(api.security_scheme(name))} ({code(name)})")
        except KeyError:
            parts.append(code(name))
    return " and ".join(parts) if parts else "anonymous"


def curl_option(scheme: SecurityScheme, cfg: ApiSettings) -> str | None:
    """The curl option that sends the client's credential for ``scheme`` (None: none does),
    read from the env var the client reads it from."""
    if scheme.kind == "http-basic":
        return f'-u "${cfg.env("api_key")}:"'
    if scheme.kind in _BEARER:
        return f'-H "Authorization: Bearer ${cfg.env("bearer_token")}"'
    if scheme.kind == "api-key" and scheme.location == "header" and scheme.parameter_name:
        return "-H " + sh_env(f"{scheme.parameter_name}: ", cfg.env("api_key"))
    return None
