"""What ``bench/corpus.py --deep`` and ``bench/corpus_schemathesis.py`` found on real
public specs, each as a minimal spec, generated and served over real HTTP:

- an alias written ``allOf: [{$ref: ResourceId}, {type: string}]`` (the ATO's ids) was
  read as ``Any`` by the IR, so the mock answered ``{}`` where ``models.py`` wants a
  string, and the operation gave 501;
- an operation whose only answers are a 302 and errors (Halo's emblem images) was
  answered 200 by the mock;
- a path parameter typed as an array (TfL's ``/Line/{ids}``) stopped the server's app
  from building (FastAPI takes scalars in a path): the route takes the segment as text;
- a ``format: uuid`` path parameter with ``minLength`` (Telstra's messages) made every
  call fail: the route read a UUID and pydantic cannot apply a length to one;
- a schema typed ``array`` that also has ``properties`` (The SMS Works, FormAPI, Telnyx)
  is a union in ``models.py``, not a renamed class: generation goes on;
- a parameter declared with ``content: {application/json: ...}`` is JSON text
  (stream-io: ``"apn"`` in a path): the server takes it so, and as plain text;
- an operation that documents no 2xx or 3xx answer (stream-io's WebSocket ``/connect``:
  400 and 429 only) is answered with the first 4xx it documents, not 200; one that
  documents only a 500 (Magento's quote saving) with 200, never a 5xx.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import describe, run_cli, write_json
from tests.server.conftest import running

SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Findings", "version": "1"},
    "paths": {
        "/addresses": {
            "get": {
                "operationId": "listAddresses",
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "array",
                                    "items": {"$ref": "#/components/schemas/Address"},
                                }
                            }
                        },
                    }
                },
            }
        },
        "/lines/{ids}": {
            "get": {
                "operationId": "getLines",
                "parameters": [
                    {
                        "name": "ids",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "array", "items": {"type": "string"}},
                    }
                ],
                "responses": {"200": {"description": "ok"}},
            }
        },
        "/messages/{message_id}": {
            "get": {
                "operationId": "getMessage",
                "parameters": [
                    {
                        "name": "message_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "format": "uuid", "minLength": 36},
                    }
                ],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/MessageMetadata"}
                            }
                        },
                    }
                },
            }
        },
        "/providers/{kind}": {
            "delete": {
                "operationId": "deleteProvider",
                "parameters": [
                    {
                        "name": "kind",
                        "in": "path",
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {"type": "string", "enum": ["apn", "fcm"]}
                            }
                        },
                    }
                ],
                "responses": {"200": {"description": "ok"}},
            }
        },
        "/connect": {
            "get": {
                "operationId": "connect",
                "responses": {
                    "400": {"description": "not a WebSocket"},
                    "429": {"description": "slow"},
                },
            }
        },
        "/quotes": {
            "post": {
                "operationId": "saveQuote",
                "responses": {"500": {"description": "failed"}},
            }
        },
        "/emblem": {
            "get": {
                "operationId": "getEmblem",
                "responses": {
                    "302": {"description": "the image is elsewhere"},
                    "404": {"description": "no such player"},
                },
            }
        },
    },
    "components": {
        "schemas": {
            "ResourceId": {"type": "string", "maxLength": 36, "example": "a1"},
            "MessageMetadata": {
                "type": "array",
                "items": {"type": "object"},
                "properties": {"schema": {"type": "string"}},
            },
            "AddressId": {
                "allOf": [{"$ref": "#/components/schemas/ResourceId"}, {"type": "string"}]
            },
            "Address": {
                "type": "object",
                "required": ["id"],
                "properties": {"id": {"$ref": "#/components/schemas/AddressId"}},
            },
        }
    },
}


def test_the_mock_keeps_its_promises_on_these(tmp_path: Path) -> None:
    spec = write_json(tmp_path / "spec.json", SPEC)
    proc = run_cli("generate", "--spec", spec, "--out", tmp_path / "pkg", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    with running([sys.executable, "-m", "pkg.server"], cwd=tmp_path, log=tmp_path / "log") as url:
        addresses = httpx.get(f"{url}/addresses", timeout=30)
        assert addresses.status_code == 200, addresses.text
        assert all(isinstance(a["id"], str) for a in addresses.json()), addresses.text
        emblem = httpx.get(f"{url}/emblem", timeout=30, follow_redirects=False)
        assert emblem.status_code == 302, emblem.text
        lines = httpx.get(f"{url}/lines/a,b", timeout=30)
        assert lines.status_code == 200, lines.text
        message = httpx.get(f"{url}/messages/5ee8d23e-2a2f-4e2e-a480-72d6153d4fd7", timeout=30)
        assert message.status_code == 200, message.text
        assert httpx.get(f"{url}/messages/not-a-uuid", timeout=30).status_code == 422
        for kind in ('"apn"', "apn"):
            deleted = httpx.delete(f"{url}/providers/{kind}", timeout=30)
            assert deleted.status_code == 200, deleted.text
        assert httpx.delete(f"{url}/providers/other", timeout=30).status_code == 422
        assert httpx.get(f"{url}/connect", timeout=30).status_code == 400
        assert httpx.post(f"{url}/quotes", timeout=30).status_code == 200  # never a 5xx
