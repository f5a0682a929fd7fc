"""Tests of the `names` pass: merges, class names, method names, field aliases."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from generator.normalize import names
from generator.normalize.diagnostics import Diagnostic
from generator.normalize.naming import (
    class_name,
    method_name,
    pascal_case,
    python_field_name,
    snake_case,
)

ROOT = Path(__file__).resolve().parents[2]
REF = "#/components/schemas/"


def openapi(schemas: dict[str, Any], paths: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": paths or {},
        "components": {"schemas": schemas},
    }


def ref(name: str) -> dict[str, str]:
    return {"$ref": REF + name}


def run(spec: dict[str, Any], **options: Any) -> tuple[dict[str, Any], list[Diagnostic]]:
    before = copy.deepcopy(spec)
    result = names.run(spec, options)
    assert spec == before, "the pass mutated its input"
    assert names.run(spec, options) == result, "the pass is not deterministic"
    return result.spec, list(result.diagnostics)


def kinds(diags: list[Diagnostic], kind: str) -> list[Diagnostic]:
    return [d for d in diags if d.kind == kind]


def all_refs(node: Any) -> list[str]:
    found: list[str] = []
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            found.append(node["$ref"])
        for value in node.values():
            found.extend(all_refs(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(all_refs(value))
    return found


# --- Input/Output pairs ----------------------------------------------------------------


def tool_calls(title: str) -> dict[str, Any]:
    return {"type": "array", "items": ref("ToolCall"), "title": title, "description": "d"}


def test_identical_pair_is_merged_and_every_ref_follows() -> None:
    spec = openapi(
        {
            "ToolCall": {"type": "object", "properties": {"id": {"type": "string"}}},
            "Calls-Input": tool_calls("Calls-Input"),
            "Calls-Output": tool_calls("Calls-Output"),
            "Req": {"type": "object", "properties": {"calls": ref("Calls-Input")}},
            "Resp": {
                "type": "object",
                "properties": {"calls": {"anyOf": [ref("Calls-Output"), {"type": "null"}]}},
            },
        },
        {
            "/x": {
                "post": {
                    "operationId": "make_x",
                    "requestBody": {
                        "content": {"application/json": {"schema": ref("Calls-Input")}}
                    },
                    "responses": {
                        "200": {"content": {"application/json": {"schema": ref("Calls-Output")}}}
                    },
                }
            }
        },
    )
    out, diags = run(spec)
    schemas = out["components"]["schemas"]
    assert list(schemas) == ["ToolCall", "Calls", "Req", "Resp"]
    assert schemas["Calls"]["title"] == "Calls"
    assert set(all_refs(out)) == {REF + "ToolCall", REF + "Calls"}
    merges = [(d.old, d.new, d.pointer) for d in kinds(diags, "merge")]
    assert merges == [
        ("Calls-Input", "Calls", REF + "Calls-Input"),
        ("Calls-Output", "Calls", REF + "Calls-Output"),
    ]
    assert not kinds(diags, "warning") and not kinds(diags, "rename")


def test_pairs_that_refer_to_each_other_merge_together() -> None:
    def node(suffix: str) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"children": {"type": "array", "items": ref("Leaf" + suffix)}},
        }

    def leaf(suffix: str) -> dict[str, Any]:
        return {"type": "object", "properties": {"parent": ref("Node" + suffix)}}

    spec = openapi(
        {
            "Node-Input": node("-Input"),
            "Node-Output": node("-Output"),
            "Leaf-Input": leaf("-Input"),
            "Leaf-Output": leaf("-Output"),
        }
    )
    out, diags = run(spec)
    assert list(out["components"]["schemas"]) == ["Node", "Leaf"]
    assert out["components"]["schemas"]["Leaf"]["properties"]["parent"] == ref("Node")
    assert len(kinds(diags, "merge")) == 4


def test_a_difference_propagates_to_the_pairs_that_use_it() -> None:
    spec = openapi(
        {
            "Outer-Input": {"type": "object", "properties": {"inner": ref("Inner-Input")}},
            "Outer-Output": {"type": "object", "properties": {"inner": ref("Inner-Output")}},
            "Inner-Input": {"type": "object", "properties": {"a": {"type": "string"}}},
            "Inner-Output": {
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                "required": ["b"],
            },
        }
    )
    out, diags = run(spec)
    assert set(out["components"]["schemas"]) == {
        "OuterInput",
        "OuterOutput",
        "InnerInput",
        "InnerOutput",
    }
    assert out["components"]["schemas"]["OuterOutput"]["properties"]["inner"] == ref("InnerOutput")
    warnings = {d.message for d in kinds(diags, "warning")}
    assert (
        "Inner-Input and Inner-Output kept as InnerInput and InnerOutput: "
        "they differ at /properties/b"
    ) in warnings
    assert (
        "Outer-Input and Outer-Output kept as OuterInput and OuterOutput: "
        "they differ at /properties/inner/$ref"
    ) in warnings
    assert not kinds(diags, "merge")
    assert len(kinds(diags, "rename")) == 4


def test_pair_is_kept_when_the_merged_name_exists() -> None:
    spec = openapi(
        {
            "Item": {"type": "string"},
            "Item-Input": {"type": "integer"},
            "Item-Output": {"type": "integer"},
        }
    )
    out, diags = run(spec)
    assert list(out["components"]["schemas"]) == ["Item", "ItemInput", "ItemOutput"]
    assert not kinds(diags, "merge")
    [warning] = kinds(diags, "warning")
    assert "Item exists already" in warning.message


def test_differing_titles_other_than_the_pair_names_count() -> None:
    spec = openapi(
        {
            "A-Input": {"type": "integer", "title": "Count"},
            "A-Output": {"type": "integer", "title": "Total"},
        }
    )
    out, diags = run(spec)
    assert list(out["components"]["schemas"]) == ["AInput", "AOutput"]
    assert "/title" in kinds(diags, "warning")[0].message


# --- class names -------------------------------------------------------------------------

GENERIC = (
    "ApplicationMetricScore_Literal__ApplicationScoreCategoryEnum.TRUST_AND_SAFETY___"
    "trust-and-safety_____Literal__SafetySubMetricTypeEnum.BIAS_AND_STEREOTYPING___"
    "safety-bias-and-stereotyping____"
)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Pet", "Pet"),
        ("HTTPValidationError", "HTTPValidationError"),
        ("Body_upload_file_v1_files_post", "BodyUploadFileV1FilesPost"),
        ("Body_POST-V4-_training-datasets", "BodyPostV4TrainingDatasets"),
        ("SGP_ERROR_CODES", "SgpErrorCodes"),
        ("pet", "Pet"),
        ("chat.completion-chunk", "ChatCompletionChunk"),
        ("1stPlace", "Schema1stPlace"),
        ("Café", "Cafe"),
        ("Søren_straße", "SorenStrasse"),
        ("Field", "FieldModel"),
        ("BaseModel", "BaseModelModel"),
        ("None", "NoneModel"),
        ("-", "Schema"),
        (GENERIC, "ApplicationMetricScoreTrustAndSafetyBiasAndStereotyping"),
        ("Page_User_", "PageUser"),
        ("Response_Literal__ok__", "ResponseOk"),
    ],
)
def test_class_name(old: str, new: str) -> None:
    assert class_name(old) == new


def test_generic_names_are_renamed_with_their_titles_and_refs() -> None:
    spec = openapi(
        {
            GENERIC: {"type": "object", "title": GENERIC},
            "Score": {"type": "object", "properties": {"s": ref(GENERIC)}},
        }
    )
    out, diags = run(spec)
    new = "ApplicationMetricScoreTrustAndSafetyBiasAndStereotyping"
    assert out["components"]["schemas"][new] == {"type": "object", "title": new}
    assert out["components"]["schemas"]["Score"]["properties"]["s"] == ref(new)
    [rename] = kinds(diags, "rename")
    assert (rename.old, rename.new) == (GENERIC, new)


def test_titles_that_are_not_the_old_name_stay() -> None:
    out, _ = run(openapi({"my_pet": {"type": "object", "title": "A pet"}}))
    assert out["components"]["schemas"]["MyPet"]["title"] == "A pet"


def test_module_qualified_names_get_the_shortest_telling_qualifier() -> None:
    spec = openapi(
        {
            "app__api__models__egp_models__ArtifactInfo": {"type": "object"},
            "app__internal__entities__ArtifactInfo": {"type": "string"},
            "agents__types__plan_config_param__Evaluation": {"type": "object"},
            "agents__types__workflow_config_param__Evaluation": {"type": "string"},
            "pkg__mod__Lonely": {"type": "object"},
            "pkg__mod__Pet": {"type": "object"},
            "Pet": {"type": "object"},
        }
    )
    out, _ = run(spec)
    assert list(out["components"]["schemas"]) == [
        "EgpModelsArtifactInfo",
        "EntitiesArtifactInfo",
        "PlanEvaluation",
        "WorkflowEvaluation",
        "Lonely",
        "ModPet",
        "Pet",
    ]


def test_name_collisions_get_numbers_in_sorted_order() -> None:
    spec = openapi(
        {
            "foo_bar": {"type": "integer"},
            "FooBar": {"type": "string"},
            "Foo-Bar": {"type": "boolean"},
            "FooBar2": {"type": "number"},
            "User": {"type": "object", "properties": {"a": ref("foo_bar"), "b": ref("Foo-Bar")}},
        }
    )
    out, diags = run(spec)
    schemas = out["components"]["schemas"]
    # FooBar keeps its name; "Foo-Bar" < "foo_bar": it gets 3 (FooBar2 is taken), then 4
    assert schemas["FooBar3"] == {"type": "boolean"}
    assert schemas["FooBar4"] == {"type": "integer"}
    assert schemas["FooBar"] == {"type": "string"} and schemas["FooBar2"] == {"type": "number"}
    assert schemas["User"]["properties"] == {"a": ref("FooBar4"), "b": ref("FooBar3")}
    renames = {(d.old, d.new) for d in kinds(diags, "rename")}
    assert renames == {("Foo-Bar", "FooBar3"), ("foo_bar", "FooBar4")}
    assert all("FooBar is taken" in d.message for d in kinds(diags, "rename"))


def test_sub_pointer_refs_and_discriminator_mappings_follow() -> None:
    spec = openapi(
        {
            "cat": {"type": "object", "properties": {"kind": {"const": "cat"}}},
            "dog_x": {"type": "object", "properties": {"kind": {"const": "dog"}}},
            "Pet": {
                "oneOf": [ref("cat"), ref("dog_x")],
                "discriminator": {
                    "propertyName": "kind",
                    "mapping": {"cat": REF + "cat", "dog": "dog_x"},
                },
            },
            "Kind": {"$ref": REF + "cat/properties/kind"},
        }
    )
    out, _ = run(spec)
    schemas = out["components"]["schemas"]
    assert schemas["Pet"]["oneOf"] == [ref("Cat"), ref("DogX")]
    assert schemas["Pet"]["discriminator"]["mapping"] == {"cat": REF + "Cat", "dog": "DogX"}
    assert schemas["Kind"] == {"$ref": REF + "Cat/properties/kind"}


def test_schema_renames_option_wins() -> None:
    spec = openapi(
        {
            "Body_upload_file_v1_files_post": {"type": "object"},
            "Upload": {"type": "string"},
            "X-Input": {"type": "integer"},
            "X-Output": {"type": "integer"},
            "Use": {"type": "object", "properties": {"x": ref("X-Output")}},
        }
    )
    renames = {"Body_upload_file_v1_files_post": "Upload", "X": "Ex", "Nope": "N"}
    out, diags = run(spec, schema_renames=renames)
    schemas = out["components"]["schemas"]
    assert list(schemas) == ["Upload", "Upload2", "Ex", "Use"]
    assert schemas["Upload"] == {"type": "object"}
    assert schemas["Use"]["properties"]["x"] == ref("Ex")
    got = {(d.old, d.new) for d in kinds(diags, "rename")}
    assert got == {("Body_upload_file_v1_files_post", "Upload"), ("Upload", "Upload2"), ("X", "Ex")}
    assert [d.message for d in kinds(diags, "warning")] == [
        "schema_renames: no schema named 'Nope'"
    ]


def test_reserved_names_option() -> None:
    out, _ = run(openapi({"Client": {"type": "object"}}), reserved_names=["Client"])
    assert list(out["components"]["schemas"]) == ["ClientModel"]


def test_json_schema_defs_are_renamed() -> None:
    spec = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"msg": {"$ref": "#/$defs/chat_message"}, "class": {"type": "string"}},
        "$defs": {"chat_message": {"type": "object", "title": "chat_message"}},
    }
    out, diags = run(spec)
    assert out["$defs"] == {"ChatMessage": {"type": "object", "title": "ChatMessage"}}
    assert out["properties"]["msg"] == {"$ref": "#/$defs/ChatMessage"}
    assert out["properties"]["class"]["x-python-name"] == "class_"
    assert {d.kind for d in diags} == {"rename", "alias"}


# --- operations -------------------------------------------------------------------------


def op(operation_id: str | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {"responses": {"200": {"description": "ok"}}}
    if operation_id is not None:
        found["operationId"] = operation_id
    return found


def op_names(out: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {
        (path, method): o["x-apismith-name"]
        for path, item in out["paths"].items()
        for method, o in item.items()
    }


def test_sgp_style_ids_lose_their_shared_version_tag() -> None:
    spec = openapi(
        {},
        {
            "/v4/chat-completions": {"post": op("POST-V4-/v2/chat-completions")},
            "/v4/kb/{kb_id}": {"get": op("GET-V4-/knowledge-bases/{kb_id}")},
            "/v4/interactions/": {"post": op("POST-V4-/")},
        },
    )
    out, diags = run(spec)
    assert op_names(out) == {
        ("/v4/chat-completions", "post"): "post_v2_chat_completions",
        ("/v4/kb/{kb_id}", "get"): "get_knowledge_bases_kb_id",
        ("/v4/interactions/", "post"): "post",
    }
    assert out["paths"]["/v4/chat-completions"]["post"]["operationId"] == (
        "POST-V4-/v2/chat-completions"
    )
    assert {(d.old, d.new) for d in kinds(diags, "rename")} == {
        ("POST-V4-/v2/chat-completions", "post_v2_chat_completions"),
        ("GET-V4-/knowledge-bases/{kb_id}", "get_knowledge_bases_kb_id"),
        ("POST-V4-/", "post"),
    }


def test_version_tags_that_differ_are_kept() -> None:
    spec = openapi(
        {},
        {
            "/a": {"get": op("GET-V4-/things")},
            "/b": {"get": op("GET-V5-/things")},
        },
    )
    out, _ = run(spec)
    assert sorted(op_names(out).values()) == ["get_v4_things", "get_v5_things"]


def test_valid_ids_are_kept_and_others_derived() -> None:
    spec = openapi(
        {},
        {
            "/v1/model-endpoints": {
                "post": op("create_model_endpoint_v1_model_endpoints_post"),
                "get": op("listModelEndpoints"),
            },
            "/v1/model-endpoints/{id}": {"get": op(), "delete": op("import"), "put": op("2fa")},
        },
    )
    out, diags = run(spec)
    assert op_names(out) == {
        ("/v1/model-endpoints", "post"): "create_model_endpoint_v1_model_endpoints_post",
        ("/v1/model-endpoints", "get"): "list_model_endpoints",
        ("/v1/model-endpoints/{id}", "get"): "get_v1_model_endpoints_id",
        ("/v1/model-endpoints/{id}", "delete"): "import_",
        ("/v1/model-endpoints/{id}", "put"): "op_2fa",
    }
    olds = {d.old for d in kinds(diags, "rename")}
    assert olds == {"listModelEndpoints", "", "import", "2fa"}
    missing = next(d for d in diags if not d.old)
    assert "no operationId" in missing.message and "GET /v1/model-endpoints/{id}" in missing.message


def test_operation_collisions_get_numbers() -> None:
    spec = openapi(
        {},
        {
            "/a": {"get": op("get-items")},
            "/b": {"get": op("getItems"), "post": op("get_items")},
            "/c": {"get": op("get_items")},
        },
    )
    out, diags = run(spec)
    # the kept valid id first (and among duplicates the first path), then sorted ids
    assert op_names(out) == {
        ("/a", "get"): "get_items_3",
        ("/b", "get"): "get_items_4",
        ("/b", "post"): "get_items",
        ("/c", "get"): "get_items_2",
    }
    assert len(kinds(diags, "rename")) == 3


def test_operation_names_option() -> None:
    spec = openapi({}, {"/a": {"get": op("GET-V4-/a"), "post": op()}, "/b": {"get": op("get_b")}})
    overrides = {"GET-V4-/a": "fetch_a", "post /a": "Make A", "get_b": "get_b", "zzz": "z"}
    out, diags = run(spec, operation_names=overrides)
    assert op_names(out) == {
        ("/a", "get"): "fetch_a",
        ("/a", "post"): "make_a",
        ("/b", "get"): "get_b",
    }
    warnings = [d.message for d in kinds(diags, "warning")]
    assert warnings == [
        "operation_names: 'Make A' is not a valid method name, using make_a",
        "operation_names: no operation 'zzz'",
    ]
    assert len(kinds(diags, "rename")) == 2


# --- fields ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "taken", "python"),
    [
        ("name", set(), "name"),
        ("class", set(), "class_"),
        ("model_config", set(), "model_config_"),
        ("json", set(), "json_"),
        ("schema", set(), "schema_"),
        ("foo-bar", set(), "foo_bar"),
        ("foo-bar", {"foo_bar"}, "foo_bar_"),
        ("foo-bar", {"foo_bar", "foo_bar_"}, "foo_bar_2"),
        ("1st", set(), "field_1st"),
        ("@type", set(), "type"),
        ("_id", set(), "id"),
        ("_id", {"id"}, "id_"),
        ("@odata.nextLink", set(), "odata_next_link"),
        ("model_dump_mode", set(), "field_model_dump_mode"),
        ("$", set(), "field"),
        ("naïve", set(), "naive"),
        ("ünï cødé", set(), "uni_code"),
        ("名前", set(), "field"),
        ("type", set(), "type"),
        ("match", set(), "match"),
        ("name", {"name"}, "name_"),
    ],
)
def test_python_field_name(name: str, taken: set[str], python: str) -> None:
    before = set(taken)
    assert python_field_name(name, taken) == python
    assert taken == before


def test_soft_keywords_only_on_request() -> None:
    assert python_field_name("type", set(), soft_keywords=True) == "type_"
    assert python_field_name("@type", set(), soft_keywords=True) == "type_"
    assert python_field_name("match", {"match_"}, soft_keywords=True) == "match_2"


def test_unsafe_properties_get_x_python_name() -> None:
    shared = {"type": "string"}
    spec = openapi(
        {
            "Job": {
                "type": "object",
                "properties": {
                    "model_config": ref("Config"),
                    "class": shared,
                    "name": shared,
                    "foo-bar": {"type": "integer"},
                    "foo_bar": {"type": "integer"},
                    "nested": {
                        "type": "object",
                        "properties": {"from": {"type": "string"}},
                    },
                    "flag": True,
                    "type": {"type": "string"},
                },
            },
            "Config": {"type": "object"},
        }
    )
    out, diags = run(spec)
    props = out["components"]["schemas"]["Job"]["properties"]
    assert props["model_config"] == {**ref("Config"), "x-python-name": "model_config_"}
    assert props["class"] == {"type": "string", "x-python-name": "class_"}
    assert props["name"] == {"type": "string"}
    assert props["foo-bar"]["x-python-name"] == "foo_bar_"
    assert "x-python-name" not in props["foo_bar"]
    assert props["nested"]["properties"]["from"]["x-python-name"] == "from_"
    assert props["flag"] is True and "x-python-name" not in props["type"]
    aliases = [(d.pointer, d.message) for d in kinds(diags, "alias")]
    assert aliases == [
        (REF + "Job/properties/model_config", "field Job.model_config is model_config_ in Python"),
        (REF + "Job/properties/class", "field Job.class is class_ in Python"),
        (REF + "Job/properties/foo-bar", "field Job.foo-bar is foo_bar_ in Python"),
        (
            REF + "Job/properties/nested/properties/from",
            f"field {REF}Job/properties/nested.from is from_ in Python",
        ),
    ]


def test_alias_soft_keywords_option() -> None:
    spec = openapi({"M": {"type": "object", "properties": {"type": {"type": "string"}}}})
    out, diags = run(spec, alias_soft_keywords=True)
    assert out["components"]["schemas"]["M"]["properties"]["type"]["x-python-name"] == "type_"
    assert len(kinds(diags, "alias")) == 1


def test_fields_of_renamed_schemas_and_parameters() -> None:
    spec = openapi(
        {"my_thing": {"type": "object", "properties": {"def": {"type": "string"}}}},
        {
            "/x": {
                "get": {
                    "operationId": "get_x",
                    "parameters": [
                        {
                            "name": "q",
                            "in": "query",
                            "schema": {"type": "object", "properties": {"in": {}}},
                        }
                    ],
                    "responses": {},
                }
            }
        },
    )
    out, diags = run(spec)
    assert out["components"]["schemas"]["MyThing"]["properties"]["def"]["x-python-name"] == "def_"
    param = out["paths"]["/x"]["get"]["parameters"][0]["schema"]
    assert param["properties"]["in"] == {"x-python-name": "in_"}
    assert kinds(diags, "alias")[0].message == "field MyThing.def is def_ in Python"


def test_properties_outside_schemas_are_data() -> None:
    example = {"properties": {"class": {"a": 1}}}
    spec = openapi({"M": {"type": "object", "examples": [example], "default": example}})
    out, diags = run(spec)
    assert out["components"]["schemas"]["M"]["examples"] == [example]
    assert out["components"]["schemas"]["M"]["default"] == example
    assert diags == []


def test_messages_quote_unprintable_names() -> None:
    spec = openapi({"M": {"type": "object", "properties": {"new\nline": {"type": "string"}}}})
    _, diags = run(spec)
    assert diags[0].message == 'field M."new\\nline" is new_line in Python'


def test_existing_safe_x_python_name_is_kept() -> None:
    prop = {"type": "string", "x-python-name": "klass"}
    out, _ = run(openapi({"M": {"type": "object", "properties": {"class": prop}}}))
    assert out["components"]["schemas"]["M"]["properties"]["class"]["x-python-name"] == "klass"


# --- helpers --------------------------------------------------------------------------


def test_case_helpers() -> None:
    assert pascal_case("chat-completion_v2") == "ChatCompletionV2"
    assert snake_case("getHTTPResponse") == "get_http_response"
    assert snake_case("POST-V4-/v2/chat-completions") == "post_v4_v2_chat_completions"
    assert method_name(None, "delete", "/a/{id}", None) == "delete_a_id"


# --- the real specs -------------------------------------------------------------------

SPECS = ROOT / "specs"


def load(rel: str) -> dict[str, Any]:
    path = SPECS / rel
    assert path.is_file(), f"{rel} is a vendored spec of this repository and must be present"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def check_result(out: dict[str, Any]) -> None:
    schemas = out["components"]["schemas"]
    for name in schemas:
        assert re.fullmatch(r"[A-Z][A-Za-z0-9]*", name), name
    for target in all_refs(out):
        assert target.startswith(REF) and target[len(REF) :].split("/")[0] in schemas
    seen = [
        o["x-apismith-name"]
        for item in out["paths"].values()
        for m, o in item.items()
        if m != "parameters"
    ]
    assert len(seen) == len(set(seen))
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", n) for n in seen)


def test_llm_engine() -> None:
    out, diags = run(load("llm-engine/openapi.json"))
    check_result(out)
    assert [d.new for d in kinds(diags, "merge")] == ["ChatCompletionMessageToolCalls"] * 2
    aliases = {d.message for d in kinds(diags, "alias")}
    assert "field BatchCompletionsJob.model_config is model_config_ in Python" in aliases
    assert not [d for d in diags if d.kind == "rename" and d.message.startswith("operation")]


def test_sgp() -> None:
    out, diags = run(load("sgp/openapi.json"))
    check_result(out)
    generic = [d.new for d in kinds(diags, "rename") if d.old.startswith("ApplicationMetricScore_")]
    assert len(generic) == 6 and all(len(n) < 65 for n in generic)
