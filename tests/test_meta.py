"""``--meta`` output: ``pyproject.toml`` and ``README.md`` around the package.

Unit tests of the version normalizer, the TOML and Markdown escapers and ``render_meta``
(spec text is hostile), then outside-in tests that pip-install the project into a fresh
venv and call the client over HTTP.
"""

from __future__ import annotations

import base64
import hashlib
import html
import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.config import ApiConfig, load_config
from generator.render.meta import (
    BASE_DEPENDENCIES,
    CANONICAL_PUBLIC,
    CLIENT_DEPENDENCIES,
    REGENERATE,
    SERVER_DEPENDENCIES,
    code_fence,
    distribution_name,
    first_paragraph,
    markdown_text,
    normalize_version,
    one_line,
    render_meta,
    toml_string,
)
from generator.render.templates import render
from tests.conftest import (
    GENERATED,
    SPECS,
    cli_env,
    describe,
    run_cli,
    small_spec,
    write_json,
)

HOSTILE = [
    "",
    "plain",
    'a "quoted" word',
    '"""',
    "'''",
    '"',
    "\\",
    "\\n is not a newline",
    "C:\\path\\to\\file",
    "line\nbreak",
    "crlf\r\nend",
    "tab\there",
    "nul\u0000byte",
    "\u0001\u0008\u000b\u000c\u000e\u001f\u007f",
    "\u0080\u009f",
    "bidi \u202e override \u2066",
    "line\u2028separator\u2029",
    "zero\u200bwidth\ufeff",
    "]]",
    "[tool.x]",
    'x"\n[tool.evil]\nkey = 1\n"',
    '"""\n[tool.evil]\n"""',
    "emoji \U0001f600 and astral \U00010348",
    "\U000e0001 tag, \U0010ffff last",
    "nonchar \ufffe \uffff",
    "Café API — ünïcode",
    "{{ jinja }} {% raw %}",
]


def toml_value(text: str) -> Any:
    return tomllib.loads(f"x = {toml_string(text)}\n")["x"]


def no_surrogates(text: str) -> str:
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


# --- the version normalizer ----------------------------------------------------------------

VERSIONS = [
    ("1.0", "1.0"),
    ("1.0.0", "1.0.0"),
    ("0", "0"),
    (" 1.2.3 ", "1.2.3"),
    ("v2", "2"),
    ("V2.1", "2.1"),
    ("v1.0.0", "1.0.0"),
    ("01.002.0003", "1.2.3"),
    ("20240101", "20240101"),
    ("2024-01-01", "2024.1.1"),
    ("2024-12-31", "2024.12.31"),
    ("2023-10", "2023.10"),
    ("2024-02-15-preview", "2024.2.15rc0"),
    ("2024-02-15.post1", "2024.2.15.post1"),
    ("2024.01.01", "2024.1.1"),
    ("0.1.0-beta", "0.1.0b0"),
    ("0.1.0beta", "0.1.0b0"),
    ("1.0.0-alpha", "1.0.0a0"),
    ("1.0.0-alpha.1", "1.0.0a1"),
    ("1.0.0-beta.2", "1.0.0b2"),
    ("1.0.0-rc.2", "1.0.0rc2"),
    ("1.0-RC1", "1.0rc1"),
    ("1.0c1", "1.0rc1"),
    ("2.0.0-pre", "2.0.0rc0"),
    ("2.0.0.preview3", "2.0.0rc3"),
    ("1.0.post1", "1.0.post1"),
    ("1.0-1", "1.0.post1"),
    ("1.0r", "1.0.post0"),
    ("1.0rev2", "1.0.post2"),
    ("1.0.dev", "1.0.dev0"),
    ("1.0-dev3", "1.0.dev3"),
    ("1.0a1.post2.dev3", "1.0a1.post2.dev3"),
    ("1!2.0", "1!2.0"),
    ("0!1.0", "1.0"),
    ("1.0+build.5", "1.0"),
    ("1.0.0-beta.2+exp.sha.5114f85", "1.0.0b2"),
    (3, "3"),
    (1.5, "1.5"),
]
NOT_VERSIONS = [
    None,
    "",
    "   ",
    "latest",
    "v",
    "1.0.0-SNAPSHOT",
    "1..0",
    "1.0.",
    ".1",
    "1.0-beta-foo",
    "1.0 beta",
    "1.0\n[tool.x]",
    '1.0"',
    "1.0\x00",
    "2024-01-01T00:00:00Z",
    "2024-13-01",
    "1.0.po\u017ft1",  # LATIN SMALL LETTER LONG S folds to "s" when case-insensitive
    "\u0661.\u0660",  # Arabic-Indic digits
    "1" * 101,
    True,
    ["1.0"],
    {"major": 1},
]


@pytest.mark.parametrize(("text", "expected"), VERSIONS)
def test_normalize_version(text: object, expected: str) -> None:
    assert normalize_version(text) == expected
    assert CANONICAL_PUBLIC.match(expected)


@pytest.mark.parametrize("text", NOT_VERSIONS)
def test_normalize_version_rejects(text: object) -> None:
    assert normalize_version(text) is None


def test_normalize_version_agrees_with_packaging() -> None:
    from packaging import version

    for text, expected in VERSIONS:
        if isinstance(text, str) and not re.match(r"\s*[0-9]{4}-", text):
            assert version.Version(text).public == expected, text
        assert str(version.Version(expected)) == expected
    for text in NOT_VERSIONS:
        if isinstance(text, str) and text.isascii() and len(text) <= 100:
            with pytest.raises(version.InvalidVersion):
                version.Version(text)


@given(st.text(alphabet="0123456789.-_+!vVabcdeiloprstvwhAB \t", max_size=24))
def test_normalize_version_property(text: str) -> None:
    """Whatever we return is canonical; off dates, we accept exactly what PEP 440 accepts."""
    from packaging import version

    ours = normalize_version(text)
    if ours is not None:
        assert CANONICAL_PUBLIC.match(ours)
        assert str(version.Version(ours)) == ours
    if re.match(r"\s*[0-9]{4}-", text):
        return
    try:
        theirs: str | None = version.Version(text).public
    except version.InvalidVersion:
        theirs = None
    assert ours == theirs


@pytest.mark.parametrize(
    ("package", "expected"),
    [
        ("llm_engine", "llm-engine"),
        ("sgp", "sgp"),
        ("class_", "class"),
        ("_private__thing_", "private-thing"),
        ("Api_V2", "api-v2"),
        ("_", "api"),
    ],
)
def test_distribution_name(package: str, expected: str) -> None:
    name = distribution_name(package)
    assert name == expected
    assert re.fullmatch(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?", name)


# --- the TOML escaper ----------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE)
def test_toml_string_round_trips(text: str) -> None:
    literal = toml_string(text)
    assert literal.startswith('"') and literal.endswith('"')
    assert "\n" not in literal and "\r" not in literal
    assert toml_value(text) == text
    # the literal is one value: nothing after it can open a table or a key
    doc = tomllib.loads(f"[a]\nx = {literal}\n[b]\ny = 1\n")
    assert doc == {"a": {"x": text}, "b": {"y": 1}}


def test_toml_string_every_code_point() -> None:
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    literal = toml_string(text)
    literal.encode("utf-8")
    assert toml_value(text) == text


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "\udbff\udc00 (a lone pair)"])
def test_toml_string_replaces_lone_surrogates(text: str) -> None:
    literal = toml_string(text)
    literal.encode("utf-8")  # a lone surrogate cannot be written to a file
    assert toml_value(text) == no_surrogates(text)


@given(st.text())
def test_toml_string_property(text: str) -> None:
    assert toml_value(text) == no_surrogates(text)


# --- the Markdown escaper ------------------------------------------------------------------

MARKDOWN_HOSTILE = [
    *HOSTILE,
    "<script>alert(1)</script>",
    '<img src="https://evil.example/pixel.png">',
    "![pixel](https://evil.example/p.png)",
    "[click](javascript:alert(1))",
    "<https://evil.example>",
    "[ref]: https://evil.example",
    "&lt;script&gt; &amp; &#x3C;",
    "# heading",
    "## heading ##",
    "- item",
    "+ item",
    "* item",
    "1. item",
    "12) item",
    "> quote",
    "---",
    "***",
    "___",
    "===",
    "```python",
    "~~~",
    "`code` and ``more``",
    "*emphasis* _and_ **strong** ~~strike~~",
    "a | table | row",
    "trailing backslash \\",
    "    indented code",
    "<!-- comment -->",
]


def render_markdown_text(text: str) -> str:
    """The text a CommonMark renderer shows for ``text``, as one paragraph."""
    import markdown_it

    rendered = markdown_it.MarkdownIt("commonmark").render(text)
    if not rendered:
        return ""
    assert rendered.startswith("<p>") and rendered.endswith("</p>\n"), rendered
    inner = rendered[3:-5]
    assert "<" not in inner, rendered  # no element: only text (and entities)
    return html.unescape(inner)


@pytest.mark.parametrize("text", MARKDOWN_HOSTILE)
def test_markdown_text_is_plain_text(text: str) -> None:
    safe = markdown_text(text)
    assert "\n" not in safe
    assert render_markdown_text(safe) == one_line(text)


@given(st.text())
def test_markdown_text_property(text: str) -> None:
    assert render_markdown_text(markdown_text(text)) == one_line(text).replace("\x00", "\ufffd")


def test_first_paragraph() -> None:
    text = "First line\nstill first.\n  \nSecond paragraph.\n\nThird."
    assert first_paragraph(text) == "First line still first."
    assert first_paragraph("\n\n  \n\nOnly\r\n\r\nnot this") == "Only"
    assert first_paragraph(None) == "" and first_paragraph({"a": 1}) == ""
    assert first_paragraph("x" * 50, limit=10) == "x" * 9 + "\u2026"


def test_code_fence() -> None:
    assert code_fence("plain") == "```"
    assert code_fence("a ``` b") == "````"
    assert code_fence("x", "`````") == "``````"


# --- render_meta ---------------------------------------------------------------------------

SHA = hashlib.sha256(b"spec").hexdigest()
HOSTILE_TITLE = 'Evil "API"\n[tool.evil]\nx = 1\n"""\\ \x00 <script>alert(1)</script>'
HOSTILE_INFO = {
    "title": HOSTILE_TITLE,
    "version": '1.0"\n[tool.evil]',
    "description": "# Hi <img src=x onerror=alert(1)> ![p](http://e/p.png)\n\nSecond.",
}


def config(package: str = "pets", title: str | None = "Pets") -> ApiConfig:
    return ApiConfig(
        name="pets", package=package, title=title, spec=Path("pets.json"), out=Path("out")
    )


def meta(
    info: Mapping[str, Any],
    *,
    cfg: ApiConfig | None = None,
    client_class: str | None = "PetsClient",
    has_server: bool = True,
    templates: str | None = None,
    **kwargs: Any,
) -> dict[str, str]:
    return render_meta(
        cfg or config(),
        info,
        client_class=client_class,
        has_server=has_server,
        spec_sha256=SHA,
        templates=templates,
        **kwargs,
    )


def test_render_meta_fields() -> None:
    files = meta({"title": "Pets", "version": "1.2.3"})
    assert set(files) == {"pyproject.toml", "README.md"}
    doc = tomllib.loads(files["pyproject.toml"])
    assert doc == {
        "build-system": {"requires": ["hatchling>=1.25"], "build-backend": "hatchling.build"},
        "project": {
            "name": "pets",
            "version": "1.2.3",
            "description": "Pets",
            "readme": "README.md",
            "requires-python": ">=3.10",
            "classifiers": ["Typing :: Typed"],
            "dependencies": [*BASE_DEPENDENCIES, *CLIENT_DEPENDENCIES],
            "optional-dependencies": {"server": list(SERVER_DEPENDENCIES)},
        },
        "tool": {"hatch": {"build": {"targets": {"wheel": {"packages": ["pets"]}}}}},
    }
    header = render(
        "header.py.jinja", {"generator_version": "0.1.0", "spec_sha256_short": SHA[:16]}
    )
    assert files["pyproject.toml"].startswith(header.rstrip("\n") + "\n\n[build-system]\n")
    assert header.startswith("# Generated by apismith from an API spec. Do not edit")
    readme = files["README.md"]
    assert readme.startswith("# Pets\n")
    assert "from pets import PetsClient\n" in readme and "AsyncPetsClient" in readme
    assert 'pip install ".[server]"' in readme and "python -m pets.server" in readme
    assert SHA not in readme and "MANIFEST.json` records the spec's sha256" in readme
    assert f"```sh\n{REGENERATE}\n```\n" in readme
    assert "<spec file>" in REGENERATE  # no machine path in the output
    assert "Version 1.2.3, as the spec gives it." in readme


def test_render_meta_without_client_or_server() -> None:
    files = meta({"title": "Pets", "version": "1"}, client_class=None, has_server=False)
    project = tomllib.loads(files["pyproject.toml"])["project"]
    assert project["dependencies"] == list(BASE_DEPENDENCIES)
    assert "optional-dependencies" not in project
    readme = files["README.md"]
    assert "from pets import models" in readme
    assert "Client" not in readme and "server" not in readme


def test_render_meta_hostile_spec_text() -> None:
    regenerate = "apismith generate --spec 'a\nb`````.json' --out out"
    files = meta(HOSTILE_INFO, cfg=config(title=""), regenerate=regenerate)
    doc = tomllib.loads(files["pyproject.toml"])
    assert set(doc) == {"build-system", "project", "tool"}
    assert set(doc["tool"]) == {"hatch"}
    project = doc["project"]
    assert project["description"] == one_line(HOSTILE_TITLE)
    assert "\n" not in project["description"] and "\x00" not in project["description"]
    assert project["version"] == "0.0.0"
    assert project["name"] == "pets"
    readme = files["README.md"]
    title = readme.splitlines()[0]
    assert title.startswith("# ") and render_markdown_text(title[2:]) == one_line(HOSTILE_TITLE)
    assert "\\<script\\>" in readme and "\\<img " in readme and "\\!\\[p\\]" in readme
    assert not re.search(r"(?<!\\)[<&]|(?<!\\)!(?!\\\[)", readme.split("## Install")[0])
    assert "is not a PEP 440 version, so the package version is 0.0.0." in readme
    assert "``````sh\napismith generate --spec 'a b`````.json' --out out\n``````\n" in readme
    import markdown_it

    rendered = markdown_it.MarkdownIt("commonmark").render(readme)
    tags = set(re.findall(r"<(/?[a-z0-9]+)", rendered))
    assert tags <= {"h1", "/h1", "h2", "/h2", "p", "/p", "ul", "/ul", "li", "/li"} | {
        "pre",
        "/pre",
        "code",
        "/code",
    }, tags


@pytest.mark.parametrize(
    ("version", "note"),
    [
        ("2024-01-01", "Version 2024.1.1: the spec's version, 2024-01-01, in PEP 440 form."),
        ("v2", "Version 2: the spec's version, v2, in PEP 440 form."),
        ("latest", "The spec's version, latest, is not a PEP 440 version, so the package"),
        (None, "The spec gives no version, so the package version is 0.0.0."),
    ],
)
def test_render_meta_version_note(version: str | None, note: str) -> None:
    info = {"title": "Pets"} if version is None else {"title": "Pets", "version": version}
    files = meta(info)
    expected = normalize_version(version) or "0.0.0"
    assert tomllib.loads(files["pyproject.toml"])["project"]["version"] == expected
    assert note in " ".join(files["README.md"].split())


def test_render_meta_title() -> None:
    # config.title (the pipeline resolves it), else the spec's, else the package name
    assert meta({"title": "Spec title"})["README.md"].startswith("# Pets\n")
    assert meta({"title": "Spec"}, cfg=config(title=""))["README.md"].startswith("# Spec\n")
    assert meta({"title": "Spec"}, cfg=config(title=None))["README.md"].startswith("# Spec\n")
    assert meta({}, cfg=config(title=None))["README.md"].startswith("# pets\n")
    files = meta({"title": "X"}, cfg=config("class_"))
    doc = tomllib.loads(files["pyproject.toml"])
    assert doc["project"]["name"] == "class"
    assert doc["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["class_"]


def test_render_meta_user_templates(tmp_path: Path) -> None:
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta" / "README.md.jinja").write_text("# {{ title }} (custom)\n")
    # a header override that is no valid TOML comment stays a comment
    (tmp_path / "header.py.jinja").write_text('# ok\n[tool.evil]\n\x00x = "y"\n\n#  kept\n')
    files = meta({"title": "Pets"}, templates=str(tmp_path))
    assert files["README.md"] == "# Pets (custom)\n"
    doc = tomllib.loads(files["pyproject.toml"])
    assert doc["project"]["name"] == "pets" and set(doc["tool"]) == {"hatch"}
    assert files["pyproject.toml"].startswith('# ok\n# [tool.evil]\n# x = "y"\n# kept\n\n')


# --- outside in: pip install into a fresh venv ---------------------------------------------


class Venv:
    """A fresh virtual environment, with pip run in a clean environment."""

    def __init__(self, root: Path) -> None:
        self.root = root
        made = subprocess.run(
            [sys.executable, "-m", "venv", str(root)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert made.returncode == 0, describe(made)
        self.python = root / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
        site = self.run("import sysconfig; print(sysconfig.get_paths()['purelib'])")
        self.site = Path(site.stdout.strip())

    def env(self) -> dict[str, str]:
        return cli_env({"NO_PROXY": "127.0.0.1,localhost"}, repo_on_path=False)

    def pip(self, *args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [str(self.python), "-m", "pip", *args, "--disable-pip-version-check"],
            cwd=self.root.parent,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert proc.returncode == 0, describe(proc)
        return proc

    def run(self, code: str, *args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [str(self.python), "-c", code, *args],
            cwd=self.root.parent,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert proc.returncode == 0, describe(proc)
        return proc

    def installed(self) -> set[str]:
        listing = json.loads(self.pip("list", "--format=json").stdout)
        return {canonical(entry["name"]) for entry in listing}

    def closure(self, project: str, extras: frozenset[str] = frozenset()) -> set[str]:
        """``project`` and everything its requirements (with ``extras``) pull in."""
        from packaging import requirements

        dists = {
            canonical(d.metadata["Name"]): d
            for d in importlib.metadata.distributions(path=[str(self.site)])
        }
        seen: set[tuple[str, frozenset[str]]] = set()
        todo = [(canonical(project), extras)]
        while todo:
            name, wanted = todo.pop()
            if (name, wanted) in seen:
                continue
            seen.add((name, wanted))
            assert name in dists, f"{name} is required but not installed"
            for text in dists[name].requires or []:
                req = requirements.Requirement(text)
                envs = [{"extra": e} for e in sorted(wanted)] or [{"extra": ""}]
                if req.marker is None or any(req.marker.evaluate(e) for e in envs):
                    todo.append((canonical(req.name), frozenset(req.extras)))
        return {name for name, _ in seen}


# what `python -m venv` installs by itself
VENV_BASE = {"pip", "setuptools", "wheel"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


class JsonServer:
    """A tiny HTTP server in a thread: GET PATH answers ``routes[PATH]`` as JSON."""

    def __init__(self, routes: Mapping[str, Any]) -> None:
        self.requests: list[tuple[str, str | None]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests.append((self.path, self.headers.get("Authorization")))
                found = self.path in routes
                body = json.dumps(routes[self.path] if found else {"detail": "no"}).encode()
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> JsonServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


@pytest.fixture
def files_server() -> Iterator[JsonServer]:
    body = {"files": [{"id": "f1", "filename": "a.txt", "size": 3}]}
    with JsonServer({"/v1/files": body}) as server:
        yield server


CLIENT_CALL = """
import json, sys
import llm_engine
client = llm_engine.LlmEngineClient(base_url=sys.argv[1], api_key="k")
page = client.files.list()
print(json.dumps({
    "file": llm_engine.__file__,
    "type": type(page).__name__,
    "async": llm_engine.AsyncLlmEngineClient.__name__,
    "names": [f.filename for f in page.files],
    "server": "llm_engine.server" in sys.modules,
    "fastapi": "fastapi" in sys.modules,
}))
"""

SERVER_CALL = """
import llm_engine.mock, llm_engine.server
from fastapi.testclient import TestClient
app = llm_engine.server.create_app(llm_engine.mock.MockService())
response = TestClient(app).get("/v1/files", headers={"Authorization": "Basic azo="})
print(type(app).__name__, response.status_code, sorted(response.json()))
"""


@pytest.mark.slow
def test_committed_package_installs_and_calls(tmp_path: Path, files_server: JsonServer) -> None:
    cfg = load_config(SPECS / "llm-engine.toml")
    info = json.loads((GENERATED / "llm_engine" / "openapi.json").read_text("utf-8"))["info"]
    files = render_meta(
        cfg,
        info,
        client_class="LlmEngineClient",
        has_server=True,
        spec_sha256=hashlib.sha256(cfg.spec.read_bytes()).hexdigest(),
        templates=None,
    )
    out = tmp_path / "OUT"
    shutil.copytree(
        GENERATED / "llm_engine",
        out / "llm_engine",
        ignore=shutil.ignore_patterns("__pycache__", "MANIFEST.json"),
    )
    shutil.copy(GENERATED / "llm_engine" / "MANIFEST.json", out / "MANIFEST.json")
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")

    venv = Venv(tmp_path / "venv")
    venv.pip("install", "-q", str(out))
    result = json.loads(venv.run(CLIENT_CALL, files_server.url).stdout)
    assert Path(result["file"]).is_relative_to(venv.site), result
    assert result["type"] == "ListFilesResponse" and result["names"] == ["a.txt"]
    assert result["async"] == "AsyncLlmEngineClient"  # the README names it
    assert not result["server"] and not result["fastapi"]
    token = base64.b64encode(b"k:").decode()
    assert files_server.requests == [("/v1/files", f"Basic {token}")]
    assert (venv.site / "llm_engine" / "py.typed").is_file()
    assert (venv.site / "llm_engine" / "openapi.json").is_file()

    (dist,) = importlib.metadata.distributions(name="llm-engine", path=[str(venv.site)])
    assert dist.version == "1.0.0"
    assert dist.metadata["Summary"] == "LLM Engine"
    installed = venv.installed()
    assert "fastapi" not in installed and "apismith" not in installed
    assert installed - VENV_BASE == venv.closure("llm-engine")

    venv.pip("install", "-q", f"{out}[server]")
    assert venv.run(SERVER_CALL).stdout.split() == ["FastAPI", "200", "['files']"]
    installed = venv.installed()
    assert {"fastapi", "python-multipart", "uvicorn"} <= installed
    assert installed - VENV_BASE == venv.closure("llm-engine", frozenset({"server"}))


PETS_CALL = """
import json, sys
import pets
client = pets.PetsClient(base_url=sys.argv[1])
pet = client.pets.retrieve(name="rex")
print(json.dumps({"type": type(pet).__name__, "name": pet.name, "age": pet.age,
                  "version": pets.API_VERSION}))
"""


@pytest.mark.slow
def test_generate_meta_installs(tmp_path: Path) -> None:
    """``apismith generate --meta``: the project installs, and its client calls over HTTP."""
    spec = small_spec()
    spec["info"]["version"] = "2024-01-01"
    spec["info"]["description"] = "Pets <b>and</b> owners.\n\nMore."
    spec["paths"] = {
        "/pets/{name}": {
            "get": {
                "operationId": "get_pet",
                "parameters": [
                    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": {
                        "description": "The pet.",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
                        },
                    }
                },
            }
        }
    }
    spec_file = write_json(tmp_path / "input" / "pets.json", spec)
    out = tmp_path / "OUT"
    proc = run_cli(
        "generate", "--spec", spec_file, "--out", out, "--package", "pets", "--meta", cwd=tmp_path
    )
    assert proc.returncode == 0, describe(proc)
    assert {"pyproject.toml", "README.md", "MANIFEST.json"} <= {p.name for p in out.iterdir()}
    assert (out / "pets" / "__init__.py").is_file() and (out / "pets" / "models.py").is_file()
    assert not (out / "pets" / "MANIFEST.json").exists()
    project = tomllib.loads((out / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["name"] == "pets" and project["version"] == "2024.1.1"
    readme = (out / "README.md").read_text("utf-8")
    assert "PetsClient" in readme and "<b>" not in readme

    check = run_cli("check", "--spec", spec_file, "--out", out, "--package", "pets", cwd=tmp_path)
    assert check.returncode == 0, describe(check)

    venv = Venv(tmp_path / "venv")
    venv.pip("install", "-q", str(out))
    pet = {"name": "rex", "age": 3}
    with JsonServer({"/pets/rex": pet}) as server:
        result = json.loads(venv.run(PETS_CALL, server.url).stdout)
    assert result == {"type": "Pet", "name": "rex", "age": 3, "version": "2024-01-01"}
    installed = venv.installed()
    assert "fastapi" not in installed and "apismith" not in installed
    assert installed - VENV_BASE == venv.closure("pets")
