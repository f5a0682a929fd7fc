"""Wrong input is refused, never an empty package: a document that is neither OpenAPI nor
JSON Schema, and an unknown top-level key of an OpenAPI document (exit 2, one line, the
pointer, a "did you mean"), through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import describe, error_lines, run_cli

OPERATION = "  /a:\n    get:\n      responses: {'200': {description: ok}}\n"
HEAD = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n"

REFUSED = {
    "compose.yaml": ("services:\n  web:\n    image: nginx\n", "#", "neither an OpenAPI"),
    "title-only.yaml": ("title: Not a schema\ndescription: nothing\n", "#", "no schema keyword"),
    "no-openapi.yaml": (
        "info: {title: t, version: '1'}\npaths:\n" + OPERATION,
        "#",
        "starts with an 'openapi' key",
    ),
    "path.yaml": (HEAD + "path:\n" + OPERATION, "#/path", "did you mean 'paths'?"),
    "Components.yaml": (
        HEAD + "paths: {}\nComponent: {schemas: {}}\n",
        "#/Component",
        "did you mean 'components'?",
    ),
    "unknown.yaml": (HEAD + "paths: {}\nhost: example.com\n", "#/host", "unknown top-level"),
    "openAPI.yaml": (
        "openAPI: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n",
        "#/openAPI",
        "did you mean 'openapi'?",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_wrong_input_is_refused_with_one_line(tmp_path: Path, name: str) -> None:
    text, pointer, fragment = REFUSED[name]
    (tmp_path / name).write_text(text, encoding="utf-8")
    proc = run_cli("generate", "--spec", name, "--out", "out/pkg", cwd=tmp_path)
    assert proc.returncode == 2, describe(proc)
    lines = error_lines(proc.stderr)
    assert len(lines) == 1, describe(proc)
    assert lines[0].startswith(f"apismith: error: {name}: "), lines
    assert fragment in lines[0] and lines[0].endswith(f"(at {pointer})"), lines
    assert not (tmp_path / "out").exists()


ACCEPTED = {
    "extensions-and-31-keys.yaml": HEAD
    + "jsonSchemaDialect: https://json-schema.org/draft/2020-12/schema\n"
    + "x-logo: {url: x}\nwebhooks: {}\nexternalDocs: {url: 'https://example.com'}\n"
    + "servers: [{url: 'https://example.com'}]\ntags: []\nsecurity: []\npaths:\n"
    + OPERATION,
    "json-schema.yaml": "$schema: https://json-schema.org/draft/2020-12/schema\n"
    + "title: Pet\ntype: object\nproperties: {name: {type: string}}\n",
    "defs-only.yaml": "$defs:\n  Pet: {type: object, properties: {name: {type: string}}}\n",
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_openapi_and_json_schema_documents_are_accepted(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text(ACCEPTED[name], encoding="utf-8")
    proc = run_cli("generate", "--spec", name, "--out", "out/pkg", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
