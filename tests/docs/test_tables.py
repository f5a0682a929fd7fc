"""One render's ``Tables``: a model's rows and a type's Markdown are computed once and
shared by every operation (links relative to the page they are on), and nothing is kept
from one render to the next."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from generator.config import ApiConfig
from generator.ir import Api, build_ir
from generator.normalize import normalize
from generator.render.docs import render_docs
from generator.render.docs.tables import MODELS_PAGE, Tables
from generator.render.settings import bind_settings

PET_REF = {"$ref": "#/components/schemas/Pet"}
SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Pets", "version": "1"},
    "paths": {
        "/pets": {
            "get": {
                "operationId": "listPets",
                "tags": ["pets"],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {"schema": {"type": "array", "items": PET_REF}}
                        },
                    }
                },
            }
        },
        "/pets/{id}": {
            "get": {
                "operationId": "getPet",
                "tags": ["pets"],
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {"application/json": {"schema": PET_REF}},
                    }
                },
            }
        },
    },
    "components": {
        "schemas": {
            "Owner": {
                "type": "object",
                "properties": {"name": {"type": "string", "description": "The owner's name."}},
            },
            "Pet": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "description": "The pet's name."},
                    "kind": {"enum": ["cat", "dog"]},
                    "owner": {"$ref": "#/components/schemas/Owner"},
                },
            },
        }
    },
}


def _api(spec: dict[str, Any]) -> Api:
    return build_ir(normalize(spec).spec)


def _render(spec: dict[str, Any], tmp_path: Path) -> dict[str, str]:
    api = _api(spec)
    config = ApiConfig(
        name="pets", package="pets", title="Pets", spec=tmp_path / "s.json", out=tmp_path
    )
    return render_docs(api, config, bind_settings(config, api))


def test_rows_are_computed_once_per_kind_of_page() -> None:
    api = _api(SPEC)
    tables = Tables(api)
    pet = api.model("Pet")
    rows = tables.field_rows(pet, "pets.md", nested=1)
    assert tables.field_rows(pet, "other.md", nested=1) is rows  # same links: shared
    assert [r.name for r in rows] == ["`name`", "`kind`", "`owner`", "`name`"]
    assert [r.depth for r in rows] == [0, 0, 0, 1]
    assert rows[2].children == "Fields of `owner`"  # the nested block's summary
    assert rows[2].type == "[Owner](models-reference.md#model-Owner)"
    assert tables.field_rows(pet, MODELS_PAGE)[2].type == "[Owner](#model-Owner)"
    # an enum's type line names its kind; its values are listed once, in the description
    assert rows[1].type == "string enum"
    assert 'Available options: `"cat"`, `"dog"`' in rows[1].description


def test_body_tables_share_rows_but_not_captions() -> None:
    api = _api(SPEC)
    tables = Tables(api)
    listed, got = (op.responses[0].schema for op in api.operations)
    assert listed is not None and got is not None
    (each,) = tables.body_tables(listed, "pets.md")
    (one,) = tables.body_tables(got, "pets.md")
    assert each.caption.startswith("Each item is of type [Pet](")
    assert one.caption == ""
    assert each.lines == one.lines


def test_nothing_is_kept_between_renders(tmp_path: Path) -> None:
    """A second API with the same model names gets its own text, not the first's."""
    first = _render(SPEC, tmp_path)
    changed = copy.deepcopy(SPEC)
    changed["components"]["schemas"]["Pet"]["properties"]["name"]["description"] = "Renamed."
    second = _render(changed, tmp_path)
    page = "docs/pages/pets.md"
    assert "The pet's name." in first[page] and "The pet's name." not in second[page]
    assert "Renamed." in second[page]
    assert _render(SPEC, tmp_path) == first
