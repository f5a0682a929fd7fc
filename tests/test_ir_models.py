"""The IR and ``models.py`` read the spec the same way.

``models.py`` is rendered by datamodel-code-generator from the normalized spec; the client,
server and docs are rendered from the IR. This checks, for both APIs, the chat-request
schema and every golden case (generated in memory), that every model name the IR refers
to is a class or type alias in ``models.py``, and that each field's type and each alias's
type is the one the IR gives (``TypeRef.model_type``), once ``Annotated`` metadata (and
the ``_Open`` marker of a response's enums and tagged unions) is stripped. A format table
entry the IR has is also checked against DCG, format by format.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import pytest

from generator.config import load_config
from generator.ir import Api, TypeRef, build_ir
from generator.pipeline import generate
from tests.conftest import SPECS
from tests.golden.harness import case_config, case_names

APIS = ("llm-engine", "sgp", "sgp-chat-request")
OPEN = ("_Open", "_OpenUnion")
CASES = [*(f"api:{name}" for name in APIS), *(f"golden:{name}" for name in case_names())]


@dataclass(frozen=True)
class Models:
    """What ``models.py`` defines: class fields and aliases, each as a core annotation."""

    classes: dict[str, dict[str, ast.expr]]
    aliases: dict[str, ast.expr]
    imported_as: dict[str, str]  # ``datetime_aliased`` -> ``datetime`` (DCG's renames)

    @property
    def names(self) -> set[str]:
        return set(self.classes) | set(self.aliases)


def _alias_value(node: ast.stmt) -> tuple[str, ast.expr] | None:
    """``X = TypeAliasType("X", T)``, ``X: TypeAlias = T`` or ``X = T`` as (X, T)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
        if not isinstance(target, ast.Name):
            return None
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "TypeAliasType"
            and len(value.args) == 2
        ):
            return target.id, value.args[1]
        return target.id, value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        if node.value is not None and ast.unparse(node.annotation) == "TypeAlias":
            return node.target.id, node.value
    return None


def read_models(source: str) -> Models:
    classes: dict[str, dict[str, ast.expr]] = {}
    aliases: dict[str, ast.expr] = {}
    imported_as: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom):
            imported_as.update((a.asname, a.name) for a in node.names if a.asname)
        elif isinstance(node, ast.ClassDef):
            # a subclass (an allOf) has its bases' fields, then its own
            inherited: dict[str, ast.expr] = {}
            for base in node.bases:
                inherited.update(classes.get(ast.unparse(base), {}))
            classes[node.name] = inherited | {
                st.target.id: st.annotation
                for st in node.body
                if isinstance(st, ast.AnnAssign)
                and isinstance(st.target, ast.Name)
                and st.target.id != "model_config"
            }
        elif (found := _alias_value(node)) is not None:
            aliases[found[0]] = found[1]
    return Models(classes, aliases, imported_as)


def _members(node: ast.expr) -> Iterator[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        yield from _members(node.left)
        yield from _members(node.right)
    else:
        yield node


def core(node: ast.expr, inline: dict[str, ast.expr], renamed: dict[str, str] | None = None) -> str:
    """The annotation without ``Annotated`` metadata, with the aliases in ``inline``
    (DCG's own, which the IR does not know) replaced by their value and imports DCG
    renamed (``renamed``) by their own name, as source. Spellings of one type are made
    one: a union holding ``Any`` is ``Any``, ``Literal["a"] | Literal["b"]`` is
    ``Literal["a", "b"]``."""
    names = renamed or {}

    class Strip(ast.NodeTransformer):
        def visit_Subscript(self, sub: ast.Subscript) -> ast.AST:
            # (``_Open[T]`` is ``T`` kept open to values a newer spec adds: open_enums.py)
            if isinstance(sub.value, ast.Name) and sub.value.id in ("Annotated", *OPEN):
                first = sub.slice.elts[0] if isinstance(sub.slice, ast.Tuple) else sub.slice
                found: ast.AST = self.visit(first)
                return found
            self.generic_visit(sub)
            return sub

        def visit_Name(self, name: ast.Name) -> ast.AST:
            if name.id in inline:
                found: ast.AST = self.visit(inline[name.id])
                return found
            if name.id in names:
                return ast.Name(names[name.id], ast.Load())
            return name

        def visit_BinOp(self, op: ast.BinOp) -> ast.AST:
            self.generic_visit(op)
            if not isinstance(op.op, ast.BitOr):
                return op
            members: list[ast.expr] = []
            literals: list[ast.expr] = []
            for m in _members(op):
                if isinstance(m, ast.Name) and m.id == "Any":
                    return m
                if isinstance(m, ast.Subscript) and ast.unparse(m.value) == "Literal":
                    if not literals:
                        members.append(m)  # where the merged Literal goes
                    literals.extend(m.slice.elts if isinstance(m.slice, ast.Tuple) else [m.slice])
                elif ast.unparse(m) not in {ast.unparse(x) for x in members}:
                    members.append(m)  # a union of unions is one union, without repeats
            if literals:
                value = ast.Tuple(literals) if len(literals) > 1 else literals[0]
                merged = ast.Subscript(ast.Name("Literal", ast.Load()), value)
                members = [merged if _is_literal(m) else m for m in members]
            result = members[0]
            for m in members[1:]:
                result = ast.BinOp(result, ast.BitOr(), m)
            return result

    stripped = Strip().visit(ast.parse(ast.unparse(node), mode="eval").body)
    return ast.unparse(stripped)


def _is_literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Subscript) and ast.unparse(node.value) == "Literal"


def _without_none(annotation: str) -> str:
    return " | ".join(p for p in annotation.split(" | ") if p != "None") or "None"


@cache
def generated(case: str) -> tuple[Api, Models]:
    kind, name = case.split(":", 1)
    config = load_config(SPECS / f"{name}.toml") if kind == "api" else case_config(name)
    result = generate(config)
    # the package's models.py: the shallowest (``_server/models.py`` is a resource's module)
    key = min((k for k in result.files if k.rsplit("/", 1)[-1] == "models.py"), key=len)
    source = result.files[key]
    return build_ir(result.normalized.spec), read_models(source.decode())


def _referenced(api: Api) -> Iterator[tuple[str, TypeRef]]:
    """Every type the client, server and docs render, with where it is used."""
    for model in api.models:
        if model.root is not None:
            yield model.name, model.root
        for f in model.fields:
            yield f"{model.name}.{f.name}", f.type
    for op in api.operations:
        where = op.operation_id or op.python_name
        for p in op.parameters:
            yield f"{where} parameter {p.name}", p.schema
        if op.request_body is not None:
            for media in op.request_body.content:
                yield f"{where} request body", media.schema
        for r in op.responses:
            for media in r.content:
                yield f"{where} response {r.status}", media.schema


@pytest.mark.parametrize("case", CASES)
def test_every_model_the_ir_names_is_defined(case: str) -> None:
    api, models = generated(case)
    missing = sorted(
        f"{name} (at {where})"
        for where, t in _referenced(api)
        for name in t.model_names()
        if name not in models.names
    )
    missing += sorted(m.name for m in api.models if m.name not in models.names)
    assert missing == []


@pytest.mark.parametrize("case", CASES)
def test_field_and_alias_types_match(case: str) -> None:
    api, models = generated(case)
    known = {m.name for m in api.models}
    inline = {name: value for name, value in models.aliases.items() if name not in known}
    wrong = []
    for model in api.models:
        if model.kind == "object":
            fields = models.classes.get(model.name)
            if fields is None:
                wrong.append(f"{model.name}: not a class in models.py")
                continue
            for f in model.fields:
                ir = core(ast.parse(f.type.model_type, mode="eval").body, {})
                rendered = fields.get(f.python_name)
                if rendered is None:
                    wrong.append(f"{model.name}.{f.python_name}: no such field in models.py")
                    continue
                theirs = core(rendered, inline, models.imported_as)
                nullable = f.nullable or f.type.nullable
                if not nullable:
                    # an optional field is `X | None = None` in models.py
                    ir, theirs = _without_none(ir), _without_none(theirs)
                if ir != theirs:
                    wrong.append(f"{model.name}.{f.python_name}: IR {ir} != models {theirs}")
        elif model.root is not None:
            value = models.aliases.get(model.name)
            if value is None:
                wrong.append(f"{model.name}: not an alias in models.py")
                continue
            ir = core(ast.parse(model.root.model_type, mode="eval").body, {})
            theirs = core(value, inline, models.imported_as)
            if ir != theirs:
                wrong.append(f"{model.name}: IR {ir} != models {theirs}")
    assert wrong == []


def test_format_table_is_what_dcg_renders() -> None:
    """Every (type, format) DCG knows: the IR's model reading is DCG's annotation."""
    from datamodel_code_generator.parser.schema_version import get_data_formats

    from generator.normalize.naming import snake_case
    from generator.render.models import render_models

    props: dict[str, dict[str, str]] = {}
    for type_, formats in get_data_formats(is_openapi=True).items():
        if type_ not in ("string", "integer", "number", "boolean"):
            continue
        for known in formats:
            props[f"p_{type_}_{snake_case(known)}"] = {"type": type_, "format": known}
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "formats", "version": "1"},
        "paths": {},
        "components": {
            "schemas": {"M": {"type": "object", "required": list(props), "properties": props}}
        },
    }
    fields = read_models(render_models(spec, "# formats")).classes["M"]
    wrong = []
    for name, schema in props.items():
        fmt: str | None = None if schema["format"] == "default" else schema["format"]
        ir = TypeRef("primitive", primitive=schema["type"], format=fmt).model_type
        theirs = core(fields[name], {})
        if ir != theirs:
            wrong.append(f"{schema['type']}/{fmt}: IR {ir} != DCG {theirs}")
    assert wrong == []
