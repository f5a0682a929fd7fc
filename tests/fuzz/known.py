"""Failures the fuzzer finds that are already known (issue 11's root causes, and classes the
fuzzer found beyond them), each matched by its error line (and, where the line alone is
too broad, by the construct that causes it).

An example that fails with a KNOWN error is counted, not failed; any other failure fails the
test. As a fix lands, delete its entry (the test then holds the generator to it), or run
with ``FUZZ_STRICT=1`` to treat every entry as deleted. The test's summary lists the
entries that matched, so an entry that never matches any more is easy to spot.

The entries are what ``bench/fuzz.py`` (2,000 random examples a run) found from commit
52ee8ee (before issue 11's fixes) to 80fde6d, reduced to the minimal specs of
:mod:`tests.fuzz.reproductions`; :data:`FIXED` keeps the entries whose fixes landed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.fuzz.run import FAILED, REFUSED, Outcome
from tests.fuzz.strategies import FuzzSpec


@dataclass(frozen=True)
class Known:
    cause: str  # the failure class (issue 11's root cause, or a new one), in a few words
    line: str  # a regex searched in the error line
    when: Callable[[FuzzSpec], bool] | None = None  # only for documents with this construct

    def matches(self, spec: FuzzSpec, outcome: Outcome) -> bool:
        if outcome.status not in (FAILED, REFUSED) or not re.search(self.line, outcome.line):
            return False
        return self.when is None or self.when(spec)


def has(feature: str) -> Callable[[FuzzSpec], bool]:
    """A ``when`` for entries whose line alone is too broad: documents with ``feature``."""
    return lambda spec: feature in spec.features


KNOWN: tuple[Known, ...] = (
    # Each entry's minimal spec is in tests/fuzz/reproductions.py (named in brackets).
    # [new-discriminator-python-name] a tag "@type" while one member also has a property
    # "type": the tag's Python name differs between members (type, type_), and
    # datamodel-code-generator refuses the union (exit 1). Not in issue 11.
    Known(
        "not in issue 11: a discriminator property whose Python name differs by member",
        r"model rendering failed: Discriminator .* resolves to different field names",
    ),
)
# Entries deleted as their fixes landed (their reproductions now must pass), with the
# line each matched; to see one again, put it back in KNOWN:
FIXED: tuple[Known, ...] = (
    # [7-allof-extension-object] fixed after 80fde6d: the inline_objects pass also names
    # the inline object properties of a model's own allOf parts (they were mocked as {})
    Known(
        "issue 11 cause 7: the mock answers {} for an allOf (or an inline object) property",
        r"^mock \S+: ValidationError: .* missing \(input \{\}\)",
    ),
    # [1-pattern, 1-pattern-script] fixed in e603116 (rstr), b5eadb6 (the mock's gaps
    # answer 501 instead of blocking generation)
    Known(
        "issue 11 cause 1: the mock finds no string for a pattern and blocks generation",
        r"no mock response for .*: no string matches pattern",
    ),
    # [1-required-self] fixed in b5eadb6
    Known(
        "issue 11 cause 1: a required self-reference blocks generation (no mock value)",
        r"no mock response for .*: \S+ requires itself",
    ),
    # [4-long-alias] fixed in e603116
    Known(
        "issue 11 cause 4: a type alias name of 72+ characters: 'schemas without a model'",
        r"schemas without a model: (.*, )?[^,]{60,}",
    ),
    # [5-nullable-primitive] fixed in e603116
    Known(
        "issue 11 cause 5: an inline nullable primitive response crashes client rendering",
        r"internal error: TypeError: TypeRef\.__init__\(\) got an unexpected keyword"
        r" argument 'python_type'",
    ),
    # [6-undefined-security] fixed in e603116
    Known(
        "issue 11 cause 6: a security requirement naming an undefined scheme: KeyError",
        r"internal error: KeyError: ",
        has("security:undefined"),
    ),
    # [7-allof-property, 7-inline-object] fixed in b5eadb6 (7-allof-extension-object not)
    Known(
        "issue 11 cause 7: the mock answers {} for an allOf (or an inline object) property",
        r"^mock \S+: ValidationError: .* missing \(input \{\}\)",
    ),
    # [new-inline-name-clash] the component Field becomes FieldModelModel, the inline item
    # model of its property "fields" FieldModel, and the server, client and mock use
    # FieldModel for the component (also ConfigDict, BaseModel with an inline property of
    # their own name). Not in issue 11; fixed in b5eadb6
    Known(
        "not in issue 11: an inline model named like a renamed component takes its name",
        r"^mock \S+: ValidationError: ",
        lambda spec: inline_name_clash(spec.doc),
    ),
    # [new-discriminator-base-property] a property whose type is a discriminator base
    # (members extend it by allOf) is mocked with the base's own value {"kind": "a"},
    # which the tagged union the base became rejects. Not in issue 11; fixed in b5eadb6
    Known(
        "not in issue 11: a property typed as a discriminator base is mocked with a bad tag",
        r"^mock \S+: ValidationError: .* union_tag_invalid",
    ),
    # [new-discriminator-plain-tag] a base with a discriminator and a mapping
    # {"cat": "Bird"}, a member Bird (allOf the base) whose tag is a plain string, and
    # another schema with a property of the base's type: an operation answering the base
    # is mocked as Bird with the tag "a", not "cat" (Bird's tag is Literal["cat"]); without
    # the other schema, or without the mapping, it works. Not in issue 11; fixed after 7dfeca4.
    Known(
        "not in issue 11: a member with a plain-string tag is mocked with a tag off the mapping",
        r"^mock \S+: ValidationError: .* literal_error \(input 'a'\)",
    ),
    # Never seen: cause 2 (\\p{L} already generated at 52ee8ee; patterns neither engine
    # compiles are refused with the pattern and its pointer), cause 3 (an operationId equal
    # to a schema name generated at every commit tried).
)


def inline_name_clash(doc: dict[str, Any]) -> bool:
    """Whether a property holding an inline object (or an array of them) is named like a
    component (``fields`` or ``field`` and ``Field``), as datamodel-code-generator names
    the inline model."""
    schemas = (doc.get("components") or {}).get("schemas") or {}
    names = {name.lower() for name in schemas}

    def inline(schema: Any) -> bool:
        if not isinstance(schema, dict):
            return False
        return "properties" in schema or inline(schema.get("items"))

    def walk(node: Any) -> bool:
        if isinstance(node, dict):
            for prop, schema in (node.get("properties") or {}).items():
                if inline(schema) and {prop.lower(), prop.lower().removesuffix("s")} & names:
                    return True
            return any(walk(child) for child in node.values())
        return isinstance(node, list) and any(walk(child) for child in node)

    return walk(schemas)


def known_cause(spec: FuzzSpec, outcome: Outcome, table: tuple[Known, ...] = KNOWN) -> str | None:
    """The cause of the first entry of ``table`` that explains ``outcome``, if any."""
    for entry in table:
        if entry.matches(spec, outcome):
            return entry.cause
    return None


def legitimate_refusal(spec: FuzzSpec, outcome: Outcome) -> str | None:
    """Why refusing ``spec`` is right (the document is not valid as it stands), or None:
    the strategies make valid documents, so any other exit 2 is a false refusal."""
    if outcome.status != REFUSED:
        return None
    for why, line in spec.refusable:
        if re.search(line, outcome.line):
            return why
    return None
