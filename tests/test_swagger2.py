"""Swagger 2.0 read as OpenAPI 3.0 (``generator/load/swagger2.py``, issue 24).

- each rule of the load pass, on minimal documents (a pure function: its input untouched);
- wrong input: exit 2 and one line with the pointer in the 2.0 document;
- outside in, against swagger2openapi as the oracle (``bench/swagger2_oracle.py``): the
  raw 2.0 examples of ``@readme/oas-examples`` and the golden case generate the same
  package as their swagger2openapi conversion;
- the golden case's generated client calls its own mock over real HTTP (uvicorn): a list
  with every collection format, a JSON body, a path parameter, a file upload and a form.
"""

from __future__ import annotations

import copy
import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from generator.errors import ApismithError
from generator.load.swagger2 import upgrade_swagger2
from tests.conftest import REPO_ROOT, cli_env, describe, run_cli, write_json

ORACLES = REPO_ROOT / "tests" / "oracles"
EXAMPLES = ORACLES / "node_modules" / "@readme" / "oas-examples" / "2.0" / "json"
GOLDEN = REPO_ROOT / "tests" / "golden" / "swagger2" / "spec.yaml"


def doc(**parts: Any) -> dict[str, Any]:
    return {"swagger": "2.0", "info": {"title": "T", "version": "1"}, "paths": {}, **parts}


def op(*params: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"parameters": list(params), "responses": {"204": {"description": "ok"}}, **extra}


def upgrade(document: dict[str, Any]) -> dict[str, Any]:
    before = copy.deepcopy(document)
    out, _warnings = upgrade_swagger2(document, "spec.json")
    assert document == before  # pure
    return out


# --- the rules ----------------------------------------------------------------------------


def test_the_document_moves_to_components_and_servers() -> None:
    out = upgrade(
        doc(
            host="api.example.com",
            basePath="/v1/",
            schemes=["https", "http"],
            definitions={
                "Pet": {"type": "object", "properties": {"default": {"$ref": "#/definitions/Tag"}}}
            },
            responses={"Gone": {"description": "gone", "schema": {"$ref": "#/definitions/Pet"}}},
            parameters={"limit": {"name": "limit", "in": "query", "type": "integer"}},
        )
    )
    assert out["openapi"] == "3.0.3" and "swagger" not in out
    assert out["servers"] == [
        {"url": "https://api.example.com/v1"},
        {"url": "http://api.example.com/v1"},
    ]
    schemas = out["components"]["schemas"]
    assert schemas["Pet"]["properties"]["default"] == {"$ref": "#/components/schemas/Tag"}
    gone = out["components"]["responses"]["Gone"]
    assert gone["content"] == {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}
    limit = out["components"]["parameters"]["limit"]
    assert limit == {"name": "limit", "in": "query", "schema": {"type": "integer"}}


@pytest.mark.parametrize(
    ("parts", "servers"),
    [
        ({}, None),
        ({"basePath": "/api"}, [{"url": "/api"}]),
        ({"host": "h.example"}, [{"url": "https://h.example"}]),  # not "//h.example"
    ],
)
def test_servers_without_a_host_or_schemes(parts: dict[str, Any], servers: Any) -> None:
    assert upgrade(doc(**parts)).get("servers") == servers


def test_an_operations_own_schemes_are_its_own_servers() -> None:
    watch = {"schemes": ["wss"], "responses": {"200": {"description": "ok"}}}
    plain = {"schemes": ["https"], "responses": {"200": {"description": "ok"}}}
    listed = doc(host="k.example", schemes=["https"], paths={"/w": {"get": watch, "put": plain}})
    out = upgrade(listed)["paths"]["/w"]
    assert out["get"]["servers"] == [{"url": "wss://k.example"}]
    assert "servers" not in out["put"]  # the document's
    own = {"x-servers": [{"url": "https://other.example"}], "responses": {}}
    assert upgrade(doc(paths={"/o": {"get": own}}))["paths"]["/o"]["get"]["servers"] == [
        {"url": "https://other.example"}
    ]


def test_an_azure_parameterized_host_is_a_server_with_variables() -> None:
    templated = {
        "hostTemplate": "{account}.{suffix}",
        "parameters": [
            {"$ref": "#/parameters/account"},
            {"name": "suffix", "in": "path", "type": "string", "enum": ["blob.core.windows.net"]},
        ],
    }
    account = {"name": "account", "in": "path", "required": True, "type": "string"}
    out = upgrade(doc(**{"x-ms-parameterized-host": templated, "parameters": {"account": account}}))
    assert out["servers"] == [
        {
            "url": "https://{account}.{suffix}",
            "variables": {
                "account": {"default": "none"},
                "suffix": {"default": "blob.core.windows.net", "enum": ["blob.core.windows.net"]},
            },
        }
    ]
    assert "x-ms-parameterized-host" not in out


def test_a_body_parameter_is_the_request_body_in_each_consumed_media_type() -> None:
    body = {
        "name": "pet",
        "in": "body",
        "required": True,
        "description": "the pet",
        "schema": {"$ref": "#/definitions/Pet"},
    }
    out = upgrade(doc(consumes=["application/json", "text/xml"], paths={"/p": {"post": op(body)}}))
    post = out["paths"]["/p"]["post"]
    assert "parameters" not in post
    schema = {"schema": {"$ref": "#/components/schemas/Pet"}}
    assert post["requestBody"] == {
        "description": "the pet",
        "content": {"application/json": schema, "text/xml": schema},
        "required": True,
    }


def test_a_global_body_parameter_is_put_in_place_and_a_path_level_one_shared() -> None:
    body = {"name": "b", "in": "body", "schema": {"type": "string"}}
    item = {"parameters": [{"$ref": "#/parameters/b"}], "put": op(), "post": op()}
    out = upgrade(doc(parameters={"b": body}, paths={"/p": item}))
    for method in ("put", "post"):
        assert out["paths"]["/p"][method]["requestBody"]["content"] == {
            "application/json": {"schema": {"type": "string"}}
        }
    # swagger2openapi keeps the path's list, empty, and loses its body parameter
    assert out["paths"]["/p"]["parameters"] == [] and "components" not in out


@pytest.mark.parametrize(
    ("consumes", "fields", "media"),
    [
        (None, [{"type": "string"}], "application/x-www-form-urlencoded"),
        (["multipart/form-data"], [{"type": "string"}], "multipart/form-data"),
        (["application/x-www-form-urlencoded"], [{"type": "file"}], "multipart/form-data"),
    ],
)
def test_form_data_is_an_object_body(
    consumes: Any, fields: list[dict[str, Any]], media: str
) -> None:
    params = [
        {"name": f"f{i}", "in": "formData", "required": i == 0, **f} for i, f in enumerate(fields)
    ]
    params.append({"name": "note", "in": "formData", "type": "string", "description": "a note"})
    extra = {"consumes": consumes} if consumes else {}
    out = upgrade(doc(paths={"/p": {"post": op(*params, **extra)}}))
    body = out["paths"]["/p"]["post"]["requestBody"]
    first = (
        {"type": "string", "format": "binary"}
        if fields[0]["type"] == "file"
        else {"type": "string"}
    )
    assert body == {
        "content": {
            media: {
                "schema": {
                    "type": "object",
                    "properties": {
                        "f0": first,
                        "note": {"type": "string", "description": "a note"},
                    },
                    "required": ["f0"],
                }
            }
        },
        "required": True,
    }


@pytest.mark.parametrize(
    ("where", "fmt", "style"),
    [
        ("query", None, {"style": "form", "explode": False}),
        ("query", "csv", {"style": "form", "explode": False}),
        ("path", "csv", {"style": "simple"}),
        ("header", None, {"style": "simple"}),
        ("query", "multi", {"explode": True}),
        ("query", "ssv", {"style": "spaceDelimited"}),
        ("query", "pipes", {"style": "pipeDelimited"}),
    ],
)
def test_collection_formats_are_styles(where: str, fmt: str | None, style: dict[str, Any]) -> None:
    param = {
        "name": "xs",
        "in": where,
        "required": True,
        "type": "array",
        "items": {"type": "integer"},
    }
    if fmt is not None:
        param["collectionFormat"] = fmt
    out = upgrade(doc(paths={"/p/{xs}": {"get": op(param)}}))
    converted = out["paths"]["/p/{xs}"]["get"]["parameters"][0]
    assert converted == {
        "name": "xs",
        "in": where,
        "required": True,
        "schema": {"type": "array", "items": {"type": "integer"}},
        **style,
    }


def test_a_collection_format_without_a_3_0_style_is_a_warning() -> None:
    param = {
        "name": "xs",
        "in": "query",
        "type": "array",
        "items": {"type": "string"},
        "collectionFormat": "tsv",
    }
    out, warnings = upgrade_swagger2(doc(paths={"/p": {"get": op(param)}}), "spec.json")
    assert out["paths"]["/p"]["get"]["parameters"][0]["x-collectionFormat"] == "tsv"
    assert warnings == [
        (
            "spec.json",
            "#/paths/~1p/get/parameters/0/collectionFormat",
            "collectionFormat tsv has no OpenAPI 3 style in query: read as csv",
        )
    ]


def test_parameter_type_keywords_move_into_the_schema() -> None:
    param = {
        "name": "n",
        "in": "query",
        "maximum": 10,
        "minimum": 1,
        "type": "integer",
        "x-nullable": True,
        "x-example": 3,
        "x-deprecated": True,
        "x-mine": 1,
    }
    untyped = {"name": "s", "in": "header"}
    out = upgrade(doc(paths={"/p": {"get": op(param, untyped)}}))
    converted, header = out["paths"]["/p"]["get"]["parameters"]
    assert converted == {
        "name": "n",
        "in": "query",
        "x-mine": 1,
        "example": 3,
        "deprecated": True,
        "schema": {"type": "integer", "minimum": 1, "maximum": 10, "nullable": True},
    }
    assert list(converted["schema"]) == ["type", "minimum", "maximum", "nullable"]
    assert header["schema"] == {"type": "string"}  # swagger2openapi's patch


def test_schemas_get_their_3_0_keywords() -> None:
    schema = {
        "type": "object",
        "discriminator": "kind",
        "properties": {
            "owner": {"type": "string", "x-nullable": True},
            "scan": {"type": "file"},
            "kind": {"type": "string", "enum": [{"type": "file"}], "example": {"x-nullable": True}},
        },
    }
    out = upgrade(doc(definitions={"Pet": schema}))["components"]["schemas"]["Pet"]
    assert out["discriminator"] == {"propertyName": "kind"}
    assert out["properties"]["owner"] == {"type": "string", "nullable": True}
    assert out["properties"]["scan"] == {"type": "string", "format": "binary"}
    assert out["properties"]["kind"] == schema["properties"]["kind"]  # data stays data


def test_responses_headers_and_examples() -> None:
    response = {
        "description": "ok",
        "schema": {"type": "object"},
        "headers": {"X-Rate": {"type": "integer", "description": "left"}},
        "examples": {"application/json": {"a": 1}, "text/plain": "a=1"},
    }
    without = {"description": "plain", "examples": {"application/json": {"b": 2}}}
    paths = {
        "/p": {
            "get": {
                "produces": ["application/json"],
                "responses": {"200": response, "201": without},
            }
        }
    }
    out = upgrade(doc(paths=paths))["paths"]["/p"]["get"]["responses"]
    assert out["200"] == {
        "description": "ok",
        "content": {
            "application/json": {"schema": {"type": "object"}, "example": {"a": 1}},
            "text/plain": {"example": "a=1"},
        },
        "headers": {"X-Rate": {"description": "left", "schema": {"type": "integer"}}},
    }
    assert out["201"] == {
        "description": "plain",
        "content": {"application/json": {"example": {"b": 2}}},
    }


def test_security_definitions_are_security_schemes() -> None:
    schemes = {
        "basic": {"type": "basic", "description": "d"},
        "key": {"type": "apiKey", "in": "query", "name": "k"},
        "implicit": {
            "type": "oauth2",
            "flow": "implicit",
            "authorizationUrl": "https://a",
            "scopes": {},
        },
        "password": {
            "type": "oauth2",
            "flow": "password",
            "tokenUrl": "https://t",
            "scopes": {"s": "S"},
        },
        "app": {"type": "oauth2", "flow": "application", "tokenUrl": "https://t", "scopes": {}},
        "code": {
            "type": "oauth2",
            "flow": "accessCode",
            "authorizationUrl": "https://a",
            "tokenUrl": "https://t",
            "scopes": {},
        },
    }
    out = upgrade(doc(securityDefinitions=schemes, security=[{"key": []}]))
    assert out["security"] == [{"key": []}]
    assert out["components"]["securitySchemes"] == {
        "basic": {"type": "http", "scheme": "basic", "description": "d"},
        "key": {"type": "apiKey", "name": "k", "in": "query"},
        "implicit": {
            "type": "oauth2",
            "flows": {"implicit": {"authorizationUrl": "https://a", "scopes": {}}},
        },
        "password": {
            "type": "oauth2",
            "flows": {"password": {"tokenUrl": "https://t", "scopes": {"s": "S"}}},
        },
        "app": {
            "type": "oauth2",
            "flows": {"clientCredentials": {"tokenUrl": "https://t", "scopes": {}}},
        },
        "code": {
            "type": "oauth2",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": "https://a",
                    "tokenUrl": "https://t",
                    "scopes": {},
                }
            },
        },
    }


# --- wrong input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parts", "message", "pointer"),
    [
        (
            {"defintions": {}},
            "unknown top-level key 'defintions' in a Swagger 2.0 document"
            " (did you mean 'definitions'?)",
            "#/defintions",
        ),
        (
            {"paths": {"/p": {"get": {"parameters": {}}}}},
            "expected an array, not dict",
            "#/paths/~1p/get/parameters",
        ),
        (
            {
                "paths": {
                    "/p": {
                        "get": op(
                            {
                                "name": "x",
                                "in": "query",
                                "type": "array",
                                "collectionFormat": "json",
                            }
                        )
                    }
                }
            },
            "unknown collectionFormat 'json'",
            "#/paths/~1p/get/parameters/0/collectionFormat",
        ),
        (
            {"securityDefinitions": {"s": {"type": "oauth2", "flow": "device"}}},
            "unknown OAuth 2 flow 'device'",
            "#/securityDefinitions/s/flow",
        ),
        ({"consumes": "application/json"}, "expected an array, not str", "#/consumes"),
    ],
)
def test_wrong_input_names_its_2_0_pointer(
    parts: dict[str, Any], message: str, pointer: str
) -> None:
    with pytest.raises(ApismithError) as caught:
        upgrade_swagger2(doc(**parts), "spec.json")
    assert caught.value.message == message and caught.value.pointer == pointer


def test_the_cli_refuses_wrong_2_0_input_in_one_line(tmp_path: Path) -> None:
    write_json(tmp_path / "spec.json", doc(paths={"/p": []}))
    proc = run_cli("generate", "--spec", "spec.json", "--out", "out", cwd=tmp_path)
    assert proc.returncode == 2, describe(proc)
    assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr
    assert "spec.json" in proc.stderr and "#/paths/~1p" in proc.stderr, proc.stderr


# --- outside in -------------------------------------------------------------------------------


def _oracle() -> Any:
    spec = importlib.util.spec_from_file_location(
        "swagger2_oracle", REPO_ROOT / "bench" / "swagger2_oracle.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize(
    "spec",
    [*sorted(p.name for p in EXAMPLES.glob("*.json")), "golden"],
)
def test_the_package_is_the_one_of_swagger2openapis_conversion(spec: str, tmp_path: Path) -> None:
    """``make test`` installs the oracle (``npm ci`` in tests/oracles): without it, this
    fails rather than skips."""
    assert (ORACLES / "node_modules" / "swagger2openapi").is_dir(), "run: make install"
    path = GOLDEN if spec == "golden" else EXAMPLES / spec
    row = _oracle().run_one(path, tmp_path)
    assert row["status"] == "same", json.dumps(row, indent=1)


def test_the_examples_are_there() -> None:
    """The raw 2.0 examples of @readme/oas-examples (pinned in tests/oracles)."""
    assert len(list(EXAMPLES.glob("*.json"))) == 7, "run: make install"


@pytest.mark.slow
def test_the_client_calls_the_mock_of_a_2_0_spec(tmp_path: Path) -> None:
    from tests.server.test_mock_promises import serve

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "generator",
            "generate",
            "--spec",
            GOLDEN,
            "--out",
            tmp_path / "swagger_two",
        ],
        cwd=REPO_ROOT,
        env=cli_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        package = importlib.import_module("swagger_two")
        mock = importlib.import_module("swagger_two.mock")
        models = importlib.import_module("swagger_two.models")
    finally:
        sys.path.remove(str(tmp_path))
    sent: list[httpx.Request] = []
    with serve(mock.create_mock_app()) as url:
        http = httpx.Client(event_hooks={"request": [sent.append]})
        client = package.SwaggerTwoClient(
            base_url=url, api_key="k", max_retries=0, http_client=http
        )
        pets = client.pets.list(
            tags=["a", "b"],
            ids=[1, 2],
            sizes=["s", "m"],
            colors=["red", "blue"],
            x_trace=["t", "u"],
        )
        assert pets and all(isinstance(p, models.Pet) for p in pets)
        # each collection format on the wire: multi, csv (the default), pipes, ssv
        query = sent[0].url.params
        assert query.get_list("tags") == ["a", "b"] and query.get_list("ids") == ["1,2"]
        assert query["sizes"] == "s|m" and query["colors"] == "red blue"
        assert sent[0].headers["x-trace"] == "t,u"
        # the mock also takes a list with the key repeated
        repeated = httpx.get(f"{url}/pets?ids=1&ids=2", headers={"X-API-Key": "k"})
        assert repeated.status_code == 200, repeated.text
        # the client sends one set of credentials: create takes the OAuth token
        oauth = package.SwaggerTwoClient(base_url=url, bearer_token="t", max_retries=0)
        made = oauth.pets.create(name="Rex", kind="Dog")
        assert isinstance(made, models.Pet)
        assert isinstance(client.pets.retrieve(7), models.Pet)
        photo = client.pets.upload_photo(7, file=("a.png", b"\x89PNG"), caption="me")
        assert isinstance(photo, models.Photo)
        assert client.pets.add_note(7, text="good dog", pinned=True) is None
