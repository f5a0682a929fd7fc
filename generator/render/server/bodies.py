"""Request bodies that are not JSON (XML, plain text, ...): the server takes them as their
declared media type, where FastAPI would read a JSON value only (and answer 422).

A JSON body may be declared in other media types too (Velo Payments: JSON and multipart;
Noosh: JSON, XML and Smile). The route takes each of them: a form (urlencoded or
multipart) is read as the JSON object of its fields (``_server``'s route class does that,
for the media types the route documents in ``openapi_extra``), validated by the same
model; any other media type arrives as its bytes (the argument is ``Model | bytes``), for
the service to parse.

A success answer declared in a media type other than JSON (``text/plain``, Velo
Payments' ``application/csv``, XML) is sent in it (``media_response`` of ``_server``).

A form body without files is read the same way (its fields are the route's ``Body``
arguments, ``embed``-ded): FastAPI's own forms read an empty field as a missing one, so a
required field sent empty (``email=&password=``, skynewz's OAuth token endpoint) got a
422 where the spec allows the empty string. A form with files keeps FastAPI's ``File``
and ``Form`` arguments."""

from __future__ import annotations

from typing import Any

from generator.ir import Operation, RequestBody, TypeRef
from generator.media import is_json, media_base

FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


def raw_body(schema: TypeRef, media: str) -> tuple[str, str] | None:
    """(annotation, FastAPI marker) of a body of media type ``media`` that is not JSON: its
    text (a string schema) or its bytes (anything else: XML of an object, a binary file)
    as they came, for the service to parse; None for a JSON body, and for one of any media
    type (``*/*``) that is not text (Clever Cloud's: JSON is one such body)."""
    text = schema.kind == "primitive" and schema.primitive == "string"
    if is_json(media) or ("*" in media and not text):
        return None
    ann = "bytes" if not text or schema.format == "binary" else "str"
    return ann, f"Body(media_type={media!r})"


def other_media(body: RequestBody) -> list[str]:
    """The media types a JSON body is also declared in (in the spec's order, each once)."""
    if not is_json(body.content_type):
        return []
    found = [media_base(m.content_type) for m in body.content if not is_json(m.content_type)]
    return list(dict.fromkeys(found))


def form_members(body: RequestBody) -> list[TypeRef]:
    """The schemas of the forms a JSON body is also declared as, where they differ from the
    JSON one (Velo Payments: ``{payees: [...]}`` as JSON, ``{file, payorId}`` as a form):
    the route's body is then their union."""
    if not is_json(body.content_type):
        return []
    found: list[TypeRef] = []
    for m in body.content:
        if (
            media_base(m.content_type) in FORMS
            and m.schema != body.schema
            and m.schema not in found
        ):
            found.append(m.schema)
    return found


def takes_bytes(body: RequestBody) -> bool:
    """Whether a JSON body may also come in a media type read as bytes (XML, ...)."""
    return any(m not in FORMS for m in other_media(body))


def body_doc(body: RequestBody, uploads: bool = False) -> dict[str, Any] | None:
    """The route's ``openapi_extra`` entry documenting the media types FastAPI does not
    see, each with the body's model: those a JSON body is also declared in, and those of
    a form body read as JSON fields (one without files: ``uploads`` is False)."""
    media = media_base(body.content_type)
    schema: dict[str, Any] = {}  # (the route class fills in the model FastAPI builds)
    if media in FORMS and not uploads and body.schema.kind == "model":
        others = list(dict.fromkeys(media_base(m.content_type) for m in body.content))
        others = [m for m in others if m in FORMS] or [media]
    else:
        others = other_media(body)
        own = {media_base(m.content_type): m.schema for m in body.content}
        return (
            {"content": {m: {"schema": _ref(own.get(m, body.schema))} for m in others}}
            if others
            else None
        )
    if not others:
        return None
    return {"content": {m: {"schema": schema} for m in others}}


def _ref(t: TypeRef) -> dict[str, Any]:
    """A model's component reference (FastAPI registers the models of a route's body)."""
    return {"$ref": f"#/components/schemas/{t.name}"} if t.kind == "model" and t.name else {}


def answer_media(op: Operation) -> str | None:
    """The media type of ``op``'s success answer when it is neither JSON nor a stream
    (``text/plain``, ``application/csv``, XML): the route answers in it (a string as its
    text, other data as JSON text: the mock's data), as the spec declares it; else None."""
    ok = op.success_response
    media = media_base(ok.content_type) if ok is not None and ok.content_type else ""
    if not media or is_json(media) or media == "text/event-stream" or "*" in media:
        return None
    return media
