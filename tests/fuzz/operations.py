"""The operation half of a fuzzed document: ``paths`` (path templates, operations,
parameters of every location, request bodies of every media type, responses) and the
security schemes they use, drawn on the :class:`~tests.fuzz.schemas.Drawing` of the schemas.

See :mod:`tests.fuzz.strategies` for what the documents exercise and guarantee.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import strategies as st

from tests.fuzz.schemas import FORM_SCHEMAS, Drawing, ref

PATH_WORDS = ["items", "pets", "users", "v1", "a-b", "snake_case", "ümlaut", "x.json", "files"]
PATH_VARS = ["id", "item_id", "itemId", "item-id", "class", "self", "2nd", "user.name", "type"]
OPERATION_IDS = [
    "getItem", "get_item", "get-item", "GetItem", "listItems", "list", "class", "items.list",
    "Items_List", "2fa", "createPet", "obtenirÉlément", "delete", "__init__", "get item",
    "with_raw_response", "models",
]  # fmt: skip
TAGS = ["pets", "Pets", "store", "a b", "ümlaut", "class", "items-v2", "with_raw_response"]
QUERY_NAMES = [
    "limit", "offset", "page", "cursor", "page_token", "q", "filter[name]", "sort", "class",
    "from", "self", "timeout", "headers", "body", "json", "params", "extra_headers", "id",
    "include[]", "api-version", "$top", "q.name", "client", "files", "pageToken", "Page-Token",
]  # fmt: skip
HEADER_NAMES = ["X-Request-ID", "x-api-version", "If-Match", "X-Rate-Limit", "Accept", "id"]
COOKIE_NAMES = ["session", "session_id", "csrftoken", "theme", "id"]
BODY_MEDIA = [
    "application/json", "multipart/form-data", "application/x-www-form-urlencoded",
    "text/plain", "application/octet-stream",
]  # fmt: skip
STATUS_CODES = ["200", "201", "202", "204", "default", "400", "404", "422", "500", "2XX", "4XX"]
SECURITY: dict[str, dict[str, Any]] = {
    "ApiKeyAuth": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
    "api_key": {"type": "apiKey", "in": "query", "name": "api_key"},
    "cookieAuth": {"type": "apiKey", "in": "cookie", "name": "token"},
    "basicAuth": {"type": "http", "scheme": "basic"},
    "bearer-auth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
    "oauth2": {
        "type": "oauth2",
        "flows": {
            "clientCredentials": {
                "tokenUrl": "https://example.com/token",
                "scopes": {"read": "read things", "write:all": "write"},
            }
        },
    },
    "openId": {"type": "openIdConnect", "openIdConnectUrl": "https://example.com/.well-known"},
}
MAX_OPERATIONS = 4


def paths(d: Drawing) -> dict[str, Any]:
    """One to three paths (rarely none) holding at most four operations in all."""
    security(d)
    out: dict[str, Any] = {}
    shapes: set[str] = set()  # "/items/{}" once: templates differing only in names clash
    budget = MAX_OPERATIONS
    for _ in range(d.pick([1, 2, 3] * 3 + [0])):
        if budget <= 0:
            break
        template, variables = path_template(d)
        listing = d.chance(0.1)
        if listing:
            template, variables = template.split("{")[0].rstrip("/") + "/list", []
        shape = re.sub(r"\{[^}]*\}", "{}", template)
        if shape in shapes:
            continue
        shapes.add(shape)
        if listing:
            out[template] = {"get": list_operation(d)}
            budget -= 1
            continue
        item: dict[str, Any] = {}
        shared = bool(variables) and d.chance(0.3)
        if shared:
            d.feature("parameters:path-level")
            item["parameters"] = [path_parameter(d, v) for v in variables]
        methods = d.draw(st.lists(st.sampled_from(METHODS), min_size=1, max_size=2, unique=True))
        for method in methods[:budget]:
            item[method] = operation(d, method, [] if shared else variables)
            budget -= 1
        out[template] = item
    return out


METHODS = ["get", "get", "post", "post", "put", "patch", "delete", "head", "options", "trace"]


def path_template(d: Drawing) -> tuple[str, list[str]]:
    if d.chance(0.05):
        return "/", []
    parts: list[str] = []
    variables: list[str] = []
    for _ in range(d.draw(st.integers(1, 3))):
        if d.chance(0.35):
            free = [v for v in PATH_VARS if v not in variables]
            variables.append(d.pick(free))
            parts.append("{" + variables[-1] + "}")
        else:
            parts.append(d.pick(PATH_WORDS))
    if variables:
        d.feature("parameters:path")
    template = "/" + "/".join(parts)
    if d.chance(0.05):
        template += "/"
        d.feature("path:trailing-slash")
    return template, variables


def list_operation(d: Drawing) -> dict[str, Any]:
    """A list operation in one of the common pagination styles."""
    d.feature("pagination")
    style = d.pick(["cursor", "token", "page", "link"])
    d.feature(f"pagination:{style}")
    item = ref(d.pick(list(d.schemas))) if d.schemas else d.primitive()
    params = {
        "cursor": ("cursor", {"type": "string"}),
        "token": ("page_token", {"type": "string"}),
        "page": ("page", {"type": "integer", "minimum": 1}),
        "link": ("after", {"type": "string"}),
    }
    name, schema = params[style]
    parameters = [
        {"name": name, "in": "query", "schema": schema},
        {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}},
    ]
    body: dict[str, Any] = {"type": "array", "items": item}
    headers = {}
    if style == "cursor":
        body = _page(d, {"data": body, "next_cursor": {"type": "string"}}, "next_cursor")
    elif style == "token":
        body = _page(d, {"items": body, "next_page_token": {"type": "string"}}, "next_page_token")
    elif style == "page":
        extra = {"total": {"type": "integer"}, "page": {"type": "integer"}}
        body = _page(d, {"items": body, **extra}, None)
    else:
        headers = {"Link": {"description": "RFC 8288 links", "schema": {"type": "string"}}}
    response: dict[str, Any] = {
        "description": "A page.",
        "content": {"application/json": {"schema": body}},
    }
    if headers:
        response["headers"] = headers
    return {
        "operationId": _operation_id(d, "listThings"),
        "parameters": parameters,
        "responses": {"200": response},
    }


def _page(d: Drawing, properties: dict[str, Any], cursor: str | None) -> dict[str, Any]:
    if cursor is not None and d.chance(0.5):
        properties[cursor] = d.nullable(properties[cursor])
    return {"type": "object", "required": [next(iter(properties))], "properties": properties}


def _operation_id(d: Drawing, fallback: str) -> str:
    taken = set(d.operation_ids)
    schemas = [n for n in d.schemas if n not in taken]
    if schemas and d.chance(0.15):
        d.feature("operationId=schema")
        chosen = str(d.pick(schemas))
    else:
        free = [o for o in OPERATION_IDS if o not in taken]
        chosen = str(d.pick(free)) if free else f"{fallback}{len(taken)}"
    d.operation_ids.append(chosen)
    return chosen


def operation(d: Drawing, method: str, variables: list[str]) -> dict[str, Any]:
    op: dict[str, Any] = {}
    if d.chance(0.8):
        op["operationId"] = _operation_id(d, "op")
    else:
        d.feature("operationId:absent")
    if d.chance(0.3):
        op["summary"] = d.pick(["Get it.", "A 'quoted' \"summary\"", "ümlaut"])
    if d.chance(0.3):
        op["tags"] = [d.pick(TAGS)]
    if d.chance(0.05):
        op["deprecated"] = True
    parameters = [path_parameter(d, v) for v in variables] + other_parameters(d)
    if parameters:
        op["parameters"] = parameters
    if method in ("post", "put", "patch") and d.chance(0.8) or method == "delete" and d.chance(0.1):
        op["requestBody"] = request_body(d)
    op["responses"] = responses(d, method)
    if d.security_schemes or (d.chance(0.01) and "security:undefined" not in d.features):
        requirement = _requirement(d)
        if requirement is not None:
            op["security"] = requirement
    return op


def path_parameter(d: Drawing, name: str) -> dict[str, Any]:
    schema = d.pick(
        [
            {"type": "string"},
            {"type": "integer", "format": "int64"},
            {"type": "string", "format": "uuid"},
            {"type": "string", "enum": ["a", "b-c", "1"]},
            {"type": "string", "pattern": "^[a-z0-9-]+$"},
        ]
    )
    return {"name": name, "in": "path", "required": True, "schema": schema}


def other_parameters(d: Drawing) -> list[Any]:
    out: list[Any] = []
    seen: set[tuple[str, str]] = set()
    for _ in range(d.pick([1, 0, 2, 0, 3])):
        location = d.pick(["query", "query", "header", "cookie"])
        pool = {"query": QUERY_NAMES, "header": HEADER_NAMES, "cookie": COOKIE_NAMES}[location]
        name = d.pick(pool)
        if (name.lower() if location == "header" else name, location) in seen:
            continue
        seen.add((name.lower() if location == "header" else name, location))
        d.feature(f"parameters:{location}")
        param: dict[str, Any] = {"name": name, "in": location, **_parameter_schema(d, location)}
        if d.chance(0.4):
            param["required"] = True
        if d.chance(0.1):
            param["description"] = "A parameter."
        if d.chance(0.15):
            d.feature("parameters:$ref")
            key = d.pick(["LimitParam", "limit-param", "Param.v1"])
            key = key if key not in d.components.get("parameters", {}) else key + str(len(out))
            d.components.setdefault("parameters", {})[key] = param
            out.append({"$ref": "#/components/parameters/" + key})
        else:
            out.append(param)
    return out


def _parameter_schema(d: Drawing, location: str) -> dict[str, Any]:
    kind = d.pick(["primitive", "primitive", "array", "nullable", "object", "content"])
    if kind == "array" and location != "cookie":
        d.feature("parameters:array")
        out: dict[str, Any] = {"schema": {"type": "array", "items": d.primitive(plain=True)}}
        if location == "query" and d.chance(0.5):
            out.update(d.pick([{"explode": False}, {"style": "pipeDelimited", "explode": False}]))
        return out
    if kind == "nullable":
        return {"schema": d.nullable(d.primitive())}
    if kind == "object" and location == "query":
        d.feature("parameters:deepObject")
        schema = {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        }
        return {"schema": schema, "style": "deepObject", "explode": True}
    if kind == "content" and location == "query":
        d.feature("parameters:content")
        schema = {"type": "object", "properties": {"x": {"type": "number"}}}
        return {"content": {"application/json": {"schema": schema}}}
    return {"schema": d.primitive()}


def request_body(d: Drawing) -> dict[str, Any]:
    media = d.draw(st.lists(st.sampled_from(BODY_MEDIA), min_size=1, max_size=2, unique=True))
    content: dict[str, Any] = {}
    for m in media:
        d.feature(f"body:{m}")
        entry: dict[str, Any] = {"schema": _body_schema(d, m)}
        if m == "multipart/form-data" and d.chance(0.2):
            properties = _resolved(d, entry["schema"]).get("properties", {})
            if "meta" in properties:
                entry["encoding"] = {"meta": {"contentType": "application/json"}}
        content[m] = entry
    body: dict[str, Any] = {"content": content}
    if d.chance(0.6):
        body["required"] = True
    if d.chance(0.1):
        d.feature("body:$ref")
        key = d.pick(["Body", "Upload-Body", "body.v1"])
        key = key if key not in d.components.get("requestBodies", {}) else key + "2"
        d.components.setdefault("requestBodies", {})[key] = body
        return {"$ref": "#/components/requestBodies/" + key}
    return body


def _resolved(d: Drawing, schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return dict(d.schemas.get(schema["$ref"].rsplit("/", 1)[-1], {}))
    return schema


def binary(d: Drawing) -> dict[str, Any]:
    if d.v31 and d.chance(0.5):
        return {"type": "string", "contentMediaType": "application/octet-stream"}
    return {"type": "string", "format": "binary"}


def _body_schema(d: Drawing, media: str) -> dict[str, Any]:
    if media == "application/json":
        return json_schema(d)
    if media == "text/plain":
        return dict(d.pick([{"type": "string"}, {"type": "string", "maxLength": 1000}]))
    if media == "application/octet-stream":
        return binary(d) if not d.v31 or d.chance(0.7) else {}
    properties: dict[str, Any] = {"name": {"type": "string"}, "count": {"type": "integer"}}
    if media == "multipart/form-data":
        properties = {"file": binary(d), "name": {"type": "string"}}
        if d.chance(0.4):
            properties["files"] = {"type": "array", "items": binary(d)}
        if d.chance(0.3) and d.schemas:
            properties["meta"] = ref(d.pick(list(d.schemas)))
    elif d.chance(0.3):
        properties["tags"] = {"type": "array", "items": {"type": "string"}}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if d.chance(0.6):
        schema["required"] = [next(iter(properties))]
    if d.chance(0.5):
        d.feature(f"body:{media}:inline")
        return schema
    d.feature(f"body:{media}:$ref")
    name = d.fresh(FORM_SCHEMAS)
    d.schemas[name] = schema
    return ref(name)


def json_schema(d: Drawing) -> dict[str, Any]:
    """A JSON body or response schema: a component, an array of them, or inline."""
    names = list(d.schemas)  # a direct $ref may be to the unsatisfiable one, nothing else
    grounded = [n for n in names if n not in d.unsatisfiable]
    kinds = ["inline", "primitive", "nullable-primitive", "allOf", "union", "map"]
    if names:
        kinds += ["ref"] * 5 + ["array", "nullable-ref"]
    kind = d.pick(kinds)
    d.feature(f"json:{kind}")
    if kind == "ref":
        return ref(d.pick(names))
    if kind == "array":
        return {"type": "array", "items": ref(d.pick(names))}
    if kind == "nullable-ref":
        return d.nullable(ref(d.pick(names)))
    if kind == "primitive":
        return d.primitive()
    if kind == "nullable-primitive":
        return d.nullable(d.primitive(plain=d.chance(0.5)))
    if kind == "map":
        return {
            "type": "object",
            "additionalProperties": d.inline(1, grounded=grounded, anywhere=names),
        }
    if kind == "union":
        return d.union(1, grounded=grounded, anywhere=names)
    if kind == "allOf":
        return d.all_of(1, grounded=grounded, anywhere=names)
    return d.object(0, grounded=grounded, anywhere=names)


def responses(d: Drawing, method: str) -> dict[str, Any]:
    codes = d.draw(st.lists(st.sampled_from(STATUS_CODES), min_size=1, max_size=3, unique=True))
    out: dict[str, Any] = {}
    for code in codes:
        out[code] = response(d, code, method)
    return out


def response(d: Drawing, code: str, method: str) -> dict[str, Any]:
    r: dict[str, Any] = {"description": d.pick(["OK", "", "A 'response'."])}
    kind = "none" if code == "204" or method == "head" else d.pick(
        ["none", "json", "json", "json", "text", "binary", "sse"]
    )  # fmt: skip
    d.feature(f"response:{kind}")
    if code == "default":
        d.feature("response:default")
    if kind == "json":
        media = "application/problem+json" if code.startswith("4") and d.chance(0.3) else None
        schema = json_schema(d)
        if "properties" in schema or "allOf" in schema:
            d.feature("response:inline-object")  # a model named after the method
        r["content"] = {media or "application/json": {"schema": schema}}
    elif kind == "text":
        r["content"] = {"text/plain": {"schema": {"type": "string"}}}
    elif kind == "binary":
        r["content"] = {"application/octet-stream": {"schema": binary(d)}}
    elif kind == "sse":
        event = ref(d.pick(list(d.schemas))) if d.schemas and d.chance(0.6) else {"type": "string"}
        r["content"] = {"text/event-stream": {"schema": event}}
    if d.chance(0.1):
        d.feature("response:headers")
        r["headers"] = {
            "X-Rate-Limit": {"description": "calls left", "schema": {"type": "integer"}}
        }
    if d.chance(0.08):
        d.feature("response:$ref")
        key = f"Response{code}"
        d.components.setdefault("responses", {})[key] = r
        return {"$ref": "#/components/responses/" + key}
    return r


def security(d: Drawing) -> None:
    """Zero to two security schemes, and (sometimes) a global requirement."""
    if not d.chance(0.4):
        return
    names = d.draw(st.lists(st.sampled_from(sorted(SECURITY)), min_size=1, max_size=2, unique=True))
    for name in names:
        d.feature(f"security:{SECURITY[name]['type']}")
        d.security_schemes[name] = SECURITY[name]
    if d.chance(0.5):
        d.global_security = _requirement(d)


def _requirement(d: Drawing) -> list[dict[str, list[str]]] | None:
    defined = list(d.security_schemes)
    if not defined or (d.chance(0.02) and "security:undefined" not in d.features):
        missing = [n for n in sorted(SECURITY) if n not in defined]
        name = d.pick(missing)
        d.feature("security:undefined")
        d.refusable.append((f"security requirement names no scheme: {name}", re.escape(name)))
        return [{name: []}]
    style = d.pick(["none", "one", "one", "anonymous", "alternatives", "all"])
    if style == "none":
        return None
    if style == "anonymous":
        d.feature("security:anonymous")
        return [] if d.chance(0.5) else [{}, {defined[0]: []}]
    scopes = ["read"] if d.chance(0.5) else []

    def scoped(name: str) -> list[str]:
        return scopes if d.security_schemes[name]["type"] in ("oauth2", "openIdConnect") else []

    if style == "one" or len(defined) == 1:
        return [{defined[0]: scoped(defined[0])}]
    if style == "alternatives":
        return [{n: scoped(n)} for n in defined]
    d.feature("security:and")  # every scheme at once (VTEX's AppKey and AppToken)
    return [{n: scoped(n) for n in defined}]
