"""Request bodies that are not JSON (XML, plain text, ...): the server takes them as their
declared media type, where FastAPI would read a JSON value only (and answer 422)."""

from __future__ import annotations

from generator.ir import TypeRef
from generator.media import is_json


def raw_body(schema: TypeRef, media: str) -> tuple[str, str] | None:
    """(annotation, FastAPI marker) of a body of media type ``media`` that is not JSON: its
    text (a string schema) or its bytes (anything else: XML of an object, a binary file)
    as they came, for the service to parse; None for a JSON body."""
    if is_json(media):
        return None
    text = schema.kind == "primitive" and schema.primitive == "string"
    ann = "bytes" if not text or schema.format == "binary" else "str"
    return ann, f"Body(media_type={media!r})"
