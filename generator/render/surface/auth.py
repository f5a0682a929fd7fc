"""The client's credentials: constructor parameters, their environment fallbacks, the
alternative auth headers and the extra headers of ``[client.auth.headers]`` (the client
sends them; the docs show them)."""

from __future__ import annotations

from typing import Any

from generator.config import ApiSettings
from generator.ir import Api

CREDENTIAL = {
    "http-basic": ("api_key", "basic", "Authorization", "API key, sent as the HTTP Basic username"),
    "http-bearer": ("bearer_token", "bearer", "Authorization", "bearer token"),
    "oauth2": ("bearer_token", "bearer", "Authorization", "bearer token"),
    "openid": ("bearer_token", "bearer", "Authorization", "bearer token"),
}


def auth_context(api: Api, cfg: ApiSettings) -> dict[str, Any]:
    """Constructor credentials, the alternative auth headers (first given wins) and the
    extra headers (``[client.auth.headers]``)."""
    credentials: list[dict[str, str]] = []
    alternatives: list[tuple[str, str, str]] = []
    used = {name for req in (api.security or ()) for name in req}
    used |= {name for op in api.operations for req in op.security for name in req}
    for scheme in api.security_schemes:
        if scheme.name not in used:
            continue
        if scheme.kind == "api-key" and scheme.location == "header" and scheme.parameter_name:
            param, kind, header, doc = "api_key", "header", scheme.parameter_name, "API key"
            doc = f"API key, sent as the {scheme.parameter_name} header"
        elif scheme.kind in CREDENTIAL:
            param, kind, header, doc = CREDENTIAL[scheme.kind]
        else:
            continue
        if any(a[2] == param for a in alternatives):
            continue
        alternatives.append((kind, header, param))
        credentials.append({"param": param, "env": cfg.env(param), "doc": doc})
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
