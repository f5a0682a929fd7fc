"""SGP's chat-completions page carries what the seed docs page shows for the same operation
(``../shared/seeds/sgp-chat-completions-docs-page.txt``), checked structurally.

The seed documents a newer revision of the endpoint (``/v4/beta/chat/completions``) than
the vendored spec (``POST /v4/chat-completions``, 2024-09): its parameter list differs. So:

- the seed is parsed into parameters (type, required, range) and response fields (default,
  allowed value, options); every seed item that the vendored operation also has (by wire
  name, top level or one level down) must be a row of our tables carrying the same kinds
  of facts, with our spec's values;
- every kind of fact the seed shows (required, range, default, enum options, const allowed
  value, response example, the 422 error shape, curl and Python samples, the API-key
  header) must be present for the vendored operation, for *every* field that has it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from generator.render.docs.text import as_json, constraints
from tests.docs.support import fences, plain, rendered, response_examples, section, tables

# a copy of ../shared/seeds/sgp-chat-completions-docs-page.txt, so tests do not need ../shared
SEED = Path(__file__).with_name("sgp-chat-completions-docs-page.txt")
TYPE = re.compile(r"(string|integer|number|boolean|object|enum<|\[\]|null)")


def parse_seed(text: str) -> dict[str, dict[str, dict[str, str | bool]]]:
    """{"body": {name: facts}, "response": {name: facts}} from the seed page's lists."""
    body = text.split("\nBody\n\napplication/json\n", 1)[1].split("\nResponse\n", 1)[0]
    response = text.split("\nResponse\n", 1)[1].split("\nKnowledge Bases\n", 1)[0]
    return {"body": _items(body), "response": _items(response)}


def _items(segment: str) -> dict[str, dict[str, str | bool]]:
    chunks = [c.strip() for c in segment.split("\n\n") if c.strip()]
    items: dict[str, dict[str, str | bool]] = {}
    current: dict[str, str | bool] | None = None
    for i, chunk in enumerate(chunks):
        nxt = chunks[i + 1] if i + 1 < len(chunks) else ""
        if re.fullmatch(r"[a-z_][a-z0-9_]*", chunk) and TYPE.search(nxt):
            current = items.setdefault(chunk, {"required": False})
        elif current is None:
            continue
        elif chunk == "required":
            current["required"] = True
        elif chunk.startswith("Required range:"):
            current["range"] = chunk.split(":", 1)[1].strip()
        elif chunk.startswith("default:"):
            current["default"] = chunk.split(":", 1)[1].strip()
        elif chunk.startswith("Allowed value:"):
            current["allowed"] = chunk.split(":", 1)[1].strip()
        elif chunk.startswith("Available options:"):
            current["options"] = True
        elif "type" not in current and TYPE.search(chunk):
            current["type"] = chunk
    return items


@pytest.fixture(scope="module")
def page() -> str:
    r = rendered("sgp")
    return section(r.page("chat_completions.md"), "op-post_v2_chat_completions")


def rows_after(page: str, heading: str) -> dict[str, dict[str, str]]:
    part = page.split(heading, 1)[1]
    part = re.split(r"\n#{3,5} ", part, maxsplit=1)[0]
    return {plain(row["field"]): row for t in tables(part) for row in t}


def test_the_seed_parses() -> None:
    seed = parse_seed(SEED.read_text(encoding="utf-8"))
    assert {"model", "messages", "temperature", "top_p", "stream"} <= set(seed["body"])
    assert seed["body"]["temperature"]["range"] == "0 <= x <= 2"
    assert seed["body"]["model"]["required"] is True
    assert seed["response"]["object"]["allowed"] == '"chat.completion"'
    assert seed["response"]["service_tier"]["options"] is True


def test_seed_items_we_share_carry_the_same_facts(page: str) -> None:
    api = rendered("sgp").api
    seed = parse_seed(SEED.read_text(encoding="utf-8"))
    body = rows_after(page, "### Request body")
    request = api.model("CreateChatCompletionRequest")
    ours = {f.name: (f"{f.name}", f) for f in request.fields}
    for parent in request.fields:  # one level down: model_parameters.temperature
        if parent.type.kind == "model" and parent.type.name:
            for f in api.model(parent.type.name).fields:
                ours.setdefault(f.name, (f"{parent.name}.{f.name}", f))
    shared = set(seed["body"]) & set(ours)
    assert {"model", "messages", "stream", "temperature", "max_tokens"} <= shared
    for name in sorted(shared):
        key, f = ours[name]
        row = body[key]
        assert plain(row["type"]), name
        assert (row["required"] == "required") == f.required, name
        if "range" in seed["body"][name] and f.constraints:
            assert plain(row["constraints"]) == "; ".join(constraints(f.constraints)).replace(
                "; ", "<br>"
            )
            assert " x " in row["constraints"], name
        if f.has_default:
            assert plain(row["default"]) == as_json(f.default), name


def test_every_fact_of_every_field_is_on_the_page(page: str) -> None:
    api = rendered("sgp").api
    body = rows_after(page, "### Request body")
    request = api.model("CreateChatCompletionRequest")
    facts = {"required": 0, "range": 0, "default": 0, "options": 0}
    for f in request.fields:
        row = body[f.name]
        assert (row["required"] == "required") == f.required
        if f.has_default:
            assert plain(row["default"]) == as_json(f.default)
            facts["default"] += 1
        if f.type.kind == "literal" and len(f.type.literals) > 1:
            assert "Available options:" in row["description"]
            for v in f.type.literals:
                assert f"`{as_json(v)}`" in row["description"]
            facts["options"] += 1
        facts["required"] += f.required
    params = api.model("ModelParameters")
    for f in params.fields:
        row = body[f"model_parameters.{f.name}"]
        if f.constraints:
            assert plain(row["constraints"]) == "".join(constraints(f.constraints)), f.name
            facts["range"] += 1
    assert all(facts.values()), facts
    # responses: every field of the 200 model, an example that is its JSON, the 422 shape
    ok = rows_after(page, "##### 200")
    response = api.model("CreateChatCompletionResponse")
    assert {f.name for f in response.fields} <= set(ok)
    example = json.loads(response_examples(page)["200"])
    assert set(example) == {f.name for f in response.fields}
    error = rows_after(page, "##### 422")
    detail = api.model("ValidationError")
    assert {"detail"} | {f"detail[].{f.name}" for f in detail.fields} <= set(error)
    assert {"loc", "msg", "type"} <= {f.name for f in detail.fields}
    # samples, auth
    assert any("x-api-key: $SGP_API_KEY" in c for _, c in fences(page, "sh"))
    assert any("client.chat_completions.create(" in c for _, c in fences(page, "python"))
    assert any("stream=True" in c for _, c in fences(page, "python"))
    # const "Allowed value" (the roles of the message types) on the linked models
    models = rendered("sgp").page("models-reference.md")
    assert 'Allowed value: `"user"`' in section(models, "model-EgpModelsUserMessage")


def test_seed_parser_is_structural() -> None:
    fake = "\n\n".join(
        ["", "Body", "application/json", "foo", "integer | null", "required", "A foo."]
        + ["Required range: 0 <= x <= 1", "Response", "bar", "string", "default:x"]
        + ['Allowed value: "x"', "Knowledge Bases", ""]
    )
    seed = parse_seed(fake)
    assert seed["body"]["foo"] == {
        "required": True,
        "type": "integer | null",
        "range": "0 <= x <= 1",
    }
    assert seed["response"]["bar"]["allowed"] == '"x"'


# --- what the seed page has and the first docs lacked (issue 10) -----------------------------


def test_every_success_response_with_fields_has_a_field_table() -> None:
    """Not only an example: a 2xx response whose example is an object (or objects) gets a
    table of name, type, required and description, for arrays, maps and unions too."""
    checked = 0
    for name in ("sgp", "llm-engine"):
        for page_name, text in rendered(name).pages.items():
            for op in re.split(r'\n<a id="op-', text)[1:]:
                examples = response_examples(op)
                for part in re.split(r"\n##### ", op)[1:]:
                    status = part.split(":", 1)[0].split("\n", 1)[0]
                    part = re.split(r"\n#{1,4} ", part, maxsplit=1)[0]
                    if not status.startswith("2") or status not in examples:
                        continue
                    value = json.loads(examples[status])
                    items = value if isinstance(value, list) else [value]
                    if not items or not all(isinstance(v, dict) and v for v in items):
                        continue
                    found = tables(part)
                    assert found, f"{name} {page_name}: {status} has only an example"
                    for rows in found:
                        assert {"field", "type", "required", "description"} <= set(rows[0])
                    checked += 1
    assert checked > 200, checked


def test_auth_names_the_header_or_scheme() -> None:
    sgp = rendered("sgp")
    page = section(sgp.page("chat_completions.md"), "op-post_v2_chat_completions")
    assert "Auth: `x-api-key` header (`APIKeyHeader`)" in page
    llm = rendered("llm-engine")
    auth = {
        line
        for text in llm.pages.values()
        for line in text.splitlines()
        if line.startswith("Auth: ")
    }
    assert auth - {"Auth: none"} == {
        "Auth: HTTP Basic, with the API key as the username (`HTTPBasic`) or OAuth2 bearer "
        "token in the `Authorization` header (`OAuth2PasswordBearer`)"
    }
    schemes = dict(re.findall(r"^- `(\w+)` \([\w-]+\): sent as (.*)$", llm.page("index.md"), re.M))
    assert schemes["HTTPBasic"].startswith("HTTP Basic, with the API key as the username")
    assert "`Authorization`" in schemes["OAuth2PasswordBearer"]


def _groups(rows: list[dict[str, str]]) -> dict[str, list[bool]]:
    """Parent field ("" at the top) -> its rows' required flags, in table order."""
    out: dict[str, list[bool]] = {}
    for row in rows:
        name = plain(row.get("field", row.get("name", "")))
        parent = re.sub(r"(\[\]|\{\})*\.?[^.]*$", "", name) if "↳" in row.get("field", "") else ""
        out.setdefault(parent, []).append(row["required"] == "required")
    return out


def test_required_fields_are_listed_first_in_every_table() -> None:
    checked = 0
    for name in ("sgp", "llm-engine"):
        for text in rendered(name).pages.values():
            for rows in tables(text):
                if not rows or "required" not in rows[0]:
                    continue
                for flags in _groups(rows).values():
                    assert flags == sorted(flags, reverse=True), rows
                    checked += 1
    op = section(rendered("sgp").page("chat_completions.md"), "op-post_v2_chat_completions")
    assert list(rows_after(op, "### Request body"))[:2] == ["model", "messages"]  # spec order
    ok = list(rows_after(op, "##### 200"))
    assert ok.index("token_usage.total") < ok.index("token_usage.prompt")  # required first
    assert checked > 1000, checked
