"""The official ``scale-llm-engine`` SDK (``llmengine``) against the llm-engine mock.

    <venv>/bin/python tests/server/sdk_calls/llmengine_calls.py http://127.0.0.1:8000

llmengine reads its base URL and key from the environment at every call
(``LLM_ENGINE_BASE_PATH``, ``SCALE_API_KEY``; it sends the key as ``x-api-key`` and as
the user name of HTTP basic auth) and joins resource names to the base with ``urljoin``,
so the base must end with ``/``. Importing llmengine asks PyPI for its latest version
unless ``LLM_ENGINE_DISABLE_VERSION_CHECK`` is set.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from _checks import check, expect, main

os.environ.setdefault("LLM_ENGINE_DISABLE_VERSION_CHECK", "true")

from llmengine import Completion, File, FineTune, Model

MODEL = "llama-2-7b"
PROMPT = "hi"
TIMEOUT = 30


@check("llmengine Completion.create")
def create(base_url: str) -> None:
    answer: Any = Completion.create(model=MODEL, prompt=PROMPT, timeout=TIMEOUT)
    expect(isinstance(answer.output.text, str), f"output.text is {answer.output.text!r}")


@check("llmengine Completion.acreate")
def acreate(base_url: str) -> None:
    async def run() -> Any:
        return await asyncio.wait_for(
            Completion.acreate(model=MODEL, prompt=PROMPT, timeout=TIMEOUT), TIMEOUT
        )

    answer = asyncio.run(run())
    expect(isinstance(answer.output.text, str), f"output.text is {answer.output.text!r}")


@check("llmengine Completion.create stream")
def create_stream(base_url: str) -> None:
    chunks = 0
    for chunk in Completion.create(model=MODEL, prompt=PROMPT, timeout=TIMEOUT, stream=True):
        chunks += 1
        expect(chunk.error is None, f"chunk {chunks}: error {chunk.error!r}")
        output = chunk.output
        expect(output is not None, f"chunk {chunks}: no output")
        expect(isinstance(output.text, str), f"chunk {chunks}: output.text is {output.text!r}")
    expect(chunks > 0, "the stream had no chunks")


@check("llmengine Model.list")
def models(base_url: str) -> None:
    found = Model.list().model_endpoints
    expect(found, f"model_endpoints is {found!r}")
    expect(all(isinstance(m.name, str) for m in found), "a model without a name")


@check("llmengine File.list")
def files(base_url: str) -> None:
    found = File.list().files
    expect(found, f"files is {found!r}")
    expect(all(isinstance(f.id, str) for f in found), "a file without an id")


@check("llmengine FineTune.list")
def fine_tunes(base_url: str) -> None:
    found = FineTune.list().jobs
    expect(found, f"jobs is {found!r}")
    expect(all(isinstance(j.id, str) for j in found), "a job without an id")


def configure(base_url: str) -> None:
    os.environ["LLM_ENGINE_BASE_PATH"] = base_url + "/"
    os.environ["SCALE_API_KEY"] = "test-token"


if __name__ == "__main__":
    main(
        "llmengine",
        ("scale-llm-engine", "openai", "pydantic", "requests", "aiohttp"),
        setup=configure,
    )
