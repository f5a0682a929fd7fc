"""The model worker (a forked process) renders the same bytes as the serial pipeline."""

from __future__ import annotations

from generator.config import load_config
from generator.pipeline import generate
from generator.render.models import ModelRenderer
from tests.conftest import SPECS


def test_worker_and_serial_render_the_same_bytes() -> None:
    config = load_config(SPECS / "llm-engine.toml")
    serial = generate(config).files
    with ModelRenderer() as models:
        parallel = generate(config, models=models).files
    assert serial.keys() == parallel.keys()
    assert [n for n in serial if serial[n] != parallel[n]] == []


def test_the_worker_is_sent_the_spec_without_paths_unless_a_schema_refers_into_them() -> None:
    from generator.render.models.dcg import model_input

    paths = {"/a": {"get": {"responses": {"200": {"description": "ok"}}}}}
    plain = {"openapi": "3.1.0", "paths": paths, "components": {"schemas": {"A": {}}}}
    assert "paths" not in model_input(plain)
    into = {"$ref": "#/paths/~1a/get/responses/200"}
    referring = {**plain, "components": {"schemas": {"A": {"properties": {"x": into}}}}}
    assert model_input(referring)["paths"] is paths
