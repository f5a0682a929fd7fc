"""The IR: ``build_ir`` on small inline specs and on the two real specs."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from generator.ir import Api, Model, TypeReader, TypeRef, build_ir, snake_case

ROOT = Path(__file__).resolve().parent.parent
LLM_ENGINE = ROOT / "specs" / "llm-engine" / "openapi.json"
SGP = ROOT / "specs" / "sgp" / "openapi.json"


@cache
def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def load(path: Path) -> dict[str, Any]:
    return copy.deepcopy(_load(path))


def read(schema: dict[str, Any], schemas: dict[str, Any] | None = None) -> TypeRef:
    return TypeReader({"components": {"schemas": schemas or {}}}).read(schema)


def spec(
    paths: dict[str, Any] | None = None, schemas: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": paths or {},
        "components": {"schemas": schemas or {}, **extra.pop("components", {})},
        **extra,
    }


def ok(schema: dict[str, Any] | None = None, ct: str = "application/json") -> dict[str, Any]:
    return {"description": "OK", "content": {ct: {"schema": schema or {}}}}


REF = {"$ref": "#/components/schemas/Message"}


# --- TypeRef rendering -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "python", "display"),
    [
        ({"type": "string"}, "str", "string"),
        ({"type": "integer"}, "int", "integer"),
        ({"type": "number"}, "float", "number"),
        ({"type": "boolean"}, "bool", "boolean"),
        ({"type": "string", "format": "date-time"}, "datetime", "string (date-time)"),
        ({"type": "string", "format": "uuid4"}, "UUID", "string (uuid4)"),
        ({"type": "string", "format": "binary"}, "bytes", "string (binary)"),
        ({"type": "string", "format": "email"}, "str", "string (email)"),
        ({}, "Any", "any"),
        ({"description": "anything"}, "Any", "any"),
        ({"type": "null"}, "None", "null"),
        (REF, "Message", "Message"),
        ({"type": "array", "items": REF}, "list[Message]", "array of Message"),
        ({"type": "array"}, "list[Any]", "array"),
        ({"type": "object"}, "dict[str, Any]", "object"),
        ({"type": "object", "additionalProperties": True}, "dict[str, Any]", "object"),
        (
            {"type": "object", "additionalProperties": {"type": "integer"}},
            "dict[str, int]",
            "map of integer",
        ),
        (
            {"type": "object", "additionalProperties": {}},
            "dict[str, Any]",
            "map of any",
        ),
        (
            {"type": "string", "enum": ["user", "assistant"]},
            'Literal["user", "assistant"]',
            '"user" | "assistant"',
        ),
        ({"const": "url_citation"}, 'Literal["url_citation"]', '"url_citation"'),
        ({"enum": [1, 2, True]}, "Literal[1, 2, True]", "1 | 2 | true"),
        ({"type": "number", "enum": [0.5, 1.5]}, "float", "0.5 | 1.5"),
        ({"enum": ['say "hi"\n']}, 'Literal["say \\"hi\\"\\n"]', '"say \\"hi\\"\\n"'),
        (
            {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
            "str | list[str]",
            "string | array of string",
        ),
        (
            {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
            "list[str | int]",
            "array of (string | integer)",
        ),
        (  # a fixed length: a tuple (the models' reading, datamodel-code-generator's rule)
            {
                "type": "array",
                "prefixItems": [{"type": "string"}, {"type": "integer"}],
                "minItems": 2,
                "maxItems": 2,
            },
            "tuple[str, int]",
            "tuple [string, integer]",
        ),
        (
            {"type": "array", "items": [{"type": "string"}], "minItems": 2, "maxItems": 2},
            "tuple[str, Any]",
            "tuple [string, any]",
        ),
        (  # any length up to two: a list of either
            {
                "type": "array",
                "prefixItems": [{"type": "string"}, {"type": "integer"}],
                "items": False,
            },
            "list[str | int]",
            "array of (string | integer)",
        ),
        (  # open: further items of any type
            {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "list[Any]",
            "array of any",
        ),
        (
            {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "number"}},
            "list[str | float]",
            "array of (string | number)",
        ),
        ({"type": ["string", "integer"]}, "str | int", "string | integer"),
        ({"allOf": [REF], "description": "wrapped"}, "Message", "Message"),
        (
            {"type": "object", "additionalProperties": {"type": "array", "items": REF}},
            "dict[str, list[Message]]",
            "map of array of Message",
        ),
    ],
)
def test_type_rendering(schema: dict[str, Any], python: str, display: str) -> None:
    t = read(schema)
    assert (t.python_type, t.display) == (python, display)


def test_type_fields_and_imports() -> None:
    t = read(
        {
            "type": "array",
            "items": {"type": "string", "format": "date-time"},
            "minItems": 1,
            "maxItems": 3,
        }
    )
    assert t.kind == "array" and t.items is not None
    assert (t.items.kind, t.items.primitive, t.items.format) == ("primitive", "string", "date-time")
    assert dict(t.constraints) == {"minItems": 1, "maxItems": 3}
    assert t.imports() == ("datetime.datetime",)
    union = read({"anyOf": [REF, {"enum": ["a"]}, {"type": "object"}]})
    assert union.imports() == ("typing.Any", "typing.Literal")
    assert union.model_names() == ("Message",)


def test_constructed_typeref_renders() -> None:
    t = TypeRef("array", items=TypeRef("model", name="Message"), nullable=True)
    assert t.python_type == "list[Message] | None"
    assert t.display == "array of Message | null"
    assert TypeRef("any", nullable=True).python_type == "Any"


def test_union_members_flattened_and_deduplicated() -> None:
    t = read({"anyOf": [{"anyOf": [REF, {"type": "string"}]}, {"type": "string"}]})
    assert t.kind == "union"
    assert t.python_type == "Message | str"


def test_union_with_any_member_is_any() -> None:
    t = read({"anyOf": [{"type": "array", "items": {}}, {"type": "string"}, {}]})
    assert (t.kind, t.python_type, t.display) == ("any", "Any", "any")
    # a number stays a number whatever its format (the models render time-delta as float)
    assert read({"type": "number", "format": "time-delta"}).python_type == "float"


def test_model_type_is_what_the_models_declare() -> None:
    url = read({"type": "string", "format": "uri"})
    assert (url.python_type, url.model_type) == ("str", "AnyUrl")
    assert (url.imports(), url.imports("model")) == ((), ("pydantic.AnyUrl",))
    uuid4 = read({"anyOf": [{"type": "string", "format": "uuid4"}, {"type": "null"}]})
    assert (uuid4.python_type, uuid4.model_type) == ("UUID | None", "UUID4 | None")
    when = read({"type": "array", "items": {"type": "string", "format": "date-time"}})
    assert when.python_type == when.model_type == "list[datetime]"


def test_content_media_type_is_binary_unless_encoded() -> None:
    raw = {"type": "string", "contentMediaType": "application/octet-stream"}
    assert read(raw).python_type == "bytes"
    assert read({**raw, "contentEncoding": "base64"}).python_type == "str"
    assert read({"type": "string", "contentMediaType": "text/plain"}).python_type == "str"


def test_non_schema_ref_is_followed() -> None:
    schemas = {"Wrapper": {"properties": {"x": {"type": "integer", "maximum": 5}}}}
    t = read({"$ref": "#/components/schemas/Wrapper/properties/x"}, schemas)
    assert (t.python_type, dict(t.constraints)) == ("int", {"maximum": 5})


# --- canonical nullable forms --------------------------------------------------------------


def test_nullable_type_list_keeps_constraints() -> None:
    t = read({"type": ["integer", "null"], "minimum": 0, "maximum": 10})
    assert (t.kind, t.primitive, t.nullable) == ("primitive", "integer", True)
    assert dict(t.constraints) == {"minimum": 0, "maximum": 10}
    assert (t.python_type, t.display) == ("int | None", "integer | null")


def test_nullable_ref() -> None:
    t = read({"anyOf": [REF, {"type": "null"}], "description": "d", "default": None})
    assert (t.kind, t.name, t.nullable) == ("model", "Message", True)
    assert (t.python_type, t.display) == ("Message | None", "Message | null")


def test_nullable_array_of_refs() -> None:
    t = read({"type": ["array", "null"], "items": REF})
    assert (t.python_type, t.display) == ("list[Message] | None", "array of Message | null")
    t = read({"anyOf": [{"type": "array", "items": REF}, {"type": "null"}]})
    assert t.python_type == "list[Message] | None"


def test_nullable_enum_and_const() -> None:
    t = read({"anyOf": [{"type": "string", "enum": ["user", "assistant"]}, {"type": "null"}]})
    assert (t.kind, t.literals, t.nullable) == ("literal", ("user", "assistant"), True)
    assert t.python_type == 'Literal["user", "assistant"] | None'
    t = read({"anyOf": [{"const": "x"}, {"type": "null"}]})
    assert t.python_type == 'Literal["x"] | None'


def test_nullable_object() -> None:
    t = read({"anyOf": [{"type": "object", "additionalProperties": True}, {"type": "null"}]})
    assert (t.python_type, t.display) == ("dict[str, Any] | None", "object | null")


def test_nullable_union_of_several() -> None:
    t = read({"anyOf": [REF, {"type": "string"}, {"type": "null"}]})
    assert (t.kind, t.nullable, len(t.members)) == ("union", True, 2)
    assert all(not m.nullable for m in t.members)
    assert (t.python_type, t.display) == ("Message | str | None", "Message | string | null")


def test_only_null() -> None:
    assert read({"anyOf": [{"type": "null"}]}).kind == "null"
    assert read({"enum": [None]}).kind == "null"


def test_lenient_unnormalized_null_forms() -> None:
    assert read({"type": "string", "nullable": True}).python_type == "str | None"
    assert read({"nullable": True}).python_type == "Any"
    assert read({"enum": ["a", None]}).python_type == 'Literal["a"] | None'
    assert read({"oneOf": [{"type": "integer"}, {"type": "null"}]}).python_type == "int | None"
    assert read({"anyOf": [{"type": ["string", "null"]}, {"type": "integer"}]}).python_type == (
        "str | int | None"
    )


def test_nullable_field_with_none_default() -> None:
    schemas = {
        "M": {
            "type": "object",
            "properties": {
                "a": {"anyOf": [REF, {"type": "null"}], "default": None, "description": "d"},
                "b": {"type": ["string", "null"], "maxLength": 3},
                "c": {"type": "integer"},
            },
            "required": ["c"],
        },
        "Message": {"type": "object", "properties": {}},
    }
    a, b, c = build_ir(spec(schemas=schemas)).model("M").fields
    assert (a.nullable, a.has_default, a.default, a.description) == (True, True, None, "d")
    assert a.type.python_type == "Message | None"
    assert (b.nullable, dict(b.constraints), b.has_default) == (True, {"maxLength": 3}, False)
    assert (c.nullable, c.required, c.has_default) == (False, True, False)


# --- models ---------------------------------------------------------------------------------


def models(schemas: dict[str, Any]) -> dict[str, Model]:
    return {m.name: m for m in build_ir(spec(schemas=schemas)).models}


def test_model_kinds_and_order() -> None:
    found = build_ir(
        spec(
            schemas={
                "Zeta": {"type": "string", "enum": ["a", "b"], "description": "An enum."},
                "Alpha": {
                    "type": "object",
                    "properties": {
                        "z": {"type": "string", "x-python-name": "z_"},
                        "a": {"type": "integer", "readOnly": True, "deprecated": True},
                        "m": {"type": "string", "writeOnly": True, "default": "x"},
                    },
                    "required": ["a"],
                },
                "Map": {"type": "object", "additionalProperties": {"type": "integer"}},
                "Empty": {"type": "object"},
                "Id": {"type": "string", "format": "uuid"},
                "Pet": {
                    "oneOf": [
                        {"$ref": "#/components/schemas/Cat"},
                        {"$ref": "#/components/schemas/Dog"},
                    ],
                    "discriminator": {
                        "propertyName": "kind",
                        "mapping": {
                            "cat": "#/components/schemas/Cat",
                            "dog": "#/components/schemas/Dog",
                        },
                    },
                },
            }
        )
    ).models
    assert [m.name for m in found] == ["Alpha", "Empty", "Id", "Map", "Pet", "Zeta"]
    by = {m.name: m for m in found}
    alpha = by["Alpha"]
    assert (alpha.kind, alpha.root, alpha.extra) == ("object", None, "allow")
    assert [(f.name, f.python_name, f.required) for f in alpha.fields] == [
        ("z", "z_", False),
        ("a", "a", True),
        ("m", "m", False),
    ]
    assert (alpha.fields[1].read_only, alpha.fields[1].deprecated) == (True, True)
    assert (alpha.fields[2].write_only, alpha.fields[2].default) == (True, "x")
    assert by["Empty"].kind == "object" and by["Empty"].fields == ()
    zeta = by["Zeta"]
    assert (zeta.kind, zeta.enum_values, zeta.description) == ("enum", ("a", "b"), "An enum.")
    assert by["Map"].kind == "alias" and by["Map"].root is not None
    assert by["Map"].root.python_type == "dict[str, int]"
    assert by["Id"].root is not None and by["Id"].root.python_type == "UUID"
    pet = by["Pet"]
    assert pet.kind == "alias" and pet.root is not None and pet.discriminator is not None
    assert pet.root.python_type == "Cat | Dog"
    assert pet.discriminator.property_name == "kind"
    assert dict(pet.discriminator.mapping) == {"cat": "Cat", "dog": "Dog"}


def test_nullable_enum_component_is_enum() -> None:
    m = models({"Role": {"anyOf": [{"enum": ["a", "b"]}, {"type": "null"}]}})["Role"]
    assert (m.kind, m.enum_values) == ("enum", ("a", "b"))
    assert m.root is not None and m.root.nullable


def test_mutable_defaults_are_copied() -> None:
    s = spec(schemas={"M": {"properties": {"tags": {"type": "array", "default": ["a"]}}}})
    field = build_ir(s).model("M").fields[0]
    assert field.default == ["a"]
    assert field.default is not s["components"]["schemas"]["M"]["properties"]["tags"]["default"]


# --- operations ------------------------------------------------------------------------------


def test_operation_order_and_names() -> None:
    api = build_ir(
        spec(
            paths={
                "/b/{id}": {
                    "patch": {"operationId": "patchB", "responses": {}},
                    "get": {"operationId": "getB", "responses": {}},
                    "post": {"x-apismith-name": "create_b", "operationId": "x", "responses": {}},
                },
                "/a": {
                    "delete": {"responses": {}},
                    "get": {"operationId": "GET-V4-/a", "responses": {}},
                    "put": {"operationId": "get_v4_a", "responses": {}},
                },
            }
        )
    )
    assert [(o.method, o.path) for o in api.operations] == [
        ("get", "/b/{id}"),
        ("post", "/b/{id}"),
        ("patch", "/b/{id}"),
        ("get", "/a"),
        ("put", "/a"),
        ("delete", "/a"),
    ]
    assert [o.python_name for o in api.operations] == [
        "get_b",
        "create_b",
        "patch_b",
        "get_v4_a",
        "get_v4_a_2",
        "delete_a",
    ]
    assert api.operations[1].operation_id == "x"
    assert api.operations[5].operation_id is None
    assert api.operation("getB") is api.operations[0]


@pytest.mark.parametrize(
    ("text", "snake"),
    [
        ("createChatCompletion", "create_chat_completion"),
        ("POST-V4-/v2/chat-completions", "post_v4_v2_chat_completions"),
        ("HTTPServerError", "http_server_error"),
        ("x-api-key", "x_api_key"),
        ("already_snake", "already_snake"),
        ("__dunder__", "dunder"),
        ("class", "class_"),
        ("2fa", "n_2fa"),
        ("", "unnamed"),
    ],
)
def test_snake_case(text: str, snake: str) -> None:
    assert snake_case(text) == snake


def test_parameters_merge_refs_and_defaults() -> None:
    s = spec(
        paths={
            "/items/{item_id}": {
                "parameters": [
                    {"name": "item_id", "in": "path", "schema": {"type": "string"}},
                    {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
                ],
                "get": {
                    "parameters": [
                        {"$ref": "#/components/parameters/Limit"},
                        {
                            "name": "X-Trace",
                            "in": "header",
                            "required": True,
                            "schema": {"type": "string"},
                            "description": "overridden",
                        },
                        {
                            "name": "ids",
                            "in": "query",
                            "style": "pipeDelimited",
                            "explode": False,
                            "deprecated": True,
                            "schema": {"type": "array", "items": {"type": "integer"}},
                        },
                        {"name": "session", "in": "cookie", "schema": {"type": "string"}},
                        {
                            "name": "filter",
                            "in": "query",
                            "content": {"application/json": {"schema": {"type": "object"}}},
                        },
                    ],
                    "responses": {},
                },
            }
        },
        components={
            "parameters": {
                "Limit": {
                    "name": "limit",
                    "in": "query",
                    "schema": {"type": ["integer", "null"], "default": 20, "maximum": 100},
                    "x-python-name": "page_limit",
                }
            }
        },
    )
    op = build_ir(s).operations[0]
    got = [
        (p.name, p.python_name, p.location, p.required, p.style, p.explode) for p in op.parameters
    ]
    assert got == [
        ("item_id", "item_id", "path", True, "simple", False),
        ("X-Trace", "x_trace", "header", True, "simple", False),
        ("limit", "page_limit", "query", False, "form", True),
        ("ids", "ids", "query", False, "pipeDelimited", False),
        ("session", "session", "cookie", False, "form", True),
        ("filter", "filter", "query", False, "form", True),
    ]
    limit = op.parameters[2]
    assert (limit.has_default, limit.default, limit.schema.python_type) == (True, 20, "int | None")
    assert dict(limit.schema.constraints) == {"maximum": 100}
    assert op.parameters[1].description == "overridden"
    assert op.parameters[3].deprecated and op.parameters[3].schema.python_type == "list[int]"
    assert op.parameters[5].schema.python_type == "dict[str, Any]"
    assert [p.name for p in op.parameters_in("query")] == ["limit", "ids", "filter"]


def test_request_body_preference() -> None:
    def body(*types: str) -> str | None:
        content = {t: {"schema": {"type": "object"}} for t in types}
        op = {"requestBody": {"content": content}, "responses": {}}
        rb = build_ir(spec(paths={"/x": {"post": op}})).operations[0].request_body
        assert rb is not None and [m.content_type for m in rb.content] == list(types)
        return rb.content_type

    assert body("text/plain", "multipart/form-data", "application/json") == "application/json"
    assert body("application/x-www-form-urlencoded", "multipart/form-data") == (
        "multipart/form-data"
    )
    assert body("text/plain", "application/x-www-form-urlencoded") == (
        "application/x-www-form-urlencoded"
    )
    assert body("application/octet-stream", "text/plain") == "application/octet-stream"
    assert body("application/json; charset=utf-8") == "application/json; charset=utf-8"


def test_request_body_and_response_refs() -> None:
    s = spec(
        paths={
            "/x": {
                "post": {
                    "requestBody": {"$ref": "#/components/requestBodies/Body"},
                    "responses": {
                        "default": {"$ref": "#/components/responses/Error"},
                        "404": {"description": "missing"},
                        "2XX": ok(),
                        "201": ok(REF),
                        "200": ok({"type": "array", "items": REF}),
                    },
                }
            }
        },
        schemas={"Message": {"type": "object"}},
        components={
            "requestBodies": {
                "Body": {
                    "required": True,
                    "description": "b",
                    "content": {"application/json": {"schema": REF}},
                }
            },
            "responses": {"Error": ok({"type": "object"}) | {"description": "err"}},
        },
    )
    op = build_ir(s).operations[0]
    assert op.request_body is not None
    assert (op.request_body.required, op.request_body.description) == (True, "b")
    assert op.request_body.schema.python_type == "Message"
    assert [r.status for r in op.responses] == ["200", "201", "2XX", "404", "default"]
    assert op.responses[0].schema is not None
    assert op.responses[0].schema.python_type == "list[Message]"
    assert (op.responses[3].content_type, op.responses[3].schema) == (None, None)
    assert (op.responses[4].description, op.responses[4].content_type) == (
        "err",
        "application/json",
    )
    assert op.success_response is op.responses[0]


def test_security_effective_requirements() -> None:
    s = spec(
        paths={
            "/a": {
                "get": {"responses": {}},
                "post": {"security": [], "responses": {}},
                "put": {"security": [{"Basic": [], "Key": []}, {}], "responses": {}},
            }
        },
        security=[{"Bearer": []}, {"Key": ["read"]}],
        components={
            "securitySchemes": {
                "Basic": {"type": "http", "scheme": "Basic"},
                "Bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
                "Digest": {"type": "http", "scheme": "digest"},
                "Key": {"type": "apiKey", "in": "query", "name": "key", "description": "k"},
                "OIDC": {"type": "openIdConnect", "openIdConnectUrl": "https://x/.well-known"},
                "OAuth": {
                    "type": "oauth2",
                    "flows": {
                        "clientCredentials": {"tokenUrl": "/token", "scopes": {"a": "", "b": ""}}
                    },
                },
            }
        },
    )
    api = build_ir(s)
    assert api.security == (("Bearer",), ("Key",))
    get, put, post = api.operations
    assert get.security == (("Bearer",), ("Key",))
    assert put.security == (("Basic", "Key"), ())
    assert post.security == ()
    kinds = {x.name: x.kind for x in api.security_schemes}
    assert kinds == {
        "Basic": "http-basic",
        "Bearer": "http-bearer",
        "Digest": "http",
        "Key": "api-key",
        "OIDC": "openid",
        "OAuth": "oauth2",
    }
    key = api.security_scheme("Key")
    assert (key.location, key.parameter_name, key.description) == ("query", "key", "k")
    assert api.security_scheme("Bearer").bearer_format == "JWT"
    assert api.security_scheme("OIDC").openid_connect_url == "https://x/.well-known"
    (flow,) = api.security_scheme("OAuth").flows
    assert (flow.flow, flow.token_url, flow.scopes) == ("clientCredentials", "/token", ("a", "b"))


def test_streaming_flag() -> None:
    sse = ok({"type": "string"}, "text/event-stream")
    api = build_ir(
        spec(
            paths={
                "/a": {"get": {"responses": {"200": sse}}},
                "/b": {"get": {"responses": {"400": sse, "200": ok()}}},
                "/c": {"get": {"x-apismith-stream": True, "responses": {"200": ok()}}},
            }
        )
    )
    assert [o.streaming for o in api.operations] == [True, False, True]


def test_api_info_servers_tags() -> None:
    api = build_ir(
        spec(
            paths={"/a": {"get": {"tags": ["Later", "Declared"], "responses": {}}}},
            info={"title": "My API", "version": "2.0", "description": "About."},
            servers=[
                {"url": "https://{region}.x.com", "variables": {"region": {"default": "eu"}}},
                {"url": "http://localhost", "description": "dev"},
            ],
            tags=[{"name": "Declared", "description": "d"}],
        )
    )
    assert (api.title, api.version, api.description) == ("My API", "2.0", "About.")
    assert api.servers[0].url == "https://{region}.x.com"
    assert dict(api.servers[0].variables) == {"region": "eu"}
    assert api.servers[1].description == "dev"
    assert [(t.name, t.description) for t in api.tags] == [("Declared", "d"), ("Later", None)]
    assert api.operations[0].tags == ("Later", "Declared")


def test_empty_spec() -> None:
    api = build_ir({})
    assert api == Api(title="", version="")


# --- purity and determinism -------------------------------------------------------------


@pytest.mark.parametrize("path", [LLM_ENGINE, SGP], ids=["llm-engine", "sgp"])
def test_pure_and_deterministic(path: Path) -> None:
    s = load(path)
    before = copy.deepcopy(s)
    first, second = build_ir(s), build_ir(copy.deepcopy(s))
    assert s == before
    assert first == second
    assert [m.name for m in first.models] == sorted(m.name for m in first.models)
    renders = [(f.type.python_type, f.type.display) for m in first.models for f in m.fields]
    assert renders == [
        (f.type.python_type, f.type.display) for m in second.models for f in m.fields
    ]


# --- the real specs -----------------------------------------------------------------------


def test_llm_engine() -> None:
    api = build_ir(load(LLM_ENGINE))
    assert len(api.operations) == 66
    assert len(api.models) == 222
    op = next(o for o in api.operations if (o.method, o.path) == ("post", "/v2/chat/completions"))
    assert op.operation_id == "chat_completion_v2_chat_completions_post"
    assert op.request_body is not None
    assert (op.request_body.content_type, op.request_body.required) == ("application/json", True)
    assert op.request_body.schema.python_type == "ChatCompletionV2Request"
    ok_resp = op.success_response
    assert ok_resp is not None and ok_resp.status == "200" and ok_resp.schema is not None
    assert ok_resp.schema.kind == "union"
    assert [r.status for r in op.responses] == ["200", "422"]
    assert op.security == (("HTTPBasic",), ("OAuth2PasswordBearer",))
    kinds = [(s.name, s.kind) for s in api.security_schemes]
    assert kinds == [("HTTPBasic", "http-basic"), ("OAuth2PasswordBearer", "oauth2")]
    assert api.security_scheme("OAuth2PasswordBearer").flows[0].token_url == "token"


def test_sgp() -> None:
    api = build_ir(load(SGP))
    assert len(api.operations) == 184
    assert len(api.models) == 607
    (scheme,) = api.security_schemes
    assert (scheme.name, scheme.kind, scheme.location, scheme.parameter_name) == (
        "APIKeyHeader",
        "api-key",
        "header",
        "x-api-key",
    )
    uploads = [
        o
        for o in api.operations
        if o.request_body and o.request_body.content_type == "multipart/form-data"
    ]
    assert [o.path for o in uploads] == [
        "/v4/knowledge-bases/{knowledge_base_id}/upload_files",
        "/v4/training-datasets",
        "/v4/applications/upload-files",
    ]
    assert all(o.security == (("APIKeyHeader",),) for o in uploads)
    op = api.operation("POST-V4-/v2/chat-completions")
    assert op.python_name == "post_v4_v2_chat_completions"
    assert op.request_body is not None and op.request_body.content_type == "application/json"
    assert api.servers[0].url == "https://api.egp.scale.com"
    assert len({o.python_name for o in api.operations}) == 184
    tuple_field = next(f for f in api.model("CompletionResponse").fields if f.name == "completions")
    assert tuple_field.type.python_type == "list[tuple[str, list[str]]]"


@pytest.mark.parametrize("path", [LLM_ENGINE, SGP], ids=["llm-engine", "sgp"])
def test_normalized_spec_builds(path: Path) -> None:
    from generator.normalize import normalize

    api = build_ir(normalize(load(path)).spec)
    assert len(api.operations) == (66 if path == LLM_ENGINE else 184)
    assert len({o.python_name for o in api.operations}) == len(api.operations)


def test_all_of_objects_is_one_object_model() -> None:
    """An ``allOf`` of objects is a subclass in the models: its fields are the members'
    fields, then its own, required where any part requires them."""
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {},
        "components": {
            "schemas": {
                "Base": {"type": "object", "required": ["id"], "properties": {"id": {}}},
                "Limits": {"type": "object", "properties": {"max": {"type": "integer"}}},
                "Both": {
                    "allOf": [
                        {"$ref": "#/components/schemas/Base"},
                        {"$ref": "#/components/schemas/Limits"},
                    ]
                },
                "More": {
                    "allOf": [{"$ref": "#/components/schemas/Both"}],
                    "required": ["extra"],
                    "properties": {"extra": {"type": "string"}},
                },
            }
        },
    }
    api = build_ir(spec)
    both, more = api.model("Both"), api.model("More")
    assert both.kind == more.kind == "object"
    assert [(f.name, f.required) for f in both.fields] == [("id", True), ("max", False)]
    assert [f.name for f in more.fields] == ["id", "max", "extra"]
    assert more.fields[2].required
