"""The names of the normalize passes, in the order they run: what a config may switch off
(``[passes] <name> = false``). A constant, so that reading a config never imports the
passes themselves; ``tests/normalize/test_pass_names.py`` holds it to
:data:`generator.normalize.PASSES`."""

from __future__ import annotations

PASS_NAMES: tuple[str, ...] = (
    "defs",
    "upgrade",
    "fragments",
    "allof",
    "tuples",
    "nullable",
    "discriminators",
    "defaults",
    "object_types",
    "decimal_strings",
    "read_write",
    "names",
    "inline_bodies",
    "array_items",
    "inline_objects",
    "form_bodies",
    "text",
    "streams",
)
