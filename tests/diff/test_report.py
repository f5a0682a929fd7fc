"""The three output formats: text, Markdown (a table a pull-request comment renders) and
JSON (a stable, sorted list), and the rule table of docs/diff.md."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import markdown  # type: ignore[import-untyped,unused-ignore]

from generator.diff import Change, format_changes
from generator.diff.rules import RULES, change, rules_table

REPO = Path(__file__).resolve().parents[2]
CHANGES = [
    change("response-enum-value-added", "GET /a response.200.body.kind", 'enum value "x" added'),
    change("operation-removed", "DELETE /a/{id}", "operation removed"),
    change("operation-added", "GET /b", "operation added"),
    Change(
        "breaking", "python-method-removed", "method removed", "resources.a.AResource.x", "python"
    ),
    change("request-type-changed", "POST /a|b request.body.`x`", "type changed: a | b -> `c`"),
]


def test_text_groups_by_level_one_line_each() -> None:
    text = format_changes(CHANGES)
    assert text.splitlines()[0] == "breaking:"
    assert "  DELETE /a/{id}: operation removed [operation-removed]" in text.splitlines()
    assert "  python: resources.a.AResource.x: method removed [python-method-removed]" in text
    assert text.index("breaking:") < text.index("warning:") < text.index("info:")
    assert text.endswith("5 changes: 3 breaking, 1 warning, 1 info\n")
    assert format_changes([]) == "no changes\n"


def test_order_is_deterministic() -> None:
    assert format_changes(CHANGES) == format_changes(list(reversed(CHANGES)))
    assert format_changes(CHANGES, "json") == format_changes(CHANGES[::2] + CHANGES[1::2], "json")


def test_markdown_renders_a_table_with_three_columns() -> None:
    text = format_changes(CHANGES, "markdown")
    assert text.startswith("### API changes: 5 changes")
    html = markdown.markdown(text, extensions=["tables"])
    assert "<table>" in html
    assert re.search(r"<th>level</th>\s*<th>change</th>\s*<th>where</th>", html)
    rows = re.findall(r"<tr>(.*?)</tr>", html, re.DOTALL)
    assert len(rows) == 1 + len(CHANGES)
    assert all(row.count("<td>") == 3 for row in rows[1:]), "a | in a cell split it"
    assert "<code>" in html  # the rule ids


def test_markdown_escapes_pipes_and_backticks() -> None:
    text = format_changes(CHANGES, "markdown")
    row = next(line for line in text.splitlines() if "request-type-changed" in line)
    cells = row.strip("|").split(" | ")
    assert len(cells) == 3
    assert "|" not in row.replace(" | ", "").strip("|").replace("`request-type-changed`", "")
    rendered = html.unescape(markdown.markdown(text, extensions=["tables"]))
    assert "<td>type changed: a | b -> `c` (<code>request-type-changed</code>)</td>" in rendered
    assert "<td>POST /a|b request.body.`x`</td>" in rendered


def test_json_is_a_sorted_list_of_objects() -> None:
    listed = json.loads(format_changes(CHANGES, "json"))
    assert [c["level"] for c in listed] == ["breaking"] * 3 + ["warning", "info"]
    assert all(set(c) == {"level", "rule", "message", "location", "side"} for c in listed)
    assert [c["side"] for c in listed[:3]] == ["spec", "spec", "python"]


def test_docs_hold_the_rule_table() -> None:
    docs = (REPO / "docs" / "diff.md").read_text(encoding="utf-8")
    assert rules_table() in docs, "docs/diff.md: paste generator.diff.rules.rules_table()"
    assert len({r.id for r in RULES}) == len(RULES)


def test_importing_the_package_is_cheap() -> None:
    code = (
        "import sys, generator.diff\n"
        "heavy = ('griffe', 'jinja2', 'generator.normalize', 'generator.ir',"
        " 'generator.pipeline')\n"
        "print([m for m in sys.modules if m.startswith(heavy)])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_a_change_in_a_shared_schema_is_listed_once_with_its_operations() -> None:
    """The same change at the same place in 3 or more operations (a shared schema) is one
    line naming the operations; fewer stay one line each; JSON keeps every change."""
    ops = ["DELETE /a", "GET /b", "GET /c", "POST /d"]
    shared = [
        Change("info", "response-property-added", "property added", f"{op} response.422.body.x")
        for op in ops
    ]
    pair = [
        Change("info", "response-property-added", "property added", f"{op} response.200.body.y")
        for op in ops[:2]
    ]
    out = format_changes(shared + pair)
    assert out.count("response.422.body.x") == 1, out
    assert "(in 4 operations: DELETE /a, GET /b, GET /c and 1 more)" in out, out
    assert out.count("response.200.body.y") == 2, out
    assert out.rstrip().endswith("6 changes: 0 breaking, 0 warning, 6 info"), out
    assert len(json.loads(format_changes(shared + pair, "json"))) == 6
    table = format_changes(shared, "markdown")
    assert table.count("\n| info |") == 1, table
