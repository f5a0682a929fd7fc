"""Render ``models.py``: datamodel-code-generator on the normalized spec, then one fix-up.

datamodel-code-generator (DCG) does the model rendering. Its options are fixed here,
in one place (``DCG_OPTIONS``), so that every API renders the same way:

- pydantic v2 ``BaseModel``, ``X | None`` unions, ``Annotated[..., Field(...)]``;
- constraints as ``Field`` arguments (never ``confloat``);
- every enum as a ``Literal`` (one consistent rendering), named enums and other
  non-object schemas as type aliases (no ``RootModel`` to unwrap);
- ``extra="allow"`` on every model: servers add fields before their specs do;
- naive date-times accepted (``datetime``, not ``AwareDatetime``);
- aliased fields can be populated by their Python name too.

The fix-up (:func:`split_nullable_constraints`) rewrites DCG's
``Annotated[float | None, Field(gt=0, le=1, description=...)]`` into
``Annotated[Annotated[float, Field(gt=0, le=1)] | None, Field(description=...)]``, so a
constraint visibly applies to the value and never to ``None``.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Mapping
from typing import Any

from generator.errors import ApismithError

CONSTRAINT_KEYWORDS = frozenset(
    {
        "gt",
        "ge",
        "lt",
        "le",
        "multiple_of",
        "min_length",
        "max_length",
        "pattern",
        "allow_inf_nan",
        "max_digits",
        "decimal_places",
        "discriminator",
    }
)

DCG_OPTIONS: dict[str, Any] = {
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
}


def field_aliases(spec: Mapping[str, Any]) -> dict[str, str]:
    """``{"Model.wire_name": python_name}`` from the names pass's ``x-python-name``."""
    aliases: dict[str, str] = {}
    for model, schema in sorted((spec.get("components", {}).get("schemas") or {}).items()):
        props = schema.get("properties") if isinstance(schema, dict) else None
        for wire, prop in (props or {}).items():
            if isinstance(prop, dict) and isinstance(prop.get("x-python-name"), str):
                aliases[f"{model}.{wire}"] = prop["x-python-name"]
    return aliases


def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null" and len(schema) == 1


def dcg_input(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The normalized spec in the shape DCG renders best (a copy; the input is untouched).

    The canonical nullable tagged union ``anyOf: [{oneOf: [A, B], discriminator}, null]``
    loses its discriminator in DCG; ``oneOf: [A, B, null]`` beside the discriminator keeps
    it (and the fix-up below moves ``None`` out of the ``Annotated``).
    """
    from generator.normalize.nullable import json_copy
    from generator.normalize.walk import iter_schemas

    data: dict[str, Any] = json_copy(dict(spec))
    for _pointer, schema in list(iter_schemas(data)):
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
    return data


def run_dcg(spec: Mapping[str, Any], header: str) -> str:
    """Call datamodel-code-generator in-process on a spec dict; return the module text."""
    from datamodel_code_generator import DataModelType, InputFileType, PythonVersion, generate
    from datamodel_code_generator.format import DatetimeClassType

    options = dict(DCG_OPTIONS)
    options["output_model_type"] = DataModelType.PydanticV2BaseModel
    options["target_python_version"] = PythonVersion.PY_310
    options["output_datetime_class"] = DatetimeClassType.Datetime
    aliases = field_aliases(spec)
    if aliases:
        options["aliases"] = aliases
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = generate(
                dcg_input(spec),
                input_file_type=InputFileType.OpenAPI,
                output=None,
                custom_file_header=header,
                **options,
            )
        except Exception as exc:  # DCG raises many types; report one line
            message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ApismithError(
                f"model rendering failed: {message}", exit_code=1
            ) from None
    if not isinstance(result, str):
        raise ApismithError("model rendering produced several modules; expected one", exit_code=1)
    return result


def _constraint_split(annotation: ast.expr) -> ast.expr | None:
    """``Annotated[T | None, Field(c..., m...)]`` -> ``Annotated[Annotated[T, Field(c...)] | None,
    Field(m...)]``; None when the annotation has no such shape."""
    if not (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id == "Annotated"
        and isinstance(annotation.slice, ast.Tuple)
        and len(annotation.slice.elts) == 2
    ):
        return None
    inner, call = annotation.slice.elts
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "Field"
        and not call.args
    ):
        return None
    members = _union_members(inner)
    if not any(_is_none(m) for m in members) or len(members) < 2:
        return None
    constraints = [k for k in call.keywords if k.arg in CONSTRAINT_KEYWORDS]
    if not constraints:
        return None
    rest = [k for k in call.keywords if k.arg not in CONSTRAINT_KEYWORDS]
    values = [m for m in members if not _is_none(m)]
    value: ast.expr = values[0]
    for extra in values[1:]:
        value = ast.BinOp(left=value, op=ast.BitOr(), right=extra)
    constrained = ast.Subscript(
        value=ast.Name("Annotated"),
        slice=ast.Tuple(
            elts=[value, ast.Call(func=ast.Name("Field"), args=[], keywords=constraints)]
        ),
    )
    nullable = ast.BinOp(left=constrained, op=ast.BitOr(), right=ast.Constant(None))
    if not rest:
        return nullable
    return ast.Subscript(
        value=ast.Name("Annotated"),
        slice=ast.Tuple(
            elts=[nullable, ast.Call(func=ast.Name("Field"), args=[], keywords=rest)]
        ),
    )


def _union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_members(node.left) + _union_members(node.right)
    return [node]


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def split_nullable_constraints(source: str) -> str:
    """Apply :func:`_constraint_split` to every field and every type alias.

    Only the annotations that change are re-printed (with ``ast.unparse``) and spliced
    into the source by line span; everything else keeps DCG's text.
    """
    tree = ast.parse(source)
    edits: list[tuple[int, int, int, int, str]] = []
    annotations: list[ast.expr] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            annotations.extend(s.annotation for s in node.body if isinstance(s, ast.AnnAssign))
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "TypeAliasType"
            and len(node.value.args) == 2
        ):
            annotations.append(node.value.args[1])
    for ann in annotations:
        new = _constraint_split(ann)
        if new is not None:
            assert ann.end_lineno is not None and ann.end_col_offset is not None
            edits.append(
                (ann.lineno, ann.col_offset, ann.end_lineno, ann.end_col_offset, ast.unparse(new))
            )
    return _splice(source, edits)


def _model_default(stmt: ast.AnnAssign, classes: set[str]) -> str | None:
    """``x: Annotated[M, Field(validate_default=True)] = {...}`` with M a model class ->
    the same field with ``default_factory=lambda: M.model_validate({...})`` (a dict literal
    is no ``M`` to a type checker)."""
    ann = stmt.annotation
    if not (
        isinstance(stmt.value, (ast.Dict, ast.List))
        and isinstance(ann, ast.Subscript)
        and isinstance(ann.value, ast.Name)
        and ann.value.id == "Annotated"
        and isinstance(ann.slice, ast.Tuple)
        and len(ann.slice.elts) == 2
        and isinstance(ann.slice.elts[1], ast.Call)
    ):
        return None
    members = [m for m in _union_members(ann.slice.elts[0]) if not _is_none(m)]
    if len(members) != 1 or not isinstance(members[0], ast.Name) or members[0].id not in classes:
        return None
    call = ann.slice.elts[1]
    factory = ast.Lambda(
        args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=ast.Call(
            func=ast.Attribute(value=ast.Name(members[0].id), attr="model_validate"),
            args=[stmt.value],
            keywords=[],
        ),
    )
    keywords = [k for k in call.keywords if k.arg != "validate_default"]
    keywords.append(ast.keyword(arg="default_factory", value=factory))
    new_ann = ast.Subscript(
        value=ast.Name("Annotated"),
        slice=ast.Tuple(
            elts=[ann.slice.elts[0], ast.Call(func=call.func, args=[], keywords=keywords)]
        ),
    )
    return f"{ast.unparse(stmt.target)}: {ast.unparse(new_ann)}"


def model_defaults_as_factories(source: str) -> str:
    """Apply :func:`_model_default` to every class-level field."""
    tree = ast.parse(source)
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    edits: list[tuple[int, int, int, int, str]] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and (text := _model_default(stmt, classes)):
                    assert stmt.end_lineno is not None and stmt.end_col_offset is not None
                    edits.append(
                        (stmt.lineno, stmt.col_offset, stmt.end_lineno, stmt.end_col_offset, text)
                    )
    return _splice(source, edits)


def _splice(source: str, edits: list[tuple[int, int, int, int, str]]) -> str:
    """Replace (line, col, end_line, end_col) spans (ast offsets: UTF-8 bytes) with text."""
    if not edits:
        return source
    lines = source.splitlines(keepends=True)
    for start, scol, end, ecol, text in sorted(edits, reverse=True):
        first = lines[start - 1].encode()
        last = lines[end - 1].encode()
        lines[start - 1 : end] = [first[:scol].decode() + text + last[ecol:].decode()]
    return "".join(lines)


def render_models(spec: Mapping[str, Any], header: str) -> str:
    """The text of ``models.py`` (unformatted) for a normalized spec."""
    return model_defaults_as_factories(split_nullable_constraints(run_dcg(spec, header)))
