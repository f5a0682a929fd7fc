"""The Python side on hand-written packages shaped like generated ones: what no spec change
makes the generator produce (a parameter moved, a default changed, a base class removed),
and what the surface leaves out (async twins, raw-response wrappers, private modules)."""

from __future__ import annotations

from pathlib import Path

from generator.diff.surface import package_changes

OLD_MODELS = """
from pydantic import BaseModel


class Base(BaseModel):
    id: str


class Mixin(BaseModel):
    tag: str | None = None


class Thing(Base, Mixin):
    name: str
"""
NEW_MODELS = OLD_MODELS.replace("class Thing(Base, Mixin):", "class Thing(Base):")
OLD_RESOURCE = """
class ThingsResource:
    def move(self, shelf: str, bin: str, *, limit: int = 10) -> None: ...


class AsyncThingsResource:
    async def move(self, shelf: str, bin: str, *, limit: int = 10) -> None: ...
    async def gone(self) -> None: ...


class ThingsResourceWithRawResponse:
    def __init__(self, resource: ThingsResource) -> None:
        self.move = resource.move
"""
NEW_RESOURCE = """
class ThingsResource:
    def move(self, bin: str, shelf: str, *, limit: int = 20) -> None: ...


class AsyncThingsResource:
    async def move(self, bin: str, shelf: str, *, limit: int = 20) -> None: ...


class ThingsResourceWithRawResponse:
    def __init__(self, resource: ThingsResource) -> None:
        pass
"""


def package(root: Path, models: str, resource: str, runtime: str = "") -> Path:
    files = {
        "api/__init__.py": "",
        "api/_runtime.py": runtime,
        "api/models.py": models,
        "api/resources/__init__.py": "",
        "api/resources/things.py": resource,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_what_generated_code_never_shows(tmp_path: Path) -> None:
    old = package(tmp_path / "old", OLD_MODELS, OLD_RESOURCE)
    new = package(tmp_path / "new", NEW_MODELS, NEW_RESOURCE, "def helper() -> None: ...\n")
    found = {(c.rule, c.location, c.level) for c in package_changes(old, new, "api")}
    move = "resources.things.ThingsResource.move"
    assert found == {
        ("python-parameter-moved", f"{move}(shelf)", "breaking"),
        ("python-parameter-moved", f"{move}(bin)", "breaking"),
        ("python-parameter-default-changed", f"{move}(limit)", "warning"),
        ("python-base-removed", "models.Thing", "breaking"),
    }


def test_nothing_changed(tmp_path: Path) -> None:
    old = package(tmp_path / "old", OLD_MODELS, OLD_RESOURCE)
    new = package(tmp_path / "new", OLD_MODELS, OLD_RESOURCE)
    assert package_changes(old, new, "api") == []


def test_a_new_description_or_constraint_is_no_change_of_type() -> None:
    """``Annotated``'s metadata is not the type: ``bytes`` and ``Annotated[bytes,
    Field(...)]`` are the same to a type checker (the spec side reports constraints)."""
    from generator.diff.surface import core_type

    assert core_type("Annotated[bytes, Field(json_schema_extra={'a': 'b'})]") == "bytes"
    assert core_type("Annotated[int | None, Field(ge=1)] | str") == "int | None | str"
    assert core_type("list[Annotated[str, Field(min_length=1)]]") == "list[str]"
    assert core_type("not python (") == "not python ("
