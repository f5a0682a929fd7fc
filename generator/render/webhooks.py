"""The package's ``webhooks.py`` (``templates/client/webhooks.py.jinja``): the events of an
API with OpenAPI 3.1 ``webhooks``, as ``WebhookEvent``, and how to read a delivery
(``unwrap``: a Standard Webhooks signature check, then the typed event).

Shared by the client (``client.webhooks`` is its ``Webhooks``) and the server (the receiver
stub, ``webhook_receiver.py``, reads deliveries with it): both renderers render it, alike.

``WebhookEvent`` is the union of the payload models, in the webhooks' order, each model
once. Payloads tagged by one property (a ``const`` or ``enum`` literal in each model, their
values apart) are a discriminated union (pydantic picks the member by the tag); the others
are members of a plain union beside it, which pydantic reads in its "smart" mode: the first
member that validates exactly, else the one that sets the most fields (with ``extra="allow"``
models, trying them in order would let an all-optional payload take every event).
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.ir import Api
from generator.ir.model import Webhook
from generator.render.meta import first_paragraph
from generator.render.templates import render

# how pydantic reads a plain union (its "smart" mode)
SMART = (
    "the one the body fits best (the first that validates exactly, else the one that sets"
    " the most fields)."
)
MODULE = "webhooks"  # the package's module: ``<package>.webhooks``
MODELS = "models"  # how the modules name the models module (``from . import models``)
WEBHOOK_SECRET = (
    "webhook_secret"  # the secret's env var: [client.env], else <PREFIX>_WEBHOOK_SECRET
)


@dataclass(frozen=True)
class WebhookEntry:
    """One webhook as the templates print it."""

    name: str  # the spec's key (spec text)
    python_name: str  # the receiver's method
    method: str  # upper case
    payload: str  # code: ``models.<Name>``
    summary: str  # one line ("" for none; spec text)


@dataclass(frozen=True)
class EventUnion:
    """``WebhookEvent``: its code, what it needs imported, and how it tells events apart."""

    code: str
    typing: tuple[str, ...]  # the names of ``typing`` it uses
    uses_field: bool  # it uses pydantic's ``Field``
    doc: str  # a sentence (no spec text but model and property names)


def entries(api: Api) -> list[WebhookEntry]:
    return [
        WebhookEntry(
            w.name,
            w.python_name,
            w.method.upper(),
            f"{MODELS}.{w.payload}",
            first_paragraph(w.summary or w.description),
        )
        for w in api.webhooks
    ]


def payloads(api: Api) -> list[str]:
    """The payload models, each once, in the webhooks' order."""
    return list(dict.fromkeys(w.payload for w in api.webhooks))


def first_webhooks(api: Api) -> list[Webhook]:
    """The first webhook of each payload model: where a delivery read as that model goes."""
    found: dict[str, Webhook] = {}
    for w in api.webhooks:
        found.setdefault(w.payload, w)
    return list(found.values())


def _tags(api: Api, model: str) -> dict[str, frozenset[object]]:
    """The properties of ``model`` that are literals (``const``/``enum``; str or int), by
    Python name (which pydantic's discriminator names), with their values."""
    found: dict[str, frozenset[object]] = {}
    for f in api.model(model).fields:
        t = f.type
        plain = all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in t.literals)
        if t.kind == "literal" and t.literals and plain and not t.nullable and not f.nullable:
            if f.name == f.python_name:
                found[f.name] = frozenset(t.literals)
    return found


def discriminator(api: Api, models: list[str]) -> tuple[str, list[str]] | None:
    """The property that tags the most of ``models`` (two at least; on a tie, the first
    by name), with the models it tags (in order): each has it as a literal, and no value
    tags two of them. None when no property does."""
    tags = {m: _tags(api, m) for m in models}
    best: tuple[str, list[str]] | None = None
    for prop in sorted({p for found in tags.values() for p in found}):
        tagged: list[str] = []
        seen: set[object] = set()
        for m in models:
            values = tags[m].get(prop)
            if values is not None and seen.isdisjoint(values):
                tagged.append(m)
                seen |= values
        if len(tagged) >= 2 and (best is None or len(tagged) > len(best[1])):
            best = (prop, tagged)
    return best


def event_union(api: Api) -> EventUnion:
    """``WebhookEvent`` for ``api``'s payload models."""
    models = payloads(api)
    code = [f"{MODELS}.{m}" for m in models]
    if len(models) == 1:
        return EventUnion(code[0], ("TypeAlias",), False, f"the one event: {models[0]}")
    found = discriminator(api, models)
    if found is not None:
        prop, tagged = found
        members = " | ".join(f"{MODELS}.{m}" for m in tagged)
        group = f"Annotated[{members}, Field(discriminator={prop!r})]"
        rest = [f"{MODELS}.{m}" for m in models if m not in tagged]
        doc = f"{', '.join(tagged)}, told apart by their ``{prop}``"
        if not rest:
            return EventUnion(group, ("Annotated", "TypeAlias"), True, doc + ".")
        code = [group, *rest]
        others = ", ".join(m for m in models if m not in tagged)
        doc += f"; or {others}: {SMART}"
        return EventUnion(" | ".join(code), ("Annotated", "TypeAlias"), True, doc)
    doc = f"{', '.join(models)}: {SMART}"
    return EventUnion(" | ".join(code), ("TypeAlias",), False, doc)


def module_imports(union: EventUnion, api_error: bool) -> list[str]:
    """The import lines of ``webhooks.py`` (sections apart by "")."""
    pydantic = ["Field", "TypeAdapter", "ValidationError"] if union.uses_field else []
    lines = [
        "import base64",
        "import binascii",
        "import hashlib",
        "import hmac",
        "import json",
        "import os",
        "import secrets",
        "import time",
        "from collections.abc import Mapping",
        f"from typing import {', '.join(sorted({'Any', *union.typing}))}",
        "",
        f"from pydantic import {', '.join(pydantic or ['TypeAdapter', 'ValidationError'])}",
        "",
        f"from . import {MODELS}",
    ]
    if api_error:
        lines.append("from ._runtime import APIError")
    return lines


def webhooks_context(
    api: Api, *, header: str, title: str, secret_env: str, api_error: bool
) -> dict[str, object]:
    """Everything ``webhooks.py.jinja`` prints (its top comment lists the keys)."""
    union = event_union(api)
    return {
        "header": header,
        "title": title,
        "imports": module_imports(union, api_error),
        "secret_env": secret_env,
        "error_base": "APIError" if api_error else "Exception",
        "event_type": union.code,
        "event_doc": union.doc,
        "webhooks": entries(api),
    }


def render_webhooks(
    api: Api,
    *,
    header: str,
    title: str,
    secret_env: str,
    api_error: bool,
    templates: str | None,
) -> dict[str, str]:
    """``{"webhooks.py": source}``, or nothing for an API without webhooks."""
    if not api.webhooks:
        return {}
    context = webhooks_context(
        api, header=header, title=title, secret_env=secret_env, api_error=api_error
    )
    return {f"{MODULE}.py": render("client/webhooks.py.jinja", context, templates)}
