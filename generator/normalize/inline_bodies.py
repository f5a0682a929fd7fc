"""Normalization pass `inline_bodies`: inline request and response objects get a model.

A JSON request body or response whose schema is written inline (an object with
properties, an ``allOf`` composition) would reach the IR nameless: the client would return
``dict[str, Any]`` where the spec says which fields come back, the mock would answer
``{}`` where fields are required, and the server would not validate the body. 34% of
the object-typed answers of 171 public specs were such (loket.nl 576 of 578). Each becomes
a component schema of its own, named Stainless-style after the client method that uses
it (``client.tasks.list`` -> ``TaskListResponse``):

- ``<Resource><Method>Response`` for the success (2xx) answer,
  ``<Resource><Method>Response<status>`` for another status (``TaskRetrieveResponse404``),
  ``<Resource><Method>Body`` for the request body. ``<Resource>`` is the method's
  resource in the singular (``tasks`` -> ``Task``), without its parents; the client's
  root methods have none.
- An array of inline objects keeps its array and names the item: ``...ResponseItem``.
  A nullable object (``anyOf: [{...}, {"type": "null"}]``) keeps its null member, and the
  object members of a union are ``...UnionMember0``, ``...UnionMember1``...
- On a clash with another schema the whole resource path names it
  (``KnowledgeBasesUploadRetrieveResponse``), then ``2``, ``3``, ... .
- The entries of ``components.responses`` and ``components.requestBodies`` are named after
  their key: ``<Key>Response``, ``<Key>Body``.

The method names come from the client's rules
(:func:`generator.normalize.naming.operations.client_names`), with the config's
``[client.resources]`` and ``[client.methods]``, which the pipeline hands this pass as its
options (``resources``, ``methods``). Only JSON media types (``application/json``,
``*+json``) are named: a form body is ``form_bodies``'s, a stream's event schema the
``streams`` pass's.

Webhooks (OpenAPI 3.1 ``webhooks``): the inline JSON payload (request body) of a webhook
is ``<Key>Event`` (``newPet`` -> ``NewPetEvent``; ``<Key><Method>Event`` when the entry has
several methods), so that each event has a model. A webhook whose payload is no object (no
JSON body, a string, an array, a nullable object) gets a warning: no event type is
generated for it. The passes before this one do not walk ``webhooks``; an inline payload is
normalized from here on (``inline_objects``, ``text`` and the checks), like a component.

It runs after ``names`` (operations carry their final Python name, ``x-apismith-name``)
and before ``inline_objects``, which names the inline objects inside the new models
(``TaskListResponseOwner``). New components are appended in path order, then method
order, request body first, then responses in status order as written.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from generator.errors import ApismithError
from generator.load import resolve_pointer
from generator.media import is_json
from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.inline_objects import is_inline_object
from generator.normalize.naming import HTTP_METHODS, is_valid_class_name, pascal_case
from generator.normalize.naming.operations import Name, client_names, singular
from generator.normalize.naming.resources import OperationFacts, one_record, success_schema
from generator.normalize.walk import json_copy, operations, pointer_join

NAME = "inline_bodies"
REF = "#/components/schemas/"


class Namer:
    """Component names for hoisted schemas: ``schemas`` (the spec's, which it adds to) and
    the names taken (exactly, and ignoring case: two classes apart by case only read as
    one in the docs' file names)."""

    def __init__(self, schemas: dict[str, Any]) -> None:
        self.schemas = schemas
        self.folded = {str(k).casefold() for k in schemas}

    def _free(self, name: str) -> bool:
        return name.casefold() not in self.folded and is_valid_class_name(name)

    def add(self, bases: list[str], schema: dict[str, Any]) -> str | None:
        """Add ``schema`` under the first of ``bases`` that is free, else the last with a
        number; None when no base is a valid class name."""
        valid = [b for b in bases if is_valid_class_name(b)]
        if not valid:
            return None
        name = next((b for b in valid if self._free(b)), None)
        n = 2
        while name is None or not self._free(name):
            name, n = f"{valid[-1]}{n}", n + 1
        self.folded.add(name.casefold())
        self.schemas[name] = schema
        return name


def _facts(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any], OperationFacts]]:
    found = []
    for _pointer, path, method, op in operations(doc):
        tags = tuple(str(t) for t in op.get("tags") or () if isinstance(t, str))
        python = str(op.get("x-apismith-name") or op.get("operationId") or f"{method}_{path}")
        op_id = op.get("operationId") if isinstance(op.get("operationId"), str) else None
        one = method == "get" and one_record(doc, success_schema(op))
        found.append((path, method, op, OperationFacts(path, method, op_id, python, tags, one)))
    return found


def _bases(name: Name, suffix: str) -> list[str]:
    """The names to try for a schema of ``name``'s method: leaf resource, whole path."""
    method = pascal_case(name.method)
    if not name.resource:
        return [f"{method}{suffix}"]
    leaf = pascal_case(singular(name.resource[-1]))
    whole = "".join(pascal_case(singular(r)) for r in name.resource)
    return list(dict.fromkeys([f"{leaf}{method}{suffix}", f"{whole}{method}{suffix}"]))


def _slots(holder: dict[str, Any], key: str) -> Iterator[tuple[Any, Any, str]]:
    """(container, key, suffix) of every inline object at ``holder[key]``: the schema
    itself, its array's items, a nullable or union's object members."""
    schema = holder.get(key)
    if not isinstance(schema, dict):
        return
    if is_inline_object(schema):
        yield holder, key, ""
    elif schema.get("type") == "array" and is_inline_object(schema.get("items")):
        yield schema, "items", "Item"
    else:
        for word in ("anyOf", "oneOf"):
            members = schema.get(word)
            if not isinstance(members, list):
                continue
            objects = [i for i, m in enumerate(members) if is_inline_object(m)]
            nulls = [m for m in members if isinstance(m, dict) and m.get("type") == "null"]
            single = len(objects) == 1 and len(members) - len(nulls) == 1
            for n, i in enumerate(objects):
                yield schema[word], i, "" if single else f"UnionMember{n}"


def _hoist(namer: Namer, content: Any, bases: list[str]) -> None:
    """Name every inline object of the JSON media types of ``content``; equal schemas of
    one request or response share a name."""
    if not isinstance(content, dict):
        return
    made: list[tuple[Any, str]] = []
    for media, entry in content.items():
        if not is_json(str(media)) or not isinstance(entry, dict):
            continue
        for container, key, suffix in list(_slots(entry, "schema")):
            schema = container[key]
            name = next((n for s, n in made if s == schema), None)
            if name is None:
                name = namer.add([b + suffix for b in bases], schema)
                if name is None:
                    continue
                made.append((schema, name))
            container[key] = {"$ref": REF + name}


def _operation(namer: Namer, op: dict[str, Any], name: Name) -> None:
    body = op.get("requestBody")
    if isinstance(body, dict):
        _hoist(namer, body.get("content"), _bases(name, "Body"))
    responses = op.get("responses")
    if not isinstance(responses, dict):
        return
    success = next((s for s in responses if str(s).startswith("2")), None)
    for status, response in responses.items():
        if isinstance(response, dict):
            suffix = "Response" if status == success else f"Response{pascal_case(str(status))}"
            _hoist(namer, response.get("content"), _bases(name, suffix))


def _components(namer: Namer, components: dict[str, Any]) -> None:
    for table, suffix in (("requestBodies", "Body"), ("responses", "Response")):
        entries = components.get(table)
        for key, entry in entries.items() if isinstance(entries, dict) else ():
            if isinstance(entry, dict):
                _hoist(namer, entry.get("content"), [f"{pascal_case(str(key))}{suffix}"])


def _resolved(doc: dict[str, Any], value: Any) -> Any:
    """``value`` through its ``$ref`` chain (a dangling or circular one: None)."""
    seen: set[str] = set()
    while isinstance(value, dict) and isinstance(value.get("$ref"), str):
        ref = value["$ref"]
        if ref in seen or not ref.startswith("#"):
            return None
        seen.add(ref)
        try:
            value = resolve_pointer(doc, ref)
        except KeyError:
            return None
    return value


def _is_object(schema: Any) -> bool:
    """An object schema (what the IR makes an object model of)."""
    if not isinstance(schema, dict) or any(k in schema for k in ("anyOf", "oneOf", "enum")):
        return False
    if "properties" in schema or isinstance(schema.get("allOf"), list):
        return "const" not in schema
    return schema.get("type") == "object" and not isinstance(
        schema.get("additionalProperties"), dict
    )


def _payload_problem(doc: dict[str, Any], schemas: dict[str, Any], body: Any) -> str | None:
    """Why a webhook's request body gives no event model (None: it does); ``schemas``:
    the component schemas, those this pass made included."""
    body = _resolved(doc, body)
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, dict) or not content:
        return "it has no request body"
    media = [m for m in content if is_json(str(m))]
    if not media:
        return "its request body is not JSON"
    entry = content["application/json" if "application/json" in media else media[0]]
    schema = entry.get("schema") if isinstance(entry, dict) else None
    ref = schema.get("$ref") if isinstance(schema, dict) and len(schema) == 1 else None
    if not isinstance(ref, str) or not ref.startswith(REF):
        return "its payload is not an object"
    name = ref.removeprefix(REF)
    if not _is_object(_resolved(doc, schemas.get(name))):
        return f"its payload {name} is not an object"
    return None


def _webhooks(namer: Namer, doc: dict[str, Any]) -> list[Diagnostic]:
    """Name the inline payload of every webhook; a warning for each payload that is no
    object (the IR leaves that webhook out)."""
    found: list[Diagnostic] = []
    entries = doc.get("webhooks")
    for key, item in entries.items() if isinstance(entries, dict) else ():
        item = _resolved(doc, item)
        if not isinstance(item, dict):
            continue
        methods = [m for m in HTTP_METHODS if isinstance(item.get(m), dict)]
        for method in methods:
            stem = pascal_case(str(key)) + (pascal_case(method) if len(methods) > 1 else "")
            body = item[method].get("requestBody")
            if isinstance(body, dict):
                _hoist(namer, body.get("content"), [f"{stem}Event"])
            problem = _payload_problem(doc, namer.schemas, body)
            if problem is not None:
                pointer = pointer_join("#/webhooks", str(key), method)
                message = f"webhook {key!r}: {problem}; no event type is generated for it"
                found.append(Diagnostic(NAME, "warning", pointer, message))
    return found


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(doc: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``doc`` is the caller's to give (see :mod:`generator.normalize`)."""
    components = doc.get("components", {})
    if not isinstance(components, dict):
        return PassResult(spec=doc)
    schemas = components.get("schemas", {})
    if not isinstance(schemas, dict):
        return PassResult(spec=doc)
    facts = _facts(doc)
    ops = [f for *_, f in facts]
    resources, methods = options.get("resources") or {}, options.get("methods") or {}
    try:
        names = client_names(ops, resources, methods)
    except ApismithError:  # a config name that is taken: the client's naming says so
        names = client_names(ops, resources)
    namer = Namer(dict(schemas))
    for (_path, _method, op, _f), name in zip(facts, names, strict=True):
        _operation(namer, op, name)
    _components(namer, components)
    warnings = _webhooks(namer, doc)
    if len(namer.schemas) > len(schemas):
        doc.setdefault("components", components)["schemas"] = namer.schemas
    return PassResult(spec=doc, diagnostics=tuple(warnings))
