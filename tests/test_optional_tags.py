"""A tagged union one of whose members defaults its tag takes an input without the tag.

SGP's ``PATCH /v4/evaluations/{evaluation_id}`` takes a ``RestorablePartialPatchEvaluationRequest``:
``PartialPatchEvaluationRequest`` (``restore: Literal[False] = False``) or ``RestoreRequest``
(``restore: Literal[True]``), tagged on ``restore``. The scale-gp SDK's
``evaluations.update("e1", name="x")`` sends ``{"name": "x"}``, which the real server takes;
pydantic's ``Field(discriminator="restore")`` rejects it (``union_tag_not_found``).
``generator.render.models.tags`` renders such a union with a callable discriminator that
falls back to the first member whose tag has a default, and leaves every other tagged
union as DCG renders it.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import subprocess
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from generator.config import adhoc_config, load_config
from generator.format import format_python, ruff_binary
from generator.ir import Api, TypeRef, build_ir
from generator.pipeline import load_and_normalize
from generator.render.models import render_models
from tests.conftest import SPECS, import_package, write_json

RESTORE = "Set to true to restore the thing."
SMALL_SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Optional tags", "version": "1"},
    "paths": {},
    "components": {
        "schemas": {
            "Tag": {"type": "object", "properties": {"label": {"type": "string"}}},
            "PatchRequest": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "tag": {"$ref": "#/components/schemas/Tag"},
                    "restore": {
                        "type": "boolean",
                        "const": False,
                        "default": False,
                        "description": RESTORE,
                    },
                },
            },
            "RestoreRequest": {
                "type": "object",
                "required": ["restore"],
                "properties": {"restore": {"type": "boolean", "const": True}},
            },
            "RestorablePatchRequest": {
                "oneOf": [
                    {"$ref": "#/components/schemas/PatchRequest"},
                    {"$ref": "#/components/schemas/RestoreRequest"},
                ],
                "discriminator": {"propertyName": "restore"},
            },
            "Circle": {
                "type": "object",
                "required": ["radius"],
                "properties": {
                    "shape-type": {"type": "string", "const": "circle", "default": "circle"},
                    "radius": {"type": "number"},
                },
            },
            "Square": {
                "type": "object",
                "required": ["side"],
                "properties": {
                    "shape-type": {"type": "string", "const": "square", "default": "square"},
                    "side": {"type": "number"},
                },
            },
            "Cat": {
                "type": "object",
                "required": ["kind"],
                "properties": {"kind": {"type": "string", "const": "cat"}},
            },
            "Dog": {
                "type": "object",
                "required": ["kind"],
                "properties": {"kind": {"type": "string", "const": "dog"}},
            },
            "Pet": {
                "oneOf": [
                    {"$ref": "#/components/schemas/Cat"},
                    {"$ref": "#/components/schemas/Dog"},
                ],
                "discriminator": {"propertyName": "kind"},
            },
            "Drawing": {
                "type": "object",
                "properties": {
                    "shape": {
                        "oneOf": [
                            {"$ref": "#/components/schemas/Circle"},
                            {"$ref": "#/components/schemas/Square"},
                            {"type": "null"},
                        ],
                        "discriminator": {"propertyName": "shape-type"},
                        "description": "Both members default their tag: the first wins.",
                    },
                    "pets": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}},
                },
            },
        }
    },
}


def models_source(spec_file: Path) -> str:
    """``models.py`` of a spec, rendered and formatted as the pipeline does."""
    config = adhoc_config(spec_file, spec_file.parent / "out", package="unused")
    _doc, normalized = load_and_normalize(config)
    text = render_models(normalized.spec, "# Generated for tests/test_optional_tags.py.")
    return format_python({"models.py": text})["models.py"]


def import_models(root: Path, package: str, source: str) -> ModuleType:
    package_dir = root / package
    package_dir.mkdir(parents=True)
    (package_dir / "__init__.py").write_text("")
    (package_dir / "models.py").write_text(source, encoding="utf-8")
    import_package(package_dir, package)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return importlib.import_module(f"{package}.models")


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, ModuleType]:
    root = tmp_path_factory.mktemp("optional-tags")
    source = models_source(write_json(root / "spec.json", SMALL_SPEC))
    return source, import_models(root, "optional_tags_small", source)


def test_only_unions_with_a_defaulted_tag_change(small: tuple[str, ModuleType]) -> None:
    source, _models = small
    # (open to a member a newer spec adds: generator/render/models/open_enums.py)
    assert '"Pet", _OpenUnion[Annotated[Cat | Dog, Field(discriminator="kind")]]' in source
    assert "_Discriminator(_tag_of_restorable_patch_request)" in source
    assert "_Discriminator(_tag_of_drawing_shape)" in source
    assert source.count("_Discriminator(") == 2
    assert 'Annotated[PatchRequest, _Tag("PatchRequest")]' in source


def test_a_missing_tag_is_the_defaulted_member(small: tuple[str, ModuleType]) -> None:
    _source, models = small
    body = TypeAdapter(models.RestorablePatchRequest)
    for payload in ({"name": "x"}, {}, {"restore": False, "name": "x"}):
        value = body.validate_python(payload)
        assert type(value) is models.PatchRequest and value.restore is False
    assert type(body.validate_json('{"name": "x"}')) is models.PatchRequest
    assert type(body.validate_python({"restore": True})) is models.RestoreRequest
    assert type(body.validate_json('{"restore": true}')) is models.RestoreRequest
    # an instance is dispatched by its attribute
    restore = models.RestoreRequest(restore=True)
    assert body.validate_python(restore) is restore
    # the member still checks its own tag and fields
    with pytest.raises(ValidationError):
        body.validate_python({"name": 3})


@contextmanager
def spec_values_only(models: ModuleType) -> Iterator[None]:
    """Validation as the package's server does it: refusing what the spec does not list
    (elsewhere, as a client reading an answer, an unknown tag's dict is kept as it is)."""
    token = models.SPEC_VALUES_ONLY.set(True)
    try:
        yield
    finally:
        models.SPEC_VALUES_ONLY.reset(token)


@pytest.mark.parametrize("payload", [{"restore": "maybe"}, {"restore": None}, {"restore": []}])
def test_an_unknown_tag_is_rejected(small: tuple[str, ModuleType], payload: Any) -> None:
    _source, models = small
    with spec_values_only(models), pytest.raises(ValidationError) as info:
        TypeAdapter(models.RestorablePatchRequest).validate_python(payload)
    assert info.value.errors()[0]["type"] == "union_tag_not_found"
    assert TypeAdapter(models.RestorablePatchRequest).validate_python(payload) == payload


def test_a_union_whose_tags_are_required_still_needs_them(small: tuple[str, ModuleType]) -> None:
    _source, models = small
    pets = TypeAdapter(models.Pet)
    assert type(pets.validate_python({"kind": "dog"})) is models.Dog
    with spec_values_only(models), pytest.raises(ValidationError) as info:
        pets.validate_python({})
    assert info.value.errors()[0]["type"] == "union_tag_not_found"
    assert "'kind'" in info.value.errors()[0]["msg"]


def test_an_aliased_tag_in_a_nullable_field(small: tuple[str, ModuleType]) -> None:
    _source, models = small
    drawing = models.Drawing
    assert type(drawing.model_validate({"shape": {"radius": 1}}).shape) is models.Circle
    by_alias = drawing.model_validate({"shape": {"shape-type": "square", "side": 2}})
    assert type(by_alias.shape) is models.Square
    by_name = drawing.model_validate({"shape": {"shape_type": "square", "side": 2}})
    assert type(by_name.shape) is models.Square
    assert drawing.model_validate({"shape": None}).shape is None
    with pytest.raises(ValidationError):  # the first defaulted member, Circle, needs a radius
        drawing.model_validate({"shape": {"side": 2}})


def test_dump_and_json_schema(small: tuple[str, ModuleType]) -> None:
    _source, models = small
    value = models.Drawing(shape=models.Square(side=2), pets=[models.Cat(kind="cat")])
    dumped = value.model_dump(by_alias=True, exclude_none=True)
    assert dumped == {"shape": {"shape-type": "square", "side": 2}, "pets": [{"kind": "cat"}]}
    assert models.Drawing.model_validate(dumped) == value
    body = TypeAdapter(models.RestorablePatchRequest)
    assert body.dump_python(body.validate_python({"name": "x"}), exclude_none=True) == {
        "name": "x",
        "restore": False,
    }
    schema = body.json_schema()
    assert [m["$ref"] for m in schema["oneOf"]] == [
        "#/$defs/PatchRequest",
        "#/$defs/RestoreRequest",
    ]
    assert models.Drawing.model_json_schema()["properties"]["shape"]


def test_a_model_named_tag_does_not_shadow_pydantic(small: tuple[str, ModuleType]) -> None:
    _source, models = small
    assert issubclass(models.Tag, BaseModel)
    value = TypeAdapter(models.RestorablePatchRequest).validate_python({"tag": {"label": "a"}})
    assert type(value.tag) is models.Tag


@pytest.mark.parametrize("check", ["ruff", "mypy"])
def test_the_rendering_passes_ruff_and_mypy_strict(
    small: tuple[str, ModuleType], tmp_path: Path, check: str
) -> None:
    source, _models = small
    (tmp_path / "models.py").write_text(source, encoding="utf-8")
    (tmp_path / "ruff.toml").write_text('line-length = 88\ntarget-version = "py310"\n')
    if check == "ruff":
        commands = [
            [ruff_binary(), "check", "--no-cache", "models.py"],
            [ruff_binary(), "format", "--no-cache", "--check", "models.py"],
        ]
    else:
        (tmp_path / "mypy.ini").write_text("[mypy]\n")
        commands = [
            [sys.executable, "-m", "mypy", "--strict", "--python-version", "3.10"]
            + ["--config-file", "mypy.ini", "--cache-dir", str(tmp_path / "cache"), "models.py"]
        ]
    for command in commands:
        proc = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stdout + proc.stderr


# --- SGP ---------------------------------------------------------------------------------


def _walk(t: TypeRef) -> Iterator[TypeRef]:
    yield t
    for sub in (t.items, t.values, *t.prefix_items, *t.members):
        if sub is not None:
            yield from _walk(sub)


def tagged_sites(api: Api) -> dict[str, TypeRef]:
    """Every tagged union of the IR, by the alias (``Model``) or field (``Model.field``)."""
    sites: dict[str, TypeRef] = {}
    for model in api.models:
        roots = [(model.name, model.root)] if model.root is not None else []
        roots += [(f"{model.name}.{f.python_name}", f.type) for f in model.fields]
        for where, root in roots:
            found = [t for t in _walk(root) if t.kind == "union" and t.discriminator]
            sites.update({where if i == 0 else f"{where}#{i}": t for i, t in enumerate(found)})
    return sites


def defaulted_members(api: Api, union: TypeRef) -> list[str]:
    """The members of a tagged union whose tag is optional with a default, in order."""
    assert union.discriminator is not None
    tag = union.discriminator.property_name
    names = []
    for member in union.members:
        model = api.model(member.name) if member.name else None
        fields = [f for f in model.fields if f.name == tag] if model else []
        if fields and not fields[0].required and fields[0].has_default:
            names.append(str(member.name))
    return names


def rendered_sites(source: str) -> dict[str, str]:
    """``{alias or Model.field: the member an untagged input is}`` for each union that got
    a callable discriminator in a models module."""
    tree = ast.parse(source)
    untagged: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_tag_of_"):
            call = node.body[0]
            assert isinstance(call, ast.Return) and isinstance(call.value, ast.Call)
            last = call.value.args[-1]
            assert isinstance(last, ast.Constant) and isinstance(last.value, str)
            untagged[node.name] = last.value
    sites: dict[str, str] = {}
    for node in tree.body:
        roots: list[tuple[str, ast.AST]] = []
        if isinstance(node, ast.ClassDef):
            roots = [
                (f"{node.name}.{ast.unparse(st.target)}", st.annotation)
                for st in node.body
                if isinstance(st, ast.AnnAssign)
            ]
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            roots = [(node.targets[0].id, node.value)]
        for where, root in roots:
            for sub in ast.walk(root):
                if (
                    isinstance(sub, ast.Call)
                    and ast.unparse(sub.func) == "_Discriminator"
                    and isinstance(sub.args[0], ast.Name)
                ):
                    sites[where] = untagged[sub.args[0].id]
    return sites


@cache
def sgp_package(root: Path) -> tuple[Api, str, ModuleType, ModuleType]:
    """SGP generated into ``root`` as package ``sgp_optional_tags``: (IR, models.py, the
    models module, the server module)."""
    from generator.pipeline import generate
    from generator.write import write_package

    config = load_config(SPECS / "sgp.toml")
    config = dataclasses.replace(config, package="sgp_optional_tags", out=root / "out")
    result = generate(config)
    write_package(root / "sgp_optional_tags", result.files, verify=False)
    source = result.files["models.py"].decode()
    package = import_package(root / "sgp_optional_tags", "sgp_optional_tags")
    assert package.__name__ == "sgp_optional_tags"
    models = importlib.import_module("sgp_optional_tags.models")
    server = importlib.import_module("sgp_optional_tags.server")
    return build_ir(result.normalized.spec), source, models, server


@pytest.fixture(scope="module")
def sgp(tmp_path_factory: pytest.TempPathFactory) -> tuple[Api, str, ModuleType, ModuleType]:
    return sgp_package(tmp_path_factory.mktemp("sgp-optional-tags"))


def test_sgp_sites(sgp: tuple[Api, str, ModuleType, ModuleType]) -> None:
    """The IR's count of tagged unions with a defaulted tag is the models' (37 sites, 22 of
    them with a defaulted tag), each falling back to the IR's first defaulted member."""
    api, source, _models, _server = sgp
    sites = tagged_sites(api)
    optional = {w: d[0] for w, t in sites.items() if (d := defaulted_members(api, t))}
    print(f"SGP: {len(sites)} tagged unions, {len(optional)} with a defaulted tag")
    assert (len(sites), len(optional)) == (37, 22)
    assert rendered_sites(source) == optional
    assert source.count('Field(discriminator="') == len(sites) - len(optional)


def test_sgp_patch_evaluation_without_restore(
    sgp: tuple[Api, str, ModuleType, ModuleType],
) -> None:
    """scale-gp's ``evaluations.update("e1", name="x")`` body: the model, then the server."""
    api, _source, models, server = sgp
    op = next(
        o
        for o in api.operations
        if o.method.lower() == "patch" and o.path == "/v4/evaluations/{evaluation_id}"
    )
    assert op.request_body is not None and op.request_body.schema.name
    body = TypeAdapter(getattr(models, op.request_body.schema.name))
    value = body.validate_python({"name": "x"})
    assert type(value) is models.PartialPatchEvaluationRequest
    assert body.dump_python(value, by_alias=True, exclude_none=True) == {
        "name": "x",
        "restore": False,
    }
    assert type(body.validate_python({"restore": True})) is models.RestoreRequest

    mock = importlib.import_module("sgp_optional_tags.mock")
    app = server.create_app(mock.MockService())
    doc = app.openapi()  # pydantic's JSON schema of a callable discriminator: a oneOf
    schema = doc["components"]["schemas"]["RestorablePartialPatchEvaluationRequest"]
    assert len(schema["oneOf"]) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette deprecates its httpx-based client
        from fastapi.testclient import TestClient

        client = TestClient(app)
    headers = {"x-api-key": "k"}
    answer = client.patch("/v4/evaluations/e1", json={"name": "x"}, headers=headers)
    assert answer.status_code == 200, answer.text
    answer = client.patch("/v4/evaluations/e1", json={"restore": "no"}, headers=headers)
    assert answer.status_code == 422, answer.text


# --- the rewrite on its own ----------------------------------------------------------------

MODULE = '''from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field
from typing_extensions import TypeAliasType


class A(BaseModel):
    """A docstring with a line
at column 0: the module is parsed whole."""

    kind: Literal["a"] = "a"


class B(BaseModel):
    kind: Literal["b"]


class C(B):
    other: int | None = None


U = TypeAliasType("U", Annotated[A | B, Field(discriminator="kind")])
Required = TypeAliasType("Required", Annotated[B | D, Field(discriminator="kind")])
'''


def test_the_rewrite_parses_the_module_whole_when_it_must(tmp_path: Path) -> None:
    from generator.render.models.tags import accept_missing_tags

    fixed = accept_missing_tags(MODULE)
    assert "Annotated[A | B" not in fixed and "_Discriminator(_tag_of_u)" in fixed
    # D is no class of the module: that union is left as it is
    assert 'Annotated[B | D, Field(discriminator="kind")]' in fixed
    models = import_models(tmp_path, "optional_tags_whole", fixed.replace("B | D", "B | C"))
    union = TypeAdapter(models.U)
    assert type(union.validate_python({})) is models.A
    assert type(union.validate_python({"kind": "b"})) is models.B


def test_a_module_without_defaulted_tags_is_unchanged() -> None:
    from generator.render.models.tags import accept_missing_tags

    source = MODULE.replace('kind: Literal["a"] = "a"', 'kind: Literal["a"]')
    assert accept_missing_tags(source) == source
    inherited = MODULE.replace("A | B, Field", "A | C, Field")  # C's tag comes from B
    assert "_tag_of_u" in accept_missing_tags(inherited)
    assert accept_missing_tags("x = 1\n") == "x = 1\n"
