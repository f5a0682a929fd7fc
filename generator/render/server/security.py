"""The server's security: a FastAPI security object per scheme and a presence dependency
per distinct requirement (every ``op.security``, see ``docs/server.md``)."""

from __future__ import annotations

from dataclasses import dataclass

from generator.errors import ApismithError
from generator.ir import SecurityScheme


@dataclass
class Scheme:
    name: str
    var: str  # module-level variable of the FastAPI security object
    param: str  # parameter name in the presence dependency
    source: str  # constructor call
    value_type: str  # what the security object returns (without None)


@dataclass
class SecuritySet:
    name: str  # dependency function name
    alternatives: list[list[Scheme]]
    www_authenticate: str

    @property
    def checks(self) -> list[tuple[str, str]]:
        """Per alternative: (the presence condition, the credentials dict literal)."""
        return [
            (
                " and ".join(f"{s.param} is not None" for s in alt),
                "{" + ", ".join(f"{s.name!r}: {s.param}" for s in alt) + "}",
            )
            for alt in self.alternatives
        ]

    @property
    def schemes(self) -> list[Scheme]:
        """Every scheme of the alternatives, once, in first-use order."""
        found: dict[str, Scheme] = {}
        for alt in self.alternatives:
            for s in alt:
                found.setdefault(s.name, s)
        return list(found.values())


def make_scheme(s: SecurityScheme, index: int) -> Scheme:
    var = f"_scheme_{index}"
    param = f"scheme_{index}"
    name = repr(s.name)
    if s.kind == "http-basic":
        return Scheme(
            s.name,
            var,
            param,
            f"HTTPBasic(scheme_name={name}, auto_error=False)",
            "HTTPBasicCredentials",
        )
    if s.kind in ("http-bearer", "http"):
        return Scheme(
            s.name,
            var,
            param,
            f"HTTPBearer(scheme_name={name}, bearerFormat={s.bearer_format!r}, auto_error=False)",
            "HTTPAuthorizationCredentials",
        )
    if s.kind == "api-key":
        cls = {"header": "APIKeyHeader", "query": "APIKeyQuery", "cookie": "APIKeyCookie"}[
            s.location or "header"
        ]
        return Scheme(
            s.name,
            var,
            param,
            f"{cls}(name={s.parameter_name!r}, scheme_name={name}, auto_error=False)",
            "str",
        )
    if s.kind == "oauth2":
        password = next((f for f in s.flows if f.flow == "password"), None)
        if password is not None:
            return Scheme(
                s.name,
                var,
                param,
                f"OAuth2PasswordBearer(tokenUrl={password.token_url!r}, scheme_name={name},"
                f" scopes={dict.fromkeys(password.scopes, '')!r}, auto_error=False)",
                "str",
            )
        return Scheme(s.name, var, param, f"OAuth2(scheme_name={name}, auto_error=False)", "str")
    if s.kind == "openid":
        return Scheme(
            s.name,
            var,
            param,
            f"OpenIdConnect(openIdConnectUrl={s.openid_connect_url!r}, scheme_name={name},"
            " auto_error=False)",
            "str",
        )
    raise ApismithError(f"server: unsupported security scheme kind {s.kind!r} ({s.name})")


def challenge(s: Scheme) -> str:
    if s.value_type == "HTTPBasicCredentials":
        return "Basic"
    if s.value_type == "HTTPAuthorizationCredentials" or s.source.startswith("OAuth2"):
        return "Bearer"
    return "APIKey"
