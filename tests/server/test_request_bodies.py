"""Server stubs validate every JSON request body with its model, inline bodies included:
schemathesis had found the mock accepting ``{"setting": -4438173}`` where the schema says
boolean. Over real HTTP to the generated mock."""

from __future__ import annotations

import sys
from typing import Any

import httpx
import pytest

from tests.conftest import describe, run_cli, write_json
from tests.server.conftest import running

SETTINGS = {
    "type": "object",
    "properties": {"setting": {"type": "boolean"}},
    "required": ["setting"],
}


def _put(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}},
        "responses": {"204": {"description": "ok"}},
    }


SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Bodies", "version": "1"},
    "paths": {
        "/inline": {"put": {"operationId": "putInline", **_put(SETTINGS)}},
        "/named": {
            "put": {"operationId": "putNamed", **_put({"$ref": "#/components/schemas/Settings"})}
        },
        "/nested": {
            "put": {
                "operationId": "putNested",
                **_put(
                    {"type": "object", "properties": {"inner": SETTINGS}, "required": ["inner"]}
                ),
            }
        },
        "/many": {"put": {"operationId": "putMany", **_put({"type": "array", "items": SETTINGS})}},
        "/flags": {
            "put": {
                "operationId": "putFlags",
                **_put({"type": "object", "additionalProperties": {"type": "boolean"}}),
            }
        },
    },
    "components": {"schemas": {"Settings": SETTINGS}},
}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("bodies")
    spec = write_json(root / "spec.json", SPEC)
    proc = run_cli("generate", "--spec", spec, "--out", root / "pkg", cwd=root)
    assert proc.returncode == 0, describe(proc)
    with running([sys.executable, "-m", "pkg.server"], cwd=root, log=root / "log") as base:
        yield base


@pytest.mark.parametrize(
    ("path", "bad", "good", "loc"),
    [
        ("/named", {"setting": -4438173}, {"setting": True}, ["body", "setting"]),
        ("/inline", {"setting": -4438173}, {"setting": False}, ["body", "setting"]),
        (
            "/nested",
            {"inner": {"setting": -4438173}},
            {"inner": {"setting": True}},
            ["body", "inner", "setting"],
        ),
        ("/many", [{"setting": -4438173}], [{"setting": True}], ["body", 0, "setting"]),
        ("/flags", {"a": -4438173}, {"a": True}, ["body", "a"]),
    ],
)
def test_a_body_against_its_schema_is_a_422(
    url: str, path: str, bad: Any, good: Any, loc: list[Any]
) -> None:
    refused = httpx.put(f"{url}{path}", json=bad, timeout=30)
    assert refused.status_code == 422, refused.text
    assert [e["loc"] for e in refused.json()["detail"]] == [loc]
    assert httpx.put(f"{url}{path}", json=good, timeout=30).status_code == 204


def test_a_missing_required_field_is_a_422(url: str) -> None:
    for path in ("/named", "/inline"):
        refused = httpx.put(f"{url}{path}", json={}, timeout=30)
        assert refused.status_code == 422, (path, refused.text)
