"""The errors the mock server answers, copied verbatim into each generated package with a
server: fault injection (:class:`MockOptions`: latency and a share of documented errors),
the declared 404 body of a record the stateful mock does not hold (:class:`RecordMissing`),
and the declared body of a client error the framework raises (a body it cannot parse: a
400), all installed by :func:`install_faults`.
"""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, HTTPException
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["Fault", "MockOptions", "RecordMissing", "install_faults"]

_MISSING: Any = object()


@dataclass(frozen=True)
class Fault:
    """A documented error answer: its status, JSON body, and whether to Retry-After."""

    status: int
    body: Any
    retry_after: bool = False


class RecordMissing(HTTPException):
    """A stateful operation's unknown id: a 404 with the operation's declared body (the
    handler :func:`install_faults` adds), else FastAPI's ``{"detail": ...}``."""

    def __init__(self, detail: str, body: Any) -> None:
        super().__init__(404, detail)
        self.body = body


@dataclass(frozen=True)
class MockOptions:
    """How the mock behaves: ``stateful`` keeps records; ``latency_ms`` delays every
    operation; ``error_rate`` is the share of requests answered with a documented error,
    drawn from ``random.Random(seed)`` in request order."""

    seed: int = 0
    stateful: bool = False
    latency_ms: float = 0
    error_rate: float = 0.0


def _api_routes(routes: Sequence[Any]) -> list[APIRoute]:
    """The APIRoutes of ``routes`` and of the routers included there (FastAPI 0.16x)."""
    found = [r for r in routes if isinstance(r, APIRoute)]
    inner = [r.original_router.routes for r in routes if hasattr(r, "original_router")]
    return found + [route for group in inner for route in _api_routes(group)]


async def _record_missing(request: Request, exc: Exception) -> Response:
    """The 404 of an unknown id: the operation's declared body, else ``{"detail": ...}``."""
    body = exc.body if isinstance(exc, RecordMissing) else None
    detail = exc.detail if isinstance(exc, HTTPException) else "Not Found"
    return JSONResponse({"detail": detail} if body is None else body, 404)


def _declared_errors(
    app: FastAPI, errors: Mapping[str, Mapping[str, Any]]
) -> Callable[[Request, Exception], Awaitable[Response]]:
    """A handler answering a client error the framework raises for an operation (Starlette's
    400 for a body it cannot parse) with the body ``errors`` declares for the operation and
    its status (``"400"``, then ``"4XX"``, then ``"default"``); else the app's own."""
    fallback = app.exception_handlers.get(StarletteHTTPException)

    async def handle(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, StarletteHTTPException) else 500
        declared = errors.get(getattr(request.scope.get("route"), "name", None) or "", {})
        keys = (str(status), f"{status // 100}XX", "default")
        body = next((declared[k] for k in keys if k in declared), _MISSING)
        if 400 <= status < 500 and status != 422 and body is not _MISSING:
            headers = getattr(exc, "headers", None)
            return JSONResponse(body, status, dict(headers) if headers else None)
        if fallback is None:
            raise exc
        answer = fallback(request, exc)
        return await answer if inspect.isawaitable(answer) else answer

    return handle


def install_faults(
    app: FastAPI,
    faults: Mapping[str, Sequence[Fault]],
    options: MockOptions,
    errors: Mapping[str, Mapping[str, Any]] | None = None,
) -> None:
    """Add latency, and with probability ``options.error_rate`` answer a request to an
    operation (a route's name) with one of its ``faults`` (a 503 when it has none); answer
    the 404 of an unknown record with its declared body (``RecordMissing``), and the client
    errors the framework raises with the bodies ``errors`` declares (operation -> status ->
    body: see :func:`_declared_errors`)."""
    app.add_exception_handler(RecordMissing, _record_missing)
    if errors:
        app.add_exception_handler(StarletteHTTPException, _declared_errors(app, errors))
    if options.latency_ms <= 0 and options.error_rate <= 0:
        return
    draw = random.Random(options.seed)

    def middleware(inner: ASGIApp) -> ASGIApp:
        async def faulty(scope: Scope, receive: Receive, send: Send) -> None:
            routes = _api_routes(app.router.routes) if scope["type"] == "http" else []
            full = [r.name for r in routes if r.matches(scope)[0] == Match.FULL]
            name = full[0] if full else None
            if name is not None and options.latency_ms > 0:
                await asyncio.sleep(options.latency_ms / 1000)
            if name is None or draw.random() >= options.error_rate:
                return await inner(scope, receive, send)
            default = Fault(503, {"detail": "Service Unavailable (mock fault)"}, True)
            fault = draw.choice(list(faults.get(name) or [default]))
            headers = {"Retry-After": "1"} if fault.retry_after else None
            await JSONResponse(fault.body, fault.status, headers)(scope, receive, send)

        return faulty

    app.add_middleware(middleware)
