"""Every operation of both APIs, sync and async, over real HTTP: the case table is built from
the spec (tests/client/support.py). The server checks method, path, query, headers and body;
the client checks the typed result."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pydantic
import pytest

from tests.client.support import APIS, Case, Server, cases, expected_query, package, resolve

ALL = [c for api in APIS for c in cases(api)]


def reply(case: Case) -> Any:
    def handler(seen: Any) -> Any:
        if case.stream:
            return (
                200,
                {"content-type": "text/event-stream"},
                iter([f"data: {json.dumps(case.response)}\n\n".encode(), b"data: [DONE]\n\n"]),
            )
        body = b"" if case.response is None else json.dumps(case.response).encode()
        return 200, {}, body if body else b"null"

    return handler


def check_request(case: Case, server: Server) -> None:
    assert len(server.script.seen) == 1
    seen = server.script.seen[0]
    assert seen.method == case.http_method
    assert seen.path == case.path
    assert sorted(seen.query) == expected_query(case)
    for key, value in case.headers.items():
        assert seen.headers[key] == value
    assert seen.headers["authorization" if case.api == "llm-engine" else "x-api-key"]
    if case.files:
        parts = seen.multipart()
        names = {p[0] for p in parts if p[1] is not None}
        assert names == set(case.files)
        assert all(p[3] == b"file-bytes" for p in parts if p[1] is not None)
        form = {p[0]: p[3].decode() for p in parts if p[1] is None}
        assert set(form) == set(case.body)
    elif case.body is not None:
        assert seen.headers["content-type"] == "application/json"
        assert seen.json() == case.body
    else:
        assert seen.body == b""


def check_result(case: Case, result: Any, module: Any) -> None:
    returns = case.method.returns
    if case.stream:
        chunks = list(result) if not hasattr(result, "__aiter__") else result
        assert len(chunks) == 1 and isinstance(chunks[0], pydantic.BaseModel)
    elif case.method.page:
        assert isinstance(result, module.SyncPage | module.AsyncPage)
        assert isinstance(result.page, pydantic.BaseModel)
    elif returns.startswith("_m.") and " " not in returns and hasattr(module.models, returns[3:]):
        cls = getattr(module.models, returns[3:])
        if isinstance(cls, type):
            assert isinstance(result, cls)
    elif returns.startswith("builtins.list["):
        assert isinstance(result, list)
    elif returns == "None":
        assert result is None


def client_for(case: Case, server: Server, is_async: bool) -> Any:
    module = package(case.api)
    name = "LlmEngineClient" if case.api == "llm-engine" else "SgpClient"
    cls = getattr(module, f"Async{name}" if is_async else name)
    return cls(api_key="key", base_url=server.url, max_retries=0)


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_operation_sync(case: Case, server: Server) -> None:
    server.reset(reply(case))
    with client_for(case, server, False) as client:
        result = resolve(client, case)(**case.kwargs)
        check_result(case, result, package(case.api))
    check_request(case, server)


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_operation_async(case: Case, server: Server) -> None:
    server.reset(reply(case))

    async def main() -> None:
        async with client_for(case, server, True) as client:
            result = await resolve(client, case)(**case.kwargs)
            if case.stream:
                result = [chunk async for chunk in result]
            check_result(case, result, package(case.api))

    asyncio.run(main())
    check_request(case, server)


def test_every_operation_has_a_case() -> None:
    from tests.client.support import spec_and_ir

    for api in APIS:
        _, ir = spec_and_ir(api)
        assert len(cases(api)) == len(ir.operations) > 0
        assert len({c.id for c in cases(api)}) == len(ir.operations)
