"""Markdown lists in spec descriptions survive into the docs: as Markdown in prose (with
the blank line Python-Markdown needs before a list), as ``<br>``-separated bullets in a
table cell (one line by Markdown's rules)."""

from __future__ import annotations

import markdown as md

from generator.render.docs.text import cell, markdown
from tests.docs.support import plain, rendered, section, tables

# the SGP chat operation's text: a docstring's line continuations ran the items together
ROLES = (
    "Each `message` object is attributed to a specific entity through its `role`. The "
    "available roles are:\n   - `user`: Represents the human.            - `assistant`: "
    "Represents the model.            - `system`: Guides the assistant.\n\nWhen the `role`"
)
DEFAULTS = (
    "Configuration parameters.\n\nIf not specified, the default value are:\n"
    "- temperature: 0.2\n- max_tokens: None\n- stop_sequences: a | b"
)


def items(html: str) -> list[str]:
    return [part.split("</li>", 1)[0].strip() for part in html.split("<li>")[1:]]


def test_prose_keeps_lists_for_mkdocs_and_github() -> None:
    html = md.markdown(markdown(ROLES, 4), extensions=["tables"])
    assert items(html) == [
        "<code>user</code>: Represents the human.",
        "<code>assistant</code>: Represents the model.",
        "<code>system</code>: Guides the assistant.",
    ]
    assert "<p>When the <code>role</code></p>" in html
    nested = md.markdown(markdown("Text:\n- a\n  - b\n- c", 4))
    assert nested.count("<ul>") == 2 and items(nested)[-1] == "c"
    code = markdown("Intro\n\n    - not a list\n    code", 4)
    assert "<li>" not in md.markdown(code)  # an indented code block stays code


def test_cells_show_lists_as_bullet_lines() -> None:
    assert cell(DEFAULTS) == (
        "Configuration parameters.<br><br>If not specified, the default value are:"
        "<br>• temperature: 0.2<br>• max_tokens: None<br>• stop_sequences: a \\| b"
    )
    assert cell(ROLES).count("<br>• ") == 3
    assert cell("one\nparagraph | soft-wrapped") == "one paragraph \\| soft-wrapped"
    assert cell("1. first\n2. second\n   - sub") == "1. first<br>2. second<br>&emsp;◦ sub"
    assert cell("Run:\n```sh\nmake | tee\n```") == "Run:<br><code>make &#124; tee</code>"


def test_generated_pages_keep_the_lists() -> None:
    page = section(rendered("sgp").page("chat_completions.md"), "op-post_v2_chat_completions")
    html = md.markdown(page.split("### Request body", 1)[0], extensions=["tables"])
    assert [i.split(":", 1)[0] for i in items(html)] == [
        "<code>user</code>",
        "<code>assistant</code>",
        "<code>system</code>",
    ]
    rows = {plain(r["field"]): r for t in tables(page) for r in t if "field" in r}
    description = rows["model_parameters"]["description"]  # a field block: Markdown prose
    assert "default value are:\n\n- temperature: 0.2\n- max_tokens:" in description
    assert items(md.markdown(description))[0] == "temperature: 0.2"
    models = rendered("llm-engine").page("models-reference.md")
    tier = md.markdown(section(models, "model-ServiceTier"))
    assert len(items(tier)) == 5
