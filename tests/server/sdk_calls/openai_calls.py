"""The official ``openai`` SDK (2.x) against llm-engine's OpenAI-compatible ``/v2`` routes.

    <venv>/bin/python tests/server/sdk_calls/openai_calls.py http://127.0.0.1:8000

Every call runs twice: with the default client (which builds response models without
validating them) and with ``_strict_response_validation=True`` (which validates them).
"""

from __future__ import annotations

from typing import Any

import openai
from _checks import check, expect, main

MODEL = "llama-3-8b-instruct"
MESSAGES: list[Any] = [{"role": "user", "content": "hi"}]
TIMEOUT = 30.0


def client(base_url: str, strict: bool) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=f"{base_url}/v2",
        api_key="test-token",
        max_retries=0,
        timeout=TIMEOUT,
        _strict_response_validation=strict,
    )


def chat(base_url: str, strict: bool) -> None:
    answer = client(base_url, strict).chat.completions.create(model=MODEL, messages=MESSAGES)
    content = answer.choices[0].message.content
    expect(isinstance(content, str), f"choices[0].message.content is {content!r}")


def chat_stream(base_url: str, strict: bool) -> None:
    stream = client(base_url, strict).chat.completions.create(
        model=MODEL, messages=MESSAGES, stream=True
    )
    chunks = 0
    with_choices = 0
    for chunk in stream:
        chunks += 1
        expect(isinstance(chunk.choices, list), f"chunk {chunks}: choices is {chunk.choices!r}")
        with_choices += bool(chunk.choices)
        for choice in chunk.choices:
            content = choice.delta.content
            expect(content is None or isinstance(content, str), f"delta.content: {content!r}")
    expect(chunks > 0, "the stream had no chunks")
    expect(with_choices > 0, "no chunk had a choice")


def completion(base_url: str, strict: bool) -> None:
    answer = client(base_url, strict).completions.create(model=MODEL, prompt="hi")
    text = answer.choices[0].text
    expect(isinstance(text, str), f"choices[0].text is {text!r}")


def completion_stream(base_url: str, strict: bool) -> None:
    stream = client(base_url, strict).completions.create(model=MODEL, prompt="hi", stream=True)
    chunks = 0
    texts = 0
    for chunk in stream:
        chunks += 1
        expect(isinstance(chunk.choices, list), f"chunk {chunks}: choices is {chunk.choices!r}")
        for choice in chunk.choices:
            expect(isinstance(choice.text, str), f"chunk {chunks}: text is {choice.text!r}")
            texts += 1
    expect(chunks > 0, "the stream had no chunks")
    expect(texts > 0, "no chunk had a choice with text")


for _strict, _suffix in ((False, ""), (True, " [strict]")):

    def _bind(fn: Any, strict: bool = _strict) -> Any:
        return lambda base_url: fn(base_url, strict)

    check(f"openai chat.completions.create{_suffix}")(_bind(chat))
    check(f"openai chat.completions.create stream{_suffix}")(_bind(chat_stream))
    check(f"openai completions.create{_suffix}")(_bind(completion))
    check(f"openai completions.create stream{_suffix}")(_bind(completion_stream))


if __name__ == "__main__":
    main("openai", ("openai", "httpx", "pydantic"))
