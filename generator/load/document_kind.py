"""What kind of document the input is: an OpenAPI document, or a JSON Schema; else refused.

Without this, a wrong file exits 0 with an empty package: a YAML file of anything else
(a config, a Compose file) generates no models, and ``path:`` typed for ``paths:`` gives
0 operations. So (exit 2, with the pointer of the key):

- a document with ``openapi`` is an OpenAPI document, and each of its top-level keys is
  one OpenAPI 3.0, 3.1 or 3.2 defines (:data:`OPENAPI_KEYS`), an ``x-`` extension, or a
  JSON Schema definitions map the ``defs`` pass hoists (``definitions``, ``$defs``). An
  unknown key is refused, with the closest known key as a "did you mean" (difflib);
- a document without ``openapi`` (``swagger`` is refused before this) is a JSON Schema
  when it has a schema keyword at the top level (:data:`SCHEMA_KEYWORDS`: ``$schema``,
  ``type``, ``properties``, ``$defs``, ``allOf``, ...; annotations alone, a ``title`` or
  a ``description``, are not enough). Anything else is neither, and refused; a key close
  to ``openapi`` (``openAPI``, ``opneapi``) is named as a "did you mean".
"""

from __future__ import annotations

import difflib
from typing import Any

from generator.load.common import _fail, escape_token

OPENAPI_KEYS = (
    "openapi",
    "info",
    "jsonSchemaDialect",
    "servers",
    "paths",
    "webhooks",
    "components",
    "security",
    "tags",
    "externalDocs",
    "$self",  # OpenAPI 3.2
)
DEFINITIONS = ("definitions", "$defs")  # hoisted into components.schemas (the defs pass)
SCHEMA_KEYWORDS = frozenset(
    {
        "$schema", "$id", "$ref", "$defs", "definitions", "$anchor", "$dynamicRef",
        "$dynamicAnchor", "$vocabulary", "type", "enum", "const", "properties",
        "patternProperties", "additionalProperties", "propertyNames", "required",
        "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties",
        "minProperties", "maxProperties", "items", "prefixItems", "additionalItems",
        "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems",
        "unevaluatedItems", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
        "format", "pattern", "minLength", "maxLength", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "contentMediaType",
        "contentEncoding", "contentSchema",
    }
)  # fmt: skip


def _did_you_mean(key: str, known: tuple[str, ...]) -> str:
    """`` (did you mean `paths`?)`` for the closest of ``known``, or ""."""
    close = difflib.get_close_matches(key.lower(), [k.lower() for k in known], n=1, cutoff=0.6)
    if not close:
        return ""
    original = next(k for k in known if k.lower() == close[0])
    return f" (did you mean {original!r}?)"


def check_kind(doc: dict[str, Any], shown: str) -> None:
    """Raise unless ``doc`` is an OpenAPI document with known top-level keys, or a JSON
    Schema (see the module docstring)."""
    if "openapi" in doc:
        for key in doc:
            if not isinstance(key, str) or key.startswith("x-"):
                continue
            if key in OPENAPI_KEYS or key in DEFINITIONS:
                continue
            _fail(
                f"unknown top-level key {key!r} in an OpenAPI document"
                + _did_you_mean(key, OPENAPI_KEYS),
                shown,
                "#/" + escape_token(key),
            )
        return
    if SCHEMA_KEYWORDS.intersection(doc):
        return
    hint = ""
    for key in doc:
        if isinstance(key, str) and _did_you_mean(key, ("openapi",)):
            _fail(
                f"unknown top-level key {key!r}, and no 'openapi' key (did you mean 'openapi'?)",
                shown,
                "#/" + escape_token(key),
            )
    if any(key in doc for key in ("paths", "info", "components")):
        hint = ": an OpenAPI document starts with an 'openapi' key (openapi: 3.1.0)"
    _fail(
        "neither an OpenAPI document (no 'openapi' key) nor a JSON Schema (no schema "
        "keyword at the top level)" + hint,
        shown,
        "#",
    )
