"""Swagger 2.0 read as OpenAPI 3.0.3: a load pass, so that every later stage sees 3.0.

:func:`upgrade_swagger2` is a pure function of the 2.0 document. What it moves (the rules
of ``swagger2openapi``, the usual converter, which a test runs as the oracle):

- ``definitions``, ``parameters`` and ``responses`` move to ``components`` (``schemas``,
  ``parameters``, ``responses``), and every local ``$ref`` to them with them;
  ``securityDefinitions`` become ``components.securitySchemes`` (``basic`` is HTTP Basic,
  an OAuth 2 ``flow`` becomes its 3.0 ``flows`` entry: ``application`` is
  ``clientCredentials``, ``accessCode`` is ``authorizationCode``);
- ``host``, ``basePath`` and ``schemes`` become ``servers`` (``https`` without schemes; a
  relative ``basePath`` server without a host; an operation's own ``schemes`` its own
  servers, an Azure ``x-ms-parameterized-host`` a server with variables);
- a ``body`` parameter becomes the ``requestBody``, in each of the operation's
  ``consumes`` media types (else the document's, else JSON); ``formData`` parameters become
  the properties of an object body, ``multipart/form-data`` when one is a ``file`` (a
  ``string`` of ``format: binary``) or the media types say so, else
  ``application/x-www-form-urlencoded``. Path-level ones apply to every operation that
  does not declare its own of that name;
- other parameters keep their place; their type keywords move into ``schema``, and their
  ``collectionFormat`` becomes ``style``/``explode`` (``csv``: ``form``/``simple`` without
  explode, ``multi``: ``form`` exploded, ``ssv``: ``spaceDelimited``, ``pipes``:
  ``pipeDelimited``; ``tsv`` has no 3.0 style: it is read as ``csv``, with a warning);
  ``x-example`` becomes ``example``;
- a response's ``schema`` becomes its ``content`` in each ``produces`` media type (else
  JSON), its ``examples`` (by media type) that content's ``example`` (without a schema,
  the content of the examples' media types), its ``headers``' type keywords their
  ``schema``;
- in schemas, ``x-nullable: true`` becomes ``nullable: true``, ``type: file`` a binary
  string, and a ``discriminator`` (a property name) ``{propertyName: ...}``.

A part of the wrong JSON type where the pass needs structure is refused (exit 2) with its
pointer in the 2.0 document; so is an unknown top-level key ("did you mean"). Later
stages name pointers in the 3.0 form (``#/components/schemas/Pet`` for
``#/definitions/Pet``).
"""

from __future__ import annotations

import re
from typing import Any

from generator.load.common import _fail, escape_token, unescape_token
from generator.load.document_kind import _did_you_mean

SWAGGER2_KEYS = (
    "swagger", "info", "host", "basePath", "schemes", "consumes", "produces", "paths",
    "definitions", "parameters", "responses", "securityDefinitions", "security", "tags",
    "externalDocs",
)  # fmt: skip
METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")
JSON_MEDIA = "application/json"
# the type keywords of a non-body parameter, an ``items`` object and a header, in the order
# their schema lists them (swagger2openapi's)
_TYPE_KEYS = (
    "type", "items", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "multipleOf", "minItems", "maxItems", "uniqueItems",
    "minProperties", "maxProperties", "additionalProperties", "pattern", "enum", "default",
)  # fmt: skip
_REF_PREFIXES = (
    ("#/definitions/", "#/components/schemas/"),
    ("#/parameters/", "#/components/parameters/"),
    ("#/responses/", "#/components/responses/"),
)
# keys whose values are data, never schemas: the walk does not rewrite inside them
_DATA_KEYS = frozenset({"example", "examples", "enum", "default", "const"})
_CONVERTED = frozenset({"x-example", "x-nullable", "x-deprecated"})  # a parameter's, read
_MAPS = frozenset({"properties", "patternProperties", "definitions"})  # name -> schema
_FLOWS = {
    "implicit": ("implicit", ("authorizationUrl",)),
    "password": ("password", ("tokenUrl",)),
    "application": ("clientCredentials", ("tokenUrl",)),
    "accessCode": ("authorizationCode", ("authorizationUrl", "tokenUrl")),
}

Warning = tuple[str, str, str]  # (file, pointer, message)


class _Upgrade:
    """One document's conversion: ``file`` names it in errors and warnings."""

    def __init__(self, doc: dict[str, Any], file: str) -> None:
        self.doc, self.file = doc, file
        self.warnings: list[Warning] = []
        self.consumes = self._media(doc, "consumes", "#")
        self.produces = self._media(doc, "produces", "#")
        self.globals = self._object(doc.get("parameters"), "#/parameters")

    # --- checks ---------------------------------------------------------------------------

    def _object(self, value: Any, pointer: str) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            _fail(f"expected an object, not {type(value).__name__}", self.file, pointer)
        return value

    def _array(self, value: Any, pointer: str) -> list[Any]:
        if value is None:
            return []
        if not isinstance(value, list):
            _fail(f"expected an array, not {type(value).__name__}", self.file, pointer)
        return value

    def _media(self, node: dict[str, Any], key: str, pointer: str) -> list[str] | None:
        """``node[key]`` (``consumes``/``produces``): media types, or None when absent."""
        if key not in node or node[key] is None:
            return None
        values = self._array(node[key], f"{pointer}/{key}")
        for i, value in enumerate(values):
            if not isinstance(value, str):
                _fail("a media type must be a string", self.file, f"{pointer}/{key}/{i}")
        return list(dict.fromkeys(values))

    # --- the document -------------------------------------------------------------------

    def document(self) -> dict[str, Any]:
        doc = self.doc
        for key in doc:
            if isinstance(key, str) and not key.startswith("x-") and key not in SWAGGER2_KEYS:
                _fail(
                    f"unknown top-level key {key!r} in a Swagger 2.0 document"
                    + _did_you_mean(key, SWAGGER2_KEYS),
                    self.file,
                    "#/" + escape_token(key),
                )
        out: dict[str, Any] = {"openapi": "3.0.3", "info": doc.get("info")}
        servers = self.servers()
        if servers:
            out["servers"] = servers
        for key in ("security", "tags", "externalDocs"):
            if key in doc:
                out[key] = doc[key]
        out.update(
            (k, v)
            for k, v in doc.items()
            if isinstance(k, str) and k.startswith("x-") and k != "x-ms-parameterized-host"
        )
        paths = self._object(doc.get("paths"), "#/paths")
        out["paths"] = {
            path: self.path_item(item, "#/paths/" + escape_token(path))
            for path, item in paths.items()
        }
        components = self.components()
        if components:
            out["components"] = components
        return out

    def servers(self) -> list[dict[str, Any]]:
        """``host``, ``basePath`` (without its trailing ``/``) and ``schemes``, or Azure's
        ``x-ms-parameterized-host`` (a host template with variables)."""
        doc = self.doc
        base = doc.get("basePath") or ""
        if not isinstance(base, str):
            _fail("basePath must be a string", self.file, "#/basePath")
        base = base.rstrip("/")
        schemes = self._array(doc.get("schemes"), "#/schemes") or ["https"]
        templated = doc.get("x-ms-parameterized-host")
        if isinstance(templated, dict) and isinstance(templated.get("hostTemplate"), str):
            url = templated["hostTemplate"] + base
            variables = self.host_variables(templated, url)
            if templated.get("useSchemePrefix") is False:
                return [{"url": url, "variables": variables}]
            urls = [f"{scheme}://{url}" for scheme in dict.fromkeys(schemes)]
            return [{"url": u, "variables": variables} for u in urls]
        host = doc.get("host")
        if not host:
            return [{"url": base}] if base else []
        if not isinstance(host, str):
            _fail("host must be a string", self.file, "#/host")
        return [{"url": f"{scheme}://{host}{base}"} for scheme in dict.fromkeys(schemes)]

    def host_variables(self, templated: dict[str, Any], url: str) -> dict[str, Any]:
        """The server variables of an ``x-ms-parameterized-host``: its parameters (or refs
        to global ones), each with a default (its own, its first enum value, or "none")."""
        pointer = "#/x-ms-parameterized-host/parameters"
        out: dict[str, Any] = {}
        names = re.findall(r"\{(\w+)\}", url)
        for i, p in enumerate(self._array(templated.get("parameters"), pointer)):
            if isinstance(p, dict) and isinstance(p.get("$ref"), str):
                p = self.globals.get(unescape_token(p["$ref"].removeprefix("#/parameters/")), p)
            p = self._object(p, f"{pointer}/{i}")
            name = p.get("name") or (names[i] if i < len(names) else f"host{i}")
            enum = p.get("enum") if isinstance(p.get("enum"), list) else []
            default = p.get("default", enum[0] if enum else "none")
            variable: dict[str, Any] = {"default": str(default)}
            variable.update({k: p[k] for k in ("description",) if k in p})
            if enum:
                variable["enum"] = [str(v) for v in enum]
            out[str(name)] = variable
        return out

    def components(self) -> dict[str, Any]:
        doc, out = self.doc, {}
        schemas = self._object(doc.get("definitions"), "#/definitions")
        if schemas:
            out["schemas"] = {name: schema(s) for name, s in schemas.items()}
        plain = {
            name: self.parameter(p, f"#/parameters/{escape_token(name)}")
            for name, p in self.globals.items()
            if not (isinstance(p, dict) and p.get("in") in ("body", "formData"))
        }
        if plain:
            out["parameters"] = plain
        responses = self._object(doc.get("responses"), "#/responses")
        if responses:
            out["responses"] = {
                name: self.response(r, self.produces, f"#/responses/{escape_token(name)}")
                for name, r in responses.items()
            }
        schemes = self._object(doc.get("securityDefinitions"), "#/securityDefinitions")
        if schemes:
            out["securitySchemes"] = {
                name: self.security_scheme(s, f"#/securityDefinitions/{escape_token(name)}")
                for name, s in schemes.items()
            }
        return out

    def security_scheme(self, s: Any, pointer: str) -> dict[str, Any]:
        s = self._object(s, pointer)
        kind = s.get("type")
        out = {k: v for k, v in s.items() if k == "description" or k.startswith("x-")}
        if kind == "basic":
            return {"type": "http", "scheme": "basic", **out}
        if kind == "apiKey":
            return {"type": "apiKey", "name": s.get("name"), "in": s.get("in"), **out}
        if kind != "oauth2":
            _fail(f"unknown security scheme type {kind!r}", self.file, f"{pointer}/type")
        flow = s.get("flow")
        if flow not in _FLOWS:
            _fail(f"unknown OAuth 2 flow {flow!r}", self.file, f"{pointer}/flow")
        name, urls = _FLOWS[flow]
        entry = {url: s.get(url) for url in urls}
        entry["scopes"] = self._object(s.get("scopes"), f"{pointer}/scopes")
        return {"type": "oauth2", "flows": {name: entry}, **out}

    # --- paths ------------------------------------------------------------------------------

    def path_item(self, item: Any, pointer: str) -> dict[str, Any]:
        if isinstance(item, dict) and "$ref" in item:
            return dict(item)  # a path item in another file: bundled as it is
        item = self._object(item, pointer)
        shared = self.resolved(item.get("parameters"), f"{pointer}/parameters")
        out: dict[str, Any] = {}
        plain = [self.parameter(p, at) for p, at in shared if not _moves(p)]
        if plain or "parameters" in item:  # an empty list stays (as swagger2openapi has it)
            out["parameters"] = plain
        for key, value in item.items():
            if key in METHODS:
                out[key] = self.operation(value, shared, f"{pointer}/{key}")
            elif key != "parameters":
                out[key] = value
        return out

    def resolved(self, params: Any, pointer: str) -> list[tuple[Any, str]]:
        """The parameters of a list, each with its pointer: a ``$ref`` to a global body or
        form parameter is replaced by the parameter (it moves into the body); other refs
        stay refs."""
        found = []
        for i, p in enumerate(self._array(params, pointer)):
            at = f"{pointer}/{i}"
            ref = p.get("$ref") if isinstance(p, dict) else None
            if isinstance(ref, str) and ref.startswith("#/parameters/"):
                name = unescape_token(ref.removeprefix("#/parameters/"))
                target = self.globals.get(name)
                if _moves(target):
                    p, at = target, f"#/parameters/{escape_token(name)}"
            found.append((self._object(p, at), at))
        return found

    def operation(self, op: Any, shared: list[tuple[Any, str]], pointer: str) -> dict[str, Any]:
        op = self._object(op, pointer)
        own = self.resolved(op.get("parameters"), f"{pointer}/parameters")
        names = {(p.get("name"), p.get("in")) for p, _ in own}
        params = own + [(p, at) for p, at in shared if (p.get("name"), p.get("in")) not in names]
        consumes = self._media(op, "consumes", pointer) or self.consumes
        produces = self._media(op, "produces", pointer) or self.produces
        skip = ("parameters", "responses", "consumes", "produces", "schemes", "x-servers")
        out = {k: v for k, v in op.items() if k not in skip}
        servers = self.operation_servers(op, pointer)
        if servers is not None:
            out["servers"] = servers
        plain = [self.parameter(p, at) for p, at in own if not _moves(p)]
        if plain:
            out["parameters"] = plain
        body = self.request_body(params, consumes)
        if body is not None:
            out["requestBody"] = body
        responses = self._object(op.get("responses"), f"{pointer}/responses")
        out["responses"] = {
            str(code): self.response(r, produces, f"{pointer}/responses/{escape_token(code)}")
            for code, r in responses.items()
        }
        return out

    def operation_servers(self, op: dict[str, Any], pointer: str) -> list[Any] | None:
        """An operation's own servers: its ``x-servers``, or the document's servers in
        each of its ``schemes`` the document does not list (None: the document's)."""
        if isinstance(op.get("x-servers"), list):
            return list(op["x-servers"])
        schemes = self._array(op.get("schemes"), f"{pointer}/schemes")
        given = self.doc.get("schemes")
        listed: list[Any] = given if isinstance(given, list) else []
        other = [scheme for scheme in schemes if scheme not in listed]
        if not other:
            return None
        found = []
        for scheme in other:
            for server in self.servers():
                url = str(server["url"])
                url = f"{scheme}:{url.split(':', 1)[1]}" if "://" in url else url
                found.append({**server, "url": url})
        return found

    def parameter(self, p: Any, pointer: str) -> dict[str, Any]:
        """A non-body parameter (or a ref to one) in its 3.0 form."""
        if "$ref" in p:
            return {"$ref": ref(p["$ref"])}
        keep = ("name", "in", "description", "required", "deprecated", "allowEmptyValue")
        out = {k: p[k] for k in keep if k in p}
        out.update((k, v) for k, v in p.items() if k.startswith("x-") and k not in _CONVERTED)
        if "x-example" in p:
            out["example"] = p["x-example"]
        if "x-deprecated" in p and "deprecated" not in p:
            out["deprecated"] = p["x-deprecated"]
        out["schema"] = self.typed(p if "type" in p else {**p, "type": "string"}, pointer)
        if p.get("type") == "array":
            out.update(self.collection(p, pointer))
        return out

    def collection(self, p: dict[str, Any], pointer: str) -> dict[str, Any]:
        """The ``style``/``explode`` of an array parameter's ``collectionFormat``."""
        fmt, where = p.get("collectionFormat") or "csv", p.get("in")
        if fmt == "csv":
            return (
                {"style": "form", "explode": False}
                if where in ("query", "cookie")
                else {"style": "simple"}
            )
        if fmt == "multi":
            return {"explode": True}
        delimited = {"ssv": "spaceDelimited", "pipes": "pipeDelimited"}
        if fmt in delimited and where == "query":
            return {"style": delimited[fmt]}
        if fmt not in ("tsv", *delimited):
            _fail(f"unknown collectionFormat {fmt!r}", self.file, f"{pointer}/collectionFormat")
        message = f"collectionFormat {fmt} has no OpenAPI 3 style in {where}: read as csv"
        self.warnings.append((self.file, f"{pointer}/collectionFormat", message))
        return {"x-collectionFormat": fmt}

    def typed(self, node: dict[str, Any], pointer: str) -> dict[str, Any]:
        """The schema of a parameter, an ``items`` object or a header: its type keywords."""
        out = {k: node[k] for k in _TYPE_KEYS if k in node}
        if isinstance(out.get("items"), dict):
            out["items"] = self.typed(out["items"], f"{pointer}/items")
        if node.get("x-nullable") is True:
            out["nullable"] = True
        converted: dict[str, Any] = schema(out)
        return converted

    def request_body(
        self, params: list[tuple[Any, str]], consumes: list[str] | None
    ) -> dict[str, Any] | None:
        """The ``requestBody`` of an operation's ``body`` or ``formData`` parameters."""
        body = next(((p, at) for p, at in params if p.get("in") == "body"), None)
        if body is not None:
            p, at = body
            target = schema(self._object(p.get("schema"), f"{at}/schema"))
            out = {k: p[k] for k in ("description",) if k in p}
            out["content"] = {m: {"schema": target} for m in consumes or [JSON_MEDIA]}
            if p.get("required") is True:
                out["required"] = True
            return out
        form = [(p, at) for p, at in params if p.get("in") == "formData"]
        if not form:
            return None
        fields: dict[str, Any] = {}
        required = []
        for p, at in form:
            field = self.typed(p, at)
            if "description" in p:
                field["description"] = p["description"]
            fields[str(p.get("name"))] = field
            if p.get("required") is True:
                required.append(str(p.get("name")))
        files = any(p.get("type") == "file" for p, _ in form)
        media = FORMS[1] if files or FORMS[1] in (consumes or ()) else FORMS[0]
        object_schema: dict[str, Any] = {"type": "object", "properties": fields}
        if required:
            object_schema["required"] = required
        out = {"content": {media: {"schema": object_schema}}}
        return {**out, "required": True} if required else out

    def response(self, r: Any, produces: list[str] | None, pointer: str) -> dict[str, Any]:
        r = self._object(r, pointer)
        if "$ref" in r:
            return {"$ref": ref(r["$ref"])}
        out: dict[str, Any] = {"description": r.get("description", "")}
        out.update((k, v) for k, v in r.items() if isinstance(k, str) and k.startswith("x-"))
        examples = self._object(r.get("examples"), f"{pointer}/examples")
        if "schema" in r:
            target = schema(self._object(r["schema"], f"{pointer}/schema"))
            out["content"] = {m: {"schema": target} for m in produces or [JSON_MEDIA]}
        for m, example in examples.items():  # else in a media type of their own
            out.setdefault("content", {}).setdefault(m, {})["example"] = example
        headers = self._object(r.get("headers"), f"{pointer}/headers")
        if headers:
            out["headers"] = {
                name: self.header(h, f"{pointer}/headers/{escape_token(name)}")
                for name, h in headers.items()
            }
        return out

    def header(self, h: Any, pointer: str) -> dict[str, Any]:
        h = self._object(h, pointer)
        out = {k: h[k] for k in ("description",) if k in h}
        out["schema"] = self.typed(h, pointer)
        return out


def _moves(p: Any) -> bool:
    """Whether a parameter moves into the request body (``body``, ``formData``)."""
    return isinstance(p, dict) and p.get("in") in ("body", "formData")


def ref(target: Any) -> Any:
    """A local ``$ref`` into ``definitions``, ``parameters`` or ``responses``, made to
    point into ``components``; any other is left as it is."""
    if isinstance(target, str):
        for old, new in _REF_PREFIXES:
            if target.startswith(old):
                return new + target.removeprefix(old)
    return target


def schema(node: Any, local: bool = True) -> Any:
    """A 2.0 schema (and the schemas inside it) in its 3.0 form: a new value, ``node``
    untouched. Data (examples, enums, defaults, extensions) is copied as it is. ``local``:
    whether its refs are the document's own (else a part of another file, whose refs the
    bundler follows in that file)."""
    if isinstance(node, list):
        return [schema(item, local) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "x-nullable" and isinstance(value, bool):
            if value:
                out["nullable"] = True
        elif key in _DATA_KEYS or (isinstance(key, str) and key.startswith("x-")):
            out[key] = value
        elif key in _MAPS and isinstance(value, dict):
            out[key] = {name: schema(item, local) for name, item in value.items()}
        elif key == "$ref":
            out[key] = ref(value) if local else value
        elif key == "type" and value == "file":
            out["type"], out["format"] = "string", "binary"
        elif key == "discriminator" and isinstance(value, str):
            out[key] = {"propertyName": value}
        else:
            out[key] = schema(value, local)
    return out


def upgrade_swagger2(doc: dict[str, Any], file: str) -> tuple[dict[str, Any], list[Warning]]:
    """The OpenAPI 3.0.3 form of the Swagger 2.0 document ``doc`` (read from ``file``), and
    the warnings of what has no 3.0 form. ``doc`` is left as it is."""
    upgrade = _Upgrade(doc, file)
    return upgrade.document(), upgrade.warnings


def is_swagger2(doc: dict[str, Any]) -> bool:
    return str(doc.get("swagger")) == "2.0"


__all__ = ["SWAGGER2_KEYS", "is_swagger2", "ref", "schema", "upgrade_swagger2"]
