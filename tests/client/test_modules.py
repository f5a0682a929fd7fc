"""The generated client's layout (issue 13): a thin ``_client.py`` (the two clients), one
module per top-level resource (``resources/<attr>.py``, its sub-resources inside), imported
on first use; copies made by ``with_options`` make their own resources."""

from __future__ import annotations

import ast
import json

import pytest

from tests.client.support import APIS, methods, package
from tests.conftest import GENERATED, describe, run_python

CLIENT_MODULE_MAX_LINES = 2000  # SGP's was ~28,000 lines with every resource in it


@pytest.mark.parametrize("api", sorted(APIS))
def test_one_module_per_top_level_resource(api: str) -> None:
    target = GENERATED / APIS[api]
    tops = {trail[0] for trail, _ in methods(api)}
    modules = {p.stem for p in (target / "resources").glob("*.py")}
    assert modules == tops | {"__init__"}
    client = (target / "_client.py").read_text(encoding="utf-8")
    assert len(client.splitlines()) < CLIENT_MODULE_MAX_LINES
    assert "_request(" not in client  # the methods are in the resource modules
    # a module imports only from the standard library and the package, relatively
    for path in (target / "resources").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                assert node.level == 2, (path.name, node.module)


CLIENTS = {"llm-engine": "LlmEngineClient", "sgp": "SgpClient"}


@pytest.mark.parametrize("api", sorted(APIS))
def test_resources_load_on_first_use(api: str) -> None:
    """Importing the package and making a client import no resource module; the first use
    of an attribute imports its module only."""
    name = APIS[api]
    top = sorted({trail[0] for trail, _ in methods(api)})[0]
    code = (
        "import json, sys\n"
        f"import {name}\n"
        f"def loaded(): return sorted(m for m in sys.modules if m.startswith('{name}.resources.'))"
        "\n"
        "out = [loaded()]\n"
        f"c = {name}.{CLIENTS[api]}(base_url='http://127.0.0.1:9', api_key='k')\n"
        "out.append(loaded())\n"
        f"c.{top}\n"
        "out.append(loaded())\n"
        "print(json.dumps(out))\n"
    )
    proc = run_python(code, cwd=GENERATED)
    assert proc.returncode == 0, describe(proc)
    assert json.loads(proc.stdout) == [[], [], [f"{name}.resources.{top}"]]


@pytest.mark.parametrize("is_async", [False, True])
def test_with_options_copies_get_their_own_resources(is_async: bool) -> None:
    pkg = package("sgp")
    cls = pkg.AsyncSgpClient if is_async else pkg.SgpClient
    client = cls(base_url="http://127.0.0.1:9", api_key="k")
    first = client.knowledge_bases
    assert client.knowledge_bases is first and first._client is client
    assert client.with_raw_response.knowledge_bases is first.with_raw_response
    copy = client.with_options(max_retries=0)
    assert copy.knowledge_bases is not first and copy.knowledge_bases._client is copy
    assert copy.knowledge_bases.uploads._client is copy  # the sub-resources too
    assert copy.with_raw_response.knowledge_bases is copy.knowledge_bases.with_raw_response
    streaming = copy.with_streaming_response.knowledge_bases
    assert streaming is copy.knowledge_bases.with_streaming_response
    assert client.knowledge_bases is first and client.max_retries != copy.max_retries == 0
