"""The one naming module: pure rules for every name the generator makes.

Case rules (PascalCase, snake_case and their variants) live in
:mod:`generator.normalize.naming.case`, the names of generated modules and the length cap
of file names in :mod:`generator.normalize.naming.modules`; both are imported from here.
This module holds the identifier validator and the ``names`` pass's class, method and
field names.

Everything here is a function of its arguments only (no installed-pydantic or
Python-version lookups), so the generated names never depend on the environment.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Container, Hashable, Iterable, Mapping
from functools import lru_cache
from typing import Any, Literal, TypeVar

from generator.methods import HTTP_METHODS as HTTP_METHODS
from generator.normalize.naming.case import PY_KEYWORDS as PY_KEYWORDS
from generator.normalize.naming.case import ascii_text as ascii_text
from generator.normalize.naming.case import capitalized_words as capitalized_words
from generator.normalize.naming.case import client_pascal_case as client_pascal_case
from generator.normalize.naming.case import client_snake_case as client_snake_case
from generator.normalize.naming.case import distribution_name as distribution_name
from generator.normalize.naming.case import package_name as package_name
from generator.normalize.naming.case import pascal_case as pascal_case
from generator.normalize.naming.case import python_snake_case as python_snake_case
from generator.normalize.naming.case import snake_case as snake_case
from generator.normalize.naming.case import words as words
from generator.normalize.naming.modules import NAME_LIMIT as NAME_LIMIT
from generator.normalize.naming.modules import capped as capped
from generator.normalize.naming.modules import module_names as module_names
from generator.normalize.naming.modules import module_problem as module_problem

K = TypeVar("K", bound=Hashable)

# softkwlist of Python 3.12+, hardcoded (``PY_KEYWORDS`` is in ``case``).
SOFT_KEYWORDS = frozenset({"_", "case", "match", "type"})

# Every public attribute of pydantic.BaseModel (v2, with the deprecated v1 ones), hardcoded.
PYDANTIC_RESERVED = frozenset(
    {
        "construct", "copy", "dict", "fields", "from_orm", "json", "model_computed_fields",
        "model_config", "model_construct", "model_copy", "model_dump", "model_dump_json",
        "model_extra", "model_fields", "model_fields_set", "model_json_schema",
        "model_parametrized_name", "model_post_init", "model_rebuild", "model_validate",
        "model_validate_json", "model_validate_strings", "parse_file", "parse_obj", "parse_raw",
        "schema", "schema_json", "update_forward_refs", "validate",
    }
)  # fmt: skip
PYDANTIC_PROTECTED_PREFIXES = ("model_validate", "model_dump")

# Names the generated modules import or rely on: a class with one of these names would
# shadow them.
RESERVED_CLASS_NAMES = frozenset(
    {
        "Annotated", "Any", "AnyUrl", "AwareDatetime", "BaseException", "BaseModel",
        "Callable", "ClassVar", "ConfigDict", "Decimal", "Dict", "Ellipsis", "EmailStr", "Enum",
        "Exception", "False", "Field", "Generic", "IntEnum", "Iterator", "Json", "KeyError",
        "List", "Literal", "Mapping", "NaiveDatetime", "None", "NotImplemented", "Optional",
        "RootModel", "RuntimeError", "Self", "Sequence", "StrEnum", "True", "Type", "TypeAlias",
        "TypeAliasType", "TypeError", "TypeVar", "UUID", "Union", "ValueError", "date",
        "datetime", "time", "timedelta",
    }
)  # fmt: skip

# Names the generated server module uses inside ``create_router``, where every route is a
# nested function named after its operation: a route of one of these names would shadow it;
# and ``engine``, ``MockService``'s attribute, which would shadow its method.
RESERVED_METHOD_NAMES = frozenset(
    {
        "current_credentials", "engine", "isinstance", "models", "router", "service",
        "verify_credentials",
    }
)  # fmt: skip
RESERVED_METHOD_PREFIXES = ("require_credentials_",)
# Names the bodies of generated client, server and mock methods use that a parameter of the
# same name would shadow (the renderers rename their own keywords, such as ``timeout``).
RESERVED_PARAMETER_NAMES = frozenset(
    {"cast", "cls", "getattr", "isinstance", "models", "path_param", "range", "self"}
)


_PASCAL = re.compile(r"[A-Z][A-Za-z0-9]*")
_SNAKE = re.compile(r"[a-z][a-z0-9_]*")
# pydantic's ``<Enum.MEMBER: 'value'>`` inside a generic's name, after FastAPI replaced
# every character outside [A-Za-z0-9._-] by "_": ``Enum.MEMBER___value___``.
_ENUM_REPR = re.compile(r"[A-Za-z][A-Za-z0-9]*\.([A-Za-z_][A-Za-z0-9_]*?)___.*?___")
_GENERIC = re.compile(r"[A-Za-z][A-Za-z0-9]*_.*_")
_TYPING_NOISE = frozenset({"Literal", "Optional", "Union", "Annotated", "typing"})
_MODULE_SEGMENT = re.compile(r"[a-z_][a-z0-9_]*")
_CLASS_SEGMENT = re.compile(r"[A-Z][A-Za-z0-9_]*")


# --- the identifier validator --------------------------------------------------------------

Scope = Literal["class", "method", "parameter", "field"]


def identifier_problem(
    name: object,
    scope: Scope,
    *,
    reserved: frozenset[str] | None = None,
    soft_keywords: bool = False,
) -> str | None:
    """Why ``name`` cannot be a generated name in ``scope``, or None when it can.

    The one check every name that lands in generated code as code passes, whether the
    generator made it or the spec supplied it (``x-python-name``, ``x-apismith-name``).
    Every scope wants an ASCII identifier (PEP 3131 identifiers are NFKC-normalized by the
    parser, so two different spellings could name one variable) that is no keyword and
    does not start with an underscore. Then, per scope:

    - ``class`` (a model): starts with an upper-case letter; not in ``reserved`` (the
      names ``models.py`` imports: ``RESERVED_CLASS_NAMES`` by default);
    - ``method`` (an operation) and ``parameter``: starts with a lower-case letter, so it
      shadows no imported class or constant; not one of the names the generated bodies use
      (``RESERVED_METHOD_NAMES``, ``RESERVED_PARAMETER_NAMES``);
    - ``field`` (a pydantic field): no ``BaseModel`` attribute (``PYDANTIC_RESERVED``) and
      no pydantic-protected prefix (``model_validate``, ``model_dump``); with
      ``soft_keywords``, no soft keyword either.

    Uniqueness is the caller's: it knows the scope.
    """
    if not isinstance(name, str):
        return f"not a string but {type(name).__name__}"
    if not name:
        return "empty"
    if not (name.isascii() and name.isidentifier()):
        return "not an ASCII Python identifier"
    if name in PY_KEYWORDS:
        return "a Python keyword"
    if name.startswith("_"):
        return "starts with an underscore"
    if scope == "class":
        if not name[0].isupper():
            return "does not start with an upper-case letter"
        taken = RESERVED_CLASS_NAMES if reserved is None else reserved
        return "a reserved name" if name in taken else None
    if scope in ("method", "parameter"):
        if not name[0].islower():
            return "does not start with a lower-case letter"
        if scope == "method" and (
            name in RESERVED_METHOD_NAMES or name.startswith(RESERVED_METHOD_PREFIXES)
        ):
            return "a name the generated server uses"
        if scope == "parameter" and name in RESERVED_PARAMETER_NAMES:
            return "a name the generated methods use"
        return None
    if name in PYDANTIC_RESERVED or name.startswith(PYDANTIC_PROTECTED_PREFIXES):
        return "reserved by pydantic"
    if soft_keywords and name in SOFT_KEYWORDS:
        return "a soft keyword"
    return None


def take_name(
    given: object,
    derived: str,
    scope: Literal["method", "parameter"],
    taken: set[str],
) -> tuple[str, str | None]:
    """A method or parameter name, added to ``taken``: ``given`` (spec-supplied) when it
    is valid and free, else ``derived`` (``_`` appended when reserved) made unique with
    ``_2``, ``_3``... Returns the name and why ``given`` was refused (None when it was
    kept, or when there was none)."""
    why = None
    if given is not None:
        why = identifier_problem(given, scope)
        if why is None and given in taken:
            why = "already used"
        if why is None:
            assert isinstance(given, str)
            taken.add(given)
            return given, None
    base = derived if identifier_problem(derived, scope) is None else derived + "_"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name, why


# --- class names ----------------------------------------------------------------------


def is_valid_class_name(name: str, reserved: frozenset[str] = RESERVED_CLASS_NAMES) -> bool:
    return (
        bool(_PASCAL.fullmatch(name))
        and identifier_problem(name, "class", reserved=reserved) is None
    )


def _safe_class(name: str, reserved: frozenset[str]) -> str:
    if not name:
        return "Schema"
    if name[0].isdigit():
        name = "Schema" + name
    if name in reserved or name in PY_KEYWORDS:
        name += "Model"
    return name


def class_name(name: str, reserved: frozenset[str] = RESERVED_CLASS_NAMES) -> str:
    """A valid PascalCase class name for one schema name (module-qualified names aside).

    Pydantic generic names (``Base[Literal[<E.M: 'v'>], ...]`` as FastAPI writes them:
    ``Base_Literal__E.M___v_____...``) become the base plus each argument's words, an enum
    argument by its member name: ``ApplicationMetricScoreTrustAndSafetyHarmfulContent``.
    """
    if is_valid_class_name(name, reserved):
        return name
    text = ascii_text(name)
    if _GENERIC.fullmatch(text):
        text = _ENUM_REPR.sub(r"_\1_", text)
        text = "_".join(w for w in words(text) if w not in _TYPING_NOISE)
    return _safe_class(pascal_case(text), reserved)


def qualified_parts(name: str) -> tuple[tuple[str, ...], str] | None:
    """``"pkg__mod__Outer__Inner"`` (FastAPI's name for a model whose short name is
    ambiguous: module and qualname, dots turned into ``__``) -> ``(("pkg", "mod"),
    "OuterInner")``; None for any other name."""
    parts = name.split("__")
    if len(parts) < 2 or not _MODULE_SEGMENT.fullmatch(parts[0]):
        return None
    split = next((i for i, p in enumerate(parts) if not _MODULE_SEGMENT.fullmatch(p)), None)
    if split is None or not all(_CLASS_SEGMENT.fullmatch(p) for p in parts[split:]):
        return None
    return tuple(parts[:split]), pascal_case("_".join(parts[split:]))


def class_names(
    names: Iterable[str], reserved: frozenset[str] = RESERVED_CLASS_NAMES
) -> dict[str, str]:
    """The wanted class name of every schema name (not yet made unique).

    Module-qualified names get their class name alone when no other schema wants it,
    else the shortest module suffix that tells them apart: ``EgpModelsArtifactInfo`` and
    ``EntitiesArtifactInfo``.
    """
    wanted: dict[str, str] = {}
    groups: dict[str, list[tuple[str, tuple[str, ...]]]] = defaultdict(list)
    for name in names:
        parts = None if is_valid_class_name(name, reserved) else qualified_parts(name)
        if parts is None:
            wanted[name] = class_name(name, reserved)
        else:
            groups[parts[1]].append((name, parts[0]))
    plain = set(wanted.values())
    for short, members in sorted(groups.items()):
        if len(members) == 1 and short not in plain and short not in reserved:
            wanted[members[0][0]] = _safe_class(short, reserved)
            continue
        depth = max(len(mods) for _, mods in members)
        k = next(
            (k for k in range(1, depth) if len({mods[-k:] for _, mods in members}) == len(members)),
            depth,
        )
        qualifiers = _distinct_words([words("_".join(mods[-k:])) for _, mods in members])
        for (name, _), qualifier in zip(members, qualifiers):
            wanted[name] = _safe_class(pascal_case("_".join(qualifier)) + short, reserved)
    return wanted


def _distinct_words(seqs: list[list[str]]) -> list[list[str]]:
    """``seqs`` without the leading and trailing words they all share (at least one word
    left each): ``plan_config_param``, ``workflow_config_param`` -> ``plan``, ``workflow``.
    Distinct sequences stay distinct."""
    if len(seqs) < 2:
        return seqs
    most = min(len(s) for s in seqs) - 1
    lead = 0
    while lead < most and len({s[lead] for s in seqs}) == 1:
        lead += 1
    seqs = [s[lead:] for s in seqs]
    most -= lead
    trail = 0
    while trail < most and len({s[-1 - trail] for s in seqs}) == 1:
        trail += 1
    return [s[: len(s) - trail] for s in seqs]


# --- method names -----------------------------------------------------------------------


def is_valid_method_name(name: str) -> bool:
    return bool(_SNAKE.fullmatch(name)) and identifier_problem(name, "method") is None


def safe_method_name(text: str) -> str:
    """``text`` as a valid snake_case method name (``"op"`` when nothing is left)."""
    name = snake_case(text) or "op"
    if name[0].isdigit():
        name = "op_" + name
    return name if identifier_problem(name, "method") is None else name + "_"


_TAGGED_ID = re.compile(r"([A-Za-z]+)-([A-Za-z0-9]+)-(/.*)")
_VERSION = re.compile(r"[vV][0-9]+")


def shared_version_tag(operation_ids: Iterable[str]) -> str | None:
    """The version in ``METHOD-V4-/path`` style operationIds when it is the same in all of
    them (so it tells no operation apart and can be dropped), else None."""
    tags = {m.group(2) for oid in operation_ids if (m := _TAGGED_ID.fullmatch(oid))}
    if len(tags) == 1:
        (tag,) = tags
        return tag if _VERSION.fullmatch(tag) else None
    return None


def method_name(operation_id: str | None, method: str, path: str, drop_tag: str | None) -> str:
    """The Python method name of one operation.

    Valid snake_case operationIds (FastAPI's) are kept; ``POST-V4-/v2/chat-completions``
    -> ``post_v2_chat_completions`` when ``V4`` is ``drop_tag``; other ids are snake-cased;
    a missing id is derived from the method and the path.
    """
    if operation_id is None or not words(operation_id):
        return safe_method_name(f"{method} {path}")
    if is_valid_method_name(operation_id):
        return operation_id
    m = _TAGGED_ID.fullmatch(operation_id)
    if m and drop_tag is not None and m.group(2) == drop_tag:
        return safe_method_name(f"{m.group(1)} {m.group(3)}")
    return safe_method_name(operation_id)


# --- field names -----------------------------------------------------------------------


@lru_cache(maxsize=1 << 16)  # asked for every property of every schema, names repeat
def is_safe_field_name(name: str, *, soft_keywords: bool = False) -> bool:
    """Whether a property name can be a pydantic field name as it is."""
    return identifier_problem(name, "field", soft_keywords=soft_keywords) is None


def python_field_name(name: str, taken: Container[str], *, soft_keywords: bool = False) -> str:
    """A safe Python field name for the property ``name``, not in ``taken``.

    ``name`` itself when it is safe and free; else its snake_case form, with ``_``
    appended to a keyword or reserved name (``class_``, ``model_config_``, ``json_``),
    ``field_`` prefixed to a leading digit or a pydantic-protected prefix (``field_1st``),
    and ``_2``, ``_3``... appended while it clashes with ``taken``. ``taken`` is not
    modified. With ``soft_keywords``, ``match``, ``case`` and ``type`` count as unsafe too.
    """

    def ok(candidate: str) -> bool:
        return candidate not in taken and is_safe_field_name(candidate, soft_keywords=soft_keywords)

    if ok(name):
        return name
    base = snake_case(name) or "field"
    if base[0].isdigit() or base.startswith(PYDANTIC_PROTECTED_PREFIXES):
        base = "field_" + base
    if ok(base):
        return base
    if ok(base + "_"):
        return base + "_"
    n = 2
    while not ok(f"{base}_{n}"):
        n += 1
    return f"{base}_{n}"


def field_python_names(
    props: Mapping[str, Any], *, soft_keywords: bool = False
) -> dict[str, tuple[str, str | None]]:
    """The Python name of every property of one object schema: wire name -> (name, why its
    ``x-python-name`` was refused, or None).

    A valid ``x-python-name`` that no other field uses is kept; else a safe wire name is
    its own Python name, and any other gets :func:`python_field_name`. A Python name never
    equals another field's wire name (pydantic populates by both) or Python name.
    """
    safe = {w: is_safe_field_name(w, soft_keywords=soft_keywords) for w in props}
    taken = {w for w, ok in safe.items() if ok}
    out: dict[str, tuple[str, str | None]] = {}
    for wire, sub in props.items():
        why = None
        if isinstance(sub, dict) and "x-python-name" in sub:
            given = sub["x-python-name"]
            why = identifier_problem(given, "field")
            if why is None and given != wire and given in taken:
                why = "already used by another field"
            if why is None:
                taken.add(given)
                out[wire] = (given, None)
                continue
        if safe[wire]:
            out[wire] = (wire, why)
            continue
        python = python_field_name(str(wire), taken, soft_keywords=soft_keywords)
        taken.add(python)
        out[wire] = (python, why)
    return out


# --- uniqueness ---------------------------------------------------------------------------


def unique_names(
    wanted: Mapping[K, str],
    order: Callable[[K], Any],
    suffix: Callable[[str, int], str],
) -> dict[K, str]:
    """Make ``wanted`` names unique: among the keys wanting one name, the first by
    ``order`` keeps it; the others get ``suffix(name, 2)``, ``suffix(name, 3)``...,
    skipping any name some key already has."""
    groups: dict[str, list[K]] = defaultdict(list)
    for key, name in wanted.items():
        groups[name].append(key)
    result: dict[K, str] = {}
    losers: list[tuple[str, K]] = []
    for name, keys in sorted(groups.items()):
        keys.sort(key=order)
        result[keys[0]] = name
        losers.extend((name, k) for k in keys[1:])
    used = set(result.values())
    for name, key in losers:
        n = 2
        while suffix(name, n) in used:
            n += 1
        result[key] = suffix(name, n)
        used.add(result[key])
    return result
