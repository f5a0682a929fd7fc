"""Normalization pass `read_write`: a ``readOnly`` or ``writeOnly`` property is not required.

OpenAPI says a required ``readOnly`` property (an id the server assigns) is required in
responses only, and a required ``writeOnly`` one (a password) in requests only. One
generated model serves both directions, so it can require neither: a client would have to
send the id it cannot know, a server stub would refuse a create without it (422), and a
response that rightly leaves the password out would fail validation. Such properties are
taken out of ``required`` (the model makes them optional); the mock still answers every
``readOnly`` field and never a ``writeOnly`` one.

A property counts as ``readOnly``/``writeOnly`` when its schema says so, or the component
schema its ``$ref`` names does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.load import unescape_token
from generator.normalize.diagnostics import PassResult
from generator.normalize.walk import json_copy, walk_schemas

NAME = "read_write"
_SCHEMAS = "#/components/schemas/"


def _one_way(prop: Any, schemas: Mapping[str, Any]) -> bool:
    """Whether property schema ``prop`` is readOnly or writeOnly (itself or its target)."""
    if not isinstance(prop, dict):
        return False
    if prop.get("readOnly") is True or prop.get("writeOnly") is True:
        return True
    ref = prop.get("$ref")
    name = ref[len(_SCHEMAS) :] if isinstance(ref, str) and ref.startswith(_SCHEMAS) else "/"
    target = schemas.get(unescape_token(name)) if "/" not in name else None
    return isinstance(target, dict) and (
        target.get("readOnly") is True or target.get("writeOnly") is True
    )


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(doc: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``doc`` is the caller's to give (see :mod:`generator.normalize`)."""
    components = doc.get("components")
    schemas = components.get("schemas") if isinstance(components, dict) else None
    schemas = schemas if isinstance(schemas, dict) else {}
    for schema in walk_schemas(doc):
        required, properties = schema.get("required"), schema.get("properties")
        if not isinstance(required, list) or not isinstance(properties, dict):
            continue
        kept = [n for n in required if not _one_way(properties.get(n), schemas)]
        if len(kept) != len(required):
            if kept:
                schema["required"] = kept
            else:
                del schema["required"]
    return PassResult(doc, ())
