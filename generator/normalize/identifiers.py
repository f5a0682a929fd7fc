"""Normalization pass `identifiers`: every name that becomes code is checked. Always on.

Identifiers are made, never trusted. This pass is the boundary: after it, every name the
renderers paste into generated code as code (class, method, parameter and field names)
has passed :func:`naming.identifier_problem`, the one validator, in its scope, and is
unique there. The IR and ``models.py`` read only names that passed it (and apply the
same validator again to a spec that skipped normalization). Spec text reaches generated
code only as a ``repr``'d literal, a docstring or a comment.

1. Path template variables that no parameter declares (``/users/{id}`` without an
   ``id`` path parameter) become required string path parameters, with a warning, so that
   no client sends a literal ``{id}``.
2. Schema names must be valid class names. The ``names`` pass makes them so; when it is
   switched off, a schema whose name is not one is an error (exit 2).
3. Operations: an ``x-apismith-name`` that is not a valid, unique method name is replaced
   by the derived one, with a warning.
4. Parameters: an ``x-python-name`` that is not a valid parameter name is removed (the IR
   derives the snake_case of the wire name), with a warning; one that another parameter of
   the same operation uses already gets a warning (the IR numbers it).
5. Properties: an ``x-python-name`` that is not a valid field name, or that another
   field uses, is replaced; a property whose wire name is no safe field name and has no
   ``x-python-name`` (the ``names`` pass is off) gets one.

This pass is not in the list of switchable passes: ``[passes] identifiers = false`` is
refused like any unknown pass. Its input is never modified; when nothing needs fixing
(the committed specs), it returns the spec as it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from generator.errors import ApismithError
from generator.load import resolve_pointer
from generator.normalize import naming
from generator.normalize.diagnostics import Diagnostic, Kind, PassResult
from generator.normalize.fragments import requested_path
from generator.normalize.names import object_schemas
from generator.normalize.walk import json_copy, pointer_join

NAME = "identifiers"

METHODS = naming.HTTP_METHODS
_TEMPLATE_VAR = re.compile(r"\{([^{}]*)\}")
_LOCATIONS = ("path", "query", "header", "cookie")

# (pointer of the object to change, key, new value or _DELETE)
_DELETE = object()
Fix = tuple[str, str, Any]


def _diag(kind: Kind, pointer: str, message: str, old: str = "", new: str = "") -> Diagnostic:
    return Diagnostic(NAME, kind, pointer, message, old, new)


def _show(value: object) -> str:
    """A wire name or path for a one-line message: as it is when printable, else
    JSON-quoted (ASCII); long ones cut."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return text if text.isprintable() else json.dumps(text)


def _quote(value: object) -> str:
    """A spec-supplied name for a one-line message: always JSON-quoted (ASCII), cut."""
    if not isinstance(value, str):
        return repr(value)[:80]
    return json.dumps(value if len(value) <= 80 else value[:77] + "...")


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(spec: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``spec`` is the caller's to give (see :mod:`generator.normalize`)."""
    diags: list[Diagnostic] = []
    fixes: list[Fix] = []
    appended: list[tuple[str, dict[str, Any]]] = []  # (operation pointer, new parameter)
    _check_schema_names(spec)
    _check_operations(spec, fixes, appended, diags)
    _check_fields(spec, fixes, diags)
    for pointer, key, value in fixes:
        target = _resolve(spec, pointer)
        if value is _DELETE:
            target.pop(key, None)
        else:
            target[key] = value
    for pointer, param in appended:
        op = _resolve(spec, pointer)
        params = op.get("parameters")
        op["parameters"] = [*params, param] if isinstance(params, list) else [param]
    return PassResult(spec=spec, diagnostics=tuple(diags))


def _resolve(spec: dict[str, Any], pointer: str) -> Any:
    return resolve_pointer(spec, pointer)


# --- schema names --------------------------------------------------------------------------


def _check_schema_names(spec: Mapping[str, Any]) -> None:
    components = spec.get("components")
    schemas = components.get("schemas") if isinstance(components, dict) else None
    if not isinstance(schemas, dict):
        return
    for name in schemas:
        why = naming.identifier_problem(name, "class")
        if why is not None:
            raise ApismithError(
                f"schema name {_show(name)} is not a valid class name ({why}); the names "
                "pass, which renames such schemas, is switched off",
                pointer=pointer_join("#/components/schemas", str(name)),
            )


# --- operations and parameters -------------------------------------------------------------


def _deref(spec: Mapping[str, Any], obj: Any, pointer: str) -> tuple[Any, str]:
    """Follow a chain of local ``$ref`` (parameters, path items): the object and its
    pointer; ``({}, pointer)`` for a dangling or cyclic one."""
    seen: set[str] = set()
    while isinstance(obj, dict) and isinstance(obj.get("$ref"), str):
        ref = obj["$ref"]
        if ref in seen or not ref.startswith("#"):
            return {}, pointer
        seen.add(ref)
        try:
            obj = resolve_pointer(spec, ref)
        except (KeyError, IndexError, TypeError, ValueError):
            return {}, pointer
        pointer = ref
    return obj, pointer


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _check_operations(
    spec: Mapping[str, Any],
    fixes: list[Fix],
    appended: list[tuple[str, dict[str, Any]]],
    diags: list[Diagnostic],
) -> None:
    paths = spec.get("paths")
    if not isinstance(paths, dict):
        return
    op_taken: set[str] = set()
    checked: set[str] = set()  # parameter objects whose x-python-name was validated
    for path, raw_item in paths.items():
        item, item_ptr = _deref(spec, raw_item, pointer_join("#/paths", str(path)))
        if not isinstance(item, dict):
            continue
        shared = _list(item.get("parameters"))
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            op_ptr = pointer_join(item_ptr, method)
            _name_operation(op, op_ptr, str(path), method, op_taken, fixes, diags)
            own = _list(op.get("parameters"))
            merged: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
            for base, params in ((item_ptr, shared), (op_ptr, own)):
                for i, raw in enumerate(params):
                    param, ptr = _deref(spec, raw, pointer_join(base, "parameters", i))
                    if (
                        isinstance(param, dict)
                        and isinstance(param.get("name"), str)
                        and param.get("in") in _LOCATIONS
                    ):
                        merged[(param["name"], param["in"])] = (param, ptr)
            requested = requested_path(str(path), op)
            _declare_template_vars(requested, op_ptr, merged, appended, diags)
            _name_parameters(merged, op_ptr, checked, fixes, diags)


def _name_operation(
    op: dict[str, Any],
    pointer: str,
    path: str,
    method: str,
    taken: set[str],
    fixes: list[Fix],
    diags: list[Diagnostic],
) -> None:
    """The IR's rule (:func:`naming.take_name`); a refused ``x-apismith-name`` is replaced
    by the name the IR would derive, so that the spec says what the code does."""
    op_id = op.get("operationId") if isinstance(op.get("operationId"), str) else None
    if op_id is not None and not op_id.isprintable():
        # FastAPI names models after it (a NUL there fails at import): printable text only
        cleaned = "".join(c for c in op_id if c.isprintable()) or f"{method}_{path}"
        fixes.append((pointer, "operationId", cleaned))
        message = (
            f"operation {method.upper()} {_show(path)}: operationId {_quote(op_id)} has"
            f" unprintable characters: {_quote(cleaned)}"
        )
        diags.append(_diag("warning", pointer, message, op_id, cleaned))
        op_id = cleaned
    derived = naming.python_snake_case(op_id or f"{method}_{path}")
    given = op.get("x-apismith-name")
    name, why = naming.take_name(given, derived, "method", taken)
    if given is not None and name != given:
        fixes.append((pointer, "x-apismith-name", name))
        message = (
            f"operation {method.upper()} {_show(path)}: x-apismith-name {_quote(given)} "
            f"is not usable ({why or 'already used'}): method {name}"
        )
        diags.append(_diag("warning", pointer, message, str(given), name))


def _declare_template_vars(
    path: str,
    op_ptr: str,
    merged: dict[tuple[str, str], tuple[dict[str, Any], str]],
    appended: list[tuple[str, dict[str, Any]]],
    diags: list[Diagnostic],
) -> None:
    declared = {name for name, location in merged if location == "path"}
    for var in dict.fromkeys(_TEMPLATE_VAR.findall(path)):
        if var in declared:
            continue
        param = {"name": var, "in": "path", "required": True, "schema": {"type": "string"}}
        appended.append((op_ptr, param))
        merged[(var, "path")] = (param, op_ptr)
        message = (
            f"path parameter {_show(var)} of {_show(path)} is not declared: "
            "added as a required string path parameter"
        )
        diags.append(_diag("warning", op_ptr, message))


def _name_parameters(
    merged: dict[tuple[str, str], tuple[dict[str, Any], str]],
    op_ptr: str,
    checked: set[str],
    fixes: list[Fix],
    diags: list[Diagnostic],
) -> None:
    taken: set[str] = set()
    for (wire, _location), (param, ptr) in merged.items():
        given = param.get("x-python-name")
        if given is not None and ptr not in checked:
            checked.add(ptr)
            why = naming.identifier_problem(given, "parameter")
            if why is not None:
                fixes.append((ptr, "x-python-name", _DELETE))
                derived = naming.python_snake_case(wire)
                message = (
                    f"parameter {_show(wire)}: x-python-name {_quote(given)} is not usable "
                    f"({why}): derived from its name ({derived})"
                )
                diags.append(_diag("warning", ptr, message, str(given), derived))
                given = None
        elif given is not None and naming.identifier_problem(given, "parameter") is not None:
            given = None  # removed above, for another operation
        name, why = naming.take_name(given, naming.python_snake_case(wire), "parameter", taken)
        if given is not None and name != given:
            message = (
                f"parameter {_show(wire)}: x-python-name {_quote(given)} is used by another "
                f"parameter of this operation: {name}"
            )
            diags.append(_diag("warning", op_ptr, message, str(given), name))


# --- fields --------------------------------------------------------------------------------


def _check_fields(spec: dict[str, Any], fixes: list[Fix], diags: list[Diagnostic]) -> None:
    for root, tokens, schema in object_schemas(spec):
        props = schema["properties"]
        names = naming.field_python_names(props)
        for wire, (python, why) in names.items():
            sub = props[wire]
            if not isinstance(sub, dict):
                continue
            given = "x-python-name" in sub
            if python == (sub["x-python-name"] if given else wire) and why is None:
                continue
            where = pointer_join(root, *tokens, "properties", str(wire))
            fixes.append((where, "x-python-name", python))
            if given:
                message = (
                    f"field {_show(wire)}: x-python-name {_quote(sub['x-python-name'])} is not "
                    f"usable ({why}): {python} in Python"
                )
                diags.append(_diag("warning", where, message, str(wire), python))
            else:
                message = f"field {_show(wire)} is {python} in Python"
                diags.append(_diag("alias", where, message, str(wire), python))
