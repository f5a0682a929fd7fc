"""The `text` pass: descriptions cleaned, titles that restate a field name dropped."""

from __future__ import annotations

import copy
import inspect
import json
import re
from pathlib import Path
from typing import Any

import pytest

from generator.config import load_config
from generator.normalize import normalize, text
from generator.normalize.text import clean_text, restated_titles
from generator.normalize.walk import iter_schemas
from generator.pipeline import load_and_normalize

SPECS = Path(__file__).resolve().parents[2] / "specs"


def doc(**schemas: Any) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {}, "paths": {}, "components": {"schemas": schemas}}


def prop(schema: dict[str, Any], name: str = "x") -> dict[str, Any]:
    """``Model.properties.<name>`` after the pass."""
    spec = doc(Model={"type": "object", "properties": {name: schema}})
    result = text.run(spec, {})
    assert result.diagnostics == ()
    out: dict[str, Any] = result.spec["components"]["schemas"]["Model"]["properties"][name]
    return out


# --- descriptions -------------------------------------------------------------------------

LLM_ENGINE_BEST_OF = (
    "Number of output sequences that are generated from the prompt.\n"
    "            From these `best_of` sequences, the top `n` sequences are returned.\n"
    "            `best_of` must be greater than or equal to `n`."
)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (  # LLM Engine: the source's docstring indentation
            LLM_ENGINE_BEST_OF,
            "Number of output sequences that are generated from the prompt.\n"
            "From these `best_of` sequences, the top `n` sequences are returned.\n"
            "`best_of` must be greater than or equal to `n`.",
        ),
        (
            "\n    Starts on the second line.\n    Like a docstring.\n    ",
            "Starts on the second line.\nLike a docstring.",
        ),
        (" Leading space.", "Leading space."),
        ("Ends with a newline.\n", "Ends with a newline."),
        ("\n\nBlank lines around.\n\n\n", "Blank lines around."),
        ("Trailing spaces \nand tabs\t\nhere", "Trailing spaces\nand tabs\nhere"),
        ("Windows\r\n    line\r\n    ends\r\n", "Windows\nline\nends"),
        ("Old Mac\r    line ends", "Old Mac\nline ends"),
        ("Tabs\n\tindent\n\tthe lines", "Tabs\nindent\nthe lines"),
        ("Tab and spaces\n\tcount\n        alike", "Tab and spaces\ncount\nalike"),
        ("A tab\tinside a line stays", "A tab\tinside a line stays"),
        ("Relative\n    indentation\n        stays", "Relative\nindentation\n    stays"),
        (  # a Markdown list under docstring indentation: the list survives
            "Roles:\n    - user: the human\n    - assistant: the model\n      who answers",
            "Roles:\n- user: the human\n- assistant: the model\n  who answers",
        ),
        (  # LLM Engine's ServiceTier: a two-space list, with item continuations
            "Tier:\n  - If 'auto', the system\n    uses credits.\n  - Else not.\n\n  Then more.\n",
            "Tier:\n- If 'auto', the system\n  uses credits.\n- Else not.\n\nThen more.",
        ),
        (  # fenced code keeps its own indentation, relative to the fence
            'Example:\n        ```json\n        {\n            "a": 1\n        }\n        ```',
            'Example:\n```json\n{\n    "a": 1\n}\n```',
        ),
        (  # an indented code block inside docstring indentation stays a code block
            "Call it:\n        like this\n\n            f(x)\n\n        done.",
            "Call it:\nlike this\n\n    f(x)\n\ndone.",
        ),
        ("", ""),
        ("   \n \t \n", ""),
        ("Grüße\n    schön", "Grüße\nschön"),
    ],
)
def test_descriptions_are_cleaned(before: str, after: str) -> None:
    assert clean_text(before) == after
    assert prop({"type": "string", "description": before})["description"] == after


@pytest.mark.parametrize(
    "kept",
    [
        # an indented code block after a blank line: dedenting would make it a paragraph
        "Example:\n\n    client.call()\n    client.close()",
        # the lines under a list item are its continuation or a nested list
        "- a\n  - nested b\n  - nested c",
        "1. first\n   still first",
        "> quoted\n  lazily",
        # SGP: a flush line among the continuation lines: nothing is common
        "An enum.\nAttributes:\n    PENDING: pending.\n    READY: ready.",
        "### Description\nText\n\n    ### Details\n    Indented in the source",
    ],
)
def test_indentation_that_means_something_is_kept(kept: str) -> None:
    assert clean_text(kept) == kept


def test_cleaning_matches_cleandoc_on_plain_docstrings() -> None:
    for sample in (
        LLM_ENGINE_BEST_OF,
        "\n    One.\n    Two.\n",
        "\n    One.\n        Indented.\n    Two.",  # the first line's indentation counts
        "\n        Code first.\n    Then text.",
        "One\n  two\n    three",
    ):
        assert clean_text(sample) == inspect.cleandoc(sample)


def test_cleaning_is_idempotent() -> None:
    for sample in (LLM_ENGINE_BEST_OF, "Tier:\n  - a\n    b\n", " x \r\n\ty"):
        assert clean_text(clean_text(sample)) == clean_text(sample)


def test_every_text_position_is_cleaned() -> None:
    messy = "Text\n    more. "
    clean = "Text\nmore."
    spec: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1", "description": messy, "summary": messy},
        "tags": [{"name": "t", "description": messy}],
        "servers": [{"url": "https://x", "description": messy}],
        "paths": {
            "/a/{id}": {
                "summary": messy,
                "parameters": [{"name": "id", "in": "path", "description": messy,
                                "schema": {"type": "string", "description": messy}}],
                "post": {
                    "summary": messy,
                    "description": messy,
                    "requestBody": {"description": messy, "content": {"application/json": {
                        "schema": {"type": "object", "description": messy}}}},
                    "responses": {"200": {"description": messy, "headers": {
                        "X-Rate": {"description": messy, "schema": {"type": "integer"}}}}},
                },
            }
        },
        "components": {
            "schemas": {"M": {"type": "object", "description": messy, "properties": {
                "a": {"type": "array", "items": {"type": "string", "description": messy}}}}},
            "parameters": {"P": {"name": "p", "in": "query", "description": messy}},
            "responses": {"R": {"description": messy}},
            "requestBodies": {"B": {"description": messy, "content": {}}},
            "securitySchemes": {"k": {"type": "apiKey", "in": "header", "name": "k",
                                      "description": messy}},
        },
    }  # fmt: skip
    out = json.dumps(text.run(spec, {}).spec)
    assert json.dumps(messy)[1:-1] not in out
    assert out.count(json.dumps(clean)) == 19


def test_data_is_not_text() -> None:
    """Examples, defaults, enums and discriminator mappings are values: left alone."""
    messy = "  keep\n    me  "
    schema = {
        "type": "object",
        "default": {"description": messy},
        "examples": [{"summary": messy, "description": messy}],
        "enum": [{"description": messy}],
        "properties": {"description": {"type": "string", "const": messy}},
    }
    assert prop(copy.deepcopy(schema)) == schema


# --- titles -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("best_of", "Best Of"),
        ("model_config", "Model Config"),
        ("url", "Url"),
        ("id_", "Id"),  # pydantic 2 strips
        ("id_", "Id "),  # pydantic 1 does not (SGP's IndexNode.id_)
        ("top_k", "Top K"),
        ("model2vec", "Model2Vec"),  # str.title() starts a word after a digit
        ("modelName", "Modelname"),  # what pydantic derives from a camelCase alias
        ("größe", "Größe"),
        ("ñame_x", "Ñame X"),
    ],
)
def test_restated_titles_are_dropped(name: str, title: str) -> None:
    assert title in restated_titles(name)
    assert prop({"type": "string", "title": title, "description": "d"}, name) == {
        "type": "string",
        "description": "d",
    }


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("url", "URL"),  # an acronym spelled out is not pydantic's default
        ("type", "Error Type"),
        ("msg", "Message"),
        ("items", "Paginated list of ModelDeploymentResponse"),
        ("best_of", "best_of"),
        ("best_of", "Best of"),
        ("json_schema", "JSON schema"),
    ],
)
def test_informative_titles_are_kept(name: str, title: str) -> None:
    assert prop({"type": "string", "title": title}, name)["title"] == title


def test_restated_titles_go_wherever_the_field_schema_is() -> None:
    ref = {"$ref": "#/components/schemas/Role"}
    assert prop({**ref, "title": "Role"}, "role") == ref
    assert prop({"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Stop"}, "stop") == {
        "anyOf": [{"type": "string"}, {"type": "null"}]
    }
    nested = prop(
        {"type": "object", "properties": {"inner_x": {"type": "string", "title": "Inner X"}}}
    )
    assert nested == {"type": "object", "properties": {"inner_x": {"type": "string"}}}


def test_component_titles_that_restate_its_name_are_dropped() -> None:
    tags = {"type": "array", "title": "Tags", "items": {"type": "string", "title": "Tags"}}
    spec = doc(
        Model={"type": "object", "title": "Model", "properties": {"tags": tags}},
        Role={"type": "string", "enum": ["user"], "title": "Role"},
        EgpModelsRole={"type": "string", "title": "Role"},  # the name before `names`: kept
        Lower={"type": "string", "title": "lower"},
    )
    schemas = text.run(spec, {}).spec["components"]["schemas"]
    assert "title" not in schemas["Model"]
    assert schemas["Role"] == {"type": "string", "enum": ["user"]}
    assert schemas["EgpModelsRole"]["title"] == "Role"
    assert schemas["Lower"]["title"] == "lower"
    # an item's title restates no field name
    assert schemas["Model"]["properties"]["tags"] == {
        "type": "array",
        "items": {"type": "string", "title": "Tags"},
    }


def test_parameter_titles_that_restate_its_name_are_dropped() -> None:
    spec = doc()
    spec["paths"] = {"/f/{file_id}": {"get": {"parameters": [
        {"name": "file_id", "in": "path", "schema": {"type": "string", "title": "File Id"}},
        {"name": "limit", "in": "query", "schema": {"type": "integer", "title": "Page size"}},
    ]}}}  # fmt: skip
    params = text.run(spec, {}).spec["paths"]["/f/{file_id}"]["get"]["parameters"]
    assert [p["schema"] for p in params] == [
        {"type": "string"},
        {"type": "integer", "title": "Page size"},
    ]


# --- purity, switching, the real specs ----------------------------------------------------


def test_pure_and_silent() -> None:
    best_of = {"type": "integer", "title": "Best Of", "description": LLM_ENGINE_BEST_OF}
    spec = doc(
        Model={"type": "object", "description": " a\n    b ", "properties": {"best_of": best_of}}
    )
    before = copy.deepcopy(spec)
    first = text.run(spec, {})
    assert spec == before, "the pass mutated its input"
    assert first.diagnostics == ()
    assert text.run(first.spec, {}).spec == first.spec  # idempotent


def test_switchable(tmp_path: Path) -> None:
    best_of = {"type": "integer", "title": "Best Of", "description": LLM_ENGINE_BEST_OF}
    spec = doc(Model={"type": "object", "properties": {"best_of": best_of}})
    (tmp_path / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    toml = '[api]\nspec = "spec.json"\nout = "out"\n'
    on = tmp_path / "on.toml"
    on.write_text(toml, encoding="utf-8")
    off = tmp_path / "off.toml"
    off.write_text(toml + "\n[passes]\ntext = false\n", encoding="utf-8")

    def field(config: Path) -> dict[str, Any]:
        _doc, result = load_and_normalize(load_config(config))
        out: dict[str, Any] = result.spec["components"]["schemas"]["Model"]["properties"]["best_of"]
        return out

    assert "title" not in field(on)
    assert field(off) == best_of
    off_spec = normalize(spec, {"text": False}).spec
    assert off_spec["components"]["schemas"]["Model"]["properties"]["best_of"] == best_of


@pytest.mark.parametrize("config", ["llm-engine.toml", "sgp.toml", "sgp-chat-request.toml"])
def test_real_specs_come_out_clean(config: str) -> None:
    _doc, result = load_and_normalize(load_config(SPECS / config))
    for pointer, schema in iter_schemas(result.spec):
        description = schema.get("description")
        if isinstance(description, str):
            lines = description.split("\n")
            indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line]
            assert not indents or min(indents) == 0 or re.match(r"[-*+>]|\d+[.)]", lines[0]), (
                pointer
            )
            assert all(line == line.rstrip() for line in lines), pointer
        for name, sub in (schema.get("properties") or {}).items():
            if isinstance(sub, dict):
                assert sub.get("title") not in restated_titles(name), f"{pointer}/{name}"
    for name, schema in result.spec["components"]["schemas"].items():
        assert schema.get("title") != name, name


def test_typing_generics_docstring_is_dropped() -> None:
    """pydantic 1's generic models leak ``typing.Generic.__doc__`` as a schema description
    (SGP's Paginated... schemas): it says nothing about the API, and is dropped; a
    description that merely mentions generics is kept."""
    import typing

    leaked = typing.Generic.__doc__ or ""
    assert leaked.strip().startswith(text.GENERIC_DOC)
    spec: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {},
        "components": {
            "schemas": {
                "Page": {"type": "object", "description": leaked},
                "Other": {"type": "object", "description": "Generic types are fine here."},
            }
        },
    }
    schemas = text.run(spec, {}).spec["components"]["schemas"]
    assert "description" not in schemas["Page"]
    assert schemas["Other"]["description"] == "Generic types are fine here."
    sgp = load_and_normalize(load_config(SPECS / "sgp.toml"))[1].spec
    described = [s.get("description", "") for s in sgp["components"]["schemas"].values()]
    assert not [d for d in described if "Abstract base class for generic types" in d]
