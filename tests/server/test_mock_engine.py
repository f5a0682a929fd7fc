"""The mock engine (``templates/server/_mock_engine.py``, copied into each package with a
server): path echo, the stateful mode, streams, and latency and fault injection, on tiny
models and a real FastAPI app served by uvicorn on 127.0.0.1."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import fastapi
import fastapi.responses
import httpx
import pytest
import uvicorn
from pydantic import BaseModel, ConfigDict, Field

from tests.conftest import REPO_ROOT
from tests.server.conftest import HANG_GUARD, free_port

ENGINE_FILE = REPO_ROOT / "templates" / "server" / "_mock_engine.py"


def _load(path: Path) -> ModuleType:
    """The engine, as a module of a package made of its folder: it imports its siblings
    (``_mock_faults.py``, ``_mock_pages.py``, ``_mock_records.py``) relatively, as in a
    generated package."""
    package = ModuleType("_apismith_mock_runtime")
    package.__path__ = [str(path.parent)]
    sys.modules[package.__name__] = package  # dataclasses look their module up
    return importlib.import_module(f"{package.__name__}.{path.stem}")


engine_module = _load(ENGINE_FILE)
MockEngine = engine_module.MockEngine
MockOptions = engine_module.MockOptions
Role = engine_module.Role
Fault = engine_module.Fault
install_faults = engine_module.install_faults


# --- tiny models -----------------------------------------------------------------------


class Thing(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    id: str
    name: str
    size: int = 0
    kind: str | None = Field(default=None, alias="thingKind")
    parent_id: str | None = None


class ThingCreate(BaseModel):
    name: str
    size: int | None = None
    kind: str | None = Field(default=None, alias="thingKind")
    secret: str | None = None  # not a field of Thing: never echoed


class ThingPatch(BaseModel):
    size: int | None = None
    name: str | None = None


class ThingList(BaseModel):
    items: list[Thing]
    total: int


class Deleted(BaseModel):
    id: str
    deleted: bool


class Numbered(BaseModel):
    number: int
    label: str


class Upload(BaseModel):
    upload_id: str
    name: str = ""


class UploadItem(BaseModel):  # the list's item: another model, naming the id otherwise
    id: str
    kb_id: str


class UploadList(BaseModel):
    items: list[UploadItem]


class Chunk(BaseModel):
    text: str


RESPONSES: dict[str, Any] = {
    "create_thing": {"id": "a", "name": "a"},
    "get_thing": {"id": "a", "name": "a", "size": 0},
    "list_things": {"items": [], "total": 0},
    "update_thing": {"id": "a", "name": "a"},
    "delete_thing": {"id": "a", "deleted": True},
    "create_child": {"id": "00000000-0000-0000-0000-000000000000", "name": "a"},
    "get_child": {"id": "00000000-0000-0000-0000-000000000000", "name": "a"},
    "list_children": [],
    "create_numbered": {"number": 0, "label": "a"},
    "get_numbered": {"number": 0, "label": "a"},
    "echo_size": {"id": "a", "name": "a", "size": 0},
    "create_upload": {"upload_id": "a"},
    "get_upload": {"upload_id": "a", "name": "a"},
    "list_uploads": {"items": []},
}
CHUNKS = {"stream_text": [{"text": "one"}, {"text": "two"}, {"text": "three"}]}
THINGS = "/things"
CHILDREN = "/parents/{parent_id}/children"
UPLOADS = "/kbs/{kb_id}/uploads"
KB = ("kb_id",)
ROLES = {
    "create_thing": Role("create", THINGS, id_field="id"),
    "get_thing": Role("get", THINGS, id_param="thing_id", id_field="id"),
    "list_things": Role("list", THINGS, items_field="items"),
    "update_thing": Role("update", THINGS, id_param="thing_id", id_field="id"),
    "delete_thing": Role("delete", THINGS, id_param="thing_id", id_field="id"),
    "create_child": Role("create", CHILDREN, id_field="id", scope=("parent_id",)),
    "get_child": Role("get", CHILDREN, id_param="child_id", id_field="id", scope=("parent_id",)),
    "list_children": Role("list", CHILDREN, scope=("parent_id",)),
    "create_numbered": Role("create", "/numbered", id_field="number"),
    "get_numbered": Role("get", "/numbered", id_param="number", id_field="number"),
    "create_upload": Role("create", UPLOADS, id_field="upload_id", scope=KB),
    "get_upload": Role("get", UPLOADS, id_param="upload_id", id_field="upload_id", scope=KB),
    "list_uploads": Role("list", UPLOADS, id_field="id", items_field="items", scope=KB),
}


def engine(**options: Any) -> Any:
    return MockEngine(RESPONSES, CHUNKS, ROLES, MockOptions(**options))


# --- the engine, called directly -------------------------------------------------------


def test_default_mode_echoes_path_parameters() -> None:
    mock = engine()
    got = mock.answer("get_thing", Thing, {"thing_id": "t-42"}, None)
    assert isinstance(got, Thing) and got.id == "t-42" and got.name == "a"
    # stateless: nothing is stored, every id answers
    assert mock.answer("get_thing", Thing, {"thing_id": "other"}, None).id == "other"
    assert mock.answer("delete_thing", Deleted, {"thing_id": "x"}, None).id == "x"
    # a field named like a path parameter gets its value
    got = mock.answer("get_thing", Thing, {"thing_id": "t", "name": "from-path"}, None)
    assert got.name == "from-path"


def test_an_echo_that_does_not_validate_keeps_the_literal() -> None:
    got = engine().answer("echo_size", Thing, {"size": "not a number"}, None)
    assert got.size == 0 and got.id == "a"


def test_answers_are_fresh_copies() -> None:
    mock = engine()
    mock.answer("get_thing", Thing, {"thing_id": "changed"}, None)
    assert RESPONSES["get_thing"]["id"] == "a"


def test_stateful_crud() -> None:
    mock = engine(stateful=True)
    assert mock.answer("list_things", ThingList, {}, None).items == []
    body = ThingCreate(name="first", size=3, thingKind="big", secret="s")
    made = mock.answer("create_thing", Thing, {}, body)
    assert (made.id, made.name, made.size, made.kind) == ("things-1", "first", 3, "big")
    assert "secret" not in made.model_dump(by_alias=True)
    second = mock.answer("create_thing", Thing, {}, {"name": "second"})
    assert second.id == "things-2"

    got = mock.answer("get_thing", Thing, {"thing_id": made.id}, None)
    assert (got.id, got.name, got.size, got.kind) == (made.id, "first", 3, "big")
    listed = mock.answer("list_things", ThingList, {}, None)
    assert [t.name for t in listed.items] == ["first", "second"]
    assert listed.total == 0  # the literal's other fields stay

    changed = mock.answer("update_thing", Thing, {"thing_id": made.id}, ThingPatch(size=9))
    assert (changed.id, changed.name, changed.size) == (made.id, "first", 9)
    assert mock.answer("get_thing", Thing, {"thing_id": made.id}, None).size == 9

    gone = mock.answer("delete_thing", Deleted, {"thing_id": made.id}, None)
    assert gone.id == made.id and gone.deleted is True
    for operation in ("get_thing", "update_thing", "delete_thing"):
        with pytest.raises(fastapi.HTTPException) as caught:
            mock.answer(operation, Thing, {"thing_id": made.id}, {"size": 1})
        assert caught.value.status_code == 404
    assert [t.name for t in mock.answer("list_things", ThingList, {}, None).items] == ["second"]


def test_stateful_nested_collections_are_per_parent_with_uuid_ids() -> None:
    mock = engine(stateful=True)
    made = mock.answer("create_child", Thing, {"parent_id": "p1"}, {"name": "kid"})
    assert made.id == "00000000-0000-4000-8000-000000000001"  # a UUID like the literal's
    assert made.parent_id == "p1"  # a field of the answer named like a path parameter
    assert [
        c.name for c in mock.answer("list_children", list[Thing], {"parent_id": "p1"}, None)
    ] == ["kid"]
    assert mock.answer("list_children", list[Thing], {"parent_id": "p2"}, None) == []
    # items of no known shape: the records as they are
    raw = mock.answer("list_children", list[Any], {"parent_id": "p1"}, None)
    assert raw == [{"id": made.id, "name": "kid", "parent_id": "p1"}]
    path = {"parent_id": "p1", "child_id": made.id}
    assert mock.answer("get_child", Thing, path, None).name == "kid"
    with pytest.raises(fastapi.HTTPException):
        mock.answer("get_child", Thing, {**path, "parent_id": "p2"}, None)


def test_list_items_of_another_model_get_the_id_and_the_parents_ids() -> None:
    mock = engine(stateful=True)
    made = mock.answer("create_upload", Upload, {"kb_id": "k1"}, {"name": "u"})
    assert made.upload_id == "uploads-1"
    listed = mock.answer("list_uploads", UploadList, {"kb_id": "k1"}, None)
    assert listed.items == [UploadItem(id="uploads-1", kb_id="k1")]


def test_stateful_integer_ids_and_ids_the_body_gives() -> None:
    mock = engine(stateful=True)
    first = mock.answer("create_numbered", Numbered, {}, {"label": "x"})
    assert first.number == 1
    assert mock.answer("get_numbered", Numbered, {"number": 1}, None).label == "x"
    named = mock.answer("create_numbered", Numbered, {}, {"number": 77, "label": "y"})
    assert named.number == 77
    assert mock.answer("get_numbered", Numbered, {"number": 77}, None).label == "y"
    # a body value that does not validate keeps the literal's
    bad = mock.answer("create_numbered", Numbered, {}, {"label": ["not", "text"]})
    assert bad.label == "a"


def test_records_that_do_not_validate_fall_back_field_by_field() -> None:
    mock = engine(stateful=True)
    made = mock.answer("create_thing", Thing, {}, {"name": "ok", "size": "huge"})
    assert made.size == 0 and made.name == "ok"
    listed = mock.answer("list_things", ThingList, {}, None)
    assert [(t.name, t.size) for t in listed.items] == [("ok", 0)]


def test_operations_without_a_role_or_a_body() -> None:
    mock = engine(stateful=True)
    assert mock.answer("echo_size", Thing, {}, None).id == "a"  # no role: the literal
    assert mock.answer("no_body", Any, {}, None) is None


def test_stream_yields_the_chunks_in_order() -> None:
    async def collect() -> list[Any]:
        return [c async for c in engine().stream("stream_text", Chunk, {}, None)]

    chunks = asyncio.run(collect())
    assert [c.text for c in chunks] == ["one", "two", "three"]
    assert all(isinstance(c, Chunk) for c in chunks)


# --- over HTTP ------------------------------------------------------------------------


def make_app(mock: Any, faults: Mapping[str, Any] | None = None, options: Any = None) -> Any:
    app = fastapi.FastAPI()
    router = fastapi.APIRouter()  # included, as the generated servers do

    @router.post("/things", response_model=Thing)
    async def create_thing(body: ThingCreate) -> Any:
        return mock.answer("create_thing", Thing, {}, body)

    @router.get("/things", response_model=ThingList)
    async def list_things() -> Any:
        return mock.answer("list_things", ThingList, {}, None)

    @router.get("/things/{thing_id}", response_model=Thing)
    async def get_thing(thing_id: str) -> Any:
        return mock.answer("get_thing", Thing, {"thing_id": thing_id}, None)

    @router.patch("/things/{thing_id}", response_model=Thing)
    async def update_thing(thing_id: str, body: ThingPatch) -> Any:
        return mock.answer("update_thing", Thing, {"thing_id": thing_id}, body)

    @router.delete("/things/{thing_id}", response_model=Deleted)
    async def delete_thing(thing_id: str) -> Any:
        return mock.answer("delete_thing", Deleted, {"thing_id": thing_id}, None)

    @router.post("/stream")
    async def stream_text() -> Any:
        async def events() -> AsyncIterator[str]:
            async for chunk in mock.stream("stream_text", Chunk, {}, None):
                yield f"data: {chunk.model_dump_json()}\n\n"

        return fastapi.responses.StreamingResponse(events(), media_type="text/event-stream")

    app.include_router(router)
    install_faults(app, faults or {}, options or MockOptions())
    return app


@contextmanager
def serve(app: Any) -> Iterator[httpx.Client]:
    """``app`` under uvicorn on 127.0.0.1 (in a thread); a client of it."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + HANG_GUARD
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            pytest.fail("uvicorn did not start")
        time.sleep(0.02)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            yield client
    finally:
        server.should_exit = True
        thread.join(10)


def test_stateful_crud_over_http() -> None:
    with serve(make_app(engine(stateful=True))) as client:
        assert client.get("/things/nope").status_code == 404
        made = client.post("/things", json={"name": "n", "size": 2})
        assert made.status_code == 200, made.text
        thing_id = made.json()["id"]
        assert client.get(f"/things/{thing_id}").json()["name"] == "n"
        assert client.patch(f"/things/{thing_id}", json={"size": 5}).json()["size"] == 5
        assert [t["size"] for t in client.get("/things").json()["items"]] == [5]
        assert client.delete(f"/things/{thing_id}").json() == {"id": thing_id, "deleted": True}
        missing = client.get(f"/things/{thing_id}")
        assert missing.status_code == 404 and "detail" in missing.json()
        assert client.get("/things").json()["items"] == []


def test_path_echo_over_http() -> None:
    with serve(make_app(engine())) as client:
        assert client.get("/things/abc").json()["id"] == "abc"


def test_faults_on_routes_of_the_app_itself() -> None:
    app = fastapi.FastAPI()
    mock = engine()

    @app.get("/things/{thing_id}", response_model=Thing)
    async def get_thing(thing_id: str) -> Any:
        return mock.answer("get_thing", Thing, {"thing_id": thing_id}, None)

    install_faults(app, FAULTS, MockOptions(error_rate=1.0))
    with serve(app) as client:
        assert client.get("/things/x").status_code == 429


ERROR_BODY = {"error": "busy", "code": 429}
FAULTS = {
    "get_thing": [Fault(429, ERROR_BODY, True)],
    "create_thing": [Fault(409, {"detail": "conflict"}, False)],
}


def test_faults_at_rate_one() -> None:
    options = MockOptions(error_rate=1.0)
    with serve(make_app(engine(), FAULTS, options)) as client:
        busy = client.get("/things/x")
        assert busy.status_code == 429 and busy.json() == ERROR_BODY
        assert busy.headers["retry-after"] == "1"
        conflict = client.post("/things", json={"name": "n"})
        assert conflict.status_code == 409 and "retry-after" not in conflict.headers
        assert conflict.json() == {"detail": "conflict"}
        # undocumented: a 503 with Retry-After; streams too, before the route runs
        down = client.post("/stream")
        assert down.status_code == 503 and down.headers["retry-after"] == "1"
        # not an operation: never a fault
        assert client.get("/openapi.json").status_code == 200


def test_no_faults_at_rate_zero() -> None:
    with serve(make_app(engine(), FAULTS, MockOptions(error_rate=0.0))) as client:
        for _ in range(5):
            assert client.get("/things/x").status_code == 200
        stream = client.post("/stream")
        assert stream.status_code == 200
        data = [line[6:] for line in stream.text.splitlines() if line.startswith("data: ")]
        assert [json.loads(d)["text"] for d in data] == ["one", "two", "three"]


def _statuses(seed: int, count: int = 30) -> list[int]:
    faults = {"get_thing": [Fault(500, {}), Fault(503, {}, True), Fault(429, {}, True)]}
    options = MockOptions(seed=seed, error_rate=0.5)
    with serve(make_app(engine(), faults, options)) as client:
        return [client.get(f"/things/{i}").status_code for i in range(count)]


def test_fault_sequence_is_deterministic_per_seed() -> None:
    first, again, other = _statuses(7), _statuses(7), _statuses(8)
    assert first == again
    assert first != other
    assert {200, 500, 503, 429} <= set(first) | set(other)
    assert 5 < first.count(200) < 25


def test_latency_delays_operations(monkeypatch: pytest.MonkeyPatch) -> None:
    """An operation waits ``latency_ms``; the app's own routes do not. What waited is
    seen through ``asyncio.sleep`` (no upper bound on the wall clock: a loaded machine is
    slow, never wrong)."""
    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def sleep(delay: float, *args: Any, **kwargs: Any) -> Any:
        waits.append(delay)
        return await real_sleep(delay, *args, **kwargs)

    monkeypatch.setattr(asyncio, "sleep", sleep)
    with serve(make_app(engine(), {}, MockOptions(latency_ms=200))) as client:
        start = time.perf_counter()
        assert client.get("/things/x").status_code == 200
        assert time.perf_counter() - start >= 0.2
        assert waits.count(0.2) == 1
        assert client.get("/openapi.json").status_code == 200
        assert waits.count(0.2) == 1  # not delayed


def test_the_engine_passes_strict_checks() -> None:
    """The engine's own bar (it ships verbatim): short, ruff-clean at the packages'
    line length, mypy --strict (checked by the lint job; the length here)."""
    assert len(ENGINE_FILE.read_text(encoding="utf-8").splitlines()) < 300
