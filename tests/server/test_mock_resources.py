"""What the stateful mock and fault injection infer from the IR
(``generator/render/server/resources.py``), its ``[mock.resources]`` overrides
(``generator/config/mock.py``), and the inferred roles driving the runtime engine over
the committed packages' real models and mock tables."""

from __future__ import annotations

import importlib.util
import json
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import fastapi
import fastapi.encoders
import pytest

from generator.config import load_config
from generator.config.mock import read_mock
from generator.errors import ApismithError
from generator.ir import Api, Operation, Response, TypeRef, build_ir
from generator.render.examples import Synthesizer
from generator.render.server.modules import service_names
from generator.render.server.resources import (
    id_field,
    inferred_roles,
    mock_errors,
    mock_faults,
    mock_roles,
)
from generator.render.settings import ApiSettings, bind_settings
from tests.conftest import GENERATED, REPO_ROOT
from tests.server.conftest import server_modules


def settings_of(package: str, api: Api) -> ApiSettings:
    """The committed package's settings (its config bound to ``api``)."""
    name = {"sgp": "sgp", "llm_engine": "llm-engine"}[package]
    return bind_settings(load_config(REPO_ROOT / "specs" / f"{name}.toml"), api)


@cache
def ir(package: str) -> Api:
    spec = json.loads((GENERATED / package / "openapi.json").read_text(encoding="utf-8"))
    return build_ir(spec)


def by_collection(roles: dict[str, dict[str, Any]]) -> dict[str, dict[str, str]]:
    """collection -> action -> operation (the first of each)."""
    found: dict[str, dict[str, str]] = {}
    for name, role in roles.items():
        found.setdefault(role["collection"], {}).setdefault(role["action"], name)
    return found


# --- inference ---------------------------------------------------------------------------


def test_sgp_evaluations_are_a_crud_resource() -> None:
    roles = mock_roles(ir("sgp"), {})
    assert roles["post_evaluations"] == {
        "action": "create",
        "collection": "/v4/evaluations",
        "id_field": "id",
    }
    assert roles["get_evaluations"] == {
        "action": "list",
        "collection": "/v4/evaluations",
        "id_field": "id",  # of an item
        "items_field": "items",
    }
    for name, action in [
        ("get_evaluations_evaluation_id", "get"),
        ("patch_evaluations_evaluation_id", "update"),
    ]:
        assert roles[name] == {
            "action": action,
            "collection": "/v4/evaluations",
            "id_param": "evaluation_id",
            "id_field": "id",
        }
    # DeleteResponse has no id field
    assert roles["delete_evaluations_evaluation_id"] == {
        "action": "delete",
        "collection": "/v4/evaluations",
        "id_param": "evaluation_id",
    }


def test_sgp_nested_collections_are_scoped_by_their_parents() -> None:
    roles = mock_roles(ir("sgp"), {})
    uploads = "/v4/knowledge-bases/{knowledge_base_id}/uploads"
    assert roles["post_v2_knowledge_bases_knowledge_base_id_uploads"] == {
        "action": "create",
        "collection": uploads,
        "id_field": "upload_id",  # the field named like the id parameter
        "scope": ("knowledge_base_id",),
    }
    assert roles["get_v2_knowledge_bases_knowledge_base_id_uploads_upload_id"] == {
        "action": "get",
        "collection": uploads,
        "id_param": "upload_id",
        "id_field": "upload_id",
        "scope": ("knowledge_base_id",),
    }
    # action endpoints under an item are not resources
    assert "post_v2_knowledge_bases_knowledge_base_id_uploads_upload_id_cancel" not in roles
    assert "post_claim_task" not in roles
    # the id field of a union response: the field every member has
    test_cases = roles["get_evaluations_evaluation_id_test_case_results_test_case_result_id"]
    assert test_cases["id_field"] == "id"


def test_sgp_resources() -> None:
    resources = by_collection(mock_roles(ir("sgp"), {}))
    assert len(resources) >= 20
    for actions in resources.values():
        assert {"create", "get"} <= set(actions)
    full = [
        c for c, a in resources.items() if set(a) == {"create", "get", "list", "update", "delete"}
    ]
    assert "/v4/evaluations" in full and "/v4/models" in full and len(full) >= 10
    # two spellings of the parent parameter are one collection
    deployments = resources["/v4/models/{model_instance_id}/deployments"]
    assert set(deployments) == {"create", "get", "list", "update", "delete"}


def test_llm_engine_resources() -> None:
    roles = mock_roles(ir("llm_engine"), {})
    resources = by_collection(roles)
    assert len(resources) >= 10
    endpoints = resources["/v1/model-endpoints"]
    assert set(endpoints) == {"create", "get", "list", "update", "delete"}
    assert roles[endpoints["list"]]["items_field"] == "model_endpoints"
    assert roles[endpoints["get"]]["id_field"] == "id"
    assert roles[endpoints["get"]]["id_param"] == "model_endpoint_id"
    # an id parameter that is a name: the field named like its last word
    llm = resources["/v1/llm/model-endpoints"]
    assert roles[llm["get"]] == {
        "action": "get",
        "collection": "/v1/llm/model-endpoints",
        "id_param": "model_endpoint_name",
        "id_field": "name",
    }
    # a ..._id field the parameter ends with: job_id for batch_job_id
    assert roles["create_batch_job_v1_batch_jobs_post"]["id_field"] == "job_id"
    # POST with a body on an item without PATCH/PUT: an update
    assert (
        roles["update_batch_completion_v2_batch_completions__batch_completion_id__post"]["action"]
        == "update"
    )
    # no list operation for batch jobs: still a resource (create + get)
    assert set(resources["/v1/batch-jobs"]) == {"create", "get", "update"}
    # GET .../latest and POST .../clone-with-changes are not items
    assert "get_latest_model_bundle_v1_model_bundles_latest_get" not in roles


def test_role_values_are_plain() -> None:
    """The lead renders ``Role(**kwargs)`` with repr: only str and tuple-of-str values."""
    for package in ("sgp", "llm_engine"):
        for role in mock_roles(ir(package), {}).values():
            for key, value in role.items():
                assert key in (
                    "action",
                    "collection",
                    "id_param",
                    "id_field",
                    "items_field",
                    "scope",
                )
                assert isinstance(value, str) or (
                    isinstance(value, tuple) and all(isinstance(v, str) for v in value)
                )


def test_inference_is_deterministic_and_in_spec_order() -> None:
    api = ir("sgp")
    first, again = mock_roles(api, {}), mock_roles(api, {})
    assert list(first.items()) == list(again.items())
    order = [op.python_name for op in api.operations if op.python_name in first]
    assert list(first) == order


def test_id_field_rules() -> None:
    api = ir("llm_engine")
    op = api.operation("get_model_endpoint_v1_model_endpoints__model_endpoint_id__get")
    response = op.success_response.schema if op.success_response else None
    assert id_field(api, response, "model_endpoint_id") == "id"
    assert id_field(api, response, "model_endpoint_name") == "name"
    assert id_field(api, response, "no_such_thing_id") == "id"
    create = api.operation("create_batch_job_v1_batch_jobs_post").success_response
    assert create is not None
    assert id_field(api, create.schema, "batch_job_id") == "job_id"  # a suffix of the param
    endpoint = api.operation("create_model_endpoint_v1_model_endpoints_post").success_response
    assert endpoint is not None
    assert id_field(api, endpoint.schema, "model_endpoint_id") is None
    # a create's only required ..._id field
    assert id_field(api, endpoint.schema, "model_endpoint_id", create=True) == (
        "endpoint_creation_task_id"
    )


# --- overrides -----------------------------------------------------------------------------


def test_overrides_amend_add_and_remove() -> None:
    api = ir("sgp")
    inferred = inferred_roles(api)
    query = api.operation("post_v2_knowledge_bases_knowledge_base_id_query")
    overrides: dict[str, dict[str, Any]] = {
        "get_evaluations_evaluation_id": {"action": "none"},
        "patch_evaluations_evaluation_id": {"id_field": "name"},
        # by operationId, or python name; a role the paths do not imply
        query.operation_id or query.python_name: {
            "action": "list",
            "collection": "/v4/knowledge-bases/{kb}/query",
        },
        "post_v3_model_groups_model_group_id_models_model_instance_id": {
            "action": "update",
            "collection": "/v4/models",
            "id_param": "model_instance_id",
            "scope": [],
        },
        # another spelling of a parent parameter: the inferred collection's key
        "get_models_model_instance_id_deployments_deployment_id": {
            "collection": "/v4/models/{model_id}/deployments",
        },
    }
    roles = mock_roles(api, overrides)
    assert "get_evaluations_evaluation_id" not in roles
    assert roles["patch_evaluations_evaluation_id"] == {
        **inferred["patch_evaluations_evaluation_id"],
        "id_field": "name",
    }
    assert roles[query.python_name] == {
        "action": "list",
        "collection": "/v4/knowledge-bases/{kb}/query",
        "scope": ("knowledge_base_id",),
    }
    assert roles["post_v3_model_groups_model_group_id_models_model_instance_id"] == {
        "action": "update",
        "collection": "/v4/models",
        "id_param": "model_instance_id",
        "id_field": "id",
    }
    deployment = roles["get_models_model_instance_id_deployments_deployment_id"]
    assert deployment["collection"] == "/v4/models/{model_instance_id}/deployments"
    untouched = {k: v for k, v in roles.items() if k in inferred and k not in overrides}
    assert untouched == {k: v for k, v in inferred.items() if k in untouched}


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"no_such_operation": {"action": "get"}}, "names no operation"),
        ({"get_user_info": {"id_field": "id"}}, "has no inferred role: give its action"),
        ({"get_user_info": {"action": "get"}}, "needs id_param"),
        ({"get_users_user_id": {"action": "get", "id_param": "nope"}}, "not path parameters"),
        ({"get_users_user_id": {"action": "get", "scope": ["x"]}}, "not path parameters"),
    ],
)
def test_bad_overrides_fail_on_one_line(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ApismithError) as caught:
        mock_roles(ir("sgp"), overrides, "sgp.toml")
    text = str(caught.value)
    assert message in text and "\n" not in text
    assert text.startswith("sgp.toml: config: [mock.resources.")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"resources": {"op": {"acton": "get"}}}, "unknown key(s) ['acton']"),
        ({"resources": {"op": {"action": "fetch"}}}, "action must be one of"),
        ({"resources": {"op": {"id_param": 3}}}, "id_param must be a non-empty string"),
        ({"resources": {"op": {"collection": "things"}}}, "collection must be a path template"),
        ({"resources": {"op": {"scope": "parent_id"}}}, "scope must be a list"),
        ({"resources": {"op": "get"}}, "[mock.resources.op] must be a table"),
        ({"resources": []}, "[mock.resources] must be a table"),
        ({"resource": {}}, "[mock] unknown key(s) ['resource']"),
    ],
)
def test_bad_mock_tables_fail_on_one_line(table: dict[str, Any], message: str) -> None:
    with pytest.raises(ApismithError) as caught:
        read_mock(table, "api.toml")
    text = str(caught.value)
    assert message in text and "\n" not in text and text.startswith("api.toml: config: ")


def test_mock_tables_in_a_config_file(tmp_path: Path) -> None:
    config = tmp_path / "api.toml"
    entry = '[mock.resources.get_thing]\naction = "get"\nid_param = "thing_id"\n'
    config.write_text(f'[api]\npackage = "things"\nspec = "t.json"\n\n{entry}', "utf-8")
    loaded = load_config(config)
    assert loaded.mock.resources == {"get_thing": {"action": "get", "id_param": "thing_id"}}
    assert loaded.options()["mock"] == loaded.mock.recorded()
    config.write_text(config.read_text("utf-8") + "idfield = 'id'\n", "utf-8")
    with pytest.raises(ApismithError) as caught:
        load_config(config)
    assert str(caught.value).startswith(f"{config}: config: [mock.resources.get_thing] unknown")


def test_a_good_mock_table_reads_and_records() -> None:
    entry = {"action": "get", "collection": "/v4/things", "id_param": "thing_id", "scope": []}
    table = read_mock({"resources": {"get_thing": entry}}, "api.toml")
    assert table.resources == {"get_thing": entry}
    assert table.recorded() == {"resources": {"get_thing": entry}}
    assert read_mock({}, "api.toml").recorded() == {}


# --- faults --------------------------------------------------------------------------------

ERROR = TypeRef("model", name="Error")


def operation(*responses: Response) -> Operation:
    return Operation(None, "op", "get", "/op", responses=(Response("200"), *responses))


def test_faults_prefer_documented_retryable_statuses() -> None:
    op = operation(
        Response("404", schema=ERROR),
        Response("503", schema=ERROR),
        Response("422", schema=ERROR),
        Response("429"),
        Response("409", headers=("retry-after",)),
        Response("500"),
    )
    assert mock_faults(op) == [
        (409, None, True),
        (429, None, True),
        (500, None, False),
        (503, ERROR, True),
    ]


def test_faults_fall_back_to_other_documented_errors() -> None:
    op = operation(Response("404", schema=ERROR), Response("400", headers=("retry-after",)))
    assert mock_faults(op) == [(400, None, True), (404, ERROR, False)]
    assert mock_faults(operation(Response("5XX", schema=ERROR))) == [(503, ERROR, True)]


def test_faults_without_documented_errors_are_a_503() -> None:
    assert mock_faults(operation(Response("422", schema=ERROR))) == [(503, None, True)]
    default = operation(Response("default", schema=ERROR))
    assert mock_faults(default) == [(503, ERROR, True)]


def test_declared_client_errors_are_the_4xx_and_default_json_bodies() -> None:
    text = Response("401", content_type="text/plain", schema=TypeRef("primitive", name="str"))
    op = operation(
        Response("404", content_type="application/json", schema=ERROR),
        Response("422", content_type="application/json", schema=ERROR),
        Response("4xx", content_type="application/problem+json", schema=ERROR),
        Response("default", content_type="application/json", schema=ERROR),
        Response("500", content_type="application/json", schema=ERROR),
        Response("409"),
        text,
    )
    assert mock_errors(op) == [("404", ERROR), ("4XX", ERROR), ("default", ERROR)]
    assert mock_errors(operation(Response("422", schema=ERROR))) == []


def test_faults_of_the_real_apis() -> None:
    api = ir("sgp")
    faults = {op.python_name: mock_faults(op) for op in api.operations}
    assert all(faults.values())
    assert [f[0] for f in faults["post_applications_process"]] == [500]
    assert [f[0] for f in faults["post_application_variants"]] == [400]
    assert faults["get_user_info"] == [(503, None, True)]


# --- the inferred roles drive the engine over the real packages -------------------------------


def _engine_module() -> ModuleType:
    """The engine, as a module of a package made of its folder (it imports its siblings)."""
    name = "_apismith_mock_runtime"
    if name not in sys.modules:
        package = ModuleType(name)
        package.__path__ = [str(REPO_ROOT / "templates" / "server")]
        sys.modules[name] = package
    return importlib.import_module(f"{name}._mock_engine")


def _path(op: Operation, role: dict[str, Any], record_id: Any = None) -> dict[str, Any]:
    """Parent ids by position (the operations of a resource may name them differently)."""
    path = {name: f"parent-{i}" for i, name in enumerate(role.get("scope", ()))}
    if "id_param" in role:
        path[role["id_param"]] = record_id
    return path


# Lists whose item model is not the GET response's: a record that does not validate as an
# item (the list's table entry has no item to take missing fields from) is left out.
UNLISTED = {
    "sgp": {
        "/v4/evaluations/{evaluation_id}/test-case-results",
        "/v4/evaluation-datasets/{evaluation_dataset_id}/autogenerated-draft-test-cases",
    },
    "llm_engine": {"/v1/docker-image-batch-jobs"},
}


def _json(value: Any) -> Any:
    return fastapi.encoders.jsonable_encoder(value, by_alias=True)


@pytest.mark.parametrize("package", ["sgp", "llm_engine"])
def test_stateful_engine_over_every_inferred_resource(package: str) -> None:
    """Create, get, list, update, delete and get again (a 404) on every resource, with the
    committed package's models and mock tables: every answer validates, and reads answer
    what was created."""
    engine = _engine_module()
    server, mock = server_modules(package)
    app = server.create_app(mock.MockService())
    api = ir(package)
    # the tables and routes go by the service's names, the roles by the operations'
    operation = {v: k for k, v in service_names(api, settings_of(package, api)).items()}
    routes = importlib.import_module("_apismith_mock_runtime._mock_faults")._api_routes
    types = {operation[r.name]: r.response_model for r in routes(app.router.routes)}
    synth = Synthesizer(api)
    roles = mock_roles(api, {})
    mock_engine = engine.MockEngine(
        {operation[name]: answer for name, answer in mock.MOCK_RESPONSES.items()},
        {},
        {name: engine.Role(**kwargs) for name, kwargs in roles.items()},
        engine.MockOptions(stateful=True),
    )

    def call(name: str, record_id: Any = None, body: Any = None) -> Any:
        op = api.operation(name)
        if body is None and op.request_body is not None:
            body = synth.value(op.request_body.schema)
        return mock_engine.answer(name, types[name], _path(op, roles[name], record_id), body)

    unlisted = set()
    for collection, actions in by_collection(roles).items():
        create, get = roles[actions["create"]], roles[actions["get"]]
        body = None
        if "id_field" not in create:  # the id comes with the body (llm endpoints' name)
            op = api.operation(actions["create"])
            assert op.request_body is not None
            body = {**synth.value(op.request_body.schema), get["id_field"]: "given"}
        made = _json(call(actions["create"], body=body))
        record_id = made[create["id_field"]] if body is None else "given"
        got = _json(call(actions["get"], record_id))
        if "id_field" in get:
            assert got[get["id_field"]] == record_id
        if "list" in actions:
            listing = roles[actions["list"]]
            listed = _json(call(actions["list"]))
            items = listed[listing["items_field"]] if "items_field" in listing else listed
            assert len(items) <= 1
            if not items:
                unlisted.add(collection)
            elif "id_field" in listing:
                assert items[0][listing["id_field"]] == record_id
        if "update" in actions:
            call(actions["update"], record_id)
        if "delete" in actions:
            call(actions["delete"], record_id)
            with pytest.raises(fastapi.HTTPException) as caught:
                call(actions["get"], record_id)
            assert caught.value.status_code == 404
    assert unlisted <= UNLISTED[package]
