"""Property-based hostile input: random strings in every place a spec names or says
something, through the whole pipeline (in-process), then the output imported.

Random text (any unicode but lone surrogates, which the loader refuses: a separate corpus
case), mixed with the fragments a code generator chokes on (quotes, backslashes,
newlines, Jinja, comments, NUL) and with Python payloads that would create a marker file,
goes into schema, property and parameter names, titles, descriptions, enum values,
defaults, patterns, examples, operationIds, tags and the extensions apismith reads
(``x-python-name``, ``x-apismith-name``) or that datamodel-code-generator would
(``x-python-type``). For every example, generation either

- fails cleanly: an ``ApismithError`` with exit code 2, a file and a pointer, on one line;
- or succeeds, and the package (models, client, server, mock) imports;

the marker file never appears; and each value stays data: a description is the field's
``description``, an enum value is a ``Literal`` member, a wire name is the field's alias,
an operationId is the server route's ``operation_id``.

``PROPERTY_EXAMPLES`` (default 200) sets the number of examples; ``PROPERTY_KEEP=DIR``
copies every spec tried into DIR (``specN.json``), to replay a failure.
"""

from __future__ import annotations

import atexit
import importlib
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import textwrap
import typing
from collections.abc import Iterator
from dataclasses import replace
from itertools import count
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from generator.config import adhoc_config  # noqa: E402
from generator.errors import ApismithError  # noqa: E402
from generator.ir import build_ir  # noqa: E402
from generator.normalize.text import clean_text  # noqa: E402
from generator.pipeline import generate  # noqa: E402

EXAMPLES = int(os.environ.get("PROPERTY_EXAMPLES", "200"))
MARKER_DIR = Path(tempfile.mkdtemp(prefix="apismith-property-"))
atexit.register(shutil.rmtree, MARKER_DIR, True)
MARKER = MARKER_DIR / "MARKER"
CALL = f"__import__('pathlib').Path({str(MARKER)!r}).touch()"
PAYLOADS = [
    CALL,
    f'"); {CALL}  #',
    f"'); {CALL}  #",
    f'"""; {CALL}; """',
    f"'''; {CALL}; '''",
    f"x={CALL}, y='''",
    f"\n{CALL}\n",
    f"{{{{ {CALL} }}}}",
    f"a: int = {CALL}",
]
FRAGMENTS = [
    '"""',
    "'''",
    '"',
    "'",
    "\\",
    "\\n",
    "\n",
    "\r\n",
    "\t",
    "{{",
    "}}",
    "{%",
    "%}",
    "{#",
    "#",
    "\x00",
    "\u2028",
    "\u00e9",
    "\U0001f40d",
    " ",
    "_",
    "class",
    "model_config",
    "self",
    "0",
    "-",
    "/",
    "~",
    "$",
    "*",
    "(",
    "[",
]
_COUNTER = count()

TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=12)
PIECE = st.one_of(TEXT, st.sampled_from(FRAGMENTS), st.sampled_from(PAYLOADS))
HOSTILE = st.one_of(
    PIECE, st.lists(PIECE, min_size=2, max_size=4).map("".join), st.sampled_from(PAYLOADS)
)
IDENTIFIERS = st.sampled_from(
    ["ok", "class", "model_config", "self", "timeout", "_x", "Name", "é", "ｆｏｏ", "a b", "n1"]
)
EXTENSION = st.one_of(HOSTILE, IDENTIFIERS, st.integers(), st.none())
# On the required property (the mock server builds a value for it): patterns pydantic
# compiles (the Rust-only ones included), ones only Python's re compiles (dropped with a
# warning) and invalid ones (exit 2). Random text goes on an optional property.
PATTERN = st.one_of(
    st.none(),
    st.sampled_from(
        ["^a", "^\\p{L}+$", "[[:alpha:]]", "^[a-z]{0,5}$", "\\d*", "(?=a)", "(a)\\1", "(", "["]
    ),
)
BODY = st.sampled_from(
    ["application/json", "multipart/form-data", "application/x-www-form-urlencoded"]
)


@st.composite
def specs(draw: st.DrawFn) -> dict[str, Any]:
    """One small spec: one object schema (three properties), one operation (a path and a
    query parameter, a request body, a response)."""
    schema_name = draw(HOSTILE)
    prop_a, prop_b, prop_c = draw(st.lists(HOSTILE, min_size=3, max_size=3, unique=True))
    enum = draw(st.lists(HOSTILE, min_size=1, max_size=3, unique=True))
    prop_a_schema: dict[str, Any] = {
        "type": "string",
        "description": draw(HOSTILE),
        "title": draw(HOSTILE),
        "default": draw(HOSTILE),
        "examples": [draw(HOSTILE)],
    }
    pattern = draw(PATTERN)
    if pattern is not None:
        prop_a_schema["pattern"] = pattern
    prop_b_schema: dict[str, Any] = {"type": "string", "enum": enum, "description": draw(HOSTILE)}
    prop_c_schema: dict[str, Any] = {
        "type": "string",
        "pattern": draw(st.one_of(HOSTILE, HOSTILE.map(re.escape))),
        "default": draw(HOSTILE),
        "description": draw(HOSTILE),
    }
    if draw(st.booleans()):
        prop_b_schema["x-python-name"] = draw(EXTENSION)
    if draw(st.booleans()):
        prop_a_schema["x-python-name"] = draw(EXTENSION)
    if draw(st.booleans()):
        prop_a_schema["x-python-type"] = draw(st.sampled_from(PAYLOADS + ["os.system", "int"]))
    path_var = draw(HOSTILE)
    query = draw(HOSTILE)
    path_param: dict[str, Any] = {
        "name": path_var,
        "in": "path",
        "required": True,
        "schema": {"type": "string"},
        "description": draw(HOSTILE),
    }
    query_param: dict[str, Any] = {
        "name": query,
        "in": "query",
        "schema": {"type": "string", "enum": enum, "default": enum[0]},
    }
    for param in (path_param, query_param):
        if draw(st.booleans()):
            param["x-python-name"] = draw(EXTENSION)
    operation: dict[str, Any] = {
        # NUL included: the identifiers pass keeps only printable characters
        "operationId": draw(HOSTILE),
        "summary": draw(HOSTILE),
        "description": draw(HOSTILE),
        "tags": [draw(HOSTILE)],
        "parameters": [path_param, query_param],
        "requestBody": {
            "content": {
                draw(BODY): {"schema": {"$ref": "#/components/schemas/" + _token(schema_name)}}
            }
        },
        "responses": {
            "200": {
                "description": draw(HOSTILE),
                "content": {
                    "application/json": {
                        "schema": {"$ref": "#/components/schemas/" + _token(schema_name)}
                    }
                },
            }
        },
    }
    if draw(st.booleans()):
        operation["x-apismith-name"] = draw(EXTENSION)
    return {
        "openapi": "3.1.0",
        "info": {"title": draw(HOSTILE), "version": draw(HOSTILE), "description": draw(HOSTILE)},
        "paths": {"/items/{" + path_var + "}": {"post": operation}},
        "components": {
            "schemas": {
                schema_name: {
                    "type": "object",
                    "title": draw(HOSTILE),
                    "description": draw(HOSTILE),
                    "required": [prop_a],
                    "properties": {
                        prop_a: prop_a_schema,
                        prop_b: prop_b_schema,
                        prop_c: prop_c_schema,
                    },
                }
            }
        },
    }


def _token(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _import(package_dir: Path, name: str) -> dict[str, ModuleType]:
    spec = importlib.util.spec_from_file_location(
        name, package_dir / "__init__.py", submodule_search_locations=[str(package_dir)]
    )
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    spec.loader.exec_module(package)
    modules = {"": package}
    resources = sorted((package_dir / "resources").glob("*.py"))  # the client loads lazily
    subs = [*("models", "_client", "server", "mock"), *(f"resources.{p.stem}" for p in resources)]
    for sub in subs:
        modules[sub] = importlib.import_module(f"{name}.{sub}")
    return modules


def _event(text: str) -> None:
    """Count an outcome for ``--hypothesis-show-statistics`` (a no-op outside a test)."""
    try:
        event(text)
    except hypothesis.errors.InvalidArgument:
        pass


def _doc_text(text: str) -> str:
    """A docstring's text without its indentation, outer blank lines or trailing spaces.
    Its line breaks are the parser's: a ``\\r\\n`` or ``\\r`` in the source reads as ``\\n``."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = textwrap.dedent(text).strip("\n").split("\n")
    return "\n".join(line.rstrip(" ") for line in lines).strip()


def _forget(name: str) -> None:
    for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
        del sys.modules[key]


def _literal_values(annotation: Any) -> set[Any]:
    if typing.get_origin(annotation) is typing.Literal:
        return set(typing.get_args(annotation))
    found: set[Any] = set()
    value = getattr(annotation, "__value__", None)  # a TypeAliasType
    if value is not None:
        found |= _literal_values(value)
    for arg in typing.get_args(annotation):
        found |= _literal_values(arg)
    return found


@pytest.fixture(autouse=True)
def _no_marker() -> Iterator[None]:
    yield
    assert not MARKER.exists(), "a spec value was executed"


def check(doc: dict[str, Any], root: Path) -> None:
    n = next(_COUNTER)
    spec_path = root / f"spec{n}.json"
    spec_path.write_text(json.dumps(doc), encoding="utf-8")
    if os.environ.get("PROPERTY_KEEP"):  # debugging: every spec tried, by number
        shutil.copy(spec_path, Path(os.environ["PROPERTY_KEEP"]) / spec_path.name)
    package = f"_apismith_property_{n}"
    config = adhoc_config(spec_path, root / "out" / package, package=package)
    config = replace(config, outputs=("models", "client", "server"))
    try:
        result = generate(config)
    except ApismithError as exc:
        assert not MARKER.exists(), "a spec value was executed"
        message = str(exc)
        assert exc.exit_code == 2, message
        assert "\n" not in message and "internal error" not in message, message
        assert exc.file and exc.pointer is not None, message
        _event(f"exit 2: {exc.message.split(':')[0][:40]}")
        return
    assert not MARKER.exists(), "a spec value was executed"
    assert not result.summary.unaccounted, result.summary.unaccounted
    out = root / "out" / package
    for name, data in result.files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        modules = _import(out, package)
        assert not MARKER.exists(), "importing the package executed a spec value"
        _check_data(doc, result.normalized.spec, modules)
        _event("generated and imported")
    finally:
        sys.dont_write_bytecode = saved
        _forget(package)


_ROUTE_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")


def _check_data(doc: dict[str, Any], normalized: dict[str, Any], modules: dict[str, Any]) -> None:
    """Every value the spec gave is data in the generated package."""
    api = build_ir(normalized)
    (model,) = api.models
    schema = next(iter(normalized["components"]["schemas"].values()))
    original = next(iter(doc["components"]["schemas"].values()))
    cls = getattr(modules["models"], model.name)
    fields = {
        (name if info.alias is None else info.alias): (name, info)
        for name, info in cls.model_fields.items()
    }
    assert set(fields) == set(original["properties"]), (set(fields), set(original["properties"]))
    for field in model.fields:
        name, info = fields[field.name]
        assert name == field.python_name and name.isidentifier() and name.isascii()
        wanted = original["properties"][field.name]
        kept = schema["properties"][field.name]
        assert info.description == clean_text(wanted["description"])
        assert info.title in (None, wanted.get("title"))
        if "enum" in wanted:
            assert _literal_values(info.annotation) == set(wanted["enum"])
        if "default" in kept and not field.required:
            assert info.get_default(call_default_factory=True) == wanted["default"]
        if wanted.get("examples"):
            assert info.examples == wanted["examples"]
    assert _doc_text(cls.__doc__ or "") == _doc_text(clean_text(original["description"]))
    # the operation: its id, path and texts reach the server as they are
    (op,) = api.operations
    raw = next(iter(doc["paths"].values()))["post"]
    router = modules["server"].create_router(modules["server"].BaseService())
    # an operationId keeps its printable characters (FastAPI names models after it)
    op_id = raw["operationId"]
    if not op_id.isprintable():
        op_id = "".join(c for c in op_id if c.isprintable()) or f"post_{op.path}"
    (route,) = [r for r in router.routes if getattr(r, "operation_id", None) == op_id]
    key = next(iter(doc["paths"]))
    # a fragment is never sent, nor a query written in the key (a "?" outside any "{...}")
    requested = re.match(r"(?:[^?{]|\{[^}]*\}?)*", key.split("#", 1)[0])
    assert requested is not None
    assert op.path == (requested.group(0) or "/")
    # the route names a parameter Starlette cannot read ({}, {a-b}) after its argument
    route_shape, op_shape = route.path, op.path
    for name in route.param_convertors:
        assert _ROUTE_NAME.fullmatch(name), route.path
        route_shape = route_shape.replace("{" + name + "}", "{}")
    for p in op.parameters:
        if p.location == "path":
            op_shape = op_shape.replace("{" + p.name + "}", "{}")
    assert route_shape == op_shape, (route.path, op.path)
    description = clean_text(raw["description"])  # as the text pass cleans it
    if description.split("\f")[0].strip():  # FastAPI's own cut
        assert route.description == description.split("\f")[0].strip()
    assert route.summary == clean_text(raw["summary"])
    assert op.python_name.isidentifier() and op.python_name.isascii()
    for p in op.parameters:
        assert p.python_name.isidentifier() and p.python_name.isascii(), p.python_name


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    # the same examples every run, so that CI is deterministic; PROPERTY_RANDOM=1 explores
    derandomize=os.environ.get("PROPERTY_RANDOM") != "1",
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(doc=specs())
def test_hostile_values_stay_data(doc: dict[str, Any]) -> None:
    root = Path(tempfile.mkdtemp(prefix="apismith-prop-", dir=MARKER_DIR))
    try:
        check(doc, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert not MARKER.exists(), "a spec value was executed"
