"""The official ``scale-gp`` SDK (``SGPClient``) against the sgp mock.

    <venv>/bin/python tests/server/sdk_calls/scale_gp_calls.py http://127.0.0.1:8000

The list calls read the first page only (``.items``): the SDK's page object always asks
for a next page, so iterating it against a mock that always answers items never ends.
"""

from __future__ import annotations

from typing import Any

from _checks import check, expect, main
from scale_gp import SGPClient

MODEL = "gpt-4"
TIMEOUT = 30.0


def client(base_url: str) -> SGPClient:
    return SGPClient(
        base_url=base_url,
        api_key="test-key",
        account_id="test-account",
        max_retries=0,
        timeout=TIMEOUT,
    )


def dig(data: Any, *path: str) -> Any:
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def drain(stream: Any, *wire_text: str) -> None:
    """Iterate ``stream`` to its end; every chunk must carry text a user can read.

    scale-gp parses every chunk of both completion streams as ``CompletionResponse``
    (``scale_gp.types.shared``: ``completions: List[List[object]]`` required). SGP itself
    sends chunks shaped like the whole response (what the older scale-egp SDK parses):
    scale-gp keeps those fields as plain dicts (``chunk.completion["text"]``). Either
    shape passes: the SDK's ``completions``, or ``wire_text``, the path to the text.
    """
    chunks = 0
    for chunk in stream:
        chunks += 1
        data = chunk.to_dict()
        typed = data.get("completions")
        readable = isinstance(typed, list) and all(isinstance(c, list) for c in typed)
        readable = readable or isinstance(dig(data, *wire_text), str)
        expect(readable, f"chunk {chunks}: no text in `completions` or {wire_text}: {data!r}")
    expect(chunks > 0, "the stream had no chunks")


@check("scale-gp chat_completions.create")
def chat(base_url: str) -> None:
    answer = client(base_url).chat_completions.create(
        messages=[{"role": "user", "content": "hi"}], model=MODEL
    )
    content = answer.chat_completion.message.content
    expect(isinstance(content, str), f"chat_completion.message.content is {content!r}")


@check("scale-gp chat_completions.create stream")
def chat_stream(base_url: str) -> None:
    stream = client(base_url).chat_completions.create(
        messages=[{"role": "user", "content": "hi"}], model=MODEL, stream=True
    )
    drain(stream, "chat_completion", "message", "content")


@check("scale-gp completions.create")
def completion(base_url: str) -> None:
    answer = client(base_url).completions.create(model=MODEL, prompt="hi")
    text = answer.completion.text
    expect(isinstance(text, str), f"completion.text is {text!r}")


@check("scale-gp completions.create stream")
def completion_stream(base_url: str) -> None:
    stream = client(base_url).completions.create(model=MODEL, prompt="hi", stream=True)
    drain(stream, "completion", "text")


@check("scale-gp evaluations.update")
def evaluation_update(base_url: str) -> None:
    answer = client(base_url).evaluations.update("e1", name="x")
    expect(isinstance(answer.id, str), f"id is {answer.id!r}")
    expect(isinstance(answer.name, str), f"name is {answer.name!r}")


def first_page(base_url: str, resource: str, id_field: str = "id") -> None:
    page = getattr(client(base_url), resource).list()
    items = page.items
    expect(isinstance(items, list) and items, f"items is {items!r}")
    for item in items:
        found = getattr(item, id_field)
        expect(isinstance(found, str), f"an item's {id_field} is {found!r}")


@check("scale-gp knowledge_bases.list")
def knowledge_bases(base_url: str) -> None:
    first_page(base_url, "knowledge_bases", "knowledge_base_id")


@check("scale-gp models.list")
def models(base_url: str) -> None:
    first_page(base_url, "models")


@check("scale-gp evaluations.list")
def evaluations(base_url: str) -> None:
    first_page(base_url, "evaluations")


if __name__ == "__main__":
    main("scale-gp", ("scale-gp", "httpx", "pydantic"))
