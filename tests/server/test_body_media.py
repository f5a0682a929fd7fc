"""Request bodies declared in several media types (Velo Payments: JSON and multipart;
Noosh: JSON, XML and Smile) and forms with empty fields (skynewz's OAuth token endpoint:
``email=&password=``), found by schemathesis against the generated mocks. Over real HTTP to
the package's own mock (uvicorn on 127.0.0.1): the server takes each declared media type
and validates a form with the body's model; the generated client sends an urlencoded body
as a form and a multipart body without files as multipart."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest

from tests.client.support import Server
from tests.conftest import REPO_ROOT, describe, import_package, run_cli

SPEC = REPO_ROOT / "tests" / "golden" / "body-media-types" / "spec.json"
PACKAGE = "h4_body_media"
PAYEE = {"email": "e@x", "count": 3, "address": {"city": "Key West"}}


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    out = tmp_path_factory.mktemp("media") / PACKAGE
    proc = run_cli("generate", "--spec", SPEC, "--out", out, cwd=out.parent)
    assert proc.returncode == 0, describe(proc)
    return import_package(out, PACKAGE)


@pytest.fixture(scope="module")
def seen(pkg: ModuleType) -> Iterator[tuple[str, list[tuple[str, bytes]]]]:
    """The mock's URL, and each request body it received (content type, bytes)."""
    app = importlib.import_module(f"{PACKAGE}.mock").create_mock_app()
    received: list[tuple[str, bytes]] = []

    @app.middleware("http")
    async def record(request: Any, call_next: Any) -> Any:
        received.append((request.headers.get("content-type", ""), await request.body()))
        return await call_next(request)

    server = Server(app)
    yield server.url, received
    server.stop()


@pytest.mark.parametrize(
    "send",
    [
        {"json": PAYEE},
        {"data": {"email": "e@x", "count": "3", "address": json.dumps(PAYEE["address"])}},
        {"files": {"email": (None, "e@x"), "address": (None, '{"city": "X"}')}},
        {"content": b"<Payee><email>e@x</email></Payee>", "headers": {"content-type": "text/xml"}},
    ],
    ids=["json", "urlencoded", "multipart", "xml"],
)
def test_every_declared_media_type_is_taken(seen: Any, send: dict[str, Any]) -> None:
    url, _ = seen
    answer = httpx.post(f"{url}/payees", **send)
    assert answer.status_code == 201, answer.text


@pytest.mark.parametrize(
    "send",
    [{"json": {"count": 3}}, {"data": {"count": "3"}}, {"json": "text"}],
    ids=["json", "form", "a-json-string-is-no-xml-body"],
)
def test_a_body_against_the_model_is_refused(seen: Any, send: dict[str, Any]) -> None:
    url, _ = seen
    answer = httpx.post(f"{url}/payees", **send)
    assert answer.status_code == 422, answer.text


def test_the_app_documents_every_media_type(pkg: ModuleType) -> None:
    app = importlib.import_module(f"{PACKAGE}.mock").create_mock_app()
    doc = app.openapi()
    content = doc["paths"]["/payees"]["post"]["requestBody"]["content"]
    assert sorted(content) == [
        "application/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "text/xml",
    ]
    form = doc["paths"]["/oauth/token"]["post"]["requestBody"]["content"]
    ref = form["application/x-www-form-urlencoded"]["schema"]["$ref"]
    assert ref.rsplit("/", 1)[-1] in doc["components"]["schemas"]  # no dangling $ref


def test_empty_form_fields_are_empty_strings_not_missing(seen: Any) -> None:
    url, _ = seen
    answer = httpx.post(f"{url}/oauth/token", data={"email": "", "password": ""})
    assert answer.status_code == 200, answer.text
    missing = httpx.post(f"{url}/oauth/token", data={"email": ""})
    assert missing.status_code == 422
    assert missing.json()["detail"][0]["loc"] == ["body", "password"]


def test_the_client_sends_a_form_as_a_form(pkg: ModuleType, seen: Any) -> None:
    url, received = seen
    client = pkg.H4BodyMediaClient(base_url=url)
    token = client.oauth.token.create(email="", password="p", scopes=["a", "b"], remember=True)
    assert token.token
    kind, body = received[-1]
    assert kind == "application/x-www-form-urlencoded"
    assert body == b"email=&password=p&scopes=a&scopes=b&remember=true"


def test_a_multipart_body_without_files_is_sent_as_multipart(pkg: ModuleType) -> None:
    """The runtime's encoding (``_encoding.multipart``): fields as parts of their own."""
    encoding = importlib.import_module(f"{PACKAGE}._encoding")
    data, parts = encoding.multipart({"a": "1", "b": [1, 2], "c": True}, None, [])
    assert data == {}
    assert parts == [
        ("a", (None, "1")),
        ("b", (None, "1")),
        ("b", (None, "2")),
        ("c", (None, "true")),
    ]
    request = httpx.Request("POST", "http://x", data=data, files=parts)
    assert request.headers["content-type"].startswith("multipart/form-data; boundary=")


def test_a_form_of_other_fields_is_taken_by_its_own_schema(seen: Any) -> None:
    """Velo Payments: ``{payments: [...]}`` as JSON, ``{file, payorId}`` as multipart (a
    list field's one part holds the list's JSON text)."""
    url, _ = seen
    assert httpx.post(f"{url}/payouts", json={"payments": [{"amount": 1}]}).status_code == 202
    parts = {"file": (None, '[{"amount": 1}]', "application/json"), "payorId": (None, "p1")}
    answer = httpx.post(f"{url}/payouts", files=parts)
    assert answer.status_code == 202, answer.text
    assert httpx.post(f"{url}/payouts", files={"payorId": (None, "p1")}).status_code == 422
