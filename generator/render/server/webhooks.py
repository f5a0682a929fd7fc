"""The webhook receiver stub, ``webhook_receiver.py`` (``webhook_receiver.py.jinja``): a
FastAPI router that receives an API's webhooks (OpenAPI 3.1 ``webhooks``) and hands each
typed event to a ``WebhooksService``, one method per webhook; and ``WEBHOOK_SAMPLES``, one
schema-valid payload of each webhook (what ``apismith serve --send-webhooks`` posts).

The deliveries are read by the package's ``webhooks.py`` (:mod:`generator.render.webhooks`,
rendered here too when the package has no client). The routes, under a prefix
(``/webhooks`` by default): ``POST <prefix>`` takes any event (what a sender posts to one
URL) and calls the method of the first webhook of its model; ``POST <prefix>/<method>``
takes one webhook's payload.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.ir import Api, TypeRef
from generator.normalize.diagnostics import Diagnostic
from generator.render.examples import MockError, Synthesizer
from generator.render.server.modules import table_json
from generator.render.settings import ApiSettings
from generator.render.templates import render
from generator.render.webhooks import (
    MODELS,
    MODULE,
    WEBHOOK_SECRET,
    entries,
    first_webhooks,
    render_webhooks,
)

RECEIVER = "webhook_receiver"  # the module: ``<package>.webhook_receiver``
PREFIX = "/webhooks"  # the routes' default prefix


@dataclass(frozen=True)
class ReceiverRoute:
    """The route of one webhook: ``POST <prefix><path>``."""

    name: str  # the spec's key (spec text)
    python_name: str  # the service method
    path: str  # ``/<python_name>``
    payload: str  # code: ``models.<Name>``
    summary: str  # one line ("" for none; spec text)


@dataclass(frozen=True)
class Dispatch:
    """A payload model and the service method a delivery of it goes to."""

    payload: str  # code: ``models.<Name>``
    python_name: str


def samples(api: Api, synth: Synthesizer) -> tuple[list[tuple[str, Any]], list[Diagnostic]]:
    """One payload of each webhook (the spec's example where it conforms, else a
    realistic instance), and a warning for each payload none can be built of."""
    found: list[tuple[str, Any]] = []
    warnings: list[Diagnostic] = []
    for w in api.webhooks:
        t = TypeRef("model", name=w.payload)
        try:
            examples = synth.answers(w.examples, t)
            found.append((w.name, examples[0] if examples else synth.value(t)))
        except MockError as exc:
            pointer = f"#/webhooks/{w.name}/{w.method}"
            message = f"no sample of webhook {w.name!r} (apismith serve cannot send it): {exc}"
            warnings.append(Diagnostic("render", "warning", pointer, message))
    return found, warnings


def receiver_context(
    api: Api, *, header: str, title: str, synth: Synthesizer
) -> tuple[dict[str, object], list[Diagnostic]]:
    """Everything ``webhook_receiver.py.jinja`` prints (its top comment lists the keys),
    and the warnings of the samples."""
    found, warnings = samples(api, synth)
    webhooks = [
        ReceiverRoute(w.name, w.python_name, f"/{w.python_name}", w.payload, w.summary)
        for w in entries(api)
    ]
    context: dict[str, object] = {
        "header": header,
        "title": title,
        "module": MODULE,
        "prefix": PREFIX,
        "webhooks": webhooks,
        "dispatch": [Dispatch(f"{MODELS}.{w.payload}", w.python_name) for w in first_webhooks(api)],
        "samples_json": table_json(found),
    }
    return context, warnings


def render_receiver(
    api: Api,
    settings: ApiSettings,
    *,
    header: str,
    title: str,
    api_error: bool,
    templates: str | None,
    synth: Synthesizer | None = None,
) -> tuple[dict[str, str], tuple[Diagnostic, ...]]:
    """``webhook_receiver.py`` and ``webhooks.py`` (none without webhooks), and warnings."""
    if not api.webhooks:
        return {}, ()
    synth = synth if synth is not None else Synthesizer(api, full=True)
    context, warnings = receiver_context(api, header=header, title=title, synth=synth)
    files = render_webhooks(
        api,
        header=header,
        title=title,
        secret_env=settings.env(WEBHOOK_SECRET),
        api_error=api_error,
        templates=templates,
    )
    files[f"{RECEIVER}.py"] = render("server/webhook_receiver.py.jinja", context, templates)
    return files, tuple(warnings)
