"""AWS-style fragment paths (``/#X-Amz-Target=...``): the generated client requests the
real path and sends what the fragment names, unasked: a header for ``X-`` names, else a
query parameter, over real HTTP to uvicorn on 127.0.0.1."""

from __future__ import annotations

import inspect
import json
from types import ModuleType

import pytest

from tests.client.support import Server
from tests.conftest import REPO_ROOT, describe, import_package, run_cli

SPEC = REPO_ROOT / "tests" / "golden" / "fragment-paths" / "spec.json"
PACKAGE = "h4_fragment_paths"


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    out = tmp_path_factory.mktemp("fragments") / PACKAGE
    proc = run_cli("generate", "--spec", SPEC, "--out", out, cwd=out.parent)
    assert proc.returncode == 0, describe(proc)
    return import_package(out, PACKAGE)


def operations(client: object) -> dict[str, object]:
    """The client's methods by operationId (their names are the naming rules' choice)."""
    found = {}
    for attr in dir(client):
        resource = getattr(client, attr)
        for name in dir(type(resource)):
            method = getattr(resource, name, None)
            doc = getattr(method, "__doc__", None) or ""
            if (
                callable(method)
                and not name.startswith("_")
                and doc.startswith(("POST /", "GET /"))
            ):
                found[f"{attr}.{name}"] = method
    return found


def test_the_header_the_fragment_names_is_sent_on_the_real_path(
    pkg: ModuleType, server: Server
) -> None:
    body = json.dumps({"TableNames": ["a"]}).encode()
    script = server.reset(lambda seen: (200, {"content-type": "application/json"}, body))
    client = pkg.H4FragmentPathsClient(base_url=server.url)
    targets = []
    for method in operations(client).values():
        script.seen.clear()
        wanted = inspect.signature(method).parameters  # type: ignore[arg-type]
        method(**({"TableName": "t"} if "TableName" in wanted else {}))  # type: ignore[operator]
        seen = script.seen[-1]
        assert seen.path == "/" and "#" not in seen.path
        targets.append((seen.method, seen.headers.get("x-amz-target"), sorted(seen.query)))
    assert sorted(targets, key=str) == sorted(
        [
            ("POST", "DynamoDB_20120810.ListTables", []),
            ("POST", "DynamoDB_20120810.DescribeTable", []),
            ("GET", None, [("Action", "ListUsers"), ("Version", "2010-05-08")]),
        ],
        key=str,
    )
