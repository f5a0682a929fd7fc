"""The model worker (a forked process) renders the same bytes as the serial pipeline."""

from __future__ import annotations

from generator.config import load_config
from generator.model_worker import ModelRenderer
from generator.pipeline import generate
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


def _pending(monkeypatch, render):  # type: ignore[no-untyped-def]
    """A renderer whose forked worker runs ``render`` instead of the real one."""
    from generator import model_worker as worker

    monkeypatch.setattr(worker, "_render", render)
    models = ModelRenderer()
    spec = {"openapi": "3.1.0", "components": {"schemas": {"A": {"type": "object"}}}}
    return models, models.start(spec, "# header", lap=lambda name: None, server=False)


def test_a_failure_in_the_worker_is_one_line(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import pytest

    from generator.errors import ApismithError

    def boom(spec, header):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom\nsecond line")

    models, pending = _pending(monkeypatch, boom)
    with models, pytest.raises(ApismithError) as caught:
        pending.wait()
    assert str(caught.value) == "model rendering failed: RuntimeError: boom"
    assert caught.value.exit_code == 1


def test_a_refusal_in_the_worker_is_raised_as_it_is(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import pytest

    from generator.errors import ApismithError

    def refuse(spec, header):  # type: ignore[no-untyped-def]
        raise ApismithError("bad schema", pointer="#/components/schemas/A")

    models, pending = _pending(monkeypatch, refuse)
    with models, pytest.raises(ApismithError) as caught:
        pending.wait()
    assert caught.value.message == "bad schema" and caught.value.pointer == "#/components/schemas/A"
    assert caught.value.exit_code == 2


def test_a_worker_that_dies_is_reported(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import os
    import signal

    import pytest

    from generator.errors import ApismithError

    def die(spec, header):  # type: ignore[no-untyped-def]
        os.kill(os.getpid(), signal.SIGKILL)

    models, pending = _pending(monkeypatch, die)
    with models, pytest.raises(ApismithError, match="the model worker ended without a result"):
        pending.wait()


def test_an_unused_worker_closes_cleanly() -> None:
    import os

    before = len(os.listdir("/proc/self/fd"))
    for _ in range(3):
        ModelRenderer().close()
    assert len(os.listdir("/proc/self/fd")) == before  # no pipe left open
