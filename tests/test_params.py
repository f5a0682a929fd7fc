"""``_params.py``: the input ``TypedDict``s that let a caller pass plain dicts where a request
takes an object (``generator/render/client/params.py``).

On a small spec made to hit every shape (nested objects, arrays of objects, an enum, a
union, a wire name that is no identifier, one that is a keyword, a recursive model, an
empty object, a name taken by a model) and on SGP and LLM Engine: the rendered module,
beside its ``models.py``, passes ruff, is a fixed point of ruff format and black, passes
``mypy --strict``, imports, and a consumer's dict literals check against the input
annotations (and wrong ones do not).
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from generator.config import adhoc_config
from generator.format import format_python, ruff_binary
from generator.ir import Api, build_ir
from generator.pipeline import load_and_normalize
from generator.render.client.params import first_line, params_context, render_params
from generator.render.models import render_models
from generator.render.surface.inputs import (
    USES_PARAMS,
    input_annotation,
    input_imports,
    param_names,
)
from generator.render.surface.methods import annotation
from tests.conftest import GENERATED, import_package, write_json

HEADER = "# Generated for tests/test_params.py."


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def obj(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required)}


STRING = {"type": "string"}
SCHEMAS: dict[str, Any] = {
    "Role": {"type": "string", "enum": ["user", "assistant"], "description": "Who speaks."},
    "TextPart": obj({"type": {"const": "text"}, "text": STRING}, ("type", "text")),
    "UserMessage": obj(
        {
            "role": {"const": "user"},
            "content": {"anyOf": [STRING, {"type": "array", "items": ref("TextPart")}]},
        },
        ("role", "content"),
    ),
    "AssistantMessage": obj({"role": {"const": "assistant"}, "content": STRING}, ("role",)),
    "Message": {
        "oneOf": [ref("UserMessage"), ref("AssistantMessage")],
        "discriminator": {"propertyName": "role"},
    },
    "Window": obj(
        {
            "from": {"type": "integer"},
            "to": {"type": "integer"},
            "x-y": STRING,
            "speaker": ref("Role"),
        },
        ("from",),
    ),
    "Node": obj({"value": STRING, "children": {"type": "array", "items": ref("Node")}}),
    "Options": obj({"window": {"anyOf": [ref("Window"), {"type": "null"}]}, "seed": {}}),
    "OptionsParam": obj({"note": STRING}),
    "Free": {"type": "object", "description": "Anything."},
    "Filter": obj({"name": STRING}, ("name",)),
    "ChatRequest": obj(
        {
            "messages": {"type": "array", "items": ref("Message")},
            "model": STRING,
            "role": ref("Role"),
            "options": ref("Options"),
            "extra": ref("OptionsParam"),
            "tree": ref("Node"),
            "labels": {"type": "object", "additionalProperties": ref("Window")},
            "free": ref("Free"),
            "stop": {"type": "array", "items": STRING},
        },
        ("messages", "model"),
    ),
    "Answer": obj({"text": STRING}),
    "Unsent": obj({"text": STRING}),
}
OK = {"200": {"description": "ok", "content": {"application/json": {"schema": ref("Answer")}}}}
SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Params", "version": "1"},
    "paths": {
        "/chat": {
            "post": {
                "operationId": "chat",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": ref("ChatRequest")}},
                },
                "responses": OK,
            },
            "get": {
                "operationId": "find",
                "parameters": [
                    {"name": "filter", "in": "query", "required": False, "schema": ref("Filter")}
                ],
                "responses": OK,
            },
        }
    },
    "components": {"schemas": SCHEMAS},
}


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Api, str]:
    """The small spec's IR and ``models.py``, as the pipeline builds them."""
    root = tmp_path_factory.mktemp("params-spec")
    spec = write_json(root / "spec.json", SPEC)
    _doc, normalized = load_and_normalize(adhoc_config(spec, root / "out", package="unused"))
    models = render_models(normalized.spec, HEADER)
    return build_ir(normalized.spec), format_python({"models.py": models})["models.py"]


@cache
def real(package: str) -> tuple[Api, str]:
    """A committed package's IR (from its normalized spec) and ``models.py``."""
    spec = json.loads((GENERATED / package / "openapi.json").read_text(encoding="utf-8"))
    return build_ir(spec), (GENERATED / package / "models.py").read_text(encoding="utf-8")


def params_source(api: Api) -> str:
    return format_python({"_params.py": render_params(api, HEADER, None)})["_params.py"]


def package(root: Path, name: str, models: str, params: str, **extra: str) -> Path:
    """A package of ``models.py``, ``_params.py`` and ``extra`` modules, with the ruff
    settings of a generated package."""
    target = root / name
    target.mkdir(parents=True)
    (target / "__init__.py").write_text("")
    (target / "models.py").write_text(models, encoding="utf-8")
    (target / "_params.py").write_text(params, encoding="utf-8")
    for module, text in extra.items():
        (target / f"{module}.py").write_text(text, encoding="utf-8")
    (root / "ruff.toml").write_text('line-length = 88\ntarget-version = "py310"\n')
    return target


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def mypy(root: Path, *files: str) -> subprocess.CompletedProcess[str]:
    (root / "mypy.ini").write_text("[mypy]\n")
    command = [sys.executable, "-m", "mypy", "--strict", "--python-version", "3.10"]
    command += ["--config-file", "mypy.ini", "--cache-dir", str(root / ".mypy_cache"), *files]
    return run(command, root)


def error_lines(proc: subprocess.CompletedProcess[str], file: str) -> set[int]:
    return {int(n) for n in re.findall(rf"^{re.escape(file)}:(\d+): error", proc.stdout, re.M)}


def check_module(root: Path, name: str) -> None:
    """ruff, ruff format, black and ``mypy --strict`` pass on ``root/name/_params.py``."""
    params = f"{name}/_params.py"
    for command in (
        [ruff_binary(), "check", "--no-cache", params],
        [ruff_binary(), "format", "--no-cache", "--check", params],
    ):
        proc = run(command, root)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    if importlib.util.find_spec("black") is not None:
        (root / "black.toml").write_text("")
        black = [sys.executable, "-m", "black", "--check", "--config", "black.toml"]
        proc = run([*black, params], root)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = mypy(root, params)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def imported(root: Path, name: str) -> ModuleType:
    import_package(root / name, name)
    return importlib.import_module(f"{name}._params")


# --- the small spec ------------------------------------------------------------------------


def test_which_models_get_an_input_type_and_their_names(small: tuple[Api, str]) -> None:
    found = param_names(small[0])
    assert found.typed_dicts == {
        "AssistantMessage": "AssistantMessageParam",
        "ChatRequest": "ChatRequestParam",
        "Filter": "FilterParam",  # from a query parameter
        "Node": "NodeParam",
        "Options": "OptionsParam2",  # OptionsParam is a model's name
        "OptionsParam": "OptionsParamParam",
        "TextPart": "TextPartParam",
        "UserMessage": "UserMessageParam",
        "Window": "WindowParam",
    }
    assert found.aliases == {"Message": "MessageParam"}
    assert found.empty == {"Free"}  # no fields: dict[str, Any] | _m.Free
    assert "Role" not in found.typed_dicts and "Unsent" not in found.typed_dicts


def test_input_annotations(small: tuple[Api, str]) -> None:
    api, _models = small
    fields = {f.name: f.type for f in api.model("ChatRequest").fields}
    found = param_names(api)

    def spelled(field: str) -> str:
        return input_annotation(api, fields[field], found)

    assert spelled("messages") == "Iterable[_p.MessageParam]"
    assert spelled("options") == "_p.OptionsParam2 | _m.Options"
    assert spelled("labels") == "Mapping[str, _p.WindowParam | _m.Window]"
    assert spelled("free") == "dict[str, Any] | _m.Free"
    # no object involved: the argument annotation as methods.py spells it
    for plain in ("stop", "role", "model"):
        assert spelled(plain) == annotation(fields[plain])
    assert input_imports(api, fields["messages"], found) == {
        "collections.abc.Iterable",
        USES_PARAMS,
    }
    assert input_imports(api, fields["stop"], found) == set()


def test_forms_of_the_definitions(small: tuple[Api, str]) -> None:
    api, _models = small
    context = params_context(api, HEADER)
    forms = {p.model: p for p in context["params"]}  # type: ignore[attr-defined]
    window = forms["Window"]
    assert window.form == "functional"  # "from" is a keyword, "x-y" no identifier
    assert [k.key for k in window.keys] == ["from", "to", "x-y", "speaker"]
    assert window.keys[0].annotation == "typing_extensions.Required[int]"
    assert forms["Message"].form == "union"
    assert forms["ChatRequest"].form == "class"
    assert [p.model for p in context["params"]] == [  # type: ignore[attr-defined]
        m.name for m in api.models if m.name in {p.model for p in forms.values()}
    ]


CONSUMER_SMALL = """\
from __future__ import annotations

from . import _params as _p
from . import models as _m


def chat(body: _p.ChatRequestParam) -> None: ...


chat(
    {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": "hello"},
            _m.AssistantMessage(role="assistant"),
        ],
        "model": "m",
        "role": "user",
        "options": {"window": {"from": 1, "x-y": "z", "speaker": "assistant"}},
        "extra": {"note": "n"},
        "tree": {"value": "a", "children": [{"value": "b", "children": []}]},
        "labels": {"a": {"from": 2}},
        "free": {"anything": 1},
        "stop": ["x"],
    }
)
window: _p.WindowParam = {"from": 1}
"""
# each line is one wrong call; mypy must reject every one
WRONG_SMALL = """\
from __future__ import annotations

from . import _params as _p


def chat(body: _p.ChatRequestParam) -> None: ...


chat({"messages": [{"role": 1}], "model": "m"})
chat({"messages": [], "model": 1})
chat({"messages": []})
chat({"messages": [], "model": "m", "role": "robot"})
chat({"messages": [], "model": "m", "options": {"window": {"to": 1}}})
chat({"messages": [], "model": "m", "tree": {"children": [{"value": 1}]}})
chat({"messages": [], "model": "m", "unknown": 1})
"""


def test_small_module_checks_and_imports(small: tuple[Api, str], tmp_path: Path) -> None:
    api, models = small
    name = "params_small"
    package(tmp_path, name, models, params_source(api), consumer=CONSUMER_SMALL, wrong=WRONG_SMALL)
    check_module(tmp_path, name)
    proc = mypy(tmp_path, f"{name}/consumer.py", f"{name}/wrong.py")
    assert not error_lines(proc, f"{name}/consumer.py"), proc.stdout
    wrong = [i + 1 for i, line in enumerate(WRONG_SMALL.splitlines()) if line.startswith("chat(")]
    assert error_lines(proc, f"{name}/wrong.py") == set(wrong), proc.stdout
    module = imported(tmp_path, name)
    assert module.WindowParam.__optional_keys__ >= {"to", "x-y"}
    assert "from" in module.WindowParam.__required_keys__


# --- SGP and LLM Engine --------------------------------------------------------------------


def sgp_messages_annotation() -> str:
    api, _models = real("sgp")
    op = next(o for o in api.operations if o.path == "/v4/chat-completions" and o.method == "post")
    assert op.request_body is not None and op.request_body.schema.name
    body = api.model(op.request_body.schema.name)
    messages = next(f for f in body.fields if f.name == "messages")
    return input_annotation(api, messages.type, param_names(api))


def consumer(annotation: str, calls: list[str]) -> str:
    lines = [
        "from __future__ import annotations",
        "",
        "import builtins",
        "from collections.abc import Iterable",
        "",
        "from . import _params as _p",
        "from . import models as _m",
        "",
        "",
        f"def create(messages: {annotation}) -> None: ...",
        "",
        "",
        *calls,
        "",
    ]
    return "\n".join(lines)


def test_sgp_chat_messages_take_dicts(tmp_path: Path) -> None:
    api, models = real("sgp")
    annotation = sgp_messages_annotation()
    assert annotation == "Iterable[_p.ChatMessageParam]"
    ok = consumer(
        annotation,
        [
            'create([{"role": "user", "content": "hi"}])',
            'create([{"role": "system", "content": "be brief"}, {"content": "hi"}])',
            'user = _m.EgpModelsUserMessage(content="hi")',
            'create([user, {"role": "assistant", "content": "x"}])',
            'create([{"role": "user", "content": [{"type": "text", "text": "hi"}]}])',
        ],
    )
    wrong = consumer(
        annotation,
        [
            'create([{"role": 1}])',
            'create([{"role": "user", "content": 1}])',
            'create([{"role": "user", "content": "hi", "unknown": 1}])',
            'create({"role": "user", "content": "hi"})',
        ],
    )
    name = "params_sgp"
    package(tmp_path, name, models, params_source(api), consumer=ok, wrong=wrong)
    check_module(tmp_path, name)
    proc = mypy(tmp_path, f"{name}/consumer.py", f"{name}/wrong.py")
    assert not error_lines(proc, f"{name}/consumer.py"), proc.stdout
    calls = [i + 1 for i, line in enumerate(wrong.splitlines()) if line.startswith("create(")]
    assert error_lines(proc, f"{name}/wrong.py") == set(calls), proc.stdout
    imported(tmp_path, name)


def test_llm_engine_module_checks_and_imports(tmp_path: Path) -> None:
    api, models = real("llm_engine")
    name = "params_llm_engine"
    package(tmp_path, name, models, params_source(api))
    check_module(tmp_path, name)
    imported(tmp_path, name)


@pytest.mark.parametrize("name", ["sgp", "llm_engine"])
def test_real_rendering_is_deterministic(name: str) -> None:
    api, _models = real(name)
    assert render_params(api, HEADER, None) == render_params(api, HEADER, None)
    assert param_names(api)  # both APIs send objects


def test_an_api_without_inputs_has_an_empty_module() -> None:
    api = build_ir({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}})
    assert not param_names(api)
    source = render_params(api, HEADER, None)
    assert source.rstrip().endswith("from __future__ import annotations")
    compile(source, "_params.py", "exec")


def test_the_docstring_is_the_first_line_of_prose() -> None:
    assert first_line("### Description\nLists the things.\n\nMore.") == "Lists the things."
    assert first_line("## Only a heading") == "Only a heading"
    assert first_line("\n\n  One line.  \nTwo.") == "One line."
    assert first_line(None) == ""
