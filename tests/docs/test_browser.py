"""The API reference in a real browser (issue 27): the SGP and LLM Engine sites, built as a
user builds them (``apismith generate`` into a temporary folder, then ``apismith docs``),
served on 127.0.0.1 and opened in headless Chromium at 1280 px and at 390 px (a phone).

On every page (the home page, each resource page, the models and client-methods pages),
with every ``<details>`` opened (nested fields, long enums and defaults, the consoles):

- **identifiers never wrap**: no identifier spans two lines, measured with
  ``Range.getClientRects()`` (more than one distinct line top). An identifier is a
  ``code`` element outside code blocks, a first-column table cell, or a field's name
  (``.api-name``), whose text is a single token (no whitespace: ``client.x.create(a, b)``
  may wrap at its spaces). A token wider than the content column on its own (a long URL
  in a description at 390 px) cannot fit on one line: it is exempt where it is allowed to
  break, inside a description (``.api-desc``, a last table column), and fails elsewhere.
- **nothing is wider than the content column** (``.md-content__inner``): no table, field
  block, list, paragraph, ``<details>`` or form reaches past its edges, and the page never
  scrolls sideways. Only code blocks (``pre`` and ``.highlight``) may scroll. mkdocs-
  material wraps each table in a ``.md-typeset__scrollwrap`` that scrolls: that is not an
  excuse here, since a table clipped by it is the issue's complaint; the table itself is
  measured.
- **no raw Markdown table** (``| --- |``) in the rendered text.

And once per site: nav titles are unique per target page; on SGP, a search for "chat
completion" finds the chat-completions page, and its "Try it" console sent to a running
``apismith serve`` (a free port) shows a 200 and the JSON. The hostile-spec page (no
script runs, ``window.alert`` hooked before load) is ``tests/docs/test_xss_browser.py``.

Screenshots of the SGP chat-completions page at both widths (and of its console's
answer) are written into ``$APISMITH_SCREENSHOTS`` when set (``docs/screenshots``).
Waits are on conditions (``WebDriverWait``), never on the clock.
"""

from __future__ import annotations

import fcntl
import functools
import http.server
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT, SPECS, describe, run_cli
from tests.docs.test_xss_browser import CHROMEDRIVER, CHROMIUM, HOOK, pages

pytest.importorskip("mkdocs")
pytest.importorskip("material")
webdriver = pytest.importorskip("selenium.webdriver")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None or CHROMEDRIVER is None,
        reason="needs chromium and chromedriver on PATH (CI installs Debian's)",
    ),
]

SITES = {"sgp": "sgp", "llm_engine": "llm-engine"}  # package -> config
WIDTHS = (1280, 390)
CHAT_PAGE = "chat_completions/"  # SGP's client.chat_completions
CHAT_PATH = "/v4/chat-completions"
WAIT = 300  # a guard against a hang only: a loaded machine is slow

# --- the sites ----------------------------------------------------------------------------------


def _build(root: Path, package: str) -> Path:
    """Generate ``package`` into ``root`` and build its site (once: under a lock, since
    pytest-xdist's workers share ``root``)."""
    site = root / f"{package}-site"
    with (root / f"{package}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (site / "index.html").is_file():
            return site
        config = SPECS / f"{SITES[package]}.toml"
        made = run_cli(
            "generate", "--config", config, "--out", root / package, cwd=root, timeout=1800
        )
        assert made.returncode == 0, describe(made)
        quiet = {"NO_MKDOCS_2_WARNING": "1"}
        built = run_cli(
            "docs", "--out", root / package, "--site-dir", site, cwd=root, env=quiet, timeout=1800
        )
        assert built.returncode == 0, describe(built)
    return site


@pytest.fixture(scope="session")
def build_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder all xdist workers of the session share (the base temp's parent), or
    ``$APISMITH_BROWSER_SITES`` (sites built there already are used as they are)."""
    if os.environ.get("APISMITH_BROWSER_SITES"):
        return Path(os.environ["APISMITH_BROWSER_SITES"])
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "browser-sites"
    root.mkdir(exist_ok=True)
    return root


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: no line per request."""


class Sites:
    """Each site built on first use and served over HTTP on 127.0.0.1 (a free port)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.servers: dict[str, tuple[Path, str, http.server.ThreadingHTTPServer]] = {}

    def __call__(self, package: str) -> tuple[Path, str]:
        if package not in self.servers:
            site = _build(self.root, package)
            handler = functools.partial(_Quiet, directory=str(site))
            httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            threading.Thread(target=httpd.serve_forever, daemon=True).start()
            url = f"http://127.0.0.1:{httpd.server_address[1]}/"
            self.servers[package] = (site, url, httpd)
        site, url, _ = self.servers[package]
        return site, url

    def close(self) -> None:
        for _, _, httpd in self.servers.values():
            httpd.shutdown()
            httpd.server_close()


@pytest.fixture(scope="module")
def sites(build_root: Path) -> Iterator[Sites]:
    served = Sites(build_root)
    try:
        yield served
    finally:
        served.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium (alert/confirm/prompt hooked before any script of a page)."""
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
        "--hide-scrollbars",
        "--window-size=1280,1000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        driver.set_page_load_timeout(WAIT)
        driver.set_script_timeout(WAIT)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
        yield driver
    finally:
        driver.quit()


def resize(browser: Any, width: int, height: int = 1000) -> None:
    """The viewport exactly ``width`` CSS px wide (a phone's below 500 px)."""
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)


def visit(browser: Any, url: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(url)
    WebDriverWait(browser, WAIT).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )


# --- the layout checks --------------------------------------------------------------------------

# every <details> opened; then per check, up to 8 examples and the count
LAYOUT = r"""
const article = document.querySelector(".md-content__inner");
document.querySelectorAll("details").forEach((d) => { d.open = true; });
const col = article.getBoundingClientRect();
const inCode = (el) => !!el.closest("pre, .highlight");
const found = {wrapped: [], wide: [], pipes: [], page: []};
const lines = (el) => {
  const range = document.createRange();
  range.selectNodeContents(el);
  const tops = [];
  for (const r of range.getClientRects()) {
    if (r.width > 0 && r.height > 0) tops.push([r.top, r.height]);
  }
  tops.sort((a, b) => a[0] - b[0]);
  let count = 0, last = -1e9;
  for (const [top, h] of tops) {
    if (top - last > Math.max(4, h / 2)) { count += 1; last = top; }
  }
  return count;
};
const probe = document.createElement("span");
probe.style.cssText = "position:absolute;visibility:hidden;white-space:nowrap;left:0;top:0";
document.body.appendChild(probe);
const oneLine = (el) => {
  probe.style.font = getComputedStyle(el).font;
  probe.textContent = el.textContent;
  return probe.getBoundingClientRect().width;
};
const mayBreak = (el) => !!el.closest(".api-desc, td:last-child:not(:first-child)");
const candidates = article.querySelectorAll("code, td:first-child, .api-name");
for (const el of candidates) {
  if (inCode(el)) continue;
  const text = el.textContent.trim();
  if (!text || /\s/.test(text)) continue;
  if (el.tagName !== "CODE" && el.querySelector("code")) continue;  // its code is checked
  if (lines(el) < 2) continue;
  if (mayBreak(el) && oneLine(el) > col.width) continue;
  found.wrapped.push(text);
}
probe.remove();
const blocks = article.querySelectorAll(
  "table, .api-field, .api-fields, details, dl, dd, p, ul, ol, blockquote, .admonition, "
  + ".tabbed-set, form, textarea, input, h1, h2, h3, h4");
for (const el of blocks) {
  if (inCode(el)) continue;
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) continue;
  if (r.right > col.right + 1 || r.left < col.left - 1) {
    const what = el.tagName.toLowerCase() + (el.className ? "." + el.className.split(" ")[0] : "");
    const text = el.textContent.trim().replace(/\s+/g, " ").slice(0, 50);
    found.wide.push(`${what} ${Math.round(r.width)}px > ${Math.round(col.width)}px: ${text}`);
  }
}
const raw = /\|\s*:?-{3,}:?\s*\|/;
for (const line of article.innerText.split("\n")) {
  if (raw.test(line)) found.pipes.push(line.slice(0, 80));
}
const doc = document.documentElement;
if (doc.scrollWidth > window.innerWidth + 1) {
  found.page.push(`the page scrolls sideways: ${doc.scrollWidth}px > ${window.innerWidth}px`);
}
return found;
"""

CHECKS = ("wrapped", "wide", "pipes", "page")


@pytest.fixture(scope="module")
def layout(sites: Sites, browser: Any) -> Any:
    """(package, width) -> check -> page -> findings, each site and width visited once."""
    cache: dict[tuple[str, int], dict[str, dict[str, list[str]]]] = {}

    def get(package: str, width: int) -> dict[str, dict[str, list[str]]]:
        if (package, width) not in cache:
            site, url = sites(package)
            resize(browser, width)
            out: dict[str, dict[str, list[str]]] = {check: {} for check in CHECKS}
            for path in pages(site):
                visit(browser, url + path)
                found = browser.execute_script(LAYOUT)
                for check in CHECKS:
                    if found[check]:
                        out[check][path or "(home)"] = found[check]
            cache[package, width] = out
        return cache[package, width]

    return get


def summary(findings: dict[str, list[str]]) -> str:
    """ "N on page: example, example, ..." per page, most first."""
    ranked = sorted(findings.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return "\n".join(f"{len(v)} on {page}: {' | '.join(v[:6])}" for page, v in ranked)


CASES = [pytest.param(p, w, id=f"{p}-{w}") for p in SITES for w in WIDTHS]


@pytest.mark.parametrize(("package", "width"), CASES)
def test_identifiers_never_wrap(layout: Any, package: str, width: int) -> None:
    found = layout(package, width)["wrapped"]
    assert not found, f"identifiers that span two lines:\n{summary(found)}"


@pytest.mark.parametrize(("package", "width"), CASES)
def test_nothing_wider_than_the_column(layout: Any, package: str, width: int) -> None:
    found = {**layout(package, width)["wide"]}
    for page, what in layout(package, width)["page"].items():
        found[page] = [*what, *found.get(page, [])]
    assert not found, f"blocks wider than the content column:\n{summary(found)}"


@pytest.mark.parametrize(("package", "width"), CASES)
def test_no_raw_markdown_tables(layout: Any, package: str, width: int) -> None:
    found = layout(package, width)["pipes"]
    assert not found, f"raw Markdown tables in the text:\n{summary(found)}"


# --- navigation and search ----------------------------------------------------------------------

NAV = r"""
const out = [];
for (const a of document.querySelectorAll(".md-nav--primary a.md-nav__link[href]")) {
  if (a.closest(".md-nav--secondary")) continue;
  const target = new URL(a.href, location.href);
  target.hash = "";
  out.push([a.textContent.trim().replace(/\s+/g, " "), target.pathname]);
}
return out;
"""


@pytest.mark.parametrize("package", list(SITES))
def test_nav_titles_are_unique(sites: Sites, browser: Any, package: str) -> None:
    _, url = sites(package)
    resize(browser, 1280)
    visit(browser, url)
    targets: dict[str, set[str]] = {}
    for title, target in browser.execute_script(NAV):
        targets.setdefault(title, set()).add(target)
    assert len(targets) > 3, targets
    shared = {t: sorted(p) for t, p in sorted(targets.items()) if len(p) > 1}
    assert not shared, f"nav titles naming several pages: {shared}"


def test_search_finds_chat_completions(sites: Sites, browser: Any) -> None:
    """mkdocs-material's search (from a resource page: the home page's Mermaid script,
    fetched from a CDN, fails offline and stops the search from starting)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    _, url = sites("sgp")
    resize(browser, 1280)
    visit(browser, url + "client-methods/")
    browser.find_element(By.CSS_SELECTOR, "label.md-search__icon, .md-search__input").click()
    browser.find_element(By.CSS_SELECTOR, "input.md-search__input").send_keys("chat completion")
    links = "return [...document.querySelectorAll('.md-search-result__item a')].map(a => a.href)"
    WebDriverWait(browser, WAIT).until(lambda d: d.execute_script(links))
    found = browser.execute_script(links)
    assert any(CHAT_PAGE in href for href in found), found


# --- Try it ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mock(sites: Sites, build_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``apismith serve`` of the generated SGP package, on a free port."""
    from tests.server.conftest import running

    sites("sgp")  # generated
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    args = [sys.executable, "-m", "generator", "serve", "--out", str(build_root / "sgp")]
    with running(args, cwd=REPO_ROOT, log=log) as url:
        yield url


CONSOLE = f'details.apismith-try-it[data-path="{CHAT_PATH}"][data-method="POST"]'


def screenshots() -> Path | None:
    where = os.environ.get("APISMITH_SCREENSHOTS")
    if not where:
        return None
    folder = Path(where)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_try_it_against_the_mock(sites: Sites, browser: Any, mock: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    _, url = sites("sgp")
    shots = screenshots()
    for width, height in ((390, 1600), (1280, 1000)):
        resize(browser, width, height)
        visit(browser, url + CHAT_PAGE)
        if shots is not None:
            assert browser.save_screenshot(str(shots / f"chat-completions-{width}.png"))
    consoles = browser.find_elements(By.CSS_SELECTOR, CONSOLE)
    assert consoles, f"no Try it console for POST {CHAT_PATH} on {CHAT_PAGE}"
    console = consoles[0]
    browser.execute_script("arguments[0].open = true; arguments[0].scrollIntoView()", console)
    base = console.find_element(By.CSS_SELECTOR, "input.apismith-try-it__base")
    assert base.get_attribute("value") == "http://127.0.0.1:4010"
    base.clear()
    base.send_keys(mock)
    for key in console.find_elements(By.CSS_SELECTOR, "input[data-scheme]"):
        key.send_keys("test-key")
    body = console.find_element(By.CSS_SELECTOR, "textarea")
    assert json.loads(body.get_attribute("value")), "the body editor is not prefilled"
    console.find_element(By.CSS_SELECTOR, "button.apismith-try-it__send").click()
    WebDriverWait(browser, WAIT).until(
        lambda d: console.get_attribute("data-state") in ("done", "failed")
    )
    status = console.find_element(By.CSS_SELECTOR, ".apismith-try-it__status").text
    output = console.find_element(By.CSS_SELECTOR, ".apismith-try-it__output").text
    headers = console.find_element(By.CSS_SELECTOR, ".apismith-try-it__headers").text
    assert status.startswith("200"), (status, output)
    assert isinstance(json.loads(output), dict), output
    assert "content-type: application/json" in headers, headers
    # the key is never stored
    stored = browser.execute_script(
        "return [{...localStorage}, {...sessionStorage}, document.cookie]"
    )
    assert "test-key" not in json.dumps(stored), stored
    if shots is not None:
        assert console.screenshot(str(shots / "try-it-1280.png"))
