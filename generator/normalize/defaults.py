"""Normalization pass `defaults`: a ``default`` that violates its own schema is dropped.

A rendered model would otherwise carry a default its own validation rejects (LLM
Engine's ``Prompt``: ``"<|endoftext|>"`` on a nullable list of ints). Each drop is one
``drop`` diagnostic quoting the value and the reason.

The check is a tiny validator: ``type`` (bool is no number; 1.0 is an integer), ``enum``,
``const``, numeric bounds (3.1 and boolean 3.0 exclusive forms), string lengths,
``pattern`` (pydantic's regex engine), item counts, ``items``/``prefixItems``, local ``$ref``
targets, ``allOf``/``anyOf``/``oneOf`` (any member accepting is enough), and for objects
the ``required`` keys and the types of the present properties (shallow). Whatever it
cannot judge (formats, unknown keywords, remote refs, bad patterns) counts as valid:
a default is only dropped when it is surely wrong.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from generator.load import resolve_pointer
from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.nullable import TYPE_CHECKS, map_schemas
from generator.normalize.patterns import matches as pattern_matches
from generator.normalize.patterns import pattern_error
from generator.normalize.walk import json_copy

NAME = "defaults"

Schema = dict[str, Any]
_MAX_DEPTH = 32  # $ref chains and nesting deeper than this are not judged
_BUDGET = 5000  # schema visits per default: a pathological recursive union is not judged


def _json_type(value: Any) -> str:
    for kind in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if TYPE_CHECKS[kind](value):
            return kind
    return type(value).__name__


def _same(a: Any, b: Any) -> bool:
    """JSON equality: ``True`` is not ``1``, ``1`` is ``1.0``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) is type(b):
        return bool(a == b)
    return isinstance(a, (int, float)) and isinstance(b, (int, float)) and a == b


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


class _Validator:
    """Finds why a value violates a schema (``None``: valid, or not surely invalid)."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.spec = spec
        self.budget = _BUDGET

    def check(self, value: Any, schema: Schema) -> str | None:
        self.budget = _BUDGET
        problem = self.error(value, schema)
        return problem if self.budget > 0 else None

    def error(self, value: Any, schema: Any, depth: int = 0, shallow: bool = False) -> str | None:
        self.budget -= 1
        if schema is False:
            return "the schema accepts nothing"
        if not isinstance(schema, dict) or depth > _MAX_DEPTH or self.budget <= 0:
            return None
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = self._resolve(ref)
            problem = self.error(value, target, depth + 1, shallow)
            if problem:
                return problem
        problem = self._type(value, schema)
        if problem:
            return problem
        for key in ("allOf", "anyOf", "oneOf"):
            members = schema.get(key)
            if isinstance(members, list) and members:
                problem = self._union(key, value, members, depth, shallow)
                if problem:
                    return problem
        if shallow:
            return None
        return (
            self._choice(value, schema)
            or self._number(value, schema)
            or self._string(value, schema)
            or self._array(value, schema, depth)
            or self._object(value, schema, depth)
        )

    def _resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            return None
        try:
            return resolve_pointer(self.spec, ref)
        except (KeyError, ValueError):
            return None

    @staticmethod
    def _type(value: Any, schema: Schema) -> str | None:
        kind = schema.get("type")
        if value is None and schema.get("nullable") is True:  # left over if upgrade is off
            return None
        kinds = kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else []
        known = [k for k in kinds if k in TYPE_CHECKS]
        if not kinds or len(known) < len(kinds) or any(TYPE_CHECKS[k](value) for k in known):
            return None
        return f"expected {' or '.join(known)}, got {_json_type(value)}"

    def _union(
        self, key: str, value: Any, members: list[Any], depth: int, shallow: bool
    ) -> str | None:
        problems = [self.error(value, m, depth + 1, shallow) for m in members]
        if key == "allOf":
            return next((p for p in problems if p), None)
        if all(problems):
            return f"matches no {key} member ({'; '.join(dict.fromkeys(map(str, problems)))})"
        return None

    @staticmethod
    def _choice(value: Any, schema: Schema) -> str | None:
        enum = schema.get("enum")
        if isinstance(enum, list) and not any(_same(value, v) for v in enum):
            return f"not one of the enum values {_show(enum)}"
        if "const" in schema and not _same(value, schema["const"]):
            return f"not the const value {_show(schema['const'])}"
        return None

    @staticmethod
    def _number(value: Any, schema: Schema) -> str | None:
        if not TYPE_CHECKS["number"](value):
            return None
        lows = [("minimum", schema.get("minimum"), False)]
        highs = [("maximum", schema.get("maximum"), False)]
        for name, bound, into in (
            ("exclusiveMinimum", "minimum", lows),
            ("exclusiveMaximum", "maximum", highs),
        ):
            flag = schema.get(name)
            if flag is True:  # OpenAPI 3.0: the bound itself becomes exclusive
                into[0] = (name, schema.get(bound), True)
            elif flag is not False:
                into.append((name, flag, True))
        for name, low, strict in lows:
            if TYPE_CHECKS["number"](low) and (value < low or (strict and value == low)):
                return f"below {name} {low}"
        for name, high, strict in highs:
            if TYPE_CHECKS["number"](high) and (value > high or (strict and value == high)):
                return f"above {name} {high}"
        return None

    @staticmethod
    def _string(value: Any, schema: Schema) -> str | None:
        if not isinstance(value, str):
            return None
        low, high, pattern = schema.get("minLength"), schema.get("maxLength"), schema.get("pattern")
        if isinstance(low, int) and len(value) < low:
            return f"shorter than minLength {low}"
        if isinstance(high, int) and len(value) > high:
            return f"longer than maxLength {high}"
        # pydantic's own (linear-time) regex engine, the one the generated code uses; a
        # pattern it refuses is the patterns pass's business
        if isinstance(pattern, str) and pattern_error(pattern) is None:
            if not pattern_matches(pattern, value):
                return f"does not match pattern {pattern!r}"
        return None

    def _array(self, value: Any, schema: Schema, depth: int) -> str | None:
        if not isinstance(value, list):
            return None
        low, high = schema.get("minItems"), schema.get("maxItems")
        if isinstance(low, int) and len(value) < low:
            return f"fewer than minItems {low} items"
        if isinstance(high, int) and len(value) > high:
            return f"more than maxItems {high} items"
        prefix = schema.get("prefixItems")
        prefix = prefix if isinstance(prefix, list) else []
        items = schema.get("items")
        if isinstance(items, list):  # old tuple form
            prefix, items = items, None
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else items
            problem = self.error(item, sub, depth + 1)
            if problem:
                return f"item {i}: {problem}"
        return None

    def _object(self, value: Any, schema: Schema, depth: int) -> str | None:
        if not isinstance(value, dict):
            return None
        required = schema.get("required")
        if isinstance(required, list):
            missing = [str(k) for k in required if k not in value]
            if missing:
                return f"missing required {', '.join(missing)}"
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            sub = props.get(key, extra if isinstance(extra, dict) else None)
            problem = self.error(item, sub, depth + 1, shallow=True)
            if problem:
                return f"property {key!r}: {problem}"
        return None


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(out: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``out`` is the caller's to give (see :mod:`generator.normalize`)."""
    validator = _Validator(out)
    found: list[Diagnostic] = []

    def check(schema: Schema, pointer: str) -> Schema:
        if "default" not in schema:
            return schema
        value = schema["default"]
        problem = validator.check(value, {k: v for k, v in schema.items() if k != "default"})
        if not problem:
            return schema
        message = f"default {_show(value)} dropped: {problem}"
        found.append(Diagnostic(NAME, "drop", pointer, message))
        return {k: v for k, v in schema.items() if k != "default"}

    map_schemas(out, check)
    return PassResult(spec=out, diagnostics=tuple(found))
