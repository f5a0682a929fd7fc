"""The JSON types of an OpenAPI document's skeleton and of its schemas (``check_document``)."""

from __future__ import annotations

import re
from typing import Any, NoReturn

from generator.load.common import (
    Link,
    _fail,
    _pointer,
    escape_token,
    unescape_token,
)
from generator.load.document_kind import check_kind
from generator.methods import HTTP_METHODS

# --- the shape of an OpenAPI document --------------------------------------------------------

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_ONE = (
    "not",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "contentSchema",
)
_OBJECT_MAPS = {
    "securitySchemes": "a security scheme",
    "examples": "an example",
    "links": "a link",
    "callbacks": "a callback",
}
# (a ``pattern`` that is no string is the ``patterns`` pass's: dropped with a warning)
_SCHEMA_TEXT = ("$ref", "title", "description", "format", "$id", "$schema", "$comment")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


class Shape:
    """Checks the JSON types of an OpenAPI document's skeleton and of its schemas.

    In the skeleton, null counts as absent (a null key, map member or array member), as
    the later stages treat it. In a schema, a null keyword counts as absent too, except
    ``allOf``/``anyOf``/``oneOf``/``enum``; a null schema is refused."""

    def __init__(self, shown: str) -> None:
        self.shown = shown
        self.seen: set[int] = set()

    def fail(self, link: Link, what: str, value: Any) -> NoReturn:
        _fail(f"{what}, not {_kind(value)}", self.shown, _pointer(link))

    @staticmethod
    def sub(link: Link, key: str) -> Link:
        return (link, escape_token(key))

    def obj(self, value: Any, link: Link, what: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(link, what, value)
        return value

    def array(self, value: Any, link: Link, what: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(link, what, value)
        return value

    def text(self, parent: dict[str, Any], link: Link, *keys: str) -> None:
        """Each of ``keys`` is a string when present (null counts as absent, but not for
        ``$ref``)."""
        for key in keys:
            value = parent.get(key)
            if key not in parent or isinstance(value, str):
                continue
            if value is not None or key == "$ref":
                self.fail(self.sub(link, key), f"{key} must be a string", value)

    def each(self, parent: dict[str, Any], link: Link, key: str, check: Any) -> None:
        """``check(member, link)`` for each member of the object ``parent[key]`` (``x-``
        members skipped where an object may hold extensions)."""
        value = parent.get(key)
        if value is None:
            return
        here = self.sub(link, key)
        extensions = key in ("paths", "webhooks", "responses", "callbacks")
        for name, member in self.obj(value, here, f"{key} must be an object").items():
            if not (extensions and name.startswith("x-")):
                check(member, self.sub(here, name))

    def items(self, parent: dict[str, Any], link: Link, key: str, check: Any) -> None:
        """``check(item, link)`` for each item of the array ``parent[key]``."""
        value = parent.get(key)
        if value is None:
            return
        here = self.sub(link, key)
        for i, item in enumerate(self.array(value, here, f"{key} must be an array")):
            check(item, (here, str(i)))

    def member(self, value: Any, link: Link, what: str) -> dict[str, Any] | None:
        """A skeleton object, or None for null (absent)."""
        return None if value is None else self.obj(value, link, f"{what} must be an object")

    # -- the document

    def document(self, doc: dict[str, Any]) -> None:
        if "openapi" not in doc:
            self.schema(doc, None)
            return
        info = self.member(doc.get("info"), (None, "info"), "info")
        if info is not None:
            self.text(info, (None, "info"), "title", "summary", "description")
            version = info.get("version")
            if version is not None and not isinstance(version, (str, int, float)):
                self.fail(((None, "info"), "version"), "version must be a string", version)
        self.items(doc, None, "servers", self.server)
        self.each(doc, None, "paths", self.path)
        self.each(doc, None, "webhooks", self.path_item)
        if "components" in doc:
            link: Link = (None, "components")
            comps = self.obj(doc["components"], link, "components must be an object")
            self.each(comps, link, "schemas", self.schema)
            self.each(comps, link, "parameters", self.parameter)
            self.each(comps, link, "responses", self.response)
            self.each(comps, link, "requestBodies", self.request_body)
            self.each(comps, link, "headers", self.header)
            self.each(comps, link, "pathItems", self.path_item)
            for key, what in _OBJECT_MAPS.items():
                self.each(comps, link, key, self.any_object(what))
        self.items(doc, None, "tags", self.tag)
        self.items(doc, None, "security", self.any_object("a security requirement"))

    def any_object(self, what: str) -> Any:
        """A check that a member is an object (``what`` names it in the error)."""
        return lambda value, link: self.member(value, link, what)

    def server(self, value: Any, link: Link) -> None:
        server = self.member(value, link, "a server")
        if server is not None:
            self.text(server, link, "url", "description")

    def tag(self, value: Any, link: Link) -> None:
        tag = self.member(value, link, "a tag")
        if tag is not None:
            self.text(tag, link, "name", "description")

    def path(self, value: Any, link: Link) -> None:
        """A member of ``paths``: its key is a path below the server URL, so it starts
        with ``/``. Anything else (``http://other-host/x``, ``.evil.com/x``) would send
        the client's credentials to another origin."""
        if link is None or not link[1].startswith("~1"):  # (the token escapes "/")
            _fail(
                "a path must start with '/' (a path below the server's URL, never a URL or a host)",
                self.shown,
                _pointer(link),
            )
        # (a ``#fragment``, AWS's ``/#X-Amz-Target=...``, is no part of the URL: the
        # ``fragments`` pass moves it into a header or query parameter)
        names = re.findall(r"\{([^{}]*)\}", unescape_token(link[1]).partition("#")[0])
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            _fail(
                f"the path names the parameter {twice[0]!r} twice (a URL cannot fill both)",
                self.shown,
                _pointer(link),
            )
        self.path_item(value, link)

    def path_item(self, value: Any, link: Link) -> None:
        item = self.member(value, link, "a path item")
        if item is None:
            return
        self.text(item, link, "$ref", "summary", "description")
        self.items(item, link, "parameters", self.parameter)
        self.items(item, link, "servers", self.server)
        for method in HTTP_METHODS:
            self.operation(item.get(method), self.sub(link, method))

    def operation(self, value: Any, link: Link) -> None:
        op = self.member(value, link, "an operation")
        if op is None:
            return
        self.text(op, link, "summary", "description", "operationId")
        self.items(op, link, "tags", self.tag_name)
        self.items(op, link, "parameters", self.parameter)
        self.request_body(op.get("requestBody"), self.sub(link, "requestBody"))
        self.each(op, link, "responses", self.response)
        self.each(op, link, "callbacks", self.callback)
        self.items(op, link, "security", self.any_object("a security requirement"))
        self.items(op, link, "servers", self.server)

    def tag_name(self, value: Any, link: Link) -> None:
        if value is not None and not isinstance(value, str):
            self.fail(link, "a tag must be a string", value)

    def callback(self, value: Any, link: Link) -> None:
        callback = self.member(value, link, "a callback")
        if callback is not None:
            for name, item in callback.items():
                if not name.startswith("x-") and name != "$ref":  # (a Reference Object)
                    self.path_item(item, self.sub(link, name))

    def parameter(self, value: Any, link: Link) -> None:
        param = self.member(value, link, "a parameter")
        if param is not None:
            self.text(param, link, "$ref", "name", "in", "description")
            self.media_holder(param, link)

    def header(self, value: Any, link: Link) -> None:
        header = self.member(value, link, "a header")
        if header is not None:
            self.text(header, link, "$ref", "description")
            self.media_holder(header, link)

    def media_holder(self, value: dict[str, Any], link: Link) -> None:
        if value.get("schema") is not None:
            self.schema(value["schema"], self.sub(link, "schema"))
        self.each(value, link, "content", self.media)

    def request_body(self, value: Any, link: Link) -> None:
        body = self.member(value, link, "a request body")
        if body is not None:
            self.text(body, link, "$ref", "description")
            self.each(body, link, "content", self.media)

    def response(self, value: Any, link: Link) -> None:
        response = self.member(value, link, "a response")
        if response is not None:
            self.text(response, link, "$ref", "description")
            self.each(response, link, "content", self.media)
            self.each(response, link, "headers", self.header)

    def media(self, value: Any, link: Link) -> None:
        media = self.member(value, link, "a media type")
        if media is None:
            return
        if media.get("schema") is not None:
            self.schema(media["schema"], self.sub(link, "schema"))
        self.each(media, link, "examples", self.any_object("an example"))
        self.each(media, link, "encoding", self.encoding)

    def encoding(self, value: Any, link: Link) -> None:
        encoding = self.member(value, link, "an encoding")
        if encoding is not None:
            self.each(encoding, link, "headers", self.header)

    # -- schemas

    def keywords(self, node: dict[str, Any], here: Link) -> None:
        """A schema's ``type``, ``required`` and ``enum``."""
        if node.get("type") is not None:
            kind = node["type"]
            kinds = kind if isinstance(kind, list) else [kind]
            for k in kinds:
                if not isinstance(k, str):
                    self.fail(self.sub(here, "type"), "type must be a string", k)
        if node.get("required") is None:
            pass
        elif not isinstance(node["required"], bool):
            req = self.array(
                node["required"],
                self.sub(here, "required"),
                "required must be an array of property names",
            )
            for i, name in enumerate(req):
                if not isinstance(name, str):
                    self.fail(
                        (self.sub(here, "required"), str(i)),
                        "a required property name must be a string",
                        name,
                    )
        else:
            self.fail(
                self.sub(here, "required"),
                "required must be an array of property names (in OpenAPI 3,"
                " list them in the parent object's required)",
                node["required"],
            )
        if "enum" in node:
            self.array(node["enum"], self.sub(here, "enum"), "enum must be an array")

    def schema(self, value: Any, link: Link) -> None:
        """A schema and every schema under it (iterative; shared subtrees once)."""
        stack: list[tuple[Any, Link]] = [(value, link)]
        while stack:
            node, here = stack.pop()
            if isinstance(node, bool):
                continue
            if not isinstance(node, dict):
                self.fail(here, "a schema must be an object or a boolean", node)
            if id(node) in self.seen:
                continue
            self.seen.add(id(node))
            if not _schema_ok(node):  # the checks below find the first problem
                self.text(node, here, *_SCHEMA_TEXT)
                self.keywords(node, here)
            if _CHILD_KEYS.isdisjoint(node):
                continue  # a leaf: most schemas
            for key in _SCHEMA_MAPS:
                if node.get(key) is not None:
                    sub = self.sub(here, key)
                    children = self.obj(node[key], sub, f"{key} must be an object")
                    for name in reversed(list(children)):
                        stack.append((children[name], self.sub(sub, name)))
            for key in _SCHEMA_LISTS:
                if key in node and (key != "prefixItems" or node[key] is not None):
                    sub = self.sub(here, key)
                    members = self.array(node[key], sub, f"{key} must be an array of schemas")
                    for i in reversed(range(len(members))):
                        stack.append((members[i], (sub, str(i))))
            for key in _SCHEMA_ONE:
                if node.get(key) is not None:
                    stack.append((node[key], self.sub(here, key)))
            if node.get("items") is not None:
                items, sub = node["items"], self.sub(here, "items")
                if isinstance(items, list):
                    for i in reversed(range(len(items))):
                        stack.append((items[i], (sub, str(i))))
                else:
                    stack.append((items, sub))
            if "discriminator" in node and isinstance(node["discriminator"], dict):
                self.text(node["discriminator"], self.sub(here, "discriminator"), "propertyName")


_TEXT_KEYS = frozenset(_SCHEMA_TEXT)
_MAP_KEYS = frozenset(_SCHEMA_MAPS)
_LIST_KEYS = frozenset(_SCHEMA_LISTS)
_CHILD_KEYS = _MAP_KEYS | _LIST_KEYS | frozenset(_SCHEMA_ONE) | {"items", "discriminator"}


def _strings(values: list[Any]) -> bool:
    return all(type(v) is str for v in values)


def _schema_ok(node: dict[str, Any]) -> bool:
    """Whether :meth:`Shape.schema` finds nothing wrong with ``node`` itself (its children
    are checked in turn): a quick test that only says yes when sure; when it says no, the
    exact checks run and name the first problem."""
    for key in _TEXT_KEYS.intersection(node):
        value = node[key]
        if type(value) is not str and (value is not None or key == "$ref"):
            return False
    kind = node.get("type")
    if kind is not None and type(kind) is not str:
        if type(kind) is not list or not _strings(kind):
            return False
    required = node.get("required")
    if required is not None and (type(required) is not list or not _strings(required)):
        return False
    if "enum" in node and type(node["enum"]) is not list:
        return False
    for key in _MAP_KEYS.intersection(node):
        if node[key] is not None and type(node[key]) is not dict:
            return False
    for key in _LIST_KEYS.intersection(node):
        value = node[key]
        if type(value) is not list and not (key == "prefixItems" and value is None):
            return False
    disc = node.get("discriminator")
    if isinstance(disc, dict):
        name = disc.get("propertyName")
        if name is not None and type(name) is not str:
            return False
    return True


def check_document(doc: dict[str, Any], file: str) -> None:
    """Raise unless ``doc`` is an OpenAPI document or a JSON Schema (``document_kind``),
    then on its first part of the wrong type."""
    check_kind(doc, file)
    Shape(file).document(doc)
