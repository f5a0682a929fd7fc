"""The vendored output is formatter-neutral: every committed package under ``generated/``
and every golden ``expected/`` tree is a fixed point of both ``black`` and ``ruff format``
at their default settings (no configuration of this repo or of any consumer applies).

apismith formats with ruff; where black would break a line differently, the templates
write a shape both formatters keep (see ``generator/format.py``). A failure here shows
black's (or ruff's) diff: fix the template or renderer that wrote the line, then
regenerate (``make regenerate``, ``make golden``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GENERATED, REPO_ROOT, describe, run_cli, write_json

GOLDEN = REPO_ROOT / "tests" / "golden"


def trees() -> list[Path]:
    """The committed packages and golden expected trees that hold Python files."""
    found = sorted(p for p in GENERATED.iterdir() if p.is_dir() and any(p.rglob("*.py")))
    found += sorted(p for p in GOLDEN.glob("*/expected") if any(p.rglob("*.py")))
    return found


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def report(proc: subprocess.CompletedProcess[str], limit: int = 8000) -> str:
    """The files first (black and ruff name them on stderr), then the start of the diff."""
    text = (proc.stderr.strip() + "\n\n" + proc.stdout.strip()).strip()
    return text if len(text) <= limit else text[:limit] + "\n[... cut]"


def test_there_is_output_to_check() -> None:
    names = {p.name for p in trees()}
    assert {"llm_engine", "sgp", "sgp_chat_request"} <= names
    assert any(p.parent.parent == GOLDEN for p in trees())


def test_black_keeps_the_output(tmp_path: Path) -> None:
    pytest.importorskip("black")
    # Black reads [tool.black] from the pyproject.toml above the files it is given; an
    # empty --config file pins its defaults. The cwd is a temporary directory.
    config = tmp_path / "black.toml"
    config.write_text("", encoding="utf-8")
    proc = run(
        ["black", "--check", "--diff", "--config", str(config), *map(str, trees())], tmp_path
    )
    returncode = proc.returncode
    assert returncode == 0, f"black would reformat generated code:\n{report(proc)}"


def test_ruff_format_keeps_the_output(tmp_path: Path) -> None:
    proc = run(["ruff", "format", "--isolated", "--check", "--diff", *map(str, trees())], tmp_path)
    returncode = proc.returncode
    assert returncode == 0, f"ruff format would reformat generated code:\n{report(proc)}"


# --- the layout rules, on a spec made to hit them --------------------------------------------
# The committed trees only show the shapes their specs happen to produce; this spec has names
# and texts of every length around the line limit where black and ruff format disagree unless
# the templates choose the shape (see generator/format.py).

LAST_LINES = [f"Head line.\n\n{'w' * k}" for k in range(74, 84)]  # a long last line
ODD_TEXTS = [
    'ends with a quote"',
    '"starts with a quote"',
    "ends with a backslash \\",
    "tab\tinside, CRLF\r\nand CR\rand a line separator\u2028and a form feed\x0c.",
    "- a list\n  - nested, " + "n" * 70 + "\n\n      indented code",
]


def stress_spec() -> dict[str, Any]:
    texts = LAST_LINES + ODD_TEXTS
    schemas: dict[str, Any] = {}
    refs = []
    for i in range(5):
        name = f"Model{'Long' * (3 + i)}"
        schemas[name] = {"type": "object", "properties": {"a": {"type": "string"}}}
        schemas[name]["description"] = texts[i]
        refs.append({"$ref": f"#/components/schemas/{name}"})
    ok = {"description": "ok", "content": {"application/json": {"schema": refs[0]}}}
    paths: dict[str, Any] = {}
    for n in range(50, 72):  # `result = await service.<name>()` stops fitting at 68
        text = texts[n % len(texts)]
        # the service method is the client's name joined: noargs_sss..._retrieve, n long
        paths[f"/noargs/{'s' * (n - 16)}"] = {
            "get": {
                "operationId": ("get_" + "x" * 90)[:n],
                "summary": text,
                "responses": {"200": ok},
            },
            "delete": {
                "operationId": ("delete_" + "x" * 90)[:n],
                "summary": texts[(n + 1) % len(texts)],
                "description": texts[(n + 2) % len(texts)],
                "responses": {"204": {"description": "gone"}},
            },
        }
    for n in range(3, 30, 2):  # unions in parameters and body fields, around the limit
        members = refs[: 2 + n % 4]
        union = {"oneOf": members}
        body = {
            "type": "object",
            "required": ["f" + "p" * n] if n % 3 else [],
            "properties": {
                "f" + "p" * n: union,
                "g" + "p" * n: {
                    "anyOf": [refs[0], {"type": "array", "items": refs[1]}, {"type": "null"}]
                },
                "h" + "p" * n: {
                    "type": "string",
                    "enum": [f"option-{k}-{'v' * n}" for k in range(3)],
                },
            },
        }
        schemas[f"Body{n}"] = body
        paths[f"/params/{n}"] = {
            "post": {
                "operationId": f"create_{'z' * n}",
                "summary": texts[n % len(texts)],
                "parameters": [
                    {"name": "q" * n, "in": "query", "required": n % 2 == 1, "schema": union},
                    {
                        "name": "e" + "q" * n,
                        "in": "query",
                        "schema": {"type": "string", "enum": ["a", "b" * n]},
                    },
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": f"#/components/schemas/Body{n}"}}
                    },
                },
                "responses": {
                    "200": {"description": "ok", "content": {"application/json": {"schema": union}}}
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Stress\n" + "t" * 80, "version": "1", "description": texts[0]},
        "paths": paths,
        "components": {"schemas": schemas},
    }


@pytest.fixture(scope="module")
def stress(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("formatters")
    write_json(root / "stress.json", stress_spec())
    proc = run_cli("generate", "--spec", "stress.json", "--out", "out/stress", cwd=root)
    assert proc.returncode == 0, describe(proc)
    return root / "out" / "stress"


def test_black_keeps_the_layout_rules(stress: Path, tmp_path: Path) -> None:
    pytest.importorskip("black")
    config = tmp_path / "black.toml"
    config.write_text("", encoding="utf-8")
    proc = run(["black", "--check", "--diff", "--config", str(config), str(stress)], tmp_path)
    returncode = proc.returncode
    assert returncode == 0, f"black would reformat generated code:\n{report(proc)}"


def test_ruff_format_keeps_the_layout_rules(stress: Path, tmp_path: Path) -> None:
    proc = run(["ruff", "format", "--isolated", "--check", "--diff", str(stress)], tmp_path)
    returncode = proc.returncode
    assert returncode == 0, f"ruff format would reformat generated code:\n{report(proc)}"


def test_the_stress_spec_hits_the_rules(stress: Path) -> None:
    """The spec still produces each shape the rules exist for."""
    server_modules = [stress / "server.py", *sorted((stress / "_server").glob("*.py"))]
    server = "\n".join(p.read_text(encoding="utf-8") for p in server_modules)
    modules = [stress / "_client.py", *sorted((stress / "resources").glob("*.py"))]
    client = "\n".join(p.read_text(encoding="utf-8") for p in modules)
    assert "await _call(" in server  # a no-argument call too long for its line
    assert "result = await service.noargs_" in server  # ... and ones that fit
    assert ": (\n" in client  # a parenthesized long union parameter
    assert "body=(\n" in client  # the body conditional
    assert "\\t" in client and "\\u2028" in client  # escapes in docstrings


@pytest.mark.parametrize(
    ("annotation", "union"),
    [
        ("int | None", True),
        ("list[int | None]", False),
        ("Literal['a|b'] | None", True),
        ("Literal['a|b']", False),
        ("Literal['it\\'s | here']", False),  # an escaped quote does not end the string
        ('Literal["x\\\\"] | int', True),  # an escaped backslash does
        ("dict[str, int | str] | list[int]", True),
        ("Callable[[int | str], None]", False),
        ("", False),
    ],
)
def test_a_union_is_found_at_the_top_level_only(annotation: str, union: bool) -> None:
    from generator.render.layout import is_union

    assert is_union(annotation) is union
