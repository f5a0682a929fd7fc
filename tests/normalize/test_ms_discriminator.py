"""``x-ms-discriminator-value`` (Azure's polymorphism by inheritance): a subtype's value is
its base's mapping entry and its own tag, so real Azure payloads validate as the subtype."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pydantic
import pytest

from generator.normalize import discriminators
from tests.conftest import describe, import_package, run_cli

C = "#/components/schemas/"
SPEC = Path(__file__).resolve().parents[1] / "golden" / "ms-discriminator" / "spec.json"


def spec() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(SPEC.read_text(encoding="utf-8"))
    return doc


def test_the_value_is_the_mapping_entry_and_the_subtype_tag() -> None:
    out = discriminators.run(spec(), {}).spec["components"]["schemas"]
    assert out["Pet"]["discriminator"]["mapping"] == {
        "Microsoft.Pets/cats": C + "Cat",
        "Microsoft.Pets/dogs": C + "Dog",
    }
    assert out["Cat"]["properties"]["kind"]["const"] == "Microsoft.Pets/cats"
    assert out["Pet"]["properties"]["kind"] == {"type": "string"}  # the base stays open


def test_a_value_without_a_discriminated_base_is_ignored_with_a_warning() -> None:
    doc = spec()
    del doc["components"]["schemas"]["Pet"]["discriminator"]
    result = discriminators.run(doc, {})
    assert "const" not in result.spec["components"]["schemas"]["Cat"]["properties"].get("kind", {})
    assert any("no base with a discriminator" in d.message for d in result.diagnostics)


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Any:
    out = tmp_path_factory.mktemp("msd") / "golden_msd"
    proc = run_cli("generate", "--spec", SPEC, "--out", out, cwd=out.parent)
    assert proc.returncode == 0, describe(proc)
    return import_package(out, "golden_msd").models


def test_real_payloads_validate_as_their_subtype(models: Any) -> None:
    union = pydantic.TypeAdapter(models.Cat | models.Dog)
    dog = union.validate_python({"kind": "Microsoft.Pets/dogs", "name": "Rex", "barks": True})
    cat = union.validate_python({"kind": "Microsoft.Pets/cats", "meows": False})
    assert type(dog) is models.Dog and type(cat) is models.Cat
    assert models.Pet.model_validate({"kind": "Microsoft.Pets/dogs"}).kind == (
        "Microsoft.Pets/dogs"
    )
    with pytest.raises(pydantic.ValidationError):
        models.Cat.model_validate({"kind": "Cat"})  # the schema name is not the tag
