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
