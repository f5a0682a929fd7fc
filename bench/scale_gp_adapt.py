"""The mechanical adaptation of scale-gp's ``tests/api_resources`` to our client (run B of
``bench/scale_gp_suite.py``): regex rewrites only, the same for every file, no per-test
edit.

Each rewrite below says what it changes and why. None may delete an assertion about
behaviour: :func:`adapt_tree` counts, per file, the ``assert`` statements, the
``assert_matches_type(...)`` calls and the ``pytest.raises(...)`` blocks before and after,
and stops unless the only difference is the ``assert`` statements that :data:`STAINLESS_LANG`
turned into an attribute read. It also stops if a test file still names ``scale_gp`` other
than where the rewrites put it on purpose (the type look-ups of ``sgp_type`` and the input
helper ``parse_datetime``).

The runtime half of the adaptation (our type for each scale-gp type, the page markers, the
suite's ``assert_matches_type`` extended) is ``bench/scale_gp_support.py``, copied into
the adapted suite as ``tests/sgp_adapt.py``.
"""

from __future__ import annotations

import ast
import re
import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SUPPORT = Path(__file__).resolve().parent / "scale_gp_support.py"
CLIENTS = {"SGPClient": "SgpClient", "AsyncSGPClient": "AsyncSgpClient"}


@dataclass(frozen=True)
class Rewrite:
    name: str
    scope: str  # "tests" (tests/api_resources/**), "conftest" or "utils"
    pattern: re.Pattern[str]
    replace: str | Callable[[re.Match[str]], str]
    why: str


def _client_import(match: re.Match[str]) -> str:
    """``from scale_gp import SGPClient, ...``: the clients from ``sgp`` under scale-gp's
    names; any other name (``DefaultAioHttpClient``) from the support module."""
    names = [n.strip() for n in match.group(1).split(",") if n.strip()]
    ours = [f"{CLIENTS[n]} as {n}" for n in names if n in CLIENTS]
    rest = [n for n in names if n not in CLIENTS]
    lines = [f"from sgp import {', '.join(ours)}"] if ours else []
    return "\n".join(lines + ([f"from tests.sgp_adapt import {', '.join(rest)}"] if rest else []))


def _types_import(match: re.Match[str]) -> str:
    """``from scale_gp.types.x import A, B``: ``A = _sgp_type("scale_gp.types.x", "A")``..."""
    module, names = match.group(1), match.group(2).strip("()")
    lines = ["from tests.sgp_adapt import sgp_type as _sgp_type"]
    for name in (n.strip() for n in names.split(",")):
        if name:
            lines.append(f'{name} = _sgp_type("{module}", "{name}")')
    return "\n".join(lines)


STAINLESS_LANG = Rewrite(
    "drop X-Stainless-Lang assertion",
    "tests",
    re.compile(
        r'^(\s*)assert (\w+)\.http_request\.headers\.get\("X-Stainless-Lang"\) == "python"$', re.M
    ),
    r"\1\2.http_request  # adapted: X-Stainless-Lang assertion dropped, attribute read kept",
    "X-Stainless-Lang is Stainless's own telemetry header, not API behaviour; reading "
    "`.http_request` stays, so a response without it still fails",
)

REWRITES: tuple[Rewrite, ...] = (
    Rewrite(
        "client import",
        "tests",
        re.compile(r"^from scale_gp import ([\w, ]+)$", re.M),
        _client_import,
        "the client under test: our SgpClient/AsyncSgpClient under scale-gp's names, so every "
        "test body and fixture annotation stays as written",
    ),
    Rewrite(
        "response types",
        "tests",
        re.compile(r"^from (scale_gp\.types(?:\.\w+)*) import (\([\w\s,]+\)|[\w ,]+)$", re.M),
        _types_import,
        "the type each assert_matches_type checks: our sgp.models class of the same name, else "
        "scale-gp's type compared structurally (tests/sgp_adapt.py: sgp_type)",
    ),
    Rewrite(
        "pagination types",
        "tests",
        re.compile(r"^from scale_gp\.pagination import", re.M),
        "from tests.sgp_adapt import",
        "SyncPageResponse[X] and kin: markers checking our SyncPage/AsyncPage and that its "
        "items match X",
    ),
    Rewrite(
        "response classes",
        "tests",
        re.compile(r"^from scale_gp\._response import", re.M),
        "from tests.sgp_adapt import",
        "BinaryAPIResponse and kin (isinstance checks): our APIResponse/AsyncAPIResponse",
    ),
    STAINLESS_LANG,
    Rewrite(
        "conftest client import",
        "conftest",
        re.compile(r"^from scale_gp import ([\w, ]+)$", re.M),
        _client_import,
        "the fixtures make our clients; DefaultAioHttpClient (httpx over aiohttp, scale-gp's "
        "defaults) comes from the support module",
    ),
    Rewrite(
        "conftest strict option import",
        "conftest",
        re.compile(r"^(from scale_gp\._utils import is_dict)$", re.M),
        r"\1\nfrom tests.sgp_adapt import strict_option as _strict",
        "the keyword of the loose/strict fixture parameter (next rewrite)",
    ),
    Rewrite(
        "conftest strict keyword",
        "conftest",
        re.compile(r"\b_strict_response_validation=strict\b"),
        "**_strict(strict)",
        "scale-gp's private `_strict_response_validation=`; ours is spelled "
        "`strict_response_validation=` unless we also accept scale-gp's (read from our signature)",
    ),
    Rewrite(
        "conftest logger",
        "conftest",
        re.compile(r'logging\.getLogger\("scale_gp"\)'),
        'logging.getLogger("sgp")',
        "debug logging for the package under test (no assertion involved)",
    ),
    Rewrite(
        "utils BaseModel",
        "utils",
        re.compile(r"^from scale_gp\._models import BaseModel$", re.M),
        "from pydantic import BaseModel  # adapted: our models are pydantic's",
        "the model branch of assert_matches_type must recognise our models (pydantic "
        "BaseModel), not only scale-gp's subclass of it",
    ),
    Rewrite(
        "utils checker",
        "utils",
        re.compile(r"\Z"),
        "\n\n# adapted: our pages, scale-gp stand-in types and typing.Any (tests/sgp_adapt.py)\n"
        "from tests.sgp_adapt import checking as _checking  # noqa: E402\n\n"
        "assert_matches_type = _checking(assert_matches_type)\n",
        "assert_matches_type extended (its recursion goes through the extension); every type it "
        "already knew is checked as before",
    ),
)

# A test file may name scale_gp only here: the types sgp_type reads, and an input helper.
_ALLOWED_SCALE_GP = re.compile(
    r'_sgp_type\("scale_gp\.types[\w.]*", "\w+"\)|^from scale_gp\._utils import parse_datetime$',
    re.M,
)


def _measure(source: str) -> Counter[str]:
    """The assertions of ``source``: ``assert`` statements, ``assert_matches_type`` calls,
    ``pytest.raises`` uses."""
    found: Counter[str] = Counter()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert):
            found["assert"] += 1
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("assert_matches_type", "raises"):
                found[name] += 1
    return found


def adapt_text(text: str, scope: str, counts: Counter[str]) -> str:
    for rule in REWRITES:
        if rule.scope == scope:
            text, fired = rule.pattern.subn(rule.replace, text)
            counts[rule.name] += fired
    return text


def _adapt_test_file(path: Path, counts: Counter[str]) -> None:
    before = path.read_text(encoding="utf-8")
    dropped_before = counts[STAINLESS_LANG.name]
    after = adapt_text(before, "tests", counts)
    dropped = counts[STAINLESS_LANG.name] - dropped_before
    expected = _measure(before)
    expected["assert"] -= dropped
    if _measure(after) != expected:
        raise RuntimeError(
            f"{path}: a rewrite changed the assertions: {_measure(after)} != {expected}"
        )
    leftover = [ln for ln in _ALLOWED_SCALE_GP.sub("", after).splitlines() if "scale_gp" in ln]
    if leftover:
        raise RuntimeError(f"{path}: still names scale_gp: {leftover[:3]}")
    path.write_text(after, encoding="utf-8")


def copy_suite(sdist: Path, dest: Path) -> Path:
    """``dest`` (made anew): the sdist's pytest config and ``tests/api_resources`` with the
    files they import (``tests/__init__.py``, ``conftest.py``, ``utils.py``)."""
    shutil.rmtree(dest, ignore_errors=True)
    (dest / "tests").mkdir(parents=True)
    shutil.copy2(sdist / "pyproject.toml", dest / "pyproject.toml")
    for name in ("__init__.py", "conftest.py", "utils.py"):
        shutil.copy2(sdist / "tests" / name, dest / "tests" / name)
    shutil.copytree(sdist / "tests" / "api_resources", dest / "tests" / "api_resources")
    return dest


def adapt_tree(sdist: Path, dest: Path) -> Counter[str]:
    """``dest``: the suite copied from ``sdist`` and adapted; how often each rewrite fired."""
    copy_suite(sdist, dest)
    counts: Counter[str] = Counter({rule.name: 0 for rule in REWRITES})
    tests = dest / "tests"
    for scope in ("conftest", "utils"):
        path = tests / f"{scope}.py"
        path.write_text(
            adapt_text(path.read_text(encoding="utf-8"), scope, counts), encoding="utf-8"
        )
    for path in sorted((tests / "api_resources").rglob("*.py")):
        _adapt_test_file(path, counts)
    shutil.copy2(SUPPORT, tests / "sgp_adapt.py")
    unfired = [name for name, n in counts.items() if n == 0]
    if unfired:
        raise RuntimeError(f"rewrites that never fired (the sdist changed?): {unfired}")
    return counts


_TYPE_LOOKUP = re.compile(r'^(\w+) = _sgp_type\("([\w.]+)", "\w+"\)$', re.M)
_PAGE_CHECK = re.compile(r"assert_matches_type\((?:Sync|Async)\w+\[")


def type_uses(tests: Path) -> tuple[Counter[str], int]:
    """In the adapted suite: per scale-gp type (``module.Name``), the
    ``assert_matches_type`` lines that name it; and the number of page checks."""
    uses: Counter[str] = Counter()
    pages = 0
    for path in sorted(tests.rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        checks = [ln for ln in text.splitlines() if "assert_matches_type(" in ln]
        pages += sum(1 for ln in checks if _PAGE_CHECK.search(ln))
        for name, module in _TYPE_LOOKUP.findall(text):
            word = re.compile(rf"\b{name}\b")
            uses[f"{module}.{name}"] += sum(1 for ln in checks if word.search(ln))
    return uses, pages
