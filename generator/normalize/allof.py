"""Normalization pass `allof`: single-member ``allOf`` wrappers.

Generators (FastAPI/pydantic among them) write a field whose type is a named schema as
``{"allOf": [{"$ref": R}], "description": ..., "default": ...}``, because OpenAPI 3.0
ignored siblings of ``$ref``. In 3.1 they are allowed, so:

- ``allOf`` with one pure ``{"$ref": R}`` member and only annotation siblings becomes
  ``{"$ref": R, ...siblings}``. Annotations are the metadata keywords (description, title,
  default, examples, ...), ``x-*`` extensions, and unknown keywords, which JSON Schema
  treats as annotations (SGP writes ``can_patch`` there);
- ``allOf`` with one inline member is merged into its parent when no keyword is given two
  different values, unless the result would be a ``$ref`` beside validation keywords;
- ``allOf`` with one pure ``{"$ref": R}`` member and others that only annotate
  (``[{"$ref": R}, {"description": ...}]``, how AWS's specs describe a field of a named
  type: 8,640 times in EC2's) is read as the single-member case, the annotations going
  beside it, when no keyword is given two different values;
- anything else (several members, a ``$ref`` member next to ``properties``...) is kept.

``xml`` (OpenAPI's XML naming) only annotates a value as JSON sees it.

Routine unwrapping reports nothing; a single-member ``allOf`` kept because of a conflict
gets a ``warning``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.walk import Schema, json_copy, transform_schemas

NAME = "allof"

ANNOTATIONS = frozenset(
    {"description", "title", "default", "examples", "example", "deprecated", "readOnly",
     "writeOnly", "nullable", "$comment", "externalDocs", "xml"}
)  # fmt: skip
# Keywords of JSON Schema 2020-12 (and OpenAPI's additions) that constrain or shape a value.
VALIDATION = frozenset(
    {"$ref", "$dynamicRef", "type", "enum", "const", "format", "multipleOf", "maximum",
     "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
     "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties",
     "minProperties", "required", "dependentRequired", "items", "prefixItems", "contains",
     "additionalItems", "properties", "patternProperties", "additionalProperties",
     "propertyNames", "dependentSchemas", "unevaluatedItems", "unevaluatedProperties",
     "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "discriminator",
     "contentEncoding", "contentMediaType", "contentSchema", "$defs", "definitions"}
)  # fmt: skip


def is_annotation(key: str) -> bool:
    """Whether a keyword only describes a value (it can sit beside a ``$ref``)."""
    return key in ANNOTATIONS or key.startswith("x-") or key not in VALIDATION


def _annotations_beside(schema: Schema) -> Schema:
    """``allOf: [{$ref}, {annotations}...]`` as ``allOf: [{$ref}]`` with the annotations
    beside it (after the schema's own keywords); anything else as it is."""
    members = schema.get("allOf")
    if not isinstance(members, list) or len(members) < 2:
        return schema
    if not all(isinstance(m, dict) and m for m in members):
        return schema
    refs = [m for m in members if not all(is_annotation(k) for k in m)]
    if len(refs) != 1 or list(refs[0]) != ["$ref"]:
        return schema
    notes: Schema = {}
    for member in members:
        for key, value in member.items() if member is not refs[0] else ():
            if notes.get(key, value) != value or schema.get(key, value) != value:
                return schema  # two values for one keyword: kept as it is
            notes[key] = value
    out: Schema = {k: ([refs[0]] if k == "allOf" else v) for k, v in schema.items()}
    out.update((k, v) for k, v in notes.items() if k not in out)
    return out


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(doc: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``doc`` is the caller's to give (see :mod:`generator.normalize`)."""
    diagnostics: list[Diagnostic] = []

    def unwrap(schema: Schema, pointer: str) -> Schema:
        schema = _annotations_beside(schema)
        members = schema.get("allOf")
        if not isinstance(members, list) or len(members) != 1 or not isinstance(members[0], dict):
            return schema
        member: Schema = members[0]
        siblings = {k: v for k, v in schema.items() if k != "allOf"}
        conflicts = sorted(k for k in member if k in siblings and siblings[k] != member[k])
        if conflicts:
            why = f"it and its parent give different values to {', '.join(conflicts)}"
            diagnostics.append(
                Diagnostic(NAME, "warning", pointer, f"single-member allOf kept: {why}")
            )
            return schema
        merged: Schema = {}
        for key, value in schema.items():  # the member takes the place of the allOf
            if key == "allOf":
                merged.update(member)
            elif key not in member:
                merged[key] = value
        if "$ref" in merged and not all(is_annotation(k) for k in merged if k != "$ref"):
            return schema  # a $ref extended with constraints: composition, not a wrapper
        return merged

    transform_schemas(doc, unwrap)
    return PassResult(spec=doc, diagnostics=tuple(diagnostics))
