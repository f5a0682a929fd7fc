"""scale-gp's names for SGP's operations, beside our spec's (issue 13, "A resource map").

    /tmp/sdkvenv/bin/python bench/scale_gp_names.py --spec specs/sgp/openapi.json \\
        [--json tests/data/scale_gp_names.json] [--ours ours.json]

    # ours.json, our client's names (apismith's venv; scale-gp is not needed for this):
    .venv/bin/python bench/scale_gp_names.py --dump-ours specs/sgp.toml > ours.json

Needs only the standard library and an installed ``scale-gp`` (Stainless-generated; read,
never called). It walks the resource tree of ``SGPClient`` (the ``cached_property``
attributes of the client and of each resource, sync classes only), reads the source of
every public method with :mod:`ast` and takes the request it makes:
``self._get/_post/_patch/_put/_delete(path, ...)`` or ``self._get_api_list(path, ...,
method=...)``, where ``path`` is a string, an f-string (``f"/v4/x/{x_id}"``) or
``path_template("/v4/x/{x_id}", ...)``. Paths are compared with every ``{...}`` replaced
by ``{}`` (the two clients name the parameters differently).

It prints, for every (HTTP method, path template) of scale-gp, its dotted name, then:

(a) the ``[client.methods]`` entries that give our operations scale-gp's names (with
    ``--ours``, only those whose name differs, keyed by the Python name);
(b) the operations scale-gp has that our spec lacks;
(c) the operations our spec has that scale-gp lacks.

``--json`` writes the scale-gp pairs as a list of {"method", "path", "name"}, sorted (the
data of ``tests/test_resource_map.py``).
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

VERBS = {"_get": "get", "_post": "post", "_patch": "patch", "_put": "put", "_delete": "delete"}
HTTP = ("get", "put", "post", "patch", "delete")
SKIP = {"with_raw_response", "with_streaming_response"}
PARAM = re.compile(r"\{[^}]*\}")


def shape(path: str) -> str:
    """A path template with its parameter names dropped."""
    return PARAM.sub("{}", path.rstrip("/") or "/")


def _path_of(node: ast.expr) -> str | None:
    """The path template of a request's first argument, or None if it is computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                parts.append("{" + ast.unparse(value.value) + "}")
        return "".join(parts)
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name == "path_template":
            return _path_of(node.args[0])
    return None


def _requests(func: ast.AST) -> Iterator[tuple[str, str]]:
    """(HTTP method, path) of every request call in a method's body."""
    for node in ast.walk(func):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner, attr = node.func.value, node.func.attr
        if not (isinstance(owner, ast.Name) and owner.id == "self") or not node.args:
            continue
        if attr in VERBS:
            method = VERBS[attr]
        elif attr == "_get_api_list":
            method = "get"
            for kw in node.keywords:
                if kw.arg == "method" and isinstance(kw.value, ast.Constant):
                    method = str(kw.value.value).lower()
        else:
            continue
        path = _path_of(node.args[0])
        if path is not None:
            yield method, path


def _methods(cls: type) -> Iterator[tuple[str, str, str]]:
    """(name, HTTP method, path) of every public method of a resource class."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    seen: set[tuple[str, str, str]] = set()
    for node in tree.body[0].body:  # type: ignore[attr-defined]
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            for method, path in _requests(node):
                if (node.name, method, path) not in seen:
                    seen.add((node.name, method, path))
                    yield node.name, method, path


def _children(resource: object, resource_type: type) -> Iterator[tuple[str, object]]:
    """The sub-resources of a resource (or of the client): its cached properties."""
    for name in sorted(vars(type(resource))):
        if name.startswith("_") or name in SKIP:
            continue
        attr = inspect.getattr_static(resource, name)
        if not hasattr(attr, "__get__") or inspect.isfunction(attr):
            continue
        try:
            value = getattr(resource, name)
        except Exception:  # a property of the client that needs more setup
            continue
        if isinstance(value, resource_type):
            yield name, value


def scale_gp_names() -> list[dict[str, str]]:
    """Every request of scale-gp's sync client as {"method", "path", "name"}, sorted."""
    from scale_gp import SGPClient
    from scale_gp._resource import SyncAPIResource

    client = SGPClient(api_key="-", base_url="http://localhost")
    out: list[dict[str, str]] = []
    pending: list[tuple[str, object]] = list(_children(client, SyncAPIResource))
    while pending:
        dotted, resource = pending.pop()
        for name, method, path in _methods(type(resource)):
            out.append({"method": method, "path": path, "name": f"{dotted}.{name}"})
        for child, value in _children(resource, SyncAPIResource):
            pending.append((f"{dotted}.{child}", value))
    return sorted(out, key=lambda e: (e["path"], e["method"], e["name"]))


def spec_operations(spec: dict[str, Any]) -> dict[tuple[str, str], tuple[str, str]]:
    """(method, shape) -> (path, operationId) of every operation of an OpenAPI document."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for path, item in (spec.get("paths") or {}).items():
        for method in HTTP:
            op = (item or {}).get(method)
            if isinstance(op, dict):
                out[method, shape(path)] = (path, str(op.get("operationId") or ""))
    return out


def report(
    names: list[dict[str, str]],
    ops: dict[tuple[str, str], tuple[str, str]],
    ours: dict[str, dict[str, str]],
) -> list[str]:
    """The printed report: the scale-gp names, then (a), (b) and (c)."""
    lines = [f"# scale-gp: {len(names)} requests"]
    lines += [f"{e['method'].upper():6} {e['path']}  {e['name']}" for e in names]
    theirs: dict[tuple[str, str], list[str]] = {}
    for e in names:
        theirs.setdefault((e["method"], shape(e["path"])), []).append(e["name"])
    both = sorted(key for key in theirs if key in ops)
    lines += ["", f"# (a) [client.methods] entries ({len(both)} operations in both)"]
    lines.append("[client.methods]")
    for key in both:
        path, op_id = ops[key]
        wanted = theirs[key][0]
        extra = f"  # also {', '.join(theirs[key][1:])}" if len(theirs[key]) > 1 else ""
        mine = ours.get(op_id, {})
        if mine.get("name") == wanted:
            continue
        entry = mine.get("python_name") or f'"{op_id}"'
        lines.append(f'{entry} = "{wanted}"{extra}  # {key[0].upper()} {path}')
    missing = sorted(key for key in theirs if key not in ops)
    lines += ["", f"# (b) scale-gp has, our spec lacks: {len(missing)}"]
    lines += [f"{m.upper():6} {p}  {', '.join(theirs[m, p])}" for m, p in missing]
    only = sorted(key for key in ops if key not in theirs)
    lines += ["", f"# (c) our spec has, scale-gp lacks: {len(only)}"]
    lines += [f"{m.upper():6} {ops[m, p][0]}  {ops[m, p][1]}" for m, p in only]
    if ours:
        same = sum(ours.get(ops[key][1], {}).get("name") in theirs[key] for key in both)
        lines += ["", f"# same dotted name: {same} / {len(both)}"]
    return lines


def our_names(config_path: Path) -> dict[str, dict[str, str]]:
    """operationId -> {"python_name", "name"} of our client for an API config (needs
    apismith: run with its venv, from anywhere)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from generator.config import load_config
    from generator.pipeline import build_api, load_and_normalize
    from generator.render.surface.resources import resource_map

    config = load_config(config_path)
    _doc, normalized = load_and_normalize(config)
    api, settings = build_api(config, normalized.spec)
    return {
        n.op.operation_id or n.op.python_name: {"python_name": n.op.python_name, "name": n.dotted}
        for n in resource_map(api, settings)
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", type=Path, help="our OpenAPI document (JSON)")
    parser.add_argument("--json", type=Path, help="write the scale-gp pairs here")
    parser.add_argument("--ours", type=Path, help="our names (what --dump-ours prints)")
    parser.add_argument("--dump-ours", type=Path, metavar="CONFIG", help="print our names")
    args = parser.parse_args(argv)
    if args.dump_ours:
        print(json.dumps(our_names(args.dump_ours.resolve()), indent=1, sort_keys=True))
        return 0
    if args.spec is None:
        parser.error("--spec is required (or --dump-ours CONFIG)")
    names = scale_gp_names()
    ops = spec_operations(json.loads(args.spec.read_text(encoding="utf-8")))
    ours = json.loads(args.ours.read_text(encoding="utf-8")) if args.ours else {}
    print("\n".join(report(names, ops, ours)))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(names, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
