"""Issue 22, finding 7 (round 3): names from valid specs that broke the generated package.

Each ``tests/hostile/names-r3-*.json`` names resources (by tag or path) or operations after
what the generated code itself uses: ``__future__`` features (``from . import
annotations`` found the feature), names a package's ``__init__.py`` binds
(``current_credentials``: importing ``_server/current_credentials.py`` replaced the
function of that name), builtins, the runtime's and the templates' own modules and
imports, keywords, the client's settings (a resource ``strict_response_validation`` was
dropped with the setting by ``with_options``), a resource's own attributes, and names
too long for a file (ENAMETOOLONG). For each, through the real CLI:

- generation ends in exit 0 and reports every rename (``-v``);
- in a fresh interpreter, every module imports, the mock app (``create_mock_app()``)
  serves on 127.0.0.1 (uvicorn in a thread), and one method of every top-level resource
  answers through the sync and the async client, plain and ``with_raw_response``;
- ``with_options(...)`` keeps every setting, after every resource was used;
- the generated classes own no name the generator does not reserve (``dir()`` against
  :mod:`generator.render.surface.reserved`), no ``__init__.py`` of ``resources/``,
  ``_server/`` or ``_mock/`` binds or reads a name a module may take, and every file
  name fits ``NAME_LIMIT``.

``apismith serve`` runs the one that used to die with "module is not callable".
"""

from __future__ import annotations

import json
import symtable
from pathlib import Path
from typing import Any

import pytest

from generator.config import load_config
from generator.errors import ApismithError
from generator.normalize.naming import NAME_LIMIT, RESERVED_METHOD_NAMES, module_problem
from generator.pipeline import build_api, load_and_normalize
from generator.render.surface.reserved import (
    client_names,
    resource_names,
    runtime_client_names,
)
from generator.render.surface.resources import Named, name_diagnostics, resource_map
from tests.conftest import REPO_ROOT, describe, run_cli, run_python

HOSTILE = Path(__file__).resolve().parent / "hostile"
SPECS = sorted(HOSTILE.glob("names-r3-*.json"))
TIMEOUT = 600  # a generous bound on each subprocess (a hang guard, not a measure)
API_KEY = "secret-key"

# spec -> fragments of the ``-v`` lines its renames must print
REPORTS: dict[str, tuple[str, ...]] = {
    "names-r3-annotations-tag.json": (
        "resource annotations is in resources/annotations_.py, _server/annotations_.py and"
        " _mock/annotations_.py (annotations is a __future__ feature)",
    ),
    "names-r3-annotations-path.json": ("resources/annotations_.py",),
    "names-r3-current-credentials.json": (
        "resource current_credentials is in resources/current_credentials_.py",
        "resource require_credentials_1 is in resources/require_credentials_1_.py",
        "resource json is in resources/json_.py",
    ),
    "names-r3-client-settings-tags.json": (
        "is strict_response_validation_.retrieve (the CRUD name of its path and method;"
        " strict_response_validation is the client's own;",
        "is idempotency_header_.retrieve",
        "is with_streaming_response_.retrieve",
        "is with_options_.retrieve",
        "is cached_property_.retrieve",
    ),
    "names-r3-resource-members.json": (
        "is things.with_raw_response_.retrieve (the CRUD name of its path and method;"
        " with_raw_response is every resource's own;",
        "is things.with_streaming_response_ ",
        "is things.overload_ ",
    ),
    "names-r3-long-tag-300.json": (f"is over {NAME_LIMIT} characters",),
    "names-r3-long-path-segment.json": (f"is over {NAME_LIMIT} characters",),
    "names-r3-future-features.json": ("resources/division_.py", "resources/annotations_.py"),
    "names-r3-builtins.json": ("resources/list_.py", "resources/getattr_.py"),
    "names-r3-server-names.json": ("operation engine is method engine_",),
}

# Runs in a fresh interpreter: argv[1] is the folder holding ``pkg``. Prints one JSON line.
CHECK = r"""
import asyncio, importlib, inspect, json, pkgutil, socket, sys, threading
sys.path.insert(0, sys.argv[1])
import uvicorn
import pkg
from pkg import _client

modules = sorted(m.name for m in pkgutil.walk_packages(pkg.__path__, "pkg."))
for name in modules:
    importlib.import_module(name)
from pkg.mock import MockService, create_mock_app

sock = socket.socket()
sock.bind(("127.0.0.1", 0))
url = f"http://127.0.0.1:{sock.getsockname()[1]}"
config = uvicorn.Config(create_mock_app(), log_level="error", lifespan="off")
server = uvicorn.Server(config)
thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
thread.start()
started = threading.Event()
for _ in range(6000):  # a hang guard: wait for uvicorn, checking every 10 ms
    if server.started or not thread.is_alive():
        break
    started.wait(0.01)
assert server.started, "uvicorn did not start"

sync_class = next(
    v for k, v in vars(pkg).items() if k.endswith("Client") and not k.startswith("Async")
)
async_class = getattr(pkg, "Async" + sync_class.__name__)
KNOWN = {"base_url", "timeout", "max_retries", "default_headers", "http_client",
         "strict_response_validation", "idempotency_header"}
credentials = [p for p in inspect.signature(sync_class).parameters if p not in KNOWN]
options = dict(base_url=url, max_retries=1, timeout=30, strict_response_validation=True,
               idempotency_header="x-idem", **{c: sys.argv[2] for c in credentials})


def methods(resource):
    skip = {"with_raw_response", "with_streaming_response"}
    return [n for n, v in vars(type(resource)).items()
            if inspect.isfunction(v) and not n.startswith("_") and n not in skip]


def children(resource):
    return {n: v for n, v in vars(resource).items() if type(v).__name__.endswith("Resource")}


def first_method(resource, trail=()):
    # (the attributes down to a resource with methods, its first method's name)
    if methods(resource):
        return trail, methods(resource)[0]
    attr, child = next(iter(children(resource).items()))
    return first_method(child, (*trail, attr))


def walk(obj, trail):
    for attr in trail:
        obj = getattr(obj, attr)
    return obj


def arguments(method):
    out = {}
    for p in inspect.signature(method).parameters.values():
        if p.default is inspect.Parameter.empty and p.kind is not p.VAR_KEYWORD:
            out[p.name] = "x"
    return out


def outcome(result):
    streamed = hasattr(result, "__iter__") and hasattr(result, "close")
    if streamed and not hasattr(result, "model_dump"):
        with result:
            return [type(chunk).__name__ for chunk in result][:1] or ["(empty stream)"]
    return type(result).__name__


async def outcome_async(result):
    if hasattr(result, "__aiter__"):
        chunks = [type(chunk).__name__ async for chunk in result]
        return chunks[:1] or ["(empty stream)"]
    return type(result).__name__


def public(obj):
    return {n for n in dir(obj) if not (n.startswith("__") and n.endswith("__"))}


report = {"modules": modules, "called": {}, "raw": {}, "async": {}, "settings": {},
          "client_owns": [], "resource_owns": [], "mock_owns": []}
client = sync_class(**options)
for attr in _client._RESOURCE_ATTRS:
    trail, name = first_method(getattr(client, attr), (attr,))
    resource = walk(client, trail)
    method = getattr(resource, name)
    report["called"][attr] = [".".join((*trail, name)), outcome(method(**arguments(method)))]
    raw = getattr(walk(client.with_raw_response, trail), name)(**arguments(method))
    report["raw"][attr] = raw.status_code
    owned = public(type(resource)) | set(vars(resource))
    own = set(children(resource)) | set(methods(resource))
    report["resource_owns"] += sorted(owned - own)
owned = public(sync_class) | set(vars(client)) | public(async_class)
report["client_owns"] = sorted(owned - set(_client._RESOURCE_ATTRS))
report["mock_owns"] = sorted(n for n in vars(MockService()) if not n.startswith("_"))

copy = client.with_options(strict_response_validation=False, max_retries=0, timeout=7)
report["settings"] = {
    "strict_response_validation": copy.strict_response_validation,
    "max_retries": copy.max_retries,
    "timeout": copy.timeout,
    "idempotency_header": copy.idempotency_header,
    "base_url": copy.base_url == url,
    "close": callable(copy.close),
    "with_options": callable(copy.with_options),
    "with_raw_response": type(copy.with_raw_response).__name__,
    "with_streaming_response": type(copy.with_streaming_response).__name__,
    "original_strict": client.strict_response_validation,
}
client.close()


async def run_async():
    aclient = async_class(**options)
    for attr in _client._RESOURCE_ATTRS:
        trail, name = first_method(getattr(aclient, attr), (attr,))
        method = getattr(walk(aclient, trail), name)
        report["async"][attr] = await outcome_async(await method(**arguments(method)))
    lenient = aclient.with_options(strict_response_validation=False)
    report["settings"]["async_strict"] = lenient.strict_response_validation
    await aclient.close()


asyncio.run(run_async())
server.should_exit = True
thread.join(timeout=60)
print(json.dumps(report))
"""


def _generate(tmp: Path, spec: Path) -> tuple[Path, str]:
    """The generated package's folder and the ``-v`` output."""
    out = tmp / "out" / "pkg"
    proc = run_cli("generate", "--spec", spec, "--out", out, "-v", cwd=tmp, timeout=TIMEOUT)
    assert proc.returncode == 0, describe(proc)
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    return out, proc.stderr


def _check(package: Path) -> dict[str, Any]:
    proc = run_python(CHECK, str(package.parent), API_KEY, cwd=package.parent, timeout=TIMEOUT)
    assert proc.returncode == 0, describe(proc)
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _module_stems(package: Path, folder: str) -> set[str]:
    return {p.stem for p in (package / folder).glob("*.py")} - {"__init__"}


SCANNED = """
class Base:
    _http: httpx.Client  # a comment: names nothing
    a, b = 1, 2

    def __init__(self, *, base_url: str) -> None:
        self.base_url = base_url
        local: dict[str, str] = {"k": "v: w"}

    @staticmethod
    def helper(o: Options) -> float: ...


class Client(Base):
    async def close(self) -> None: ...


class Other:
    def unrelated(self, x: bytes) -> None: ...
"""


def test_the_scan_reads_members_decorators_and_signatures() -> None:
    """What a class and its bases define or evaluate in their bodies; not what another
    class, a method's local variable, a string or a comment names."""
    assert runtime_client_names(SCANNED, ("Client",)) == {
        "_http", "httpx", "a", "b", "__init__", "base_url", "str", "staticmethod", "helper",
        "float", "close",
    }  # fmt: skip


def test_the_reserved_names() -> None:
    must = {"base_url", "timeout", "max_retries", "strict_response_validation", "close"}
    must |= {"idempotency_header", "with_options", "with_raw_response", "cached_property"}
    assert must <= client_names(), sorted(must - client_names())
    assert {"with_raw_response", "with_streaming_response", "overload"} <= resource_names()
    # what a resource may well be called stays free: the client's signatures use no builtin
    # but these, and every resource module is free to be called list or models
    assert not {"list", "models", "files", "copy", "api_key", "type"} & client_names()
    assert not {"list", "create", "retrieve", "update", "delete"} & resource_names()


def _bound_names(tmp: Path, spec: Path, tables: str = "") -> list[Named]:
    """The resource map of ``spec`` under a config with ``tables``."""
    config_path = tmp / "specs" / "api.toml"
    config_path.parent.mkdir(parents=True)
    (tmp / spec.name).write_bytes(spec.read_bytes())
    config_path.write_text(f'[api]\nspec = "../{spec.name}"\n\n{tables}\n', encoding="utf-8")
    config = load_config(config_path)
    _doc, normalized = load_and_normalize(config)
    api, settings = build_api(config, normalized.spec)
    return resource_map(api, settings)


def test_a_config_may_not_name_a_method_like_what_a_resource_owns(tmp_path: Path) -> None:
    spec = HOSTILE / "names-r3-resource-members.json"
    tables = '[client.methods]\nget_things = "things.with_raw_response"\n'
    with pytest.raises(ApismithError, match="is reserved .with_raw_response is every resource"):
        _bound_names(tmp_path, spec, tables)


def test_config_resources_are_freed_too(tmp_path: Path) -> None:
    """A ``[client.resources]`` name the client owns gets its ``_``, reported."""
    spec = HOSTILE / "names-r3-annotations-path.json"
    names = _bound_names(tmp_path, spec, '[client.resources]\n"/annotations" = "timeout"\n')
    assert {n.resource for n in names} == {("timeout_",)}
    lines = [d.line() for d in name_diagnostics(names)]
    assert any("timeout is the client's own" in line for line in lines), lines


def test_there_are_round_3_specs() -> None:
    assert len(SPECS) >= 10, SPECS
    assert set(REPORTS) <= {p.name for p in SPECS}


@pytest.mark.parametrize("spec", SPECS, ids=[p.name for p in SPECS])
def test_names_round_3(tmp_path: Path, spec: Path) -> None:
    package, stderr = _generate(tmp_path, spec)
    for fragment in REPORTS.get(spec.name, ()):
        assert fragment in stderr, f"{fragment!r} not reported\n{stderr[-3000:]}"
    result = _check(package)
    attrs = list(result["called"])
    assert attrs and set(attrs) == set(result["async"]), result
    assert set(result["raw"].values()) == {200}, result["raw"]
    settings = result["settings"]
    assert settings["strict_response_validation"] is False and settings["async_strict"] is False
    assert settings["original_strict"] is True
    assert (settings["max_retries"], settings["timeout"]) == (0, 7)
    assert settings["idempotency_header"] == "x-idem" and settings["base_url"] is True
    assert settings["close"] and settings["with_options"]
    assert settings["with_raw_response"].endswith("ClientWithRawResponse")
    assert settings["with_streaming_response"].endswith("ClientWithStreamingResponse")
    # one module name per resource, in every folder; the docs show the client's names
    client_modules = _module_stems(package, "resources")
    assert client_modules == _module_stems(package, "_server") == _module_stems(package, "_mock")
    assert len(client_modules) == len(attrs)
    docs = "".join(p.read_text(encoding="utf-8") for p in (package / "docs").rglob("*.md"))
    assert all(f"client.{attr}." in docs for attr in attrs), attrs
    # one page per resource, none over the home page (a resource may be called index)
    pages = sorted(p.name for p in (package / "docs" / "pages").glob("*.md"))
    assert len(pages) == len(set(pages)) and "index.md" in pages
    # what the generated classes own, the generator reserves
    assert set(result["client_owns"]) <= client_names(), result["client_owns"]
    assert set(result["resource_owns"]) <= resource_names(), result["resource_owns"]
    assert set(result["mock_owns"]) <= RESERVED_METHOD_NAMES, result["mock_owns"]
    _assert_short_names(package)
    _assert_free_module_names(package)


def _assert_short_names(package: Path) -> None:
    for path in package.rglob("*"):
        name = path.stem if path.is_file() else path.name
        assert len(name) <= NAME_LIMIT, f"{path.relative_to(package)}: {len(name)} characters"


def _init_names(source: str) -> set[str]:
    """The lower-case names an ``__init__.py`` binds at its top level or reads as globals
    (builtins included) in any of its scopes."""
    found: set[str] = set()

    def walk(table: symtable.SymbolTable) -> None:
        for symbol in table.get_symbols():
            if table.get_type() == "module" or symbol.is_global():
                found.add(symbol.get_name())
        for child in table.get_children():
            walk(child)

    walk(symtable.symtable(source, "__init__.py", "exec"))
    return {n for n in found if n[:1].islower()}


def _assert_free_module_names(package: Path) -> None:
    """No ``__init__.py`` of a folder of resource modules binds or reads a name that
    :func:`module_problem` lets a module take, but its own modules' (``_mock`` imports
    them)."""
    for folder in ("resources", "_server", "_mock"):
        init = package / folder / "__init__.py"
        if not init.is_file():
            continue
        own = _module_stems(package, folder)
        names = _init_names(init.read_text(encoding="utf-8")) - own
        free = sorted(n for n in names if module_problem(n) is None)
        assert not free, f"{init.relative_to(package.parent)} binds or reads {free}"


COMMITTED = sorted(
    init
    for root in (REPO_ROOT / "generated", REPO_ROOT / "tests" / "golden")
    for folder in ("resources", "_server", "_mock")
    for init in root.glob(f"**/{folder}/__init__.py")
)


@pytest.mark.parametrize("init", COMMITTED, ids=[str(p.relative_to(REPO_ROOT)) for p in COMMITTED])
def test_committed_package_inits_leave_module_names_free(init: Path) -> None:
    """The same over the committed packages (security schemes, streams: every branch of
    the ``__init__`` templates that those use)."""
    _assert_free_module_names(init.parent.parent)


def test_apismith_serve_current_credentials(tmp_path: Path) -> None:
    """``apismith serve`` of a path named ``current_credentials`` (with security: the
    presence check calls ``current_credentials``) answers instead of dying."""
    import sys

    import httpx

    from tests.server.conftest import running

    package, _ = _generate(tmp_path, HOSTILE / "names-r3-current-credentials.json")
    command = [sys.executable, "-m", "generator", "serve", "--out", str(package)]
    with running(command, cwd=tmp_path, log=tmp_path / "log") as url:
        answer = httpx.get(f"{url}/current_credentials", headers={"x-api-key": API_KEY}, timeout=60)
        assert answer.status_code == 200, answer.text
        refused = httpx.get(f"{url}/verify_credentials", timeout=60)
        assert refused.status_code == 401, refused.text
