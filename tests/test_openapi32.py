"""OpenAPI 3.2 read in its 3.1 form (``generator/load/openapi32.py``, issue 24): each rule
of the load pass on minimal documents, then a whole 3.2 spec through the loader and the
pipeline (the golden case ``openapi-32``: its streams, QUERY and COPY operations, the
querystring's parameters and the nested tags' resources). The generated client against
its mock and server over real HTTP is ``tests/client/test_openapi32.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.errors import ApismithError
from generator.ir import build_ir
from generator.load import load_spec
from generator.load.openapi32 import lower_openapi32, rebase
from generator.media import sequence_format
from tests.conftest import REPO_ROOT, describe, run_cli

GOLDEN = REPO_ROOT / "tests" / "golden" / "openapi-32" / "spec.yaml"


def doc(paths: dict[str, Any], **parts: Any) -> dict[str, Any]:
    return {"openapi": "3.2.0", "info": {"title": "T", "version": "1"}, "paths": paths, **parts}


def ok(content: dict[str, Any] | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = {"description": "ok"}
    if content is not None:
        answer["content"] = content
    return {"responses": {"200": answer}}


def lowered(document: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str, str]]]:
    return lower_openapi32(document, "spec.yaml")


# --- additionalOperations ----------------------------------------------------------------------


def test_additional_operations_become_the_path_items_methods() -> None:
    out, warnings = lowered(doc({"/a": {"additionalOperations": {"COPY": ok(), "Purge": ok()}}}))
    assert set(out["paths"]["/a"]) == {"copy", "purge"}
    assert warnings == []


@pytest.mark.parametrize(
    ("method", "why"),
    [("FROB", "is not supported"), ("GET", "has its own field"), ("QUERY", "has its own field")],
)
def test_an_additional_operation_without_a_place_is_left_out_with_a_warning(
    method: str, why: str
) -> None:
    out, warnings = lowered(doc({"/a": {"get": ok(), "additionalOperations": {method: ok()}}}))
    assert set(out["paths"]["/a"]) == {"get"}
    assert out["paths"]["/a"]["get"] == ok()  # the fixed field is kept, not replaced
    [(file, pointer, message)] = warnings
    assert (file, pointer) == ("spec.yaml", f"#/paths/~1a/additionalOperations/{method}")
    assert message == f"the {method} method {why}: the operation is left out"


# --- in: querystring ---------------------------------------------------------------------------


def querystring(content: dict[str, Any], required: bool = True) -> dict[str, Any]:
    return {"name": "q", "in": "querystring", "required": required, "content": content}


FORM_OBJECT = {
    "type": "object",
    "required": ["kind"],
    "properties": {"kind": {"type": "string", "description": "Which."}, "n": {"type": "integer"}},
}


def test_a_form_querystring_is_one_query_parameter_per_property() -> None:
    content = {"application/x-www-form-urlencoded": {"schema": {"$ref": "#/components/schemas/F"}}}
    get = {**ok(), "parameters": [querystring(content)]}
    spec = doc({"/a": {"get": get}}, components={"schemas": {"F": FORM_OBJECT}})
    out, warnings = lowered(spec)
    assert warnings == []
    assert out["paths"]["/a"]["get"]["parameters"] == [
        {"name": "kind", "in": "query", "required": True, "description": "Which.",
         "style": "form", "explode": True, "schema": FORM_OBJECT["properties"]["kind"]},
        {"name": "n", "in": "query", "required": False,
         "style": "form", "explode": True, "schema": {"type": "integer"}},
    ]  # fmt: skip


def test_an_optional_querystring_requires_none_of_its_properties() -> None:
    content = {"application/x-www-form-urlencoded": {"schema": FORM_OBJECT}}
    out, _ = lowered(doc({"/a": {"get": {**ok(), "parameters": [querystring(content, False)]}}}))
    assert [p["required"] for p in out["paths"]["/a"]["get"]["parameters"]] == [False, False]


def test_another_querystring_is_left_out_with_a_warning() -> None:
    content = {"application/jsonpath": {"schema": {"type": "string"}}}
    out, warnings = lowered(doc({"/a": {"parameters": [querystring(content)], "get": ok()}}))
    assert out["paths"]["/a"]["parameters"] == []
    assert warnings == [
        (
            "spec.yaml",
            "#/paths/~1a/parameters/0",
            "a querystring parameter of application/jsonpath content is not supported:"
            " it is left out",
        )
    ]


# --- itemSchema --------------------------------------------------------------------------------


def event(data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": ["data"], "properties": {"data": data}}


CHUNK = {"$ref": "#/components/schemas/Chunk"}
JSON_DATA = {"type": "string", "contentMediaType": "application/json", "contentSchema": CHUNK}


@pytest.mark.parametrize(
    ("media", "fmt"),
    [("application/jsonl", "jsonl"), ("application/x-ndjson; charset=utf-8", "jsonl"),
     ("application/json-seq", "json-seq")],
)  # fmt: skip
def test_an_item_schema_of_json_items_is_the_schema_of_one_item(media: str, fmt: str) -> None:
    out, warnings = lowered(doc({"/a": {"get": ok({media: {"itemSchema": CHUNK}})}}))
    entry = out["paths"]["/a"]["get"]["responses"]["200"]["content"][media]
    assert entry == {"schema": CHUNK, "x-apismith-sequence": fmt}
    assert warnings == []


def test_an_event_streams_item_is_the_json_chunk_of_its_data_and_a_const_ends_it() -> None:
    item = {"oneOf": [event(JSON_DATA), event({"const": "[DONE]"})]}
    out, _ = lowered(doc({"/a": {"post": ok({"text/event-stream": {"itemSchema": item}})}}))
    entry = out["paths"]["/a"]["post"]["responses"]["200"]["content"]["text/event-stream"]
    assert entry == {
        "schema": CHUNK,
        "x-apismith-sequence": "sse",
        "x-apismith-terminator": "[DONE]",
    }


def test_an_event_schema_behind_a_ref_is_read_through_it() -> None:
    content = {"text/event-stream": {"itemSchema": {"$ref": "#/components/schemas/E"}}}
    spec = doc({"/a": {"get": ok(content)}}, components={"schemas": {"E": event(JSON_DATA)}})
    out, _ = lowered(spec)
    assert out["paths"]["/a"]["get"]["responses"]["200"]["content"]["text/event-stream"] == {
        "schema": CHUNK,
        "x-apismith-sequence": "sse",
    }


@pytest.mark.parametrize(
    ("media", "item", "what"),
    [
        ("text/event-stream", event({"type": "string"}), "events of text data"),
        ("multipart/mixed", CHUNK, "an itemSchema in multipart/mixed"),
    ],
)
def test_other_item_schemas_are_read_as_text_with_a_warning(
    media: str, item: dict[str, Any], what: str
) -> None:
    out, warnings = lowered(doc({"/a": {"get": ok({media: {"itemSchema": item}})}}))
    entry = out["paths"]["/a"]["get"]["responses"]["200"]["content"][media]
    assert entry == {"schema": {"type": "string"}}
    assert [m for _, _, m in warnings] == [f"{what}: the answer is read as its text"]


def test_sequence_formats() -> None:
    assert sequence_format("Application/JSONL") == "jsonl"
    assert sequence_format("text/event-stream; charset=utf-8") == "sse"
    assert sequence_format("application/json") is None


# --- $self -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("https://x.test/v1/openapi.yaml#/components/schemas/A", "#/components/schemas/A"),
        ("https://x.test/v1/schemas/a.yaml", "schemas/a.yaml"),
        ("https://x.test/v1/schemas/a.yaml#/A", "schemas/a.yaml#/A"),
        ("/v1/openapi.yaml#/components/schemas/A", "#/components/schemas/A"),
        ("schemas/a.yaml", "schemas/a.yaml"),  # relative to $self: the same file
        ("#/components/schemas/A", "#/components/schemas/A"),
        # outside $self's folder: left as written, for the ref policy to refuse
        ("https://x.test/other.yaml", "https://x.test/other.yaml"),
        ("../other.yaml", "../other.yaml"),
        ("https://evil.test/v1/openapi.yaml", "https://evil.test/v1/openapi.yaml"),
    ],
)
def test_self_is_the_base_of_relative_refs(ref: str, expected: str) -> None:
    node = {"schema": {"$ref": ref}}
    rebase(node, "https://x.test/v1/openapi.yaml")
    assert node == {"schema": {"$ref": expected}}


def test_a_ref_outside_self_is_refused_by_the_ref_policy(tmp_path: Path) -> None:
    spec = doc(
        {"/a": {"get": ok({"application/json": {"schema": {"$ref": "https://x.test/b.yaml"}}})}},
        **{"$self": "https://x.test/v1/openapi.yaml"},
    )
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    with pytest.raises(ApismithError) as raised:
        load_spec(tmp_path / "spec.json")
    assert raised.value.exit_code == 2
    assert "https://x.test/b.yaml" in str(raised.value)


def test_a_ref_under_self_reads_the_file_beside_the_spec(tmp_path: Path) -> None:
    schema = {"$ref": "https://x.test/v1/schemas/a.json"}
    spec = doc(
        {"/a": {"get": ok({"application/json": {"schema": schema}})}},
        **{"$self": "https://x.test/v1/openapi.json"},
    )
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "a.json").write_text(json.dumps({"type": "object", "title": "A"}))
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    loaded = load_spec(tmp_path / "spec.json")
    assert "$self" not in loaded.doc
    assert [p.name for p in loaded.files] == ["spec.json", "a.json"]


# --- versions, and a whole 3.2 spec ------------------------------------------------------------


def test_a_later_version_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "spec.json").write_text(json.dumps({**doc({}), "openapi": "3.3.0"}))
    with pytest.raises(ApismithError, match=r"3\.0, 3\.1 and 3\.2 are supported"):
        load_spec(tmp_path / "spec.json")


def test_the_golden_spec_reads_as_streams_methods_parameters_and_tags() -> None:
    loaded = load_spec(GOLDEN)
    api = build_ir(loaded.doc)
    ops = {op.operation_id: op for op in api.operations}
    assert (ops["queryItems"].method, ops["copyItem"].method) == ("query", "copy")
    assert [(p.name, p.location, p.required) for p in ops["listEvents"].parameters] == [
        ("kind", "query", True),
        ("since", "query", False),
        ("limit", "query", False),
    ]
    [events] = ops["listEvents"].responses[0].content
    assert (events.sequence, events.schema.name) == ("jsonl", "Event")  # through $self
    [chunks] = ops["createCompletion"].responses[0].content
    assert (chunks.sequence, chunks.terminator) == ("sse", "[DONE]")
    completions = next(t for t in api.tags if t.name == "Completions")
    assert (completions.parent, completions.summary) == ("Chat", "Chat completions")
    assert loaded.warnings == ()


def test_the_golden_spec_names_the_client_after_its_nested_tags(tmp_path: Path) -> None:
    proc = run_cli("generate", "--spec", GOLDEN, "--out", tmp_path / "feeds", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert "warning" not in proc.stderr
    resources = tmp_path / "feeds" / "resources"
    assert sorted(p.name for p in resources.glob("*.py")) == [
        "__init__.py",
        "chat.py",
        "events.py",
        "items.py",
    ]
    assert "class ChatCompletionsResource:" in (resources / "chat.py").read_text()
    items = (resources / "items.py").read_text()
    assert '"query",\n                "/items",' in items
    assert "def copy(" in items
