"""OpenAPI 3.2 read in the form later stages know: a load pass, like :mod:`.swagger2`.

:func:`lower_openapi32` rewrites what 3.2 adds to 3.1 into 3.1 constructs (and a few
``x-apismith-`` marks); the document keeps ``openapi: 3.2.x``. What it moves:

- **``$self``** (the document's own URI) is the base of its relative refs: a ``$ref``
  that, resolved against it, points into this document becomes a local ``#/...`` ref, and
  one under ``$self``'s folder the relative path of that file (read inside the ref root
  like any other). Every other ref is left as written, for the ref policy to judge (an
  absolute URL, or a path leaving the folder, is refused).
- **``additionalOperations``** of a path item: each method of the IANA registry (and
  ``PURGE``) becomes the path item's operation of that lower-case name (``COPY`` is
  ``copy``), beside ``query`` and the fixed methods; another method (or one the path item
  already has) is left out, with a warning.
- **``in: querystring``** (the whole query string, one parameter): an
  ``application/x-www-form-urlencoded`` object becomes one ``query`` parameter per
  property (``form``, exploded: the same bytes on the wire), required where the object
  requires it and the parameter is required. Another form is left out, with a warning.
- **``itemSchema``** of a sequential media type (a stream of items): the media type's
  ``schema`` becomes one item, marked ``x-apismith-sequence: <format>`` (``sse``,
  ``jsonl``, ``json-seq``: :func:`generator.media.sequence_format`). For
  ``text/event-stream`` the item is the JSON ``contentSchema`` of the event's ``data``
  (the chunk), and an alternative whose ``data`` is a ``const`` is the stream's end
  event (``x-apismith-terminator``). Events of plain text data, and ``itemSchema`` in
  other media types, are read as their text, with a warning.

Tags keep their 3.2 ``parent``, ``summary`` and ``kind``: the client's resource tree reads
them (:func:`generator.render.settings.tag_resources`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urldefrag, urljoin

from generator.load.common import escape_token, resolve_pointer
from generator.media import media_base, sequence_format
from generator.methods import HTTP_METHODS

Warning = tuple[str, str, str]  # (file, pointer, message)
FIXED_METHODS = HTTP_METHODS[:9]  # the path item's own fields, ``query`` the last
FORM = "application/x-www-form-urlencoded"
SEQUENCE, TERMINATOR = "x-apismith-sequence", "x-apismith-terminator"


def is_openapi32(doc: dict[str, Any]) -> bool:
    return str(doc.get("openapi", "")).startswith("3.2")


def lower_openapi32(doc: dict[str, Any], file: str) -> tuple[dict[str, Any], list[Warning]]:
    """``doc`` (an OpenAPI 3.2 document, freshly read: changed in place) in the 3.1 form,
    and the warnings of what was left out."""
    lower = _Lower(doc, file)
    lower.document()
    return doc, lower.warnings


class _Lower:
    def __init__(self, doc: dict[str, Any], file: str) -> None:
        self.doc, self.file = doc, file
        self.warnings: list[Warning] = []

    def warn(self, pointer: str, message: str) -> None:
        self.warnings.append((self.file, pointer, message))

    def resolve(self, value: Any) -> Any:
        """``value``, or what its local ``$ref`` points at (one step; None when dangling)."""
        if isinstance(value, dict) and isinstance(value.get("$ref"), str):
            ref = value["$ref"]
            if ref.startswith("#"):
                try:
                    return resolve_pointer(self.doc, ref)
                except (KeyError, IndexError, ValueError, TypeError):
                    return None
        return value

    def document(self) -> None:
        doc = self.doc
        base = doc.pop("$self", None)
        if isinstance(base, str) and base:
            rebase(doc, base)
        for key in ("paths", "webhooks"):
            items = doc.get(key)
            for name, item in items.items() if isinstance(items, dict) else ():
                self.path_item(item, f"#/{key}/{escape_token(str(name))}")
        comps = doc.get("components")
        comps = comps if isinstance(comps, dict) else {}
        for kind, each in (("pathItems", self.path_item), ("requestBodies", self.content_of)):
            for name, obj in (comps.get(kind) or {}).items():
                each(obj, f"#/components/{kind}/{escape_token(str(name))}")
        for name, obj in (comps.get("responses") or {}).items():
            self.content_of(obj, f"#/components/responses/{escape_token(str(name))}")

    def path_item(self, item: Any, pointer: str) -> None:
        if not isinstance(item, dict):
            return
        extra = item.pop("additionalOperations", None)
        for method, op in extra.items() if isinstance(extra, dict) else ():
            low = str(method).lower()
            here = f"{pointer}/additionalOperations/{escape_token(str(method))}"
            if low in FIXED_METHODS or low not in HTTP_METHODS or low in item:
                why = "has its own field" if low in FIXED_METHODS else "is not supported"
                why = "is declared twice" if low in item and low not in FIXED_METHODS else why
                self.warn(here, f"the {method} method {why}: the operation is left out")
            else:
                item[low] = op
        self.parameters(item, pointer)
        for method in HTTP_METHODS:
            op = item.get(method)
            if isinstance(op, dict):
                self.operation(op, f"{pointer}/{method}")

    def operation(self, op: dict[str, Any], pointer: str) -> None:
        self.parameters(op, pointer)
        self.content_of(op.get("requestBody"), pointer + "/requestBody")
        responses = op.get("responses")
        for status, response in responses.items() if isinstance(responses, dict) else ():
            self.content_of(response, f"{pointer}/responses/{status}")

    def parameters(self, owner: dict[str, Any], pointer: str) -> None:
        params = owner.get("parameters")
        if not isinstance(params, list):
            return
        kept: list[Any] = []
        for i, param in enumerate(params):
            found = self.resolve(param)
            if isinstance(found, dict) and found.get("in") == "querystring":
                kept += self.querystring(found, f"{pointer}/parameters/{i}")
            else:
                kept.append(param)
        owner["parameters"] = kept

    def querystring(self, param: dict[str, Any], pointer: str) -> list[dict[str, Any]]:
        """The ``query`` parameters of one ``in: querystring`` parameter (see the module)."""
        content = param.get("content")
        media, entry = "", None
        if isinstance(content, dict) and content:
            media, entry = next(iter(content.items()))
        schema = self.resolve(entry.get("schema")) if isinstance(entry, dict) else None
        props = schema.get("properties") if isinstance(schema, dict) else None
        if media_base(str(media)) != FORM or not isinstance(props, dict):
            what = f"{media} content" if media else "no content"
            message = f"a querystring parameter of {what} is not supported: it is left out"
            self.warn(pointer, message)
            return []
        assert isinstance(schema, dict)  # it has properties
        required = set(schema.get("required") or ()) if param.get("required") else set()
        out = []
        for name, prop in props.items():
            query: dict[str, Any] = {"name": name, "in": "query", "required": name in required}
            if isinstance(prop, dict) and isinstance(prop.get("description"), str):
                query["description"] = prop["description"]
            out.append({**query, "style": "form", "explode": True, "schema": prop})
        return out

    def content_of(self, owner: Any, pointer: str) -> None:
        """Lower the ``itemSchema`` of each media type of a request body or response."""
        content = owner.get("content") if isinstance(owner, dict) else None
        for media, entry in content.items() if isinstance(content, dict) else ():
            if isinstance(entry, dict) and "itemSchema" in entry:
                self.item_schema(str(media), entry, f"{pointer}/content/{escape_token(media)}")

    def item_schema(self, media: str, entry: dict[str, Any], pointer: str) -> None:
        item = entry.pop("itemSchema")
        fmt = sequence_format(media)
        terminator = None
        if fmt == "sse":
            item, terminator = self.sse_chunk(item)
        if fmt is None or item is None:
            what = "events of text data" if fmt else f"an itemSchema in {media_base(media)}"
            self.warn(pointer, f"{what}: the answer is read as its text")
            entry.setdefault("schema", {"type": "string"})
            return
        entry.setdefault("schema", item)
        entry[SEQUENCE] = fmt
        if terminator is not None:
            entry[TERMINATOR] = terminator

    def sse_chunk(self, event: Any) -> tuple[Any, str | None]:
        """The JSON chunk one server-sent event's ``data`` carries (None: text data), and
        the ``const`` data of an end event (None: no such alternative)."""
        event = self.resolve(event)
        alternatives = [event]
        if isinstance(event, dict) and isinstance(event.get("oneOf") or event.get("anyOf"), list):
            alternatives = [self.resolve(a) for a in event.get("oneOf") or event["anyOf"]]
        chunks: list[Any] = []
        terminator = None
        for alt in alternatives:
            props = alt.get("properties") if isinstance(alt, dict) else None
            data = self.resolve(props.get("data")) if isinstance(props, dict) else None
            if not isinstance(data, dict):
                continue
            if isinstance(data.get("const"), str):
                terminator = data["const"]
            elif isinstance(data.get("contentSchema"), dict):
                chunks.append(data["contentSchema"])
        if not chunks:
            return None, terminator
        return (chunks[0] if len(chunks) == 1 else {"oneOf": chunks}), terminator


def rebase(doc: Any, base: str) -> None:
    """Every ``$ref`` of ``doc`` that, resolved against ``base`` (``$self``), points into
    this document or under its folder, rewritten to the local or relative form."""
    own, _ = urldefrag(base)
    folder = own.rsplit("/", 1)[0] + "/" if "/" in own else ""
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            target, fragment = urldefrag(urljoin(base, ref))
            if target == own:
                node["$ref"] = "#" + fragment
            elif folder and target.startswith(folder) and "/../" not in "/" + ref:
                node["$ref"] = target[len(folder) :] + (f"#{fragment}" if fragment else "")
        stack.extend(v for v in node.values() if isinstance(v, (dict, list)))


__all__ = ["is_openapi32", "lower_openapi32", "rebase"]
