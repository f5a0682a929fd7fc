"""``[mock]``: how the generated mock server behaves beyond what the spec says::

    [mock.resources.get_evaluations_evaluation_id]   # an operationId or python name
    action = "get"                  # create | get | list | update | delete, or "none":
                                    # no stateful role (the mock answers its literal)
    collection = "/v4/evaluations"  # the records' key: the collection's path template
    id_param = "evaluation_id"      # get/update/delete: the path parameter holding the id
    id_field = "id"                 # the response field holding the id
    items_field = "items"           # list: the response's array of records
    scope = []                      # the parent path parameters (nested collections)

Every key is optional: an entry amends the role the paths imply
(:mod:`generator.render.server.resources` documents the inference), or, with ``action``,
gives one the paths do not imply. Read and shape-checked once, with the other tables
(:func:`generator.config.tables.read_tables`); checked against the IR when the server
renders.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from generator.errors import ApismithError

MOCK_KEYS = {"resources"}
ACTIONS = ("create", "get", "list", "update", "delete", "none")
RESOURCE_KEYS = ("action", "collection", "id_param", "id_field", "items_field", "scope")


@dataclass(frozen=True)
class MockTable:
    """``[mock]`` as given (``resources``: operation -> entry, keys as in the file)."""

    resources: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def recorded(self) -> dict[str, Any]:
        return (
            {"resources": {k: dict(v) for k, v in self.resources.items()}} if self.resources else {}
        )


def _fail(message: str, where: str) -> ApismithError:
    return ApismithError(f"config: {message}", file=where)


def read_resource(key: str, entry: object, where: str) -> dict[str, Any]:
    """One ``[mock.resources.<operation>]`` entry, shape-checked."""
    section = f"[mock.resources.{key}]"
    if not isinstance(entry, dict):
        raise _fail(f"{section} must be a table", where)
    unknown = sorted(set(entry) - set(RESOURCE_KEYS))
    if unknown:
        raise _fail(f"{section} unknown key(s) {unknown}; expected {list(RESOURCE_KEYS)}", where)
    for name in RESOURCE_KEYS[:-1]:
        if name in entry and (not isinstance(entry[name], str) or not entry[name]):
            raise _fail(f"{section} {name} must be a non-empty string, got {entry[name]!r}", where)
    if "action" in entry and entry["action"] not in ACTIONS:
        raise _fail(
            f"{section} action must be one of {list(ACTIONS)}, got {entry['action']!r}", where
        )
    if "collection" in entry and not entry["collection"].startswith("/"):
        raise _fail(f"{section} collection must be a path template such as '/things'", where)
    scope = entry.get("scope", [])
    if not isinstance(scope, list) or not all(isinstance(s, str) and s for s in scope):
        raise _fail(f"{section} scope must be a list of path parameter names, got {scope!r}", where)
    return dict(entry)


def read_mock(value: object, where: str) -> MockTable:
    """The ``[mock]`` table of a config (``where`` names the config in errors)."""
    if not isinstance(value, dict):
        raise _fail("[mock] must be a table", where)
    unknown = sorted(set(value) - MOCK_KEYS)
    if unknown:
        raise _fail(f"[mock] unknown key(s) {unknown}; expected {sorted(MOCK_KEYS)}", where)
    resources = value.get("resources", {})
    if not isinstance(resources, dict):
        raise _fail("[mock.resources] must be a table of [mock.resources.<operation>]", where)
    return MockTable({key: read_resource(key, entry, where) for key, entry in resources.items()})
