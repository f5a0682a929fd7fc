"""Bad input: one clear line on stderr, exit 2, and nothing written to --out.

Every case runs ``apismith generate`` in a subprocess twice: once with an --out that does
not exist (it must still not exist afterwards) and once with an --out that holds earlier
output (it must be byte-for-byte unchanged).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import (
    describe,
    error_lines,
    run_cli,
    run_python,
    small_spec,
    tree_bytes,
    write_json,
)


@dataclass(frozen=True)
class Case:
    """A bad input: ``make(dir)`` writes it and returns the CLI args (besides --out)."""

    make: Callable[[Path], list[str]]
    expect: Callable[[str], bool]  # a predicate on the one stderr line
    hint: str  # what the line should say, for the failure message


def _spec(**schemas: object) -> dict[str, object]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": {},
        "components": {"schemas": schemas},
    }


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# --- the inputs ----------------------------------------------------------------------------

BROKEN_JSON = """{
  "openapi": "3.1.0",
  "info": {"title": "T", "version": "1"},
  "paths": {},
  "components": {"schemas": {"A": {"type": "object",}}}
}
"""  # trailing comma: the error is on line 5

BROKEN_YAML = """openapi: 3.1.0
info:
  title: T
  version: "1"
paths: {}
components:
  schemas:
    A:
      type: object
      description: "quoted" trailing
"""  # text after a quoted scalar: the error is on line 10


def make_missing(d: Path) -> list[str]:
    return ["--spec", "does-not-exist.json"]


def make_broken_json(d: Path) -> list[str]:
    _write(d / "broken.json", BROKEN_JSON)
    return ["--spec", "broken.json"]


def make_broken_yaml(d: Path) -> list[str]:
    _write(d / "broken.yaml", BROKEN_YAML)
    return ["--spec", "broken.yaml"]


def make_dangling(d: Path) -> list[str]:
    doc = _spec(A={"type": "object", "properties": {"b": {"$ref": "#/components/schemas/Missing"}}})
    write_json(d / "dangling.json", doc)
    return ["--spec", "dangling.json"]


def make_circular(d: Path) -> list[str]:
    doc = _spec(A={"$ref": "#/components/schemas/B"}, B={"$ref": "#/components/schemas/A"})
    write_json(d / "circular.json", doc)
    return ["--spec", "circular.json"]


def make_swagger(d: Path) -> list[str]:
    doc = {
        "swagger": "1.2",  # 2.0 is read (generator/load/swagger2.py)
        "info": {"title": "T", "version": "1"},
        "paths": {},
        "definitions": {"A": {"type": "object"}},
    }
    write_json(d / "swagger.json", doc)
    return ["--spec", "swagger.json"]


def make_remote_ref(d: Path) -> list[str]:
    doc = _spec(
        A={
            "type": "object",
            "properties": {"b": {"$ref": "https://example.com/schemas.json#/B"}},
        }
    )
    write_json(d / "remote.json", doc)
    return ["--spec", "remote.json"]


def make_openapi4(d: Path) -> list[str]:
    doc = _spec(A={"type": "object"})
    doc["openapi"] = "4.0.0"
    write_json(d / "four.json", doc)
    return ["--spec", "four.json"]


def make_dangling_other_file(d: Path) -> list[str]:
    write_json(d / "common.json", {"components": {"schemas": {"Thing": {"type": "object"}}}})
    doc = _spec(
        A={
            "type": "object",
            "properties": {"b": {"$ref": "common.json#/components/schemas/Nope"}},
        }
    )
    write_json(d / "main.json", doc)
    return ["--spec", "main.json"]


def make_missing_other_file(d: Path) -> list[str]:
    doc = _spec(A={"type": "object", "properties": {"b": {"$ref": "gone.json#/X"}}})
    write_json(d / "main.json", doc)
    return ["--spec", "main.json"]


def make_broken_toml(d: Path) -> list[str]:
    write_json(d / "specs" / "pets.json", small_spec())
    _write(d / "specs" / "pets.toml", '[api]\npackage = "pets"\nspec = "pets.json\n')
    return ["--config", "specs/pets.toml"]


CASES: dict[str, Case] = {
    "missing-file": Case(
        make_missing,
        lambda line: "does-not-exist.json" in line and "not found" in line,
        "names the file and says it is not found",
    ),
    "broken-json": Case(
        make_broken_json,
        lambda line: re.search(r"broken\.json:5:\d+", line) is not None,
        "broken.json:5:<col>",
    ),
    "broken-yaml": Case(
        make_broken_yaml,
        lambda line: re.search(r"broken\.yaml:10:\d+", line) is not None,
        "broken.yaml:10:<col>",
    ),
    "dangling-ref": Case(
        make_dangling,
        lambda line: "#/components/schemas/A/properties/b" in line and "dangling" in line,
        "dangling ... #/components/schemas/A/properties/b",
    ),
    "circular-alias": Case(
        make_circular,
        lambda line: (
            "circular" in line
            and "#/components/schemas/A" in line
            and "#/components/schemas/B" in line
        ),
        "circular ... naming both pointers of the chain",
    ),
    "swagger-1.2": Case(
        make_swagger,
        lambda line: "unsupported" in line.lower() and "swagger '1.2'" in line.lower(),
        "unsupported: Swagger '1.2'",
    ),
    "remote-ref": Case(
        make_remote_ref,
        lambda line: (
            "remote" in line
            and "https://example.com/schemas.json#/B" in line
            and "#/components/schemas/A/properties/b" in line
        ),
        "unsupported remote $ref, with its pointer",
    ),
    "openapi-4.0": Case(
        make_openapi4,
        lambda line: "unsupported" in line.lower() and "4.0.0" in line,
        "unsupported: OpenAPI version '4.0.0'",
    ),
    "dangling-ref-other-file": Case(
        make_dangling_other_file,
        lambda line: (
            "dangling" in line
            and "common.json" in line
            and "#/components/schemas/A/properties/b" in line
        ),
        "dangling $ref into common.json, with the ref's pointer",
    ),
    "missing-other-file": Case(
        make_missing_other_file,
        lambda line: "gone.json" in line and "#/components/schemas/A/properties/b" in line,
        "missing file gone.json, with the ref's pointer",
    ),
    "broken-config-toml": Case(
        make_broken_toml,
        lambda line: "pets.toml" in line and "TOML" in line,
        "names the config file and says the TOML is invalid",
    ),
}

PREVIOUS = {"__init__.py": b"# earlier output\n", "models.py": b"X = 1\n", "py.typed": b""}


@pytest.mark.parametrize("out_state", ["absent", "existing"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    tmp_path: Path, name: str, out_state: str
) -> None:
    case = CASES[name]
    args = case.make(tmp_path)
    out = tmp_path / "out" / "pkg"
    if out_state == "existing":
        for file, data in PREVIOUS.items():
            (out / file).parent.mkdir(parents=True, exist_ok=True)
            (out / file).write_bytes(data)
    before = tree_bytes(tmp_path / "out")

    proc = run_cli("generate", *args, "--out", "out/pkg", cwd=tmp_path)

    assert proc.returncode == 2, describe(proc)
    assert "Traceback" not in proc.stderr + proc.stdout, describe(proc)
    lines = error_lines(proc.stderr)
    assert len(lines) == 1, f"expected one line on stderr\n{describe(proc)}"
    assert lines[0].startswith("apismith: error:"), describe(proc)
    assert case.expect(lines[0]), f"expected: {case.hint}\ngot: {lines[0]}"
    if out_state == "absent":
        assert not out.exists(), f"{out} was created"
        assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    else:
        assert tree_bytes(tmp_path / "out") == before, "existing output changed"


def test_broken_json_line_is_the_right_one(tmp_path: Path) -> None:
    """The reported line:col points at the actual mistake (the trailing comma's close)."""
    make_broken_json(tmp_path)
    proc = run_cli("generate", "--spec", "broken.json", "--out", "out/pkg", cwd=tmp_path)
    match = re.search(r"broken\.json:(\d+):(\d+)", proc.stderr)
    assert match, describe(proc)
    line, col = int(match[1]), int(match[2])
    text = BROKEN_JSON.splitlines()[line - 1]
    # json reports the '}' after the trailing comma
    assert text[col - 1] == "}" and text[: col - 1].rstrip().endswith(","), (line, col, text)


def test_ref_into_another_local_file_is_bundled(tmp_path: Path) -> None:
    """A $ref into a sibling file works: the target becomes a model of the package."""
    write_json(
        tmp_path / "shared" / "common.json",
        {
            "components": {
                "schemas": {
                    "Owner": {
                        "type": "object",
                        "description": "Who owns the pet.",
                        "properties": {"email": {"type": "string"}},
                        "required": ["email"],
                    }
                }
            }
        },
    )
    doc = _spec(
        Pet={
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "owner": {"$ref": "shared/common.json#/components/schemas/Owner"},
            },
            "required": ["name", "owner"],
        }
    )
    write_json(tmp_path / "main.json", doc)
    proc = run_cli("generate", "--spec", "main.json", "--out", "out/pets", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert "Traceback" not in proc.stderr
    models = (tmp_path / "out" / "pets" / "models.py").read_text(encoding="utf-8")
    assert re.search(r"^class Owner\(BaseModel\):", models, re.MULTILINE), models
    assert re.search(r"^\s+owner: .*Owner", models, re.MULTILINE), models
    spec = json.loads((tmp_path / "out" / "pets" / "openapi.json").read_text(encoding="utf-8"))
    assert "Owner" in spec["components"]["schemas"]
    owner_ref = spec["components"]["schemas"]["Pet"]["properties"]["owner"]
    assert json.dumps(owner_ref).count("#/components/schemas/Owner") == 1, owner_ref
    # the package imports and validates a nested payload
    check = (
        "import sys; sys.path.insert(0, 'out'); from pets.models import Pet; "
        "p = Pet.model_validate({'name': 'Rex', 'owner': {'email': 'a@b.c'}}); "
        "print(type(p.owner).__name__)"
    )
    ran = run_python(check, cwd=tmp_path)
    assert ran.returncode == 0 and ran.stdout.strip() == "Owner", describe(ran)


def test_whole_file_ref_is_bundled_under_the_file_name(tmp_path: Path) -> None:
    write_json(
        tmp_path / "address.json",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    )
    doc = _spec(
        Person={
            "type": "object",
            "properties": {"home": {"$ref": "address.json"}},
            "required": ["home"],
        }
    )
    write_json(tmp_path / "main.json", doc)
    proc = run_cli("generate", "--spec", "main.json", "--out", "out/people", cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    models = (tmp_path / "out" / "people" / "models.py").read_text(encoding="utf-8")
    assert re.search(r"^class Address\(BaseModel\):", models, re.MULTILINE), models
