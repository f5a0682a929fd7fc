"""The mock keeps its promise (issue 23): it never answers 500, and never against the
schema. Outside in: the golden spec ``tests/golden/mock-promises/spec.json`` is generated
through the CLI into a temporary folder, its mock app is served by uvicorn on 127.0.0.1,
and the generated client (or httpx) calls it over real HTTP.

- an example that violates its schema is replaced by synthesized data, with one warning
  naming its pointer at generation;
- the required fields of a named and of an inline response schema are answered;
- the stateful 404 of an unknown id is the operation's declared 404 body;
- ``writeOnly`` fields (a password) are never answered, ``readOnly`` ones (the id) never
  required in a request;
- XML and text request bodies are taken as their declared media type;
- a client error the framework raises (a multipart body it cannot parse: 400) answers the
  operation's declared body for that status, and FastAPI's own (a 405 with its ``Allow``)
  where none is declared;
- cursor, page-number, offset and ``Link`` paging end: the client's auto-pagination loop
  ends with the expected items, over the table's pages and over the stateful records.
"""

from __future__ import annotations

import importlib
import itertools
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import httpx
import pytest
import uvicorn

from tests.conftest import REPO_ROOT, cli_env
from tests.server.conftest import free_port

SPEC = REPO_ROOT / "tests" / "golden" / "mock-promises" / "spec.json"
PACKAGE = "mock_promises_outside_in"
BOUND = 1000  # items a walk of the pages may take before the test calls it endless


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, str]:
    """The package generated from the spec through the CLI (imported), and the CLI's
    stderr."""
    out = tmp_path_factory.mktemp("promises")
    done = subprocess.run(
        [sys.executable, "-m", "generator", "generate", "--spec", SPEC, "--out", out / PACKAGE],
        cwd=REPO_ROOT,
        env=cli_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    sys.path.insert(0, str(out))
    try:
        return importlib.import_module(PACKAGE), done.stderr
    finally:
        sys.path.remove(str(out))


def _module(generated: tuple[ModuleType, str], name: str) -> ModuleType:
    return importlib.import_module(f"{generated[0].__name__}.{name}")


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """``app`` under uvicorn on 127.0.0.1 (in a thread, until it has started or died):
    its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.01)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join()


@contextmanager
def mock_server(generated: tuple[ModuleType, str], *, stateful: bool) -> Iterator[str]:
    mock = _module(generated, "mock")
    with serve(mock.create_mock_app(mock.MockOptions(stateful=stateful))) as url:
        yield url


def client_of(generated: tuple[ModuleType, str], url: str, *, sync: bool = True) -> Any:
    """The generated client (sync or async) of the mock at ``url``; its class is named
    after the package."""
    package = generated[0]
    names = [n for n in package.__all__ if n.endswith("Client")]
    name = next(n for n in names if n.startswith("Async") != sync)
    return getattr(package, name)(base_url=url, max_retries=0)


def walk(pages: Any) -> list[Any]:
    """Every item of an auto-paginating page, failing (not hanging) on endless pages."""
    items = list(itertools.islice(iter(pages), BOUND))
    assert len(items) < BOUND, "the pages do not end"
    return items


def table_items(generated: tuple[ModuleType, str], operation: str, field: str | None) -> list[Any]:
    answer = _module(generated, "mock").MOCK_RESPONSES[operation]
    items = answer if field is None else answer[field]
    assert items, f"{operation}: the table has no items"
    return list(items)


# --- examples that violate their schema ---------------------------------------------------


def test_a_wrong_example_is_reported_once_with_its_pointer(
    generated: tuple[ModuleType, str],
) -> None:
    lines = [line for line in generated[1].splitlines() if "example" in line]
    pointers = sorted(line.rsplit("(at ", 1)[-1].rstrip(")") for line in lines)
    assert pointers == [
        "#/paths/~1messages/post/responses/200",
        "#/paths/~1orgs~1{org}~1repos/post/responses/201",
    ], generated[1]
    assert all("[server] warning" in line for line in lines)


def test_a_wrong_example_is_replaced_by_valid_data(generated: tuple[ModuleType, str]) -> None:
    models = _module(generated, "models")
    with mock_server(generated, stateful=False) as url, httpx.Client(base_url=url) as http:
        made = http.post("/orgs/acme/repos", json={"name": "r"})
        assert made.status_code == 201, made.text
        assert isinstance(models.Repo.model_validate(made.json()).id, int)
        sent = http.post("/messages", json={"name": "m"})
        assert sent.status_code == 200, sent.text
        assert isinstance(models.Repo.model_validate(sent.json()).name, str)


# --- required fields ----------------------------------------------------------------------


def test_a_named_schema_gets_its_required_fields(generated: tuple[ModuleType, str]) -> None:
    with mock_server(generated, stateful=False) as url:
        answer = httpx.get(f"{url}/status")
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] in ("ok", "degraded")
    assert "checked_at" in answer.json()


def test_an_inline_schema_gets_its_required_fields(generated: tuple[ModuleType, str]) -> None:
    with mock_server(generated, stateful=False) as url:
        answer = httpx.get(f"{url}/health")
    assert answer.status_code == 200, answer.text
    assert answer.json().get("status") in ("ok", "degraded"), answer.text


# --- stateful 404 ---------------------------------------------------------------------------


def test_an_unknown_id_answers_the_declared_404(generated: tuple[ModuleType, str]) -> None:
    models = _module(generated, "models")
    with mock_server(generated, stateful=True) as url:
        missing = httpx.get(f"{url}/users/nobody")
    assert missing.status_code == 404
    problem = models.Problem.model_validate(missing.json())
    assert set(missing.json()) == {"code", "message"} and isinstance(problem.code, int)


# --- readOnly and writeOnly ------------------------------------------------------------------


@pytest.mark.parametrize("stateful", [False, True])
def test_write_only_is_never_answered_and_read_only_never_required(
    generated: tuple[ModuleType, str], stateful: bool
) -> None:
    with mock_server(generated, stateful=stateful) as url, httpx.Client(base_url=url) as http:
        made = http.post("/users", json={"name": "ada", "password": "s3cret"})  # no id
        assert made.status_code == 201, made.text
        user = made.json()
        assert "password" not in user and isinstance(user["id"], str)
        read = http.get(f"/users/{user['id']}")
        assert read.status_code == 200, read.text
        listed = http.get("/users")
        assert listed.status_code == 200, listed.text
    assert "password" not in read.json() and read.json()["id"] == user["id"]
    assert listed.json() and all("password" not in u for u in listed.json())
    if stateful:
        assert read.json()["name"] == "ada"
        assert [u["name"] for u in listed.json()] == ["ada"]


def test_the_models_do_not_require_one_way_fields(generated: tuple[ModuleType, str]) -> None:
    fields = _module(generated, "models").User.model_fields
    assert fields["name"].is_required()
    assert not fields["id"].is_required() and not fields["password"].is_required()


# --- bodies that are not JSON ------------------------------------------------------------


def test_xml_and_text_bodies_are_taken_as_declared(generated: tuple[ModuleType, str]) -> None:
    models = _module(generated, "models")
    xml = b"<?xml version='1.0'?><Note><text>hi</text></Note>"
    with mock_server(generated, stateful=False) as url, httpx.Client(base_url=url) as http:
        note = http.post("/notes", content=xml, headers={"content-type": "application/xml"})
        echo = http.post("/echo", content="hello", headers={"content-type": "text/plain"})
    assert note.status_code == 200, note.text
    assert echo.status_code == 200, echo.text
    models.Note.model_validate(note.json())
    models.Note.model_validate(echo.json())


def test_a_body_the_server_cannot_read_answers_the_declared_400(
    generated: tuple[ModuleType, str],
) -> None:
    models = _module(generated, "models")
    broken = {"content-type": "multipart/form-data; boundary=x"}
    with mock_server(generated, stateful=False) as url, httpx.Client(base_url=url) as http:
        upload = http.post("/attachments", content=b"--x\r\nnot a part", headers=broken)
        made = http.post("/attachments", files={"file": ("a.txt", b"hi")}, data={"caption": "c"})
        undeclared = http.delete("/attachments")  # a 405 it does not declare
    assert upload.status_code == 400, upload.text
    problem = models.Problem.model_validate(upload.json())
    assert set(upload.json()) == {"code", "message"} and isinstance(problem.code, int)
    assert made.status_code == 201 and isinstance(made.json()["name"], str), made.text
    assert undeclared.status_code == 405 and "detail" in undeclared.json(), undeclared.text
    assert undeclared.headers["allow"] == "POST"


# --- pages that end ------------------------------------------------------------------------


def test_the_client_walks_the_tables_pages_to_their_end(
    generated: tuple[ModuleType, str],
) -> None:
    pages = _module(generated, "_mock_pages").STATELESS_PAGES
    tasks = table_items(generated, "tasks_list", "data")
    projects = table_items(generated, "projects_list", "items")
    links = table_items(generated, "links_list", None)
    with mock_server(generated, stateful=False) as url:
        client = client_of(generated, url)
        assert [t.id for t in walk(client.tasks.list())] == [t["id"] for t in tasks] * pages
        assert len(walk(client.tasks.list(limit=1))) == len(tasks) * pages
        assert [p.id for p in walk(client.projects.list())] == [p["id"] for p in projects] * pages
        assert [t.id for t in walk(client.links.list())] == [t["id"] for t in links]


def test_offset_pages_end(generated: tuple[ModuleType, str]) -> None:
    """Offset paging (no client helper walks it): ``has_more`` turns false, ``total``
    counts the items, and past the end a page is empty."""
    pages = _module(generated, "_mock_pages").STATELESS_PAGES
    events = table_items(generated, "events_list", "items")
    seen: list[Any] = []
    with mock_server(generated, stateful=False) as url, httpx.Client(base_url=url) as http:
        for offset in range(0, BOUND, 2):
            page = http.get("/events", params={"offset": offset, "limit": 2}).json()
            seen += page["items"]
            assert page["total"] == len(events) * pages
            if not page["has_more"]:
                break
        past = http.get("/events", params={"offset": len(seen)}).json()
    assert [e["id"] for e in seen] == [e["id"] for e in events] * pages
    assert past["items"] == [] and past["has_more"] is False


def test_stateful_pages_go_over_the_records(generated: tuple[ModuleType, str]) -> None:
    with mock_server(generated, stateful=True) as url, httpx.Client(base_url=url) as http:
        client = client_of(generated, url)
        assert walk(client.tasks.list()) == []
        tasks = [http.post("/tasks", json={"title": f"t{i}"}).json()["id"] for i in range(23)]
        projects = [http.post("/projects", json={"title": f"p{i}"}).json()["id"] for i in range(7)]
        assert [t.id for t in walk(client.tasks.list(limit=5))] == tasks
        assert [t.id for t in walk(client.tasks.list())] == tasks  # 10 a page
        assert [t.title for t in walk(client.tasks.list(limit=100))] == [f"t{i}" for i in range(23)]
        assert [p.id for p in walk(client.projects.list(limit=3))] == projects
        assert len(list(client.projects.list(limit=3).iter_pages())) == 3
        assert len(list(client.tasks.list(limit=5).iter_pages())) == 5


def test_async_pages_end(generated: tuple[ModuleType, str]) -> None:
    import asyncio

    tasks = table_items(generated, "tasks_list", "data")
    pages = _module(generated, "_mock_pages").STATELESS_PAGES

    async def walk_async(url: str) -> list[Any]:
        client = client_of(generated, url, sync=False)
        found: list[Any] = []
        async for task in await client.tasks.list():
            found.append(task)
            assert len(found) < BOUND, "the pages do not end"
        return found

    with mock_server(generated, stateful=False) as url:
        assert len(asyncio.run(walk_async(url))) == len(tasks) * pages
