"""The built site in a real browser: a spec whose every text holds the usual XSS vectors
(descriptions, summaries, titles, tag names, enum values, defaults, examples, field and
parameter names, server and security texts) is generated with ``apismith generate`` and
built with ``apismith docs``; each built page is opened in headless Chromium with
``alert``/``confirm``/``prompt`` hooked before any script of the page runs. No vector may
run, and the DOM may hold no event-handler attribute, no ``javascript:`` link and no
``<script>``/``<iframe>``/``<object>``/``<embed>`` but mkdocs-material's own; the vectors
show as text."""

from __future__ import annotations

import functools
import html
import http.server
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import describe, run_cli
from tests.docs.vectors import CELL, HTML_VECTORS, ONE, TEXT

pytest.importorskip("mkdocs")
pytest.importorskip("material")
webdriver = pytest.importorskip("selenium.webdriver")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="needs chromium and chromedriver on PATH (CI installs Debian's)",
)

# what the reader sees of them (an entity reads as its character; an autolink is a link)
SHOWN = [html.unescape(v) for v in HTML_VECTORS if not v.startswith("<http")]

HOOK = """
window.__xss = 0;
const hit = () => { window.__xss += 1; };
window.alert = hit;
window.confirm = () => { hit(); return false; };
window.prompt = () => { hit(); return null; };
"""


def hostile_spec() -> dict[str, Any]:
    """An OpenAPI document with a vector in every text the docs show."""
    thing = {
        "type": "object",
        "title": f"Thing {ONE}",
        "description": TEXT,
        "required": ["kind", ONE],
        "properties": {
            "kind": {"const": "<script>alert(1)</script>", "description": CELL},
            ONE: {"type": "string", "description": f"A field named {ONE}"},
            "mode": {
                "type": "string",
                "enum": [*HTML_VECTORS[:12], "a|b", "`c`", "\\`<img src=x onerror=alert(1)>`"],
                "default": "<svg/onload=alert(1)>",
                "description": CELL,
            },
            "note": {
                "type": "string",
                "default": "</code><script>alert(1)</script>",
                "examples": ["<img src=x onerror=alert(1)>"],
                "format": "<script>alert(1)</script>",
                "maxLength": 500,
            },
            "code": {"type": "string", "pattern": "^<img src=x onerror=alert\\(1\\)>|`$"},
            "nested": {"$ref": "#/components/schemas/Evil<script>alert(1)<~1script>"},
        },
        "example": {"kind": "<script>alert(1)</script>", "mode": "a|b", "note": "```\n<s>"},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": f"Evil {ONE} API", "version": f"1 {ONE}", "description": TEXT},
        "servers": [{"url": "https://example.com/<script>", "description": CELL}],
        "tags": [{"name": f"things {ONE}", "description": TEXT}],
        "paths": {
            "/things/{id}": {
                "get": {
                    "tags": [f"things {ONE}"],
                    "operationId": "get_thing",
                    "summary": f"Get <script>alert(1)</script> | {ONE}",
                    "description": TEXT,
                    "parameters": [
                        {
                            "name": "id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                            "description": CELL,
                        },
                        {
                            "name": f"q{ONE}",
                            "in": "query",
                            "required": True,
                            "schema": {"type": "string", "enum": HTML_VECTORS[12:24]},
                            "description": CELL,
                        },
                        {
                            "name": "X-Evil",
                            "in": "header",
                            "required": True,
                            # a curl sample line that would close a ``` fence
                            "schema": {"type": "string", "enum": [f"a\n```\n{ONE}"]},
                            "description": CELL,
                        },
                    ],
                    "responses": {
                        "200": {
                            "description": f"OK {ONE} `<svg onload=alert(1)>`",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Thing"}
                                }
                            },
                        },
                        "default": {"description": TEXT},
                    },
                },
                "post": {
                    "tags": [f"things {ONE}"],
                    "operationId": "make_thing",
                    "summary": "\\`<img src=x onerror=alert(document.domain)>`",
                    "description": CELL,
                    "security": [{"Evil<script>": []}],
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "requestBody": {
                        "required": True,
                        "description": TEXT,
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}
                        },
                    },
                    "responses": {"201": {"description": CELL}},
                },
            }
        },
        "components": {
            "securitySchemes": {
                "Evil<script>": {
                    "type": "apiKey",
                    "in": "header",
                    "name": f"X-Key{ONE}",
                    "description": CELL,
                }
            },
            "schemas": {
                "Thing": thing,
                "Evil<script>alert(1)</script>": {
                    "type": "string",
                    "enum": HTML_VECTORS[24:],
                    "description": TEXT,
                },
            },
        },
    }


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hostile spec generated (``apismith generate``) and its site built (``apismith
    docs``)."""
    root = tmp_path_factory.mktemp("xss")
    spec = root / "evil.json"
    spec.write_text(json.dumps(hostile_spec(), indent=2), encoding="utf-8")
    made = run_cli("generate", "--spec", spec, "--out", "out/evil", cwd=root)
    assert made.returncode == 0, describe(made)
    quiet = {"NO_MKDOCS_2_WARNING": "1"}
    built = run_cli("docs", "--out", "out/evil", "--site-dir", "site", cwd=root, env=quiet)
    assert built.returncode == 0, describe(built)
    return root / "site"


def pages(site: Path) -> list[str]:
    """The URL path of every built page (index, each resource, models, client methods)."""
    found = sorted(p.relative_to(site).as_posix() for p in site.rglob("index.html"))
    return [p.removesuffix("index.html") for p in found if not p.startswith(("assets/", "search/"))]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: no line per request."""


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[str]:
    """The site over HTTP on 127.0.0.1 (a free port), as a reader's browser sees it."""
    handler = functools.partial(_Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium with the hooks installed in every new document and frame."""
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = str(CHROMIUM)
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1280,2000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        driver.set_page_load_timeout(120)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
        yield driver
    finally:
        driver.quit()


# the page's DOM, after load and two frames (focus, toggle and media errors fire by then).
# mkdocs-material's own: its scripts (its assets, or inline, outside the content and the
# sidebars, naming no vector; and the site's try-it.js, issue 27), its search form, and
# the head's meta, link and style tags
FINDINGS = """
const done = arguments[arguments.length - 1];
const outside = (el) => !el.closest(".md-content, .md-sidebar");
const own = {
  SCRIPT: (el) => outside(el) && (el.hasAttribute("src")
    ? /^(\\.\\.\\/)*((assets|search)\\/|javascripts\\/try-it\\.js$)/.test(el.getAttribute("src"))
    : !/alert|__xss/.test(el.textContent)),
  FORM: (el) => el.matches("form.md-search__form"),
  META: (el) => !!el.closest("head") && !el.matches("[http-equiv]"),
  LINK: (el) => !!el.closest("head"),
  STYLE: (el) => !!el.closest("head"),
};
const never = /^(IFRAME|FRAME|FRAMESET|OBJECT|EMBED|APPLET|BASE)$/;
requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
  const bad = [];
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) {
      if (/^on/i.test(a.name) || /^\\s*(javascript|data|vbscript):/i.test(a.value)) {
        bad.push(`${el.tagName} ${a.name}=${a.value}`);
      }
    }
    const allowed = own[el.tagName];
    if (never.test(el.tagName) || (allowed && !allowed(el))) {
      bad.push(el.outerHTML.slice(0, 160));
    }
  }
  done({xss: window.__xss, bad, text: document.body.innerText});
}, 0)));
"""


def visit(browser: Any, url: str) -> dict[str, Any]:
    """Open ``url`` (waiting for the load to complete) and read what ran and the DOM."""
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(url)
    WebDriverWait(browser, 120).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )
    browser.set_script_timeout(120)
    found: dict[str, Any] = browser.execute_async_script(FINDINGS)
    return found


def test_no_vector_runs_on_any_page(site: Path, server: str, browser: Any) -> None:
    urls = pages(site)
    assert "" in urls and "models-reference/" in urls and "client-methods/" in urls, urls
    assert len(urls) >= 4, urls  # index, a resource page, the models, the client methods
    texts = []
    for path in urls:
        found = visit(browser, server + path)
        assert found["xss"] == 0, f"{path}: a vector ran"
        assert found["bad"] == [], f"{path}: {found['bad']}"
        texts.append(" ".join(found["text"].split()))
    # the vectors read as text, and code stays readable
    everything = "\n".join(texts)
    missing = [v for v in SHOWN if " ".join(v.split()) not in everything]
    assert missing == [], missing
    assert "List<String>" in everything


def test_search_results_stay_text(server: str, browser: Any) -> None:
    """mkdocs-material's search renders what it found (the vectors' text, from the search
    index) into the page: searching for them runs nothing either. (On the models page: on
    the index, Mermaid's script, which mkdocs-material fetches from a CDN, fails offline
    and stops the search from starting.)"""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    visit(browser, server + "models-reference/")
    browser.find_element(By.CSS_SELECTOR, "label.md-search__icon, .md-search__input").click()
    browser.find_element(By.CSS_SELECTOR, "input.md-search__input").send_keys("onerror alert")
    WebDriverWait(browser, 120).until(
        lambda d: d.execute_script(
            "return document.querySelectorAll('.md-search-result__item').length"
        )
    )
    found = browser.execute_async_script(FINDINGS)
    assert found["xss"] == 0 and found["bad"] == [], found["bad"]
    assert "onerror" in browser.find_element(By.CSS_SELECTOR, ".md-search-result").text


def test_a_page_with_vectors_looks_like_text(site: Path, server: str, browser: Any) -> None:
    """One screenshot of the index (set APISMITH_XSS_SCREENSHOT to keep it): the vectors
    are lines of text in the page's column, nothing spills out of it."""
    import os

    visit(browser, server)
    width = browser.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]"
    )
    assert width[0] <= width[1], width  # no vector widened the page
    shot = Path(os.environ.get("APISMITH_XSS_SCREENSHOT") or site.parent / "index.png")
    assert browser.save_screenshot(str(shot)), shot
