"""The names of the generated modules made from spec text: ``resources/<name>.py``,
``_server/<name>.py`` and ``_mock/<name>.py``, one name per top-level resource of the
client, and the length cap of every name that becomes a file.

The rule: a submodule must not be named like anything its package's ``__init__.py`` binds
or reads as a global. Importing ``pkg._server.json`` sets the attribute ``json`` of
``pkg._server``, which is the ``__init__``'s global ``json``: its own code then calls the
module (``TypeError: 'module' object is not callable``); and ``from . import annotations``
finds the ``__future__`` feature the ``__init__`` already bound instead of importing the
submodule. So a module is never named like:

- a ``__future__`` feature (every generated module starts with
  ``from __future__ import annotations``; the others are reserved alike, for the day a
  template imports one);
- a builtin (the ``__init__`` code calls ``getattr``, ``isinstance``, ``str``...);
- a name the ``__init__`` templates bind (``PACKAGE_INIT_NAMES``: ``json``,
  ``current_credentials``, ``verify_credentials``, ``read_parameter`` (structured
  parameters), ``media_response`` (answers that are not JSON)...;
  ``require_credentials_<n>``).

The package's own modules (``models``, ``_types``, ``_runtime``...) are no concern: a
resource module imports them from its parent (``from .. import models as _m``), and no
sibling imports a resource module by a relative name but the ``__init__``. Keywords
already have their ``_`` (``class_``), and soft keywords are valid module names.

Such a module gets ``_`` appended (``annotations_.py``); the client attribute keeps its
name (``client.annotations``). ``tests/test_names_round3.py`` checks the lists against
the ``__init__.py`` files of generated packages.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

# __future__.all_feature_names of Python 3.10 to 3.13, hardcoded.
FUTURE_FEATURES = frozenset(
    {
        "absolute_import", "annotations", "barry_as_FLUFL", "division", "generator_stop",
        "generators", "nested_scopes", "print_function", "unicode_literals", "with_statement",
    }
)  # fmt: skip
# The lower-case names of ``builtins`` (with ``site``'s) of Python 3.10 to 3.13, hardcoded.
BUILTIN_NAMES = frozenset(
    {
        "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint",
        "bytearray", "bytes", "callable", "chr", "classmethod", "compile", "complex",
        "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec",
        "exit", "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr",
        "hash", "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len",
        "license", "list", "locals", "map", "max", "memoryview", "min", "next", "object", "oct",
        "open", "ord", "pow", "print", "property", "quit", "range", "repr", "reversed", "round",
        "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple",
        "type", "vars", "zip",
    }
)  # fmt: skip
# What ``resources/__init__.py``, ``_server/__init__.py`` and ``_mock/__init__.py`` bind in
# lower case (their other names are upper case or start with ``_``, as no module name does),
# and the presence checks ``_server/__init__.py`` numbers (``require_credentials_1``).
PACKAGE_INIT_NAMES = frozenset(
    {
        "cache", "current_credentials", "dataclass", "field", "json", "json_or_text",
        "media_response", "read_parameter", "verify_credentials",
    }
)  # fmt: skip
PACKAGE_INIT_NUMBERED = re.compile(r"require_credentials_[0-9]+")
RESERVED_MODULE_NAMES = FUTURE_FEATURES | BUILTIN_NAMES | PACKAGE_INIT_NAMES

NAME_LIMIT = 64  # the longest name of a generated file (without its extension)
_DIGEST = 8  # hex digits of the hash that keeps capped names apart


def capped(name: str, limit: int = NAME_LIMIT) -> str:
    """``name`` when it has at most ``limit`` characters, else its start and ``_`` and a
    short hash of the whole (deterministic, and distinct for distinct names):
    ``"t" * 300`` -> ``"ttt..._6b7e0f1d"``, ``limit`` characters."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:_DIGEST]
    return f"{name[: limit - _DIGEST - 1].rstrip('_')}_{digest}"


def module_problem(name: str) -> str | None:
    """Why ``name`` cannot be a resource module's name (see the module docstring), or
    None when it can."""
    if name in FUTURE_FEATURES:
        return "a __future__ feature"
    if name in BUILTIN_NAMES:
        return "a builtin"
    if name in PACKAGE_INIT_NAMES or PACKAGE_INIT_NUMBERED.fullmatch(name):
        return "a name the package's __init__.py binds"
    if len(name) > NAME_LIMIT:
        return f"longer than {NAME_LIMIT} characters"
    return None


def module_names(attrs: Iterable[str]) -> dict[str, str]:
    """The module name of each top-level resource attribute (distinct attributes get
    distinct names): the attribute itself when :func:`module_problem` finds nothing,
    else the attribute with ``_`` appended, capped, then ``_2``, ``_3``... while taken."""
    attrs = list(dict.fromkeys(attrs))
    out = {a: a for a in attrs if module_problem(a) is None}
    used = set(out.values())
    for attr in attrs:
        if attr in out:
            continue
        base = capped(attr if len(attr) > NAME_LIMIT else f"{attr}_")
        name, n = base, 2
        while name in used or module_problem(name) is not None:
            name, n = capped(f"{attr}_{n}"), n + 1
        used.add(name)
        out[attr] = name
    return {a: out[a] for a in attrs}
