"""Normalization pass `discriminators`: tagged unions pydantic can dispatch on.

A ``oneOf``/``anyOf`` ends up with a usable ``discriminator`` when either:

- it has one already. ``propertyName`` must be set (it is inferred when missing); mapping
  targets that are not members are dropped; the mapping is completed with the members it
  leaves out. pydantic builds a discriminated union only when every member is an object
  whose tag property is a ``Literal`` (a ``const``, an ``enum``, or a ref to one) and no
  tag value belongs to two members: otherwise it fails at import, so such a discriminator
  is dropped with a ``warning``;
- or it is inferred: every non-null member is a ``$ref`` to an object schema, or an inline
  object, and they share a property P carrying one string value each (``const``, a
  one-value ``enum``, or a ref to such a schema), distinct across members, and P is
  *required* in every member. Decision: a tag that is only defaulted is not enough by
  default. pydantic's discriminated union rejects input without the tag
  (``union_tag_not_found``) whatever the member's default, and datamodel-codegen turns the
  tag into a required ``Literal``, so the new discriminator would reject payloads that the
  plain union accepted. Option ``defaulted_tags = true`` also accepts a tag whose
  ``default`` equals its value. The mapping is added only when all members are refs.

Azure's polymorphism by inheritance is read too (:func:`ms_discriminator_values`): a
schema with ``x-ms-discriminator-value: V`` that extends (``allOf: [{$ref: Base}]``, at any
depth) a base whose ``discriminator`` names property P is the subtype for tag V. V becomes
its entry in the base's ``mapping``, and the subtype's P becomes ``const: V`` (defaulted to
V), so its model's tag is ``Literal[V]`` and a union of subtypes dispatches on it. The
real payloads carry V (``"kind": "Microsoft.Compute/virtualMachines"``), not the schema
name that OpenAPI's implicit mapping would use.

The result is canonical: ``{"oneOf": [A, B], "discriminator": {...}}`` (an ``anyOf`` is
turned into a ``oneOf``: distinct tags make the members exclusive) and, with a null
member, ``{"anyOf": [{"oneOf": [A, B], "discriminator": {...}}, {"type": "null"}], ...}``
with the metadata on the outer schema.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from generator.load import resolve_pointer
from generator.normalize.diagnostics import Diagnostic, PassResult
from generator.normalize.walk import Schema, json_copy, transform_schemas

NAME = "discriminators"

COMPONENTS = "#/components/schemas/"
MAX_DEPTH = 32
Tags = tuple[Any, ...]


def run(spec: Mapping[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass as a pure function: :func:`apply` on a copy of ``spec``."""
    return apply(json_copy(dict(spec)), options)


def apply(doc: dict[str, Any], options: Mapping[str, Any]) -> PassResult:
    """The pass, in place: ``doc`` is the caller's to give (see :mod:`generator.normalize`)."""
    tagger = _Tagger(doc, defaulted=bool(options.get("defaulted_tags", False)))
    ms_discriminator_values(tagger)
    transform_schemas(doc, tagger.visit)
    return PassResult(spec=doc, diagnostics=tuple(tagger.diagnostics))


def is_null(schema: Any) -> bool:
    """A null member (canonically ``{"type": "null"}``; its annotations are not kept)."""
    return isinstance(schema, dict) and schema.get("type") == "null"


class _Tagger:
    def __init__(self, doc: dict[str, Any], defaulted: bool) -> None:
        self.doc = doc
        self.schemas: dict[str, Any] = (doc.get("components") or {}).get("schemas") or {}
        self.defaulted = defaulted
        self.diagnostics: list[Diagnostic] = []

    def warn(self, pointer: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(NAME, "warning", pointer, message))

    def visit(self, schema: Schema, pointer: str) -> Schema:
        keys = [k for k in ("oneOf", "anyOf") if isinstance(schema.get(k), list)]
        if len(keys) != 1:
            return schema  # no union (a discriminator beside allOf is left alone), or both
        key = keys[0]
        choices = [m for m in schema[key] if not is_null(m)]
        has_null = len(choices) < len(schema[key])
        if "discriminator" in schema:
            disc = self.checked(schema["discriminator"], choices, pointer)
            if disc is None:
                return {k: v for k, v in schema.items() if k != "discriminator"}
        else:
            found = self.infer(choices, self.defaulted)
            if found is None:
                return schema
            prop, tags = found
            disc = {"propertyName": prop}
            if all(_ref_of(m) for m in choices):
                disc["mapping"] = {t[0]: _ref_of(m) for m, t in zip(choices, tags)}
        return _tagged(schema, key, choices, has_null, disc)

    def checked(self, given: Any, choices: list[Any], pointer: str) -> dict[str, Any] | None:
        """The usable form of a discriminator the spec gives, or None (with a warning)."""
        where = pointer + "/discriminator"
        if not isinstance(given, dict) or not choices:
            self.warn(where, "discriminator dropped: not an object, or no non-null member")
            return None
        disc: dict[str, Any] = dict(given)
        prop = disc.get("propertyName")
        if not isinstance(prop, str) or not prop:
            found = self.infer(choices, defaulted=True)
            if found is None:
                self.warn(where, "discriminator without propertyName (none inferred); dropped")
                return None
            prop = disc["propertyName"] = found[0]
            self.warn(where, f"discriminator without propertyName; inferred {prop!r}")
        tags = [self.member_tags(m, prop) for m in choices]
        for member, tag in zip(choices, tags):
            if tag is None:
                why = f"{_label(member)} has no const/enum property {prop!r}"
                self.warn(
                    where, f"discriminator {prop!r} dropped: {why} (pydantic needs a Literal)"
                )
                return None
        values = [v for tag in tags if tag is not None for v in tag]
        if len(set(values)) != len(values):
            self.warn(where, f"discriminator {prop!r} dropped: members share a tag value")
            return None
        refs = [_ref_of(m) for m in choices]
        if "mapping" in disc or all(refs):
            disc["mapping"] = self.mapping(disc.get("mapping"), refs, tags, where)
        return disc

    def mapping(
        self, given: Any, refs: list[str], tags: list[Tags | None], where: str
    ) -> dict[str, str]:
        """A mapping whose targets are all members, completed with the missing members."""
        tags_of = {r: t or () for r, t in zip(refs, tags) if r}
        result: dict[str, str] = {}
        if not isinstance(given, dict):
            if given is not None:
                self.warn(where, "discriminator mapping is not an object; rebuilt")
            given = {}
        for key, target in given.items():
            ref = target
            if isinstance(target, str) and not target.startswith("#"):
                ref = COMPONENTS + target  # a bare schema name
            if not isinstance(ref, str) or ref not in tags_of:
                self.warn(where, f"mapping {key!r} -> {target!r}: not a member; entry dropped")
                continue
            if not any(key in _spellings(v) for v in tags_of[ref]):
                self.warn(where, f"mapping key {key!r} is not a tag value of {ref}")
            result[key] = ref
        mapped = set(result.values())
        for ref in refs:
            if ref and ref not in mapped:
                for value in tags_of[ref]:
                    if isinstance(value, str):
                        result.setdefault(value, ref)
        return result

    def infer(self, choices: list[Any], defaulted: bool) -> tuple[str, list[Tags]] | None:
        """The tag property shared by all members, with each member's tag, if there is one."""
        if len(choices) < 2:
            return None
        views = [self.object_view(m) if isinstance(m, dict) else None for m in choices]
        if any(v is None for v in views):
            return None
        objects = [v for v in views if v is not None]
        for prop in objects[0][0]:
            if not all(prop in props for props, _ in objects):
                continue
            tags = [self.tag_values(props[prop]) for props, _ in objects]
            if not all(t is not None and len(t) == 1 and isinstance(t[0], str) for t in tags):
                continue
            firsts = [t[0] for t in tags if t is not None]
            if len(set(firsts)) != len(firsts):
                continue
            if all(
                prop in required or (defaulted and props[prop].get("default") == value)
                for (props, required), value in zip(objects, firsts)
            ):
                return prop, [(v,) for v in firsts]
        return None

    def member_tags(self, member: Any, prop: str) -> Tags | None:
        view = self.object_view(member) if isinstance(member, dict) else None
        if view is None or prop not in view[0]:
            return None
        return self.tag_values(view[0][prop])

    def resolve(self, ref: Any) -> Schema | None:
        if not isinstance(ref, str):
            return None
        name = ref[len(COMPONENTS) :]
        if ref.startswith(COMPONENTS) and "/" not in name and "~" not in name and "%" not in name:
            target = self.schemas.get(name)
        else:
            try:
                target = resolve_pointer(self.doc, ref)
            except KeyError:
                return None
        return target if isinstance(target, dict) else None

    def object_view(self, schema: Schema, depth: int = 0) -> tuple[Schema, set[str]] | None:
        """The properties and required names of an object schema (through refs and allOf)."""
        if depth > MAX_DEPTH:
            return None
        if "$ref" in schema:
            target = self.resolve(schema["$ref"])
            return None if target is None else self.object_view(target, depth + 1)
        if schema.get("type", "object") != "object" or "oneOf" in schema or "anyOf" in schema:
            return None
        props: Schema = {}
        required: set[str] = set()
        for part in schema.get("allOf") or []:
            view = self.object_view(part, depth + 1) if isinstance(part, dict) else None
            if view is not None:
                props.update(view[0])
                required |= view[1]
        props.update(schema.get("properties") or {})
        required |= {r for r in schema.get("required") or [] if isinstance(r, str)}
        return props, required

    def tag_values(self, prop: Any, depth: int = 0) -> Tags | None:
        """The values a tag property can take, when it is a Literal for pydantic."""
        if not isinstance(prop, dict) or depth > MAX_DEPTH:
            return None
        kind = prop.get("type")
        if kind == "null" or (isinstance(kind, list) and "null" in kind):
            return None
        if "const" in prop:
            return (prop["const"],) if _scalar(prop["const"]) else None
        enum = prop.get("enum")
        if isinstance(enum, list) and enum:
            return tuple(enum) if all(_scalar(v) for v in enum) else None
        if "$ref" in prop:
            return self.tag_values(self.resolve(prop["$ref"]), depth + 1)
        parts = prop.get("allOf")
        if isinstance(parts, list) and len(parts) == 1:
            return self.tag_values(parts[0], depth + 1)
        return None


MS_VALUE = "x-ms-discriminator-value"


def ms_discriminator_values(tagger: _Tagger) -> None:
    """Each component schema's ``x-ms-discriminator-value``: its base's mapping entry and
    its own tag's ``const`` (see the module docstring), in place."""
    for name, schema in tagger.schemas.items():
        value = schema.get(MS_VALUE) if isinstance(schema, dict) else None
        if not isinstance(value, str) or not value:
            continue
        where = COMPONENTS + name.replace("~", "~0").replace("/", "~1")
        base = _discriminated_base(tagger, schema)
        if base is None:
            tagger.warn(where, f"{MS_VALUE} {value!r}: no base with a discriminator; ignored")
            continue
        disc = base["discriminator"]
        mapping = disc.get("mapping")
        if not isinstance(mapping, dict):
            mapping = disc["mapping"] = {}
        target = mapping.setdefault(value, COMPONENTS + name)
        if target not in (name, COMPONENTS + name):
            tagger.warn(where, f"{MS_VALUE} {value!r} is mapped to {target!r} already")
            continue
        if base is schema:
            continue  # the base's own value: its tag stays open to its subtypes' values
        props = schema.get("properties")
        if not isinstance(props, dict):
            props = schema["properties"] = {}
        own = props.get(disc["propertyName"])
        tag = dict(own) if isinstance(own, dict) and "$ref" not in own else {"type": "string"}
        tag.pop("enum", None)
        props[disc["propertyName"]] = {**tag, "const": value, "default": value}


def _discriminated_base(tagger: _Tagger, schema: Schema) -> Schema | None:
    """The nearest schema, ``schema`` itself or an ``allOf`` ancestor (breadth first),
    whose ``discriminator`` names a property."""
    queue: list[Schema] = [schema]
    seen: set[int] = set()
    while queue and len(seen) <= MAX_DEPTH:
        node = queue.pop(0)
        if id(node) in seen:
            continue
        seen.add(id(node))
        disc = node.get("discriminator")
        if isinstance(disc, dict) and isinstance(disc.get("propertyName"), str):
            if disc["propertyName"]:
                return node
        for part in node.get("allOf") or []:
            target = tagger.resolve(part.get("$ref")) if isinstance(part, dict) else None
            if target is not None:
                queue.append(target)
    return None


def _tagged(schema: Schema, key: str, choices: list[Any], has_null: bool, disc: Any) -> Schema:
    """The canonical tagged union, in ``schema``'s key order."""
    union = {"oneOf": choices, "discriminator": disc}
    result: Schema = {}
    for k, v in schema.items():
        if k == key:
            if has_null:
                result["anyOf"] = [union, {"type": "null"}]
            else:
                result.update(union)
        elif k != "discriminator":
            result[k] = v
    return result


def _ref_of(member: Any) -> str:
    """The target of a ``{"$ref": ...}`` member (annotations beside it are fine), else ""."""
    if isinstance(member, dict) and isinstance(member.get("$ref"), str):
        return str(member["$ref"])
    return ""


def _label(member: Any) -> str:
    ref = _ref_of(member)
    return f"member {ref.rsplit('/', 1)[-1]}" if ref else "an inline member"


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int))  # bool is an int too; None and floats are not tags


def _spellings(value: Any) -> set[str]:
    """How a tag value may be written as a mapping key (FastAPI writes ``True``)."""
    return {value} if isinstance(value, str) else {str(value), json.dumps(value)}
