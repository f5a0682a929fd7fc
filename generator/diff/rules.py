"""Every rule ``apismith diff`` classifies a change by: an id, a level and a one-line
description, in one table (:data:`RULES`) that the docs and the tests enumerate.

The levels follow oasdiff's reasoning about wire compatibility (what a client that worked
against the old version meets from the new one): a request may accept more and answer
less, not the reverse. ``breaking``: a client written against the old version may fail;
``warning``: it may behave differently; ``info``: nothing a client notices. The rules of
the ``python-`` family are about the generated package's code (the ``python`` side):
what code written against the old package meets in the new one.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.diff.change import Change, Level, Side

B: Level = "breaking"
W: Level = "warning"
I: Level = "info"  # noqa: E741 (the table reads better with one-letter levels)

# (id, level, description): the spec side first, then the python side
_TABLE: tuple[tuple[str, Level, str], ...] = (
    ("api-added", I, "A configured API has no spec at the revision: all of it is new."),
    # operations
    ("operation-removed", B, "An operation (method and path) was removed."),
    ("operation-added", I, "An operation was added."),
    ("operation-deprecated", I, "An operation was marked deprecated."),
    ("operation-id-changed", I, "An operation's operationId changed."),
    # parameters
    ("request-parameter-removed", W, "A request parameter was removed (the server may refuse it)."),
    ("request-parameter-added-required", B, "A required request parameter was added."),
    ("request-parameter-added-optional", I, "An optional request parameter was added."),
    ("request-parameter-became-required", B, "A request parameter became required."),
    ("request-parameter-became-optional", I, "A request parameter became optional."),
    ("request-parameter-renamed", I, "A path parameter was renamed (its name is not sent)."),
    # request bodies
    ("request-body-added-required", B, "A required request body was added."),
    ("request-body-added-optional", I, "An optional request body was added."),
    ("request-body-removed", B, "The request body was removed."),
    ("request-body-became-required", B, "The request body became required."),
    ("request-body-became-optional", I, "The request body became optional."),
    ("request-media-type-removed", B, "A request body media type is no longer accepted."),
    ("request-media-type-added", I, "A request body media type was added."),
    # request properties (through models, at any depth)
    ("request-property-added-required", B, "A required request property was added."),
    ("request-property-added-optional", I, "An optional request property was added."),
    ("request-property-removed", W, "A request property was removed (the server may refuse it)."),
    ("request-property-became-required", B, "A request property became required."),
    ("request-property-became-optional", I, "A request property became optional."),
    # request values: types, null, enums
    ("request-type-changed", B, "A request value's type changed."),
    ("request-type-narrowed", B, "A request value accepts less (a narrower type or format)."),
    ("request-type-widened", I, "A request value accepts more (a wider type or format)."),
    ("request-became-not-nullable", B, "A request value no longer accepts null."),
    ("request-became-nullable", I, "A request value accepts null."),
    ("request-enum-value-removed", B, "A request enum lost a value."),
    ("request-enum-value-added", I, "A request enum gained a value."),
    # responses
    ("response-success-status-removed", B, "A success (2xx) response was removed."),
    ("response-status-removed", I, "A non-success response was removed."),
    ("response-status-added", I, "A response status was added."),
    ("response-media-type-removed", B, "A response media type was removed."),
    ("response-media-type-added", I, "A response media type was added."),
    ("response-body-removed", B, "A response no longer has a body."),
    ("response-body-added", I, "A response now has a body."),
    ("response-property-removed", B, "A response property was removed (a model loses it)."),
    ("response-property-added", I, "A response property was added."),
    ("response-property-became-optional", B, "A response property may now be absent."),
    ("response-property-became-required", I, "A response property is now always present."),
    # response values: types, null, enums
    ("response-type-changed", B, "A response value's type changed."),
    ("response-type-widened", B, "A response value may be more than before (a wider type)."),
    ("response-type-narrowed", I, "A response value is narrower than before."),
    ("response-became-nullable", B, "A response value may now be null."),
    ("response-became-not-nullable", I, "A response value is no longer null."),
    (
        "response-enum-value-added",
        W,
        "A response enum gained a value (exhaustive matchers miss it).",
    ),
    ("response-enum-value-removed", I, "A response enum lost a value."),
    # security
    ("security-requirement-added", B, "An operation refuses requests with credentials it took."),
    ("security-requirement-relaxed", I, "An operation accepts requests it refused before."),
    ("security-scheme-added", I, "A security scheme was added."),
    ("security-scheme-removed", I, "A security scheme was removed."),
    ("security-scheme-changed", B, "A security scheme's type, location or name changed."),
    # servers
    ("server-url-changed", W, "The first server's URL (the client's default base URL) changed."),
    ("server-removed", W, "A server was removed."),
    ("server-added", I, "A server was added."),
    # the generated Python package (side "python")
    ("python-resource-removed", B, "A client resource (or sub-resource) was removed."),
    ("python-resource-added", I, "A client resource was added."),
    ("python-method-removed", B, "A client method was removed."),
    ("python-method-added", I, "A client method was added."),
    ("python-parameter-removed", B, "A method parameter was removed."),
    ("python-parameter-renamed", B, "A method parameter was renamed."),
    ("python-parameter-added-required", B, "A required method parameter was added."),
    ("python-parameter-added", I, "An optional method parameter was added."),
    ("python-parameter-became-required", B, "A method parameter became required."),
    ("python-parameter-moved", B, "A positional method parameter changed position."),
    ("python-parameter-kind-changed", B, "A method parameter changed kind (positional, keyword)."),
    ("python-parameter-default-changed", W, "A method parameter's default changed."),
    ("python-parameter-type-changed", W, "A method parameter's annotation changed."),
    ("python-return-type-changed", W, "A method's return annotation changed."),
    ("python-model-removed", B, "A model class or type alias was removed."),
    ("python-model-added", I, "A model class or type alias was added."),
    ("python-object-kind-changed", B, "A name changed kind (a type alias became a class, ...)."),
    ("python-base-removed", B, "A model class lost a base class."),
    ("python-field-removed", B, "A model field was removed."),
    ("python-field-added", I, "A model field was added."),
    ("python-field-type-changed", W, "A model field's annotation changed."),
    ("python-alias-changed", W, "A type alias (an enum's Literal, a union) changed."),
)


@dataclass(frozen=True)
class Rule:
    """One rule: its ``id``, ``level``, ``side`` and a one-line ``description``."""

    id: str
    level: Level
    side: Side
    description: str


RULES: tuple[Rule, ...] = tuple(
    Rule(id, level, "python" if id.startswith("python-") else "spec", text)
    for id, level, text in _TABLE
)
BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}


def change(rule_id: str, location: str, message: str) -> Change:
    """A :class:`Change` by rule ``rule_id`` (which gives its level and side)."""
    rule = BY_ID[rule_id]
    return Change(rule.level, rule.id, message, location, rule.side)


def rules_table() -> str:
    """The rules as a Markdown table (``docs/diff.md`` holds it, a test checks it)."""
    lines = ["| rule | level | side | what it means |", "| --- | --- | --- | --- |"]
    lines += [f"| `{r.id}` | {r.level} | {r.side} | {r.description} |" for r in RULES]
    return "\n".join(lines) + "\n"
