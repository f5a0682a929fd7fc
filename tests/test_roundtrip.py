"""Round trip: the generated client against the generated mock server, over real HTTP.

For every operation of both APIs, sync and async, streaming and uploads included: the
mock server (``python -m <package>.server``, uvicorn on 127.0.0.1) validates the request
the client builds, and the client parses the mock's schema-valid answer into its typed
result. The calls come from the client tests' case table, built from the spec.

Every result is checked against the method's declared return type (a pydantic
``TypeAdapter`` of the annotation, strict, so a raw ``dict`` never passes for a model) and
against the body the mock sent (seen through an httpx response hook): the result, dumped
back to JSON, is that body. An operation typed ``Any`` is allowed only where the spec's
response schema is itself empty (``{}``); its result must be the decoded body.
"""

from __future__ import annotations

import asyncio
import builtins
import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import httpx
import pydantic
import pytest

from tests.client.support import APIS, Case, cases, package, resolve, spec_and_ir
from tests.conftest import GENERATED

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from tests.server.conftest import running

PACKAGES = {"llm-engine": "llm_engine", "sgp": "sgp"}
ALL = [c for api in APIS for c in cases(api)]
# operations that stream when a body flag is set: called again with the flag on
FLAGGED = [c for c in ALL if c.method.stream_flag is not None]


@pytest.fixture(scope="module")
def mock_urls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """One running mock server per API, shared by the module's tests."""
    import sys
    from contextlib import ExitStack

    logs = tmp_path_factory.mktemp("mock-logs")
    with ExitStack() as stack:
        urls = {
            api: stack.enter_context(
                running(
                    [sys.executable, "-m", f"{pkg}.server"],
                    cwd=GENERATED,
                    log=logs / f"{pkg}.log",
                    env={"PYTHONPATH": str(GENERATED)},
                )
            )
            for api, pkg in PACKAGES.items()
        }
        yield urls


# --- the declared types ------------------------------------------------------------------------


def declared(case: Case) -> str:
    """The annotation the caller gets without streaming: a flagged method's first overload
    (the flag left off), else the method's return annotation. A page's envelope model and a
    stream's chunk model come from ``kind`` and ``stream``."""
    m = case.method
    if case.stream:
        return str(m.stream)
    if m.page:
        return m.kind
    return m.overloads[0].returns if m.stream_flag is not None else m.returns


@cache
def adapter(api: str, annotation: str) -> pydantic.TypeAdapter[Any]:
    """A TypeAdapter of a generated annotation (``_m.X``, ``builtins.list[_m.X]``, ...)."""
    names = {"_m": package(api).models, "builtins": builtins, "Any": Any}
    return pydantic.TypeAdapter(eval(annotation, names))  # (our own annotations, not input)


def untyped(case: Case) -> bool:
    """Whether the spec leaves this operation's success body untyped (an empty schema)."""
    spec, _ = spec_and_ir(case.api)
    op = case.method.op
    ok = op.success_response
    if ok is None or ok.schema is None:
        return True
    response = spec["paths"][op.path][op.method]["responses"][ok.status]
    schema = response["content"][ok.content_type].get("schema", {})
    return schema in ({}, True)


def unchecked() -> list[str]:
    """Operations whose result can only be checked as ``Any`` although the spec types it."""
    return [c.id for c in ALL if declared(c) in ("Any", "typing.Any") and not untyped(c)]


def check_value(case: Case, annotation: str, result: Any, body: bytes) -> None:
    """``result`` is an instance of ``annotation`` and, dumped as JSON, is ``body``."""
    sent = json.loads(body) if body else None
    if annotation in ("Any", "typing.Any"):
        assert untyped(case), f"{case.id}: typed in the spec, returns Any"
        assert result == sent, (case.id, result, sent)
        return
    ta = adapter(case.api, annotation)
    try:
        ta.validate_python(result, strict=True)
    except pydantic.ValidationError as exc:  # a raw dict or list where a model is declared
        pytest.fail(f"{case.id}: the result is not a {annotation}: {type(result)}\n{exc}")
    dumped = ta.dump_python(result, mode="json", by_alias=True, exclude_unset=True)
    assert dumped == sent, f"{case.id}: the result differs from the mock's body"


def check(case: Case, result: Any, bodies: list[httpx.Response], streamed: bool = False) -> None:
    """Chunks: each a strict instance of the stream's chunk model; a page: its envelope
    checked by :func:`check_value`; anything else: the same, against the declared type."""
    if case.stream or streamed:
        assert result, f"{case.id}: the mock streamed no chunk"
        model = adapter(case.api, str(case.method.stream))
        for item in result:
            assert isinstance(item, pydantic.BaseModel), (case.id, type(item))
            model.validate_python(item, strict=True)
        return
    assert bodies, f"{case.id}: no response seen"
    body = bodies[-1].content
    if case.method.page:
        check_value(case, case.method.kind, result.page, body)
    else:
        check_value(case, declared(case), result, body)


def client_of(case: Case, url: str, is_async: bool, seen: list[httpx.Response]) -> Any:
    """The generated client, its httpx client recording every response it gets."""
    module = package(case.api)
    name = "LlmEngineClient" if case.api == "llm-engine" else "SgpClient"
    cls = getattr(module, f"Async{name}" if is_async else name)
    if is_async:

        async def record(response: httpx.Response) -> None:
            seen.append(response)

        http: Any = httpx.AsyncClient(event_hooks={"response": [record]})
    else:
        http = httpx.Client(event_hooks={"response": [seen.append]})
    return cls(api_key="key", base_url=url, max_retries=0, http_client=http)


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_roundtrip_sync(case: Case, mock_urls: dict[str, str]) -> None:
    seen: list[httpx.Response] = []
    with client_of(case, mock_urls[case.api], False, seen) as client:
        result = resolve(client, case)(**case.kwargs)
        if case.stream:
            result = list(result)
        check(case, result, seen)


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_roundtrip_async(case: Case, mock_urls: dict[str, str]) -> None:
    seen: list[httpx.Response] = []

    async def main() -> None:
        async with client_of(case, mock_urls[case.api], True, seen) as client:
            result = await resolve(client, case)(**case.kwargs)
            if case.stream:
                result = [chunk async for chunk in result]
            check(case, result, seen)

    asyncio.run(main())


@pytest.mark.parametrize("case", FLAGGED, ids=[c.id for c in FLAGGED])
def test_roundtrip_streamed(case: Case, mock_urls: dict[str, str]) -> None:
    kwargs = {**case.kwargs, case.method.stream_flag.name: True}
    seen: list[httpx.Response] = []
    with client_of(case, mock_urls[case.api], False, seen) as client:
        check(case, list(resolve(client, case)(**kwargs)), seen, streamed=True)

    async def main() -> None:
        async with client_of(case, mock_urls[case.api], True, seen) as client:
            stream = await resolve(client, case)(**kwargs)
            check(case, [chunk async for chunk in stream], seen, streamed=True)

    asyncio.run(main())


def test_roundtrip_covers_every_operation() -> None:
    for api in APIS:
        assert len(cases(api)) == len(spec_and_ir(api)[1].operations)
    assert sum(c.stream for c in ALL) + len(FLAGGED) >= 4  # LLM Engine's 3, SGP's chat
    assert sum(bool(c.files) for c in ALL) >= 4  # LLM Engine's /v1/files, SGP's 3 uploads


def test_roundtrip_checks_every_result() -> None:
    """No operation escapes the typed check: ``Any`` only where the spec types nothing."""
    gaps = unchecked()
    assert not gaps, f"{len(gaps)} operations typed in the spec return Any: {gaps}"
    assert all(declared(c) for c in ALL)
