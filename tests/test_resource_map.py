"""The client's resource map (issue 13): the naming rules (sub-resources from paths, the
path over a coarse tag, a GET of one record is ``retrieve``), the ``[client.resources]``
table (a path prefix or a tag -> a resource; one-line errors), ``-v`` reporting every name
that is not the rules' default, and scale-gp's names for SGP's client: every operation
both clients have carries scale-gp's dotted name (``tests/data/scale_gp_names.json``,
written by ``bench/scale_gp_names.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.config import ClientTable, load_config
from generator.errors import ApismithError
from generator.ir import Api
from generator.normalize.naming.resources import path_shape
from generator.pipeline import build_api, load_and_normalize
from generator.render.settings import ApiSettings
from generator.render.surface import Resource, build_resources
from generator.render.surface.resources import name_diagnostics, resource_map
from tests.conftest import SPECS, describe, error_lines, run_cli, run_python, write_json

DATA = Path(__file__).resolve().parent / "data" / "scale_gp_names.json"
OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {}}}}}


def _answer(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _op(op_id: str, tag: str | None = None, responses: dict[str, Any] | None = None) -> Any:
    out: dict[str, Any] = {"operationId": op_id, "responses": responses or OK}
    if tag:
        out["tags"] = [tag]
    return out


STORE = {"$ref": "#/components/schemas/Store"}
SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Shop", "version": "1"},
    "paths": {
        "/v1/stores": {
            "get": _op("listStores", "Shop", _answer({"type": "array", "items": STORE})),
            "post": _op("addStore", "Shop"),
        },
        "/v1/stores/{store_id}": {"get": _op("getStore", "Shop", _answer(STORE))},
        "/v1/stores/{store_id}/items": {"get": _op("listItems", "Shop")},
        "/v1/stores/{store_id}/items/{item_id}": {"delete": _op("dropItem", "Shop")},
        "/v1/stores/{store_id}/items/{item_id}/cancel": {"post": _op("cancelItem", "Shop")},
        "/v1/stores/{store_id}/restock": {"post": _op("restock", "Shop")},
        "/v1/store-stats": {"get": _op("storeStats", "Shop", _answer(STORE))},
        "/v1/pets/{pet_id}": {"get": _op("getPet", "Pet Store V2 (Beta)")},
    },
    "components": {
        "schemas": {"Store": {"type": "object", "properties": {"name": {"type": "string"}}}}
    },
}
RULES = {
    "list_stores": "stores.list",  # Shop is coarse (stores, store-stats): the path decides
    "add_store": "stores.create",
    "get_store": "stores.retrieve",
    "list_items": "stores.items.list",  # a sub-resource after the parameter
    "drop_item": "stores.items.delete",
    "cancel_item": "stores.items.cancel",  # POST only: an action
    "restock": "stores.restock",
    "store_stats": "store_stats.retrieve",  # a GET answering one record
    "get_pet": "pet_store.retrieve",  # a one-to-one tag, without its version and remark
}
MAPPED = (
    "[client.resources]\n"
    '"/v1/stores/{id}/items" = "inventory"\n'
    '"Pet Store V2 (Beta)" = "zoo.pets"\n\n'
    "[client.methods]\n"
    'cancelItem = "inventory.void"\n'
)


def _config(tmp_path: Path, tables: str = "") -> Path:
    write_json(tmp_path / "shop.json", SPEC)
    path = tmp_path / "specs" / "shop.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(f'[api]\nspec = "../shop.json"\n\n{tables}\n', encoding="utf-8")
    return path


def _bound(path: Path) -> tuple[Api, ApiSettings]:
    config = load_config(path)
    _doc, normalized = load_and_normalize(config)
    return build_api(config, normalized.spec)


def _names(api: Api, settings: ApiSettings) -> dict[str, str]:
    return {n.op.python_name: n.dotted for n in resource_map(api, settings)}


def _find(root: Resource, dotted: str) -> Any:
    *path, method = dotted.split(".")
    node = root
    for attr in path:
        node = node.children[attr]
    return next(m for m in node.methods if m.name == method)


# --- the table's shape and binding ---------------------------------------------------------


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ("[client]\nresources = 1", "[client] resources must be a table"),
        ('[client.resources]\n"/v1/stores" = 1', "resources.'/v1/stores': 1 is not 'resource"),
        ('[client.resources]\n"/v1/stores" = "Not.Snake"', "'Not.Snake' is not 'resource[.sub]'"),
        ('[client.resources]\n"" = "x"', "[client] resources: an empty key"),
    ],
)
def test_shape_errors_are_one_line(tmp_path: Path, tables: str, message: str) -> None:
    path = _config(tmp_path, tables)
    with pytest.raises(ApismithError) as info:
        load_config(path)
    text = str(info.value)
    assert "\n" not in text and text.startswith(f"{path}: config: ") and message in text, text


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ('[client.resources]\n"/v1/nope" = "x"', "no operation's path starts with '/v1/nope'"),
        ('[client.resources]\n"/v1/stores/x" = "x"', "no operation's path starts with"),
        ('[client.resources]\n"Nope" = "x"', "'Nope' is neither a path prefix"),
        (
            '[client.methods]\nlistStores = "a.b"\ngetStore = "a.b"',
            "[client] methods.get_store: 'a.b' is taken (by list_stores)",
        ),
        ('[client.methods]\nlistItems = "stores.items"', "'stores.items' is taken (by a resource)"),
    ],
)
def test_binding_errors_are_one_line(tmp_path: Path, tables: str, message: str) -> None:
    path = _config(tmp_path, tables)
    with pytest.raises(ApismithError) as info:
        _bound(path)
    text = str(info.value)
    assert "\n" not in text and text.startswith(f"{path}: config: ") and message in text, text


def test_the_table_is_recorded_only_when_given() -> None:
    assert "resources" not in ClientTable().recorded()
    assert "resources" not in load_config(SPECS / "llm-engine.toml").options()["client"]
    sgp = load_config(SPECS / "sgp.toml").options()["client"]
    assert sgp["resources"]["Chat Themes"] == "themes"


def test_paths_compare_without_parameter_names() -> None:
    assert path_shape("/v4/a/{a_id}/b/") == path_shape("v4/a/{id}/b") == ("v4", "a", "{}", "b")


# --- the rules, and the overrides over them -----------------------------------------------


def test_the_rules(tmp_path: Path) -> None:
    api, settings = _bound(_config(tmp_path))
    assert _names(api, settings) == RULES
    lines = [d.line() for d in name_diagnostics(resource_map(api, settings))]
    assert len(lines) == len(RULES), lines  # every name is listed, none is not the rules'
    assert not any("the rules:" in line for line in lines), lines
    assert any("operation cancel_item is stores.items.cancel (from its operationId" in x
               for x in lines)  # fmt: skip
    assert any("operation restock is stores.restock (from its operationId" in x for x in lines)
    assert any("operation list_stores is stores.list (the CRUD name" in x for x in lines)


def test_prefixes_and_tags_then_methods_override(tmp_path: Path) -> None:
    api, settings = _bound(_config(tmp_path, MAPPED))
    names = _names(api, settings)
    assert names["list_items"] == "inventory.list"  # the rules name the methods below
    assert names["drop_item"] == "inventory.delete"
    assert names["cancel_item"] == "inventory.void"  # [client.methods] wins
    assert names["get_pet"] == "zoo.pets.retrieve"
    assert names["restock"] == RULES["restock"]  # not under the prefix
    lines = [d.line() for d in name_diagnostics(resource_map(api, settings))]
    assert all(line.startswith("[client] name: operation ") for line in lines)
    assert len(lines) == len(RULES) and sum("the rules:" in x for x in lines) == 4, lines
    assert any("is inventory.void (from [client.methods]; the rules:" in x for x in lines)
    assert any("from [client.resources] '/v1/stores/{id}/items'" in x for x in lines)


def test_generate_v_reports_the_map_and_the_client_has_it(tmp_path: Path) -> None:
    path = _config(tmp_path, MAPPED)
    out = tmp_path / "out" / "shop"
    proc = run_cli("generate", "--config", path, "--out", out, "-v", cwd=tmp_path,
                   env={"APISMITH_WORKERS": "0"})  # fmt: skip
    assert proc.returncode == 0, describe(proc)
    named = [line for line in error_lines(proc.stderr) if "[client] name:" in line]
    assert len(named) == len(RULES), describe(proc)  # every name the rules chose, listed
    assert sum("the rules:" in line for line in named) == 4, describe(proc)
    assert any("operation list_items is inventory.list" in line for line in named)
    quiet = run_cli("generate", "--config", path, "--out", out, cwd=tmp_path,
                    env={"APISMITH_WORKERS": "0"})  # fmt: skip
    assert quiet.returncode == 0 and "[client] name:" not in quiet.stderr, describe(quiet)
    code = (
        "import shop; c = shop.ShopClient(base_url='http://x'); "
        "print(all(callable(f) for f in (c.inventory.list, c.inventory.void, "
        "c.zoo.pets.retrieve, c.stores.restock, c.with_raw_response.inventory.delete)))"
    )
    check = run_python(code, cwd=out.parent)
    assert check.stdout.strip() == "True", describe(check)


# --- scale-gp's names for SGP ---------------------------------------------------------------


@pytest.fixture(scope="module")
def sgp() -> tuple[Api, ApiSettings]:
    config = load_config(SPECS / "sgp.toml")
    _doc, normalized = load_and_normalize(config)
    return build_api(config, normalized.spec)


def test_sgp_has_scale_gp_names(sgp: tuple[Api, ApiSettings]) -> None:
    api, settings = sgp
    ours = {(n.op.method, path_shape(n.op.path)): n for n in resource_map(api, settings)}
    theirs = json.loads(DATA.read_text(encoding="utf-8"))
    both = [e for e in theirs if (e["method"], path_shape(e["path"])) in ours]
    wrong = [
        f"{e['method'].upper()} {e['path']}: ours {ours[e['method'], path_shape(e['path'])].dotted}"
        f", scale-gp {e['name']}"
        for e in both
        if ours[e["method"], path_shape(e["path"])].dotted != e["name"]
    ]
    print(f"scale-gp names: {len(both) - len(wrong)} / {len(both)} matched")
    assert len(both) >= 170 and not wrong, "\n".join(wrong)


def test_sgp_names_are_unique_and_every_operation_is_reachable(
    sgp: tuple[Api, ApiSettings],
) -> None:
    api, settings = sgp
    names = resource_map(api, settings)
    assert len({n.dotted for n in names}) == len(names) == len(api.operations)
    root, _ = build_resources(api, settings, "SgpClient")
    for n in names:
        assert _find(root, n.dotted).op is n.op, n.dotted
    classes = [r.class_name for r in root.walk()]
    assert len(set(classes)) == len(classes)
    # every name the config changed is reported, nothing else
    assert len(settings.names) == len(names)  # every name is listed
    reported = {d.message.split()[1] for d in settings.names if "the rules:" in d.message}
    assert reported == {n.op.python_name for n in names if n.dotted != n.default}
    assert len(reported) == 24  # the 22 of scale-gp, and two operations scale-gp lacks
