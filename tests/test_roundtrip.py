"""Round trip: the generated client against the generated mock server, over real HTTP.

For every operation of both APIs, sync and async, streaming and uploads included: the
mock server (``python -m <package>.server``, uvicorn on 127.0.0.1) validates the request
the client builds, and the client parses the mock's schema-valid answer into its typed
result. The calls come from the client tests' case table, built from the spec.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pydantic
import pytest

from tests.client.support import APIS, Case, cases, package, resolve
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


def client_of(case: Case, url: str, is_async: bool) -> Any:
    module = package(case.api)
    name = "LlmEngineClient" if case.api == "llm-engine" else "SgpClient"
    cls = getattr(module, f"Async{name}" if is_async else name)
    return cls(api_key="key", base_url=url, max_retries=0)


def check(case: Case, result: Any, streamed: bool = False) -> None:
    if case.stream or streamed:
        assert result, f"{case.id}: the mock streamed no chunk"
        assert all(isinstance(chunk, pydantic.BaseModel) for chunk in result)
    elif case.method.page:
        assert isinstance(result.page, pydantic.BaseModel)
    elif case.method.returns.startswith("_m.") and " " not in case.method.returns:
        expected = getattr(package(case.api).models, case.method.returns[3:], None)
        if isinstance(expected, type):
            assert isinstance(result, expected), (case.id, type(result))


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_roundtrip_sync(case: Case, mock_urls: dict[str, str]) -> None:
    with client_of(case, mock_urls[case.api], False) as client:
        result = resolve(client, case)(**case.kwargs)
        if case.stream:
            result = list(result)
        check(case, result)


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_roundtrip_async(case: Case, mock_urls: dict[str, str]) -> None:
    async def main() -> None:
        async with client_of(case, mock_urls[case.api], True) as client:
            result = await resolve(client, case)(**case.kwargs)
            if case.stream:
                result = [chunk async for chunk in result]
            check(case, result)

    asyncio.run(main())


@pytest.mark.parametrize("case", FLAGGED, ids=[c.id for c in FLAGGED])
def test_roundtrip_streamed(case: Case, mock_urls: dict[str, str]) -> None:
    kwargs = {**case.kwargs, case.method.stream_flag.name: True}
    with client_of(case, mock_urls[case.api], False) as client:
        check(case, list(resolve(client, case)(**kwargs)), streamed=True)

    async def main() -> None:
        async with client_of(case, mock_urls[case.api], True) as client:
            stream = await resolve(client, case)(**kwargs)
            check(case, [chunk async for chunk in stream], streamed=True)

    asyncio.run(main())


def test_roundtrip_covers_every_operation() -> None:
    from tests.client.support import spec_and_ir

    for api in APIS:
        assert len(cases(api)) == len(spec_and_ir(api)[1].operations)
    assert sum(c.stream for c in ALL) + len(FLAGGED) >= 4  # LLM Engine's 3, SGP's chat
    assert sum(bool(c.files) for c in ALL) >= 4  # LLM Engine's /v1/files, SGP's 3 uploads
