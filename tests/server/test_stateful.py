"""``apismith serve --stateful`` (issue 12): one SGP and one LLM Engine resource through a
whole life over real HTTP: create, get, list, update, delete, then get answers 404.

The request bodies are minimal valid instances of the request schemas (the mock's own
synthesizer, in required-only mode), so the test follows the spec, not hand-written JSON.
Also: without ``--stateful`` a GET echoes the path's id; ``--error-rate 1`` answers the
documented error with ``Retry-After``; ``--seed`` changes the data, not their validity.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest

from generator.ir import Api, build_ir
from generator.render.examples import Synthesizer
from tests.conftest import GENERATED, REPO_ROOT
from tests.server.conftest import AUTH_HEADERS, running
from tests.server.test_official_sdks import apismith_command


@cache
def ir(package: str) -> Api:
    spec = json.loads((GENERATED / package / "openapi.json").read_text(encoding="utf-8"))
    return build_ir(spec)


def body_of(package: str, method: str, path: str, **fields: Any) -> Any:
    """A minimal valid request body of ``method path``, with ``fields`` set."""
    api = ir(package)
    op = next(o for o in api.operations if o.method == method and o.path == path)
    assert op.request_body is not None
    body = Synthesizer(api).value(op.request_body.schema)
    return {**body, **fields}


# api, package, collection path, item path (the spec's), id field, update (method, fields)
RESOURCES = [
    (
        "sgp",
        "sgp",
        "/v4/evaluations",
        "/v4/evaluations/{evaluation_id}",
        "id",
        ("patch", {"name": "renamed"}),
    ),
    (
        "llm-engine",
        "llm_engine",
        "/v1/triggers",
        "/v1/triggers/{trigger_id}",
        "trigger_id",
        ("put", {"cron_schedule": "0 1 * * *"}),
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("api", "package", "collection", "item", "id_field", "update"), RESOURCES)
def test_round_trip(
    api: str,
    package: str,
    collection: str,
    item: str,
    id_field: str,
    update: tuple[str, dict[str, Any]],
    tmp_path: Path,
) -> None:
    command = [*apismith_command(), "serve", api, "--stateful"]
    headers = AUTH_HEADERS[package]
    with running(command, cwd=REPO_ROOT, log=tmp_path / "server.log") as url:
        with httpx.Client(base_url=url, headers=headers, timeout=10) as http:
            before = http.get(collection)
            assert before.status_code == 200, before.text
            body = body_of(package, "post", collection)
            created = http.post(collection, json=body)
            assert created.status_code in (200, 201), created.text
            new_id = created.json()[id_field]
            at = re.sub(r"\{[^}]+\}", str(new_id), item)

            got = http.get(at)
            assert got.status_code == 200, got.text
            listed = http.get(collection)
            assert listed.status_code == 200, listed.text
            assert str(new_id) in listed.text

            method, fields = update
            sent = body_of(package, method, item, **fields)
            updated = http.request(method.upper(), at, json=sent)
            assert updated.status_code == 200, updated.text
            again = http.get(at)
            for key, value in fields.items():
                if key in again.json():
                    assert again.json()[key] == value, again.text

            deleted = http.delete(at)
            assert deleted.status_code in (200, 204), deleted.text
            gone = http.get(at)
            assert gone.status_code == 404, gone.text
            assert str(new_id) not in http.get(collection).text


@pytest.mark.slow
def test_echo_faults_and_seed(tmp_path: Path) -> None:
    headers = AUTH_HEADERS["sgp"]
    plain = [*apismith_command(), "serve", "sgp"]
    with running(plain, cwd=REPO_ROOT, log=tmp_path / "plain.log") as url:
        got = httpx.get(f"{url}/v4/evaluations/e-42", headers=headers, timeout=10)
        assert got.status_code == 200 and got.json()["id"] == "e-42", got.text
        listed = httpx.get(f"{url}/v4/evaluations", headers=headers, timeout=10).json()
    faulty = [*apismith_command(), "serve", "sgp", "--error-rate", "1"]
    with running(faulty, cwd=REPO_ROOT, log=tmp_path / "faulty.log") as url:
        failed = httpx.get(f"{url}/v4/evaluations", headers=headers, timeout=10)
        assert failed.status_code >= 500, failed.text
        assert failed.headers.get("retry-after"), failed.headers
    seeded = [*apismith_command(), "serve", "sgp", "--seed", "5"]
    with running(seeded, cwd=REPO_ROOT, log=tmp_path / "seeded.log") as url:
        other = httpx.get(f"{url}/v4/evaluations", headers=headers, timeout=10)
        assert other.status_code == 200, other.text
        assert other.json() != listed and other.json()["items"]


@pytest.mark.slow
def test_serve_an_ad_hoc_spec(tmp_path: Path) -> None:
    """``apismith serve --spec FILE`` generates into a temporary folder and serves it;
    ``--required-only`` answers the required fields only."""
    from tests.conftest import small_spec, write_json

    spec = small_spec()
    spec["paths"] = {
        "/pets/{pet_id}": {
            "get": {
                "operationId": "getPet",
                "parameters": [
                    {"name": "pet_id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
                        },
                    }
                },
            }
        }
    }
    spec_file = write_json(tmp_path / "pets.json", spec)
    full = [*apismith_command(), "serve", "--spec", str(spec_file)]
    with running(full, cwd=tmp_path, log=tmp_path / "full.log") as url:
        pet = httpx.get(f"{url}/pets/p1", timeout=10).json()
    assert set(pet) == {"name", "kind", "age", "born"} and pet["kind"] in ("cat", "dog")
    minimal = [*full, "--required-only"]
    with running(minimal, cwd=tmp_path, log=tmp_path / "minimal.log") as url:
        assert set(httpx.get(f"{url}/pets/p1", timeout=10).json()) == {"name"}
