"""The context of the server templates, computed from the IR (templates only present it).

Everything that is spec text (paths, names, descriptions, defaults) is passed as raw
values and quoted in the templates with ``pyrepr``/``docstring``/``comment``. Values that
are *code* here (annotations, argument lists) are built only from identifiers the IR has
already made valid (model names, ``python_name``) and from ``repr`` of spec values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generator.config import ApiConfig
from generator.ir import Api, TypeRef
from generator.load import escape_token
from generator.normalize.diagnostics import Diagnostic
from generator.render.examples import MockError, Synthesizer
from generator.render.server.dispatch import Dispatch, dispatches, real_path
from generator.render.server.mock_answers import role_extras
from generator.render.server.modules import (
    MOCK_PACKAGE,
    SERVER_PACKAGE,
    ServerModule,
    group_routes,
    import_lines,
    mock_imports,
    server_imports,
    service_names,
)
from generator.render.server.paths import matching_order
from generator.render.server.resources import mock_errors, mock_faults, mock_roles
from generator.render.server.routes import Route, build_route
from generator.render.server.security import Scheme, SecuritySet, challenge, make_scheme
from generator.render.settings import ApiSettings

# FastAPI's own routes: ``FastAPI(...)`` keyword -> its path, which a spec path of the same
# name would never reach (FastAPI registers them first)
FASTAPI_URLS = {
    "openapi_url": "/openapi.json",
    "docs_url": "/docs",
    "swagger_ui_oauth2_redirect_url": "/docs/oauth2-redirect",
    "redoc_url": "/redoc",
}


@dataclass
class ServerContext:
    title: str
    version: str
    package: str
    routes: list[Route]
    modules: list[ServerModule]  # the routes by top-level resource (see :mod:`.modules`)
    schemes: list[Scheme]
    security_sets: list[SecuritySet]
    has_streaming: bool
    security_names: str  # what ``from fastapi.security import`` lists ("": nothing)
    mock_responses: list[tuple[str, Any]]  # (operation, JSON body) the mock answers
    mock_chunks: list[tuple[str, list[Any]]]  # (operation, JSON chunks) a mock stream sends
    mock_gaps: list[tuple[str, str]]  # (operation, the 501's detail) where it cannot answer
    mock_roles: list[tuple[str, list[tuple[str, Any]]]]  # (operation, Role keyword arguments)
    mock_faults: list[tuple[str, list[tuple[int, Any, bool]]]]  # (operation, error answers)
    mock_errors: list[tuple[str, list[tuple[str, Any]]]]  # (operation, (status, declared body))
    dispatch: list[Dispatch] = field(default_factory=list)  # routes told apart by a constant
    dispatch_warnings: tuple[Diagnostic, ...] = ()  # operations nothing tells apart

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """A warning per operation the mock cannot answer, and per success response whose
        examples the mock does not use (they do not conform: it answers synthesized data)."""
        gaps = tuple(
            Diagnostic(
                "server",
                "warning",
                "#/paths/" + escape_token(r.path) + f"/{r.method}",
                f"no mock response for {r.operation_id or r.name}: {r.mock_gap};"
                " the mock answers 501 there",
            )
            for r in self.routes
            if r.mock_gap is not None
        )
        notes = tuple(
            Diagnostic(
                "server",
                "warning",
                r.mock_note[0],
                r.mock_note[1] + ": the mock answers synthesized data instead",
            )
            for r in self.routes
            if r.mock_note is not None and r.mock_gap is None
        )
        changed = tuple(w for r in self.routes for w in r.warnings)  # what the server changes
        return changed + self.dispatch_warnings + gaps + notes

    @property
    def shared_fastapi_names(self) -> str:
        """What ``_server/__init__.py``'s ``from fastapi import`` lists."""
        return "Depends, HTTPException, Request" if self.security_sets else "Depends, Request"

    @property
    def exports(self) -> list[str]:
        """``server.py``'s ``__all__``: its own names and the modules' classes."""
        own = ["BaseService", "Credentials", "Service", "create_app", "create_router"]
        own += ["current_credentials", "verify_credentials"]
        return sorted([*own, *(c for m in self.modules for c in (m.protocol, m.base))])

    @property
    def server_imports(self) -> list[str]:
        """``server.py``'s imports of the resource modules' classes and route functions."""
        return [
            f"from .{SERVER_PACKAGE}.{m.module} import "
            + ", ".join(sorted([m.base, m.protocol, *m.adders]))
            for m in self.modules
        ]

    @property
    def mock_imports(self) -> list[str]:
        """``mock.py``'s imports of the mock modules' classes."""
        return [f"from .{MOCK_PACKAGE}.{m.module} import {m.mock}" for m in self.modules]

    @property
    def taken_urls(self) -> list[str]:
        """The keywords of :data:`FASTAPI_URLS` whose path is one of the spec's: the app
        turns those routes off."""
        paths = {r.path for r in self.routes}
        return [key for key, url in FASTAPI_URLS.items() if url in paths]

    @property
    def reads_parameters(self) -> bool:
        """Whether a route reads a structured parameter (``read_parameter``)."""
        return any(
            a.marker.startswith("Depends(read_parameter(") for r in self.routes for a in r.args
        )

    @property
    def answers_media(self) -> bool:
        """Whether a route answers in a media type other than JSON (``media_response``)."""
        return any(r.answer_media for r in self.routes)

    @property
    def needs_call(self) -> bool:
        """Whether a route calls its service method through ``_call`` (see ``direct_call``)."""
        return any(r.needs_call for r in self.routes)


def _fault_body(synth: Synthesizer, status: int, t: TypeRef | None) -> Any:
    """The body of an injected error: an instance of its documented schema, else a detail."""
    if t is not None:
        try:
            return synth.value(t)
        except MockError:
            pass
    return {"detail": f"injected fault: HTTP {status}"}


def _mock_tables(
    api: Api, config: ApiConfig, routes: list[Route], synth: Synthesizer
) -> dict[str, Any]:
    """The mock's answers, stream chunks, stateful roles, faults and gaps (operations it
    cannot answer: 501)."""
    answered = [r for r in routes if r.mock_gap is None]
    roles = mock_roles(api, config.mock.resources, where=_where(config))
    ops = {op.python_name: op for op in api.operations}
    return {
        "mock_responses": [(r.name, r.mock_value) for r in answered if r.response_model != "None"],
        "mock_chunks": [(r.name, r.mock_chunks) for r in answered if r.stream],
        "mock_roles": [
            (r.name, sorted({**role, **role_extras(api, ops[r.operation], role, synth)}.items()))
            for r in answered
            if (role := roles.get(r.operation)) is not None
        ],
        "mock_faults": [
            (
                r.name,
                [
                    (status, _fault_body(synth, status, t), retry_after)
                    for status, t, retry_after in mock_faults(ops[r.operation])
                ],
            )
            for r in answered
        ],
        "mock_errors": [
            (r.name, [(key, _fault_body(synth, 400, t)) for key, t in errors])
            for r in answered
            if (errors := mock_errors(ops[r.operation]))
        ],
        "mock_gaps": [
            (r.name, f"{r.name} (the mock cannot build its response: {r.mock_gap})")
            for r in routes
            if r.mock_gap is not None
        ],
    }


def _where(config: ApiConfig) -> str | None:
    return config.config_file.as_posix() if config.config_file is not None else None


def mock_data(
    api: Api, config: ApiConfig, settings: ApiSettings, synth: Synthesizer
) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The mock's answers and stream chunks as ``synth`` builds them (``apismith serve
    --seed N`` / ``--required-only``: other data than the package's tables)."""
    ctx = build_context(api, config, settings, synth)
    return dict(ctx.mock_responses), dict(ctx.mock_chunks)


def build_context(
    api: Api, config: ApiConfig, settings: ApiSettings, synth: Synthesizer | None = None
) -> ServerContext:
    """The server templates' context; streaming and uploads come from ``settings``; the
    mock's data from ``synth`` (default: realistic data, seed 0)."""
    synth = synth if synth is not None else Synthesizer(api, full=True)
    schemes = {s.name: make_scheme(s, i) for i, s in enumerate(api.security_schemes, 1)}
    sets: dict[tuple[tuple[str, ...], ...], SecuritySet] = {}
    routes: list[Route] = []
    defaults: list[tuple[str, Any]] = []
    uses: dict[str, tuple[list[TypeRef], list[tuple[str, Any]]]] = {}  # route -> its own
    service = service_names(api, settings)
    for op in api.operations:
        security = None
        required = tuple(r for r in op.security)
        if required and () not in required:
            if required not in sets:
                alternatives = [[schemes[n] for n in req] for req in required]
                challenges = dict.fromkeys(challenge(s) for alt in alternatives for s in alt)
                sets[required] = SecuritySet(
                    f"require_credentials_{len(sets) + 1}", alternatives, ", ".join(challenges)
                )
            security = sets[required].name
        first_default = len(defaults)
        route, used, _uploaded = build_route(
            api,
            op,
            defaults,
            synth,
            settings.uploads.get(op.python_name, ()),
            settings.streaming.get(op.python_name),
        )
        route.security, route.name = security, service[op.python_name]
        routes.append(route)
        uses[route.name] = (used, defaults[first_default:])
    routed, dispatch_warnings = dispatches(api)
    for r in routes:  # the route of an operation told apart by a constant (see .dispatch)
        r.path = routed[r.operation].route_path if r.operation in routed else real_path(r.path)
    routes = matching_order(routes)
    used_schemes = [s for s in schemes.values() if any(s in ss.schemes for ss in sets.values())]
    security_names = {s.source.split("(")[0] for s in used_schemes}
    security_names.update(s.value_type for s in used_schemes if s.value_type != "str")
    tables = _mock_tables(api, config, routes, synth)
    modules = group_routes(api, settings, routes)
    for m in modules:
        _fill(m, uses, tables)
    return ServerContext(
        title=config.title or api.title or config.package,
        version=api.version or "unversioned",  # FastAPI refuses an empty one
        package=config.package,
        routes=routes,
        modules=modules,
        schemes=used_schemes,
        security_sets=list(sets.values()),
        has_streaming=any(r.stream for r in routes),
        dispatch=[routed[r.operation] for r in routes if r.operation in routed],
        dispatch_warnings=dispatch_warnings,
        **tables,
        security_names=", ".join(sorted(security_names)),
    )


def _fill(
    m: ServerModule,
    uses: dict[str, tuple[list[TypeRef], list[tuple[str, Any]]]],
    tables: dict[str, Any],
) -> None:
    """A module's types, defaults, imports and mock tables, from its routes'."""
    names = {r.name for r in m.routes}
    for r in m.routes:
        types, defaults = uses[r.name]
        m.types.extend(types)
        m.defaults.extend(defaults)
    for key in (
        "mock_responses",
        "mock_chunks",
        "mock_roles",
        "mock_faults",
        "mock_errors",
        "mock_gaps",
    ):
        setattr(m, key, [entry for entry in tables[key] if entry[0] in names])
    m.imports = import_lines(server_imports(m))
    m.mock_imports = import_lines(mock_imports(m))  # after the tables: they may need json
