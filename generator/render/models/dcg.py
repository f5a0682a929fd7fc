"""Render ``models.py``: datamodel-code-generator (DCG) on the normalized spec.

DCG does the model rendering. Its options are fixed here, in one place
(``DCG_OPTIONS``), so that every API renders the same way:

- pydantic v2 ``BaseModel``, ``X | None`` unions, ``Annotated[..., Field(...)]``;
- constraints as ``Field`` arguments (never ``confloat``);
- every enum as a ``Literal`` (one consistent rendering), named enums and other
  non-object schemas as type aliases (no ``RootModel`` to unwrap);
- ``extra="allow"`` on every model: servers add fields before their specs do;
- naive date-times accepted (``datetime``, not ``AwareDatetime``);
- aliased fields can be populated by their Python name too.

Before DCG, :func:`dcg_input` reshapes a construct DCG renders poorly (array items it would
give numbered names are named earlier, by the ``array_items`` normalize pass, so the IR
knows them too); after it, :mod:`generator.render.models.fixups` rewrites its output
where it falls short, :mod:`generator.render.models.open_enums` lets the response models
keep an enum value or a tagged union member a newer server added, and
:mod:`generator.render.models.tags` lets a tagged union take an input without the tag when
a member defaults it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from generator.errors import ApismithError
from generator.render.models.fixups import defined_names, fix_up
from generator.render.models.open_enums import KEY, open_responses, request_only
from generator.render.models.tags import accept_missing_tags

DCG_OPTIONS: dict[str, Any] = {
    "allow_remote_refs": False,  # (and _refuse_reads: DCG reads nothing but its input)
    "output_model_type": "pydantic_v2.BaseModel",
    "target_python_version": "3.10",
    "disable_timestamp": True,
    "use_union_operator": True,
    "use_standard_collections": True,
    "use_annotated": True,
    "field_constraints": True,
    "use_double_quotes": True,
    "extra_fields": "allow",
    "allow_population_by_field_name": True,
    "strict_nullable": True,
    "output_datetime_class": "datetime",
    "enum_field_as_literal": "all",
    "use_type_alias": True,
    "use_schema_description": True,
    "keep_model_order": False,
    "formatters": [],
    "wrap_string_literal": False,
    # EmailStr needs the email-validator package and ULID python-ulid; generated packages
    # depend on pydantic only. SecretStr would dump as "**********": a client sending a
    # password field would send the mask.
    "type_mappings": [
        "string+email=string",
        "string+idn-email=string",
        "string+password=string",
        "string+ulid=string",
        "number+time-delta=number",
    ],
}


def field_aliases(spec: Mapping[str, Any]) -> dict[str, str]:
    """``{"Model.wire_name": python_name}`` from the names pass's ``x-python-name``.

    DCG pastes these names into the module as they are, so they come from
    :func:`naming.field_python_names`, which takes an ``x-python-name`` only when it passes
    the identifier validator (the ``identifiers`` pass has already replaced any that does
    not; this holds for a spec that skipped normalization too).
    """
    from generator.normalize.naming import field_python_names

    aliases: dict[str, str] = {}
    for model, schema in sorted((spec.get("components", {}).get("schemas") or {}).items()):
        props = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(props, dict):
            continue
        names = field_python_names(props)
        for wire, prop in props.items():
            if isinstance(prop, dict) and "x-python-name" in prop:
                aliases[f"{model}.{wire}"] = names[wire][0]
    return aliases


# Schema keywords that hold data, not schemas: an ``x-`` key inside them is a value.
_DATA_KEYS = frozenset(
    {"default", "enum", "const", "examples", "example", "required", "discriminator"}
)
# Keywords whose value maps names (not keywords) to schemas.
_NAME_MAPS = frozenset(
    {
        "properties",
        "patternProperties",
        "$defs",
        "definitions",
        "dependentSchemas",
        "dependencies",
        "dependentRequired",
    }
)


def strip_extensions(schema: Any) -> None:
    """Remove every ``x-`` extension from a schema and its sub-schemas, in place.

    DCG reads extensions as code: ``x-python-type`` becomes an annotation,
    ``x-python-import`` an import statement, ``x-enum-varnames`` member names. A spec is
    untrusted, so none reaches it; what the generator wants DCG to know (field names) goes
    through its options instead.
    """
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        for key in [k for k in node if isinstance(k, str) and k.startswith("x-")]:
            del node[key]
        for key, value in node.items():
            if key in _DATA_KEYS:
                continue
            if key in _NAME_MAPS and isinstance(value, dict):
                stack.extend(value.values())
            elif isinstance(value, (dict, list)):
                stack.append(value)


def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null" and len(schema) == 1


def model_input(spec: Mapping[str, Any]) -> dict[str, Any]:
    """What of the normalized spec DCG reads: all of it but ``paths``, unless a schema
    refers into them (DCG renders ``components/schemas`` only; on GitHub the paths are
    most of the document, which the model worker would otherwise be sent). A shallow
    copy: the values are the spec's own. What the paths tell the models (the schemas only
    requests reach, whose enums stay closed: :mod:`.open_enums`) is under ``KEY``."""
    from generator.load.refs import walk_refs

    refs = walk_refs(spec.get("components") or {})
    data = dict(spec)
    data[KEY] = request_only(spec, refs)
    if "paths" in spec and not any(ref["$ref"].startswith("#/paths") for _, ref in refs):
        del data["paths"]
    return data


def dcg_input(spec: Mapping[str, Any], *, owned: bool = False) -> dict[str, Any]:
    """The normalized spec in the shape DCG renders best: a copy (the input is untouched),
    or, when the caller ``owned`` it (the model worker's own unpickled copy), the input
    itself, reshaped in place.

    A string of non-text ``contentMediaType`` (OpenAPI 3.1's ``format: binary``) gets the
    format back, so that DCG renders it ``bytes`` as it does ``format: binary``.

    The canonical nullable tagged union ``anyOf: [{oneOf: [A, B], discriminator}, null]``
    loses its discriminator in DCG; ``oneOf: [A, B, null]`` beside the discriminator keeps
    it (and the fix-up below moves ``None`` out of the ``Annotated``).
    """
    from generator.ir.types import is_binary_media
    from generator.normalize.walk import iter_schemas, json_copy

    data: dict[str, Any] = dict(spec) if owned else json_copy(dict(spec))
    data.pop(KEY, None)
    for _pointer, schema in list(iter_schemas(data)):
        if schema.get("type") == "string" and "format" not in schema and is_binary_media(schema):
            schema["format"] = "binary"  # raw bytes, as the IR reads them (DCG: str)
        members = schema.get("anyOf")
        if not (isinstance(members, list) and len(members) == 2 and _is_null(members[1])):
            continue
        inner = members[0]
        if not (isinstance(inner, dict) and "discriminator" in inner):
            continue
        union_key = "oneOf" if "oneOf" in inner else "anyOf"
        if not isinstance(inner.get(union_key), list):
            continue
        del schema["anyOf"]
        for key, value in inner.items():
            if key not in schema or key in (union_key, "discriminator"):
                schema[key] = value
        schema["oneOf"] = [*inner[union_key], {"type": "null"}]
        if union_key == "anyOf":
            schema.pop("anyOf", None)
    strip_extensions(list((data.get("components") or {}).get("schemas", {}).values()))
    return data


def _refuse_reads() -> None:
    """Make DCG's one way to read a reference's target (a file or a URL) fail.

    The load stage leaves no reference DCG could follow outside the document
    (:mod:`generator.load.ref_keywords`); this is the second wall: should one remain, DCG
    raises instead of reading (exit 2, the target not shown)."""
    from datamodel_code_generator.parser.jsonschema import JsonSchemaParser

    def refused(self: Any, resolved_ref: str) -> Any:
        raise ApismithError(
            "model rendering tried to follow a reference outside the document: refused"
        )

    JsonSchemaParser._get_ref_body = refused  # type: ignore[method-assign]


def run_dcg(spec: Mapping[str, Any], header: str, *, owned: bool = False) -> str:
    """Call datamodel-code-generator in-process on a spec dict; return the module text.
    ``owned``: the spec is the caller's to give away (:func:`dcg_input` reshapes it in
    place instead of copying)."""
    from datamodel_code_generator import generate
    from datamodel_code_generator.enums import DataModelType, InputFileType
    from datamodel_code_generator.format import DatetimeClassType, PythonVersion

    options = dict(DCG_OPTIONS)
    options["output_model_type"] = DataModelType.PydanticV2BaseModel
    options["target_python_version"] = PythonVersion.PY_310
    options["output_datetime_class"] = DatetimeClassType.Datetime
    aliases = field_aliases(spec)
    if aliases:
        options["aliases"] = aliases
    _refuse_reads()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = generate(
                dcg_input(spec, owned=owned),
                input_file_type=InputFileType.OpenAPI,
                output=None,
                custom_file_header=header,
                **options,
            )
        except ApismithError:
            raise
        except Exception as exc:  # DCG raises many types; report one line
            message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ApismithError(f"model rendering failed: {message}", exit_code=1) from None
    if not isinstance(result, str):
        raise ApismithError("model rendering produced several modules; expected one", exit_code=1)
    return result


def render_models(spec: Mapping[str, Any], header: str, *, owned: bool = False) -> str:
    """The text of ``models.py`` (unformatted) for a normalized spec (``owned``: see
    :func:`run_dcg`)."""
    if not (spec.get("components") or {}).get("schemas"):
        # DCG refuses a spec without schemas; the package still has a (empty) models module
        doc = '"""This API declares no schemas."""'
        return f"{header}\n\n{doc}\n\nfrom __future__ import annotations\n"
    schemas = spec["components"]["schemas"]
    objects = {n for n, v in schemas.items() if _plain_object(v)}
    expected = list(schemas)
    closed = set(spec[KEY] if KEY in spec else request_only(spec))
    source = run_dcg(spec, header, owned=owned)
    source = accept_missing_tags(open_responses(fix_up(source), closed))
    _check_names(expected, objects, source)
    return source


def _plain_object(schema: Any) -> bool:
    """An object schema with fields and nothing else (no union, composition or other
    type beside): one ``models.py`` renders as a class of its name."""
    if not isinstance(schema, dict) or not schema.get("properties"):
        return False
    kind = schema.get("type", "object")
    kinds = set(kind) - {"null"} if isinstance(kind, list) else {kind}
    composed = any(k in schema for k in ("$ref", "allOf", "anyOf", "oneOf", "enum", "const"))
    return kinds == {"object"} and not composed


def _check_names(expected: list[str], objects: set[str], source: str) -> None:
    """Every component schema is defined under its own name (``objects``, those with
    fields, as a class): the client, server and docs refer to it by that name.
    datamodel-code-generator names the types it invents itself (constrained array items:
    ``tags`` items became ``Tag``) and renames a schema whose name one of them took first
    (NetBox's ``Tag`` became ``Tag24``, and every ``models.Tag`` meant a string);
    ``normalize/array_items`` names such items first, and this is the check that none is
    left."""
    classes, aliases = defined_names(source)
    wrong = sorted(name for name in expected if name not in classes and name not in aliases)
    wrong += sorted(name for name in objects if name not in classes)
    if wrong:
        raise ApismithError(
            f"model rendering renamed schema {wrong[0]!r}: a type it invented took the "
            "name; this is a bug in apismith, please report it",
            exit_code=1,
        )
