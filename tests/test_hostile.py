"""A spec whose text is hostile to a code generator: quotes, backslashes, newlines, Jinja
syntax, NUL, unicode and Python injection attempts in descriptions, titles, property names,
enum values, defaults and examples.

The generated package must be valid Python that imports without side effects, pass ruff,
and keep every hostile value as data (not as code, not altered).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
import typing
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import describe, import_package, run_cli, run_python, write_json

TRIPLE = '"""'
INJECT = '"); import os; os.system("touch PWNED")  #'
INJECT_SQ = "'); import os; os.system('touch PWNED')  #"
INJECT_DOC = '"""; import os; os.system("touch PWNED"); """'
INJECT_JINJA = "{{ ''.__class__.__mro__[1].__subclasses__() }}{% import os %}"

HOSTILE: list[str] = [
    '"""',
    "'''",
    'ends with a quote"',
    "ends with a backslash\\",
    "back\\slash \\n \\x00 \\u1234 \\",
    "multi\nline\n\n  indented line\n",
    "tab\there",
    "{{ header }} {{ 7*7 }}",
    "{% if true %}x{% endif %} {# comment #}",
    "NUL \x00 byte",
    "unicode: é ü 中文 🐍 \u2028 \u2029 \u200b",
    INJECT,
    INJECT_SQ,
    INJECT_DOC,
    INJECT_JINJA,
]

# Wire names of properties; each must survive as the field's alias.
HOSTILE_NAMES: list[str] = [
    '"""',
    "'''",
    "a\\b",
    "new\nline",
    "{{ x }}",
    "{% y %}",
    "ünï cødé",
    INJECT,
    "class",
    "model_config",
    "0starts_with_digit",
    "with-dash",
]

ENUM = [v for v in HOSTILE if v] + ["plain"]


def hostile_spec() -> dict[str, Any]:
    """The spec: every hostile string in every position a generator renders as code."""
    text_props: dict[str, Any] = {}
    for i, text in enumerate(HOSTILE):
        text_props[f"text_{i}"] = {
            "type": "string",
            "title": text,
            "description": text,
            "default": text,
            "examples": [text],
        }
    name_props = {
        name: {"type": "string", "description": f"property number {i}"}
        for i, name in enumerate(HOSTILE_NAMES)
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"Evil {INJECT} {TRIPLE}",
            "version": INJECT_SQ,
            "description": INJECT_DOC,
        },
        "paths": {},
        "components": {
            "schemas": {
                "Texts": {
                    "type": "object",
                    "title": "Texts",
                    "description": "\n".join(HOSTILE),
                    "properties": text_props,
                },
                "Names": {
                    "type": "object",
                    "description": INJECT_DOC,
                    "properties": name_props,
                },
                "Enums": {
                    "type": "object",
                    "description": '"""',
                    "properties": {
                        "choice": {
                            "type": "string",
                            "enum": ENUM,
                            "description": INJECT,
                            "default": INJECT,
                        },
                        "named": {"$ref": "#/components/schemas/HostileEnum"},
                        "nested": {
                            "type": "object",
                            "description": "a default that is a JSON object",
                            "default": {v: [v] for v in HOSTILE},
                            "additionalProperties": True,
                        },
                        "listed": {
                            "type": "array",
                            "items": {"type": "string"},
                            "default": HOSTILE,
                        },
                    },
                },
                "HostileEnum": {
                    "type": "string",
                    "description": INJECT_DOC,
                    "enum": ENUM,
                },
            }
        },
    }


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Generate the hostile spec once (ad hoc, cwd = the temp dir); yield that dir."""
    root = tmp_path_factory.mktemp("hostile")
    write_json(root / "evil.json", hostile_spec())
    proc = run_cli("generate", "--spec", "evil.json", "--out", "out/evil", cwd=root)
    assert proc.returncode == 0, describe(proc)
    assert not list(root.rglob("PWNED")), "generation executed injected code"
    yield root


@pytest.fixture(scope="module")
def models(generated: Path) -> Iterator[ModuleType]:
    """The generated models module, imported in-process (cwd = the temp dir while importing,
    so that a stray ``touch PWNED`` would land there)."""
    before = os.getcwd()
    os.chdir(generated)
    try:
        package = import_package(generated / "out" / "evil", "_apismith_hostile_evil")
    finally:
        os.chdir(before)
    assert not list(generated.rglob("PWNED")), "import executed injected code"
    yield package.models
    for key in [k for k in sys.modules if k.startswith("_apismith_hostile_evil")]:
        del sys.modules[key]


def test_generated_code_is_valid_python(generated: Path) -> None:
    for path in sorted((generated / "out" / "evil").glob("*.py")):
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_import_has_no_side_effects(generated: Path) -> None:
    proc = run_python(
        "import sys; sys.path.insert(0, 'out'); import evil, evil.models", cwd=generated
    )
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout == "" and proc.stderr == "", describe(proc)
    assert not list(generated.rglob("PWNED")), "import executed injected code"
    assert not Path("PWNED").exists()


def test_no_code_runs_anywhere(generated: Path, models: ModuleType) -> None:
    """After generating and importing: no PWNED file beside the spec, output or repo."""
    assert not list(generated.rglob("PWNED"))
    assert not (Path(__file__).resolve().parent.parent / "PWNED").exists()


@pytest.mark.parametrize("args", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_ruff_passes(generated: Path, args: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", *args, "--isolated", "out/evil"],
        cwd=generated,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, describe(proc)


def _field(models: ModuleType, model: str, wire: str) -> tuple[str, Any]:
    """(python name, FieldInfo) of the field whose wire name is ``wire``."""
    cls = getattr(models, model)
    for name, info in cls.model_fields.items():
        if (info.alias or name) == wire:
            return name, info
    raise AssertionError(f"{model} has no field for wire name {wire!r}: {list(cls.model_fields)}")


def _literal_values(annotation: Any) -> set[Any]:
    """Every value of every ``Literal`` inside an annotation (through Annotated, unions...)."""
    found: set[Any] = set()
    if typing.get_origin(annotation) is typing.Literal:
        return set(typing.get_args(annotation))
    value = getattr(annotation, "__value__", None)  # a TypeAliasType
    if value is not None:
        found |= _literal_values(value)
    for arg in typing.get_args(annotation):
        found |= _literal_values(arg)
    return found


@pytest.mark.parametrize("index", range(len(HOSTILE)), ids=[repr(t)[:30] for t in HOSTILE])
def test_text_kept_as_data(models: ModuleType, index: int) -> None:
    text = HOSTILE[index]
    name, info = _field(models, "Texts", f"text_{index}")
    assert info.default == text, "default"
    from generator.normalize.text import clean_text  # the text pass cleans descriptions

    assert info.description == clean_text(text), "description"
    assert info.title in (None, text), "title"
    assert info.examples in (None, [text]), "examples"
    # and it validates and round-trips as a value
    obj = models.Texts.model_validate({f"text_{index}": text})
    assert getattr(obj, name) == text
    assert models.Texts().model_dump(by_alias=True)[f"text_{index}"] == text


def _doc_text(text: str) -> str:
    """A docstring's text without its indentation, outer blank lines or trailing spaces.

    (Not ``inspect.cleandoc``: it expands tabs relative to the indentation.)
    """
    lines = textwrap.dedent(text).strip("\n").split("\n")
    return "\n".join(line.rstrip(" ") for line in lines).strip()


def test_class_docstrings_kept(models: ModuleType) -> None:
    spec = hostile_spec()["components"]["schemas"]
    for model in ("Texts", "Names", "Enums"):
        doc = getattr(models, model).__doc__
        assert doc is not None, model
        assert _doc_text(doc) == _doc_text(spec[model]["description"]), model


def test_enum_values_kept(models: ModuleType) -> None:
    _name, info = _field(models, "Enums", "choice")
    assert _literal_values(info.annotation) == set(ENUM)
    assert info.default == INJECT
    assert info.description == INJECT
    for value in ENUM:
        assert models.Enums.model_validate({"choice": value}).choice == value
    import pydantic

    # a response's enum is open (an unknown value is kept: issue 26); where the server
    # validates, it is closed
    assert models.Enums.model_validate({"choice": "not a member"}).choice == "not a member"
    token = models.SPEC_VALUES_ONLY.set(True)
    try:
        with pytest.raises(pydantic.ValidationError):
            models.Enums.model_validate({"choice": "not a member"})
    finally:
        models.SPEC_VALUES_ONLY.reset(token)


def test_named_enum_kept(models: ModuleType) -> None:
    import pydantic

    alias = models.HostileEnum
    adapter = pydantic.TypeAdapter(alias)
    for value in ENUM:
        assert adapter.validate_python(value) == value
    with pytest.raises(pydantic.ValidationError):
        adapter.validate_python("not a member")
    assert _literal_values(alias) == set(ENUM)
    for value in ENUM:
        assert models.Enums.model_validate({"named": value}).named == value


def test_structured_defaults_kept(models: ModuleType) -> None:
    _n, nested = _field(models, "Enums", "nested")
    assert nested.get_default(call_default_factory=True) == {v: [v] for v in HOSTILE}
    _n, listed = _field(models, "Enums", "listed")
    assert listed.get_default(call_default_factory=True) == HOSTILE
    dumped = models.Enums().model_dump(by_alias=True, mode="json")
    assert dumped["nested"] == {v: [v] for v in HOSTILE}
    assert dumped["listed"] == HOSTILE


@pytest.mark.parametrize("index", range(len(HOSTILE_NAMES)), ids=[repr(n) for n in HOSTILE_NAMES])
def test_property_names_kept_as_aliases(models: ModuleType, index: int) -> None:
    wire = HOSTILE_NAMES[index]
    name, info = _field(models, "Names", wire)
    assert name.isidentifier(), name
    assert info.description == f"property number {index}"
    obj = models.Names.model_validate({wire: "value"})
    assert getattr(obj, name) == "value"
    assert obj.model_dump(by_alias=True, exclude_unset=True) == {wire: "value"}
    assert json.loads(obj.model_dump_json(by_alias=True, exclude_unset=True)) == {wire: "value"}


def test_normalized_spec_keeps_every_value(generated: Path) -> None:
    """openapi.json is data too: every hostile string reads back unchanged (descriptions
    as the text pass cleans them)."""
    from generator.normalize import text

    spec = json.loads((generated / "out" / "evil" / "openapi.json").read_text(encoding="utf-8"))
    original = text.run(hostile_spec(), {}).spec
    schemas = spec["components"]["schemas"]
    assert (
        schemas["Texts"]["properties"] == original["components"]["schemas"]["Texts"]["properties"]
    )
    assert (
        schemas["Texts"]["description"] == original["components"]["schemas"]["Texts"]["description"]
    )
    names = schemas["Names"]["properties"]
    assert sorted(names) == sorted(HOSTILE_NAMES)
    assert spec["info"]["title"] == original["info"]["title"]


def test_package_docstring_and_constants_kept(models: ModuleType) -> None:
    package = sys.modules[models.__name__.rsplit(".", 1)[0]]
    info = hostile_spec()["info"]
    assert package.API_VERSION == info["version"]
    assert package.__doc__ is not None
    assert package.__doc__.startswith(info["title"]), package.__doc__
    assert info["version"] in package.__doc__, package.__doc__


def test_hostile_schema_names(tmp_path: Path) -> None:
    """Schema names that are no identifiers still become importable classes."""
    names = ['Evil"""Name', "os.system('x')", "{{ Tpl }}", "ünïcode", "class", "0Digit"]
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": {},
        "components": {
            "schemas": {
                name: {"type": "object", "properties": {"v": {"type": "integer"}}} for name in names
            }
        },
    }
    write_json(tmp_path / "names.json", doc)
    proc = run_cli("generate", "--spec", "names.json", "--out", "out/hn", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    source = (tmp_path / "out" / "hn" / "models.py").read_text(encoding="utf-8")
    classes = [n.name for n in ast.parse(source).body if isinstance(n, ast.ClassDef)]
    assert len(classes) == len(names), classes
    ran = run_python("import sys; sys.path.insert(0, 'out'); import hn", cwd=tmp_path)
    assert ran.returncode == 0 and ran.stdout == "" and ran.stderr == "", describe(ran)


def test_hostile_file_name(tmp_path: Path) -> None:
    """The spec's file name lands in the header comment: it must stay a comment."""
    name = "evil\"\"\" {{ x }}\n'); import os; os.system('touch PWNED')  #.json"
    write_json(tmp_path / name, hostile_spec())
    proc = run_cli(
        "generate", "--spec", name, "--out", "out/evil_file", "--package", "evil_file", cwd=tmp_path
    )
    assert proc.returncode == 0, describe(proc)
    for path in sorted((tmp_path / "out" / "evil_file").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        ast.parse(source)
        head = source.splitlines()[:2]
        assert all(line.startswith("# ") for line in head), head
    ran = run_python("import sys; sys.path.insert(0, 'out'); import evil_file", cwd=tmp_path)
    assert ran.returncode == 0 and ran.stdout == "" and ran.stderr == "", describe(ran)
    assert not list(tmp_path.rglob("PWNED"))
