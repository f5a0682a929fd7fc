"""The config's tables: read and shape-checked once into frozen dataclasses, checked against
the IR once (``bind_settings``), one ``[uploads]`` table for the client and the server (the
old spellings translated, with a deprecation warning), and options that round-trip
through a manifest."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from generator.config import (
    ApiConfig,
    ClientTable,
    StreamTable,
    adhoc_config,
    build_config,
    load_config,
)
from generator.errors import ApismithError
from generator.ir import Api
from generator.pipeline import build_api, load_and_normalize
from generator.render.client import render_client
from generator.render.server import render_server
from generator.render.settings import ApiSettings, bind_settings
from tests.conftest import REPO_ROOT, SPECS, describe, error_lines, run_cli, write_json

SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "Up", "version": "1"},
    "paths": {
        "/up": {
            "post": {
                "operationId": "sendDoc",
                "requestBody": {
                    "required": True,
                    "content": {
                        "multipart/form-data": {"schema": {"$ref": "#/components/schemas/Form"}}
                    },
                },
                "responses": {"200": {"description": "ok"}},
            }
        },
        "/items": {
            "post": {
                "operationId": "addItem",
                "requestBody": {
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Item"}}
                    }
                },
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Item"}}
                        },
                    }
                },
            }
        },
    },
    "components": {
        "schemas": {
            "Form": {
                "type": "object",
                "properties": {"doc": {"type": "string"}, "note": {"type": "string"}},
                "required": ["doc"],
            },
            "Item": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "stream": {"type": "boolean"}},
            },
        }
    },
}


def _config(tmp_path: Path, tables: str) -> Path:
    write_json(tmp_path / "up.json", SPEC)
    path = tmp_path / "specs" / "up.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(f'[api]\nspec = "../up.json"\n\n{tables}\n', encoding="utf-8")
    return path


def _bound(path: Path) -> tuple[ApiConfig, Api, ApiSettings]:
    config = load_config(path)
    _doc, normalized = load_and_normalize(config)
    api, settings = build_api(config, normalized.spec)
    return config, api, settings


def _one_line(exc: ApismithError, path: Path) -> str:
    text = str(exc)
    assert "\n" not in text and exc.exit_code == 2
    assert text.startswith(f"{path}: config: "), text
    return text


# --- read once, typed -------------------------------------------------------------------------


def test_tables_are_typed_and_frozen() -> None:
    config = load_config(SPECS / "llm-engine.toml")
    assert isinstance(config.client, ClientTable) and config.client.name == "LlmEngine"
    assert all(isinstance(s, StreamTable) for s in config.streaming.values())
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.client.name = "Other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ("[client]\nbogus = 1", "[client] unknown key(s) ['bogus']"),
        ('[client]\nname = "not valid"', "[client] name 'not valid' is not a Python identifier"),
        ('[client]\nenv_prefix = "lower"', "[client] env_prefix 'lower' must be UPPER_SNAKE_CASE"),
        ('[client]\narray_body = "a.b"', "[client] array_body 'a.b' is not a snake_case name"),
        ('[streaming.sendDoc]\nchunk = "X"\nformat = "xml"', "format must be one of ['sse', "),
        ('[client.methods]\nsendDoc = "NoDots"', "methods.sendDoc: 'NoDots' is not 'resource"),
        ('[client.auth.headers.x]\nenv = "X"', "auth.headers.x: needs a Python name and header"),
        ("[client.auth]\nother = 1", "only [client.auth.headers.<param>] tables are allowed"),
        ('[streaming.sendDoc]\nflag = "stream"', "[streaming.sendDoc]: needs chunk"),
        ("[streaming.sendDoc]\nchunk = 1", "[streaming.sendDoc]: chunk must be a string"),
        ('[streaming.addItem]\nchunk = "Item"\nresponse = "Item"', "response needs flag"),
        ("[[uploads]]\nsendDoc = 1", "uploads must be a table"),
        ('[uploads]\nsendDoc = "doc"', "[uploads] sendDoc: expected a list of body fields"),
        ('[client.uploads]\nsendDoc = "doc"', "uploads sendDoc: expected a list of body fields"),
        ('[server]\nupload_fields = ["doc"]', "upload_fields must be a list of 'Model.field'"),
        ("[server]\nport = 1", "[server] unknown key(s) ['port']"),
        ("[models]\nnames = 1", "[models] unknown key(s) ['names']"),
        ('[models.aliases]\n"not valid" = "Item"', "[models] aliases: 'not valid' is not a"),
        ('[models.aliases]\nclass = "Item"', "[models] aliases: 'class' is not a public"),
        ("[models.aliases]\nThing = 1", "[models] aliases.Thing: 1 is not a model's name"),
    ],
)
def test_shape_errors_are_one_line_when_read(tmp_path: Path, tables: str, message: str) -> None:
    path = _config(tmp_path, tables)
    with pytest.raises(ApismithError) as info:
        load_config(path)
    assert message in _one_line(info.value, path)


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ('[client.methods]\nnope = "a.b"', "[client] methods: unknown operation 'nope'"),
        ('[streaming.nope]\nchunk = "Item"', "[streaming.nope]: unknown operation 'nope'"),
        ('[streaming.addItem]\nchunk = "Missing"', "[streaming.addItem]: unknown model 'Missing'"),
        (
            '[streaming.add_item]\nchunk = "Item"\nflag = "nope"',
            "flag 'nope' is not a field of the request body",
        ),
        (
            '[streaming.addItem]\nchunk = "Item"\nflag = "stream"\nresponse = "Nope"',
            "unknown model 'Nope'",
        ),
        ('[uploads]\nnope = ["doc"]', "[uploads]: unknown operation 'nope'"),
        ('[uploads]\naddItem = ["name"]', "[uploads] addItem: the operation has no multipart body"),
        ('[uploads]\nsendDoc = ["nope"]', "expected a list of body fields of ['doc', 'note']"),
        (
            '[client.uploads]\nsendDoc = ["nope"]',
            "expected a list of body fields of ['doc', 'note']",
        ),
        ('[server]\nupload_fields = ["Missing.doc"]', "upload_fields: unknown model 'Missing'"),
        ('[server]\nupload_fields = ["Form.nope"]', "upload_fields: Form has no field 'nope'"),
        ('[models.aliases]\nThing = "Nope"', "[models] aliases.Thing: unknown model 'Nope'"),
        ('[models.aliases]\nForm = "Item"', "aliases.Form: a schema is already named 'Form'"),
    ],
)
def test_ir_errors_are_one_line_when_bound(tmp_path: Path, tables: str, message: str) -> None:
    path = _config(tmp_path, tables)
    with pytest.raises(ApismithError) as info:
        _bound(path)
    assert message in _one_line(info.value, path)


def test_model_aliases_are_the_classes_themselves(tmp_path: Path) -> None:
    """``[models.aliases]``: more names bound at the end of models.py, recorded in the
    manifest; a name models.py already binds (an import) is refused in one line."""
    out = tmp_path / "out"
    path = _config(tmp_path, '[models.aliases]\nThing = "Item"\nDocument = "Form"')
    proc = run_cli("generate", "--config", path, "--out", out, cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    models = (out / "models.py").read_text(encoding="utf-8")
    assert models.endswith("Document = Form\nThing = Item\n"), models[-300:]
    manifest = json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["options"]["models"] == {"aliases": {"Document": "Form", "Thing": "Item"}}
    taken = _config(tmp_path / "taken", '[models.aliases]\nBaseModel = "Item"')
    proc = run_cli("generate", "--config", taken, "--out", tmp_path / "o2", cwd=tmp_path)
    assert proc.returncode == 2, describe(proc)
    assert "[models] aliases.BaseModel: models.py already binds 'BaseModel'" in proc.stderr


def test_a_bad_table_fails_the_cli_with_one_line(tmp_path: Path) -> None:
    path = _config(tmp_path, '[streaming.sendDoc]\nchunk = "Missing"')
    proc = run_cli("generate", "--config", path, cwd=tmp_path)
    lines = error_lines(proc.stderr)
    assert proc.returncode == 2 and len(lines) == 1, describe(proc)
    assert "unknown model 'Missing'" in lines[0] and str(path) in lines[0], describe(proc)


def test_settings_name_operations_by_python_name(tmp_path: Path) -> None:
    tables = (
        '[client.methods]\nsendDoc = "docs.send"\n\n'
        '[streaming.addItem]\nchunk = "Item"\nflag = "stream"\nresponse = "Item"'
    )
    _config_, _api, settings = _bound(_config(tmp_path, tables))
    assert settings.name == "Up" and settings.env_prefix == "UP"
    assert settings.methods == {"send_doc": "docs.send"}
    assert settings.streaming == {"add_item": StreamTable("Item", "stream", "Item")}
    assert settings.diagnostics == ()


# --- one [uploads] table --------------------------------------------------------------------


UPLOAD_FORMS = {
    "uploads": '[uploads]\nsendDoc = ["doc"]',
    "client.uploads": '[client.uploads]\nsend_doc = ["doc"]',
    "server.upload_fields": '[server]\nupload_fields = ["Form.doc"]',
}


def _rendered(path: Path) -> tuple[ApiSettings, dict[str, str]]:
    config, api, settings = _bound(path)
    files = render_client(api, config, settings, "# header", None)
    files.update(render_server(api, config, settings, "# header", None)[0])
    return settings, files


def test_old_upload_forms_are_translated(tmp_path: Path) -> None:
    _, plain = _rendered(_config(tmp_path / "plain", ""))
    rendered = {form: _rendered(_config(tmp_path / form, t)) for form, t in UPLOAD_FORMS.items()}
    for form, (settings, files) in rendered.items():
        assert settings.uploads == {"send_doc": ("doc",)}, form
        # the client and the server both read it: the same files whatever the spelling
        assert files == rendered["uploads"][1], form
        warnings = [d.line() for d in settings.diagnostics]
        if form == "uploads":
            assert warnings == []
        else:
            assert len(warnings) == 1 and "deprecated" in warnings[0] and "\n" not in warnings[0]
            assert f"[{form.split('.')[0]}" in warnings[0]
    files = rendered["uploads"][1]
    assert "doc: UploadFile," in _server_code(files) and "files=['doc']" in _client_code(files)
    assert "doc: UploadFile" not in _server_code(plain)
    assert "files=['doc']" not in _client_code(plain)
    assert _client_code(files) != _client_code(plain)


def _server_code(files: dict[str, str]) -> str:
    """The server's code: ``server.py`` and the resource modules (``_server/*.py``)."""
    names = sorted(n for n in files if n == "server.py" or n.startswith("_server/"))
    return "\n".join(files[n] for n in names)


def _client_code(files: dict[str, str]) -> str:
    """The client's code: ``_client.py`` and the resource modules."""
    names = sorted(n for n in files if n == "_client.py" or n.startswith("resources/"))
    return "\n".join(files[n] for n in names)


def test_the_deprecation_is_reported_by_generate(tmp_path: Path) -> None:
    path = _config(tmp_path, UPLOAD_FORMS["client.uploads"])
    proc = run_cli("generate", "--config", path, cwd=tmp_path, env={"APISMITH_WORKERS": "0"})
    assert proc.returncode == 0, describe(proc)
    warned = [line for line in error_lines(proc.stderr) if "deprecated" in line]
    assert len(warned) == 1 and "[client.uploads]" in warned[0], describe(proc)


# --- options round-trip ---------------------------------------------------------------------


ALL_TABLES = (
    '[client]\nname = "Uploader"\nenv_prefix = "UPL"\n\n'
    '[client.methods]\nsendDoc = "docs.send"\n\n'
    '[client.auth.headers.account]\nheader = "x-account"\n\n'
    '[client.uploads]\nsendDoc = ["doc"]\n\n'
    '[server]\nupload_fields = ["Form.note"]\n\n'
    '[streaming.addItem]\nchunk = "Thing"\nflag = "stream"\nresponse = "Thing"\n\n'
    '[passes.names]\nschema_renames = { Item = "Thing" }'
)


def _configs(tmp_path: Path) -> list[ApiConfig]:
    return [load_config(p) for p in sorted(SPECS.glob("*.toml"))] + [
        load_config(_config(tmp_path, ALL_TABLES))
    ]


def _tables(config: ApiConfig) -> tuple[Any, ...]:
    return (config.client, config.server, dict(config.streaming), dict(config.uploads))


def test_options_round_trip(tmp_path: Path) -> None:
    for config in _configs(tmp_path):
        options = config.options()
        text = json.dumps(options, sort_keys=True)
        assert str(tmp_path) not in text and str(REPO_ROOT) not in text, config.name
        again = build_config(
            config.name, config.spec, config.out, json.loads(text), base=config.spec.parent
        )
        assert again.options() == options, config.name
        assert _tables(again) == _tables(config), config.name


def test_a_manifest_entry_with_only_spec_and_out_rereads_the_options(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path, ALL_TABLES))
    assert config.uploads == {"sendDoc": ("doc",)} and len(config.deprecations) == 2
    out = tmp_path / "vendor" / "up"
    write_json(out / "MANIFEST.json", {"options": config.options()})
    vendored = adhoc_config(config.spec, out)
    assert vendored.options() == config.options()
    assert _tables(vendored) == _tables(config)
    # the recorded form is the new one: [client.uploads] is read back as [uploads]
    assert "uploads" not in vendored.options()["client"]
    assert vendored.deprecations == (config.deprecations[1],)
    # both spellings together: the fields of either
    api = _bound(_config(tmp_path / "b", ALL_TABLES))[1]
    assert bind_settings(vendored, api).uploads == {"send_doc": ("doc", "note")}
