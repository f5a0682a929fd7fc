"""apismith's Swagger 2.0 load pass against swagger2openapi, the usual converter, as an
oracle (issue 24): each 2.0 spec is generated twice through the CLI, once as it is (the
load pass converts it) and once as swagger2openapi converts it to 3.0, and the two
packages are compared file by file.

    .venv/bin/python bench/swagger2_oracle.py SPEC_OR_FOLDER... [--harmonize] [--out FILE]

Node and ``tests/oracles`` (``npm ci --prefix tests/oracles``; ``make test`` does it) run
the converter. The comparison leaves out what must differ: ``MANIFEST.json``, and the
lines naming the spec's sha256 (the two inputs are different bytes). ``openapi.json`` is
compared as JSON, with swagger2openapi's shared ``components/requestBodies`` put back in
place and its ``examples: {response: {value: X}}`` read as ``example: X``. Every other
file must be byte for byte the same: a difference is listed, with its first lines.
``--harmonize`` first takes out of the spec the three differences the converters are
known to have (:func:`harmonized`), so that any other one shows.
Prints one line per spec and a summary; writes the rows as JSON.
"""

from __future__ import annotations

import argparse
import difflib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
ORACLE = REPO / "tests" / "oracles"
BIN = Path(sys.executable).parent


def harmonized(doc: Any) -> Any:
    """``doc`` with the three differences the two converters are known to have taken out,
    so that any other one shows:

    - no ``produces``: swagger2openapi answers ``*/*``, apismith JSON (what a schema'd
      answer of such a spec is in practice): ``produces: [application/json]`` is added;
    - no ``schemes``: swagger2openapi's server is ``//host`` (protocol-relative, which no
      HTTP client can call), apismith's ``https://host``: ``schemes: [https]`` is added;
    - a ``$ref`` with siblings: swagger2openapi drops them (a 3.0 ``$ref`` ignores its
      siblings), apismith keeps their text (a property's description): they are removed.
    """
    if not isinstance(doc, dict):
        return doc
    doc = dict(doc)
    doc.setdefault("produces", ["application/json"])
    if doc.get("host"):
        doc.setdefault("schemes", ["https"])

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        if isinstance(node.get("$ref"), str):
            return {"$ref": node["$ref"]}
        return {k: walk(v) for k, v in node.items()}

    return walk(doc)


def convert(source: Path, out: Path) -> None:
    """swagger2openapi's 3.0 form of the JSON document ``source``, written to ``out``."""
    if not (ORACLE / "node_modules" / "swagger2openapi").is_dir():
        sys.exit(f"swagger2openapi is not installed: npm ci --prefix {ORACLE}")
    done = subprocess.run(
        ["node", str(ORACLE / "swagger2openapi.js"), str(source)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if done.returncode != 0:
        raise RuntimeError(f"swagger2openapi failed on {source}: {done.stderr.strip()}")
    out.write_text(done.stdout, encoding="utf-8")


def generate(spec: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "apismith"), "generate", "--spec", str(spec), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


def _same_json(doc: Any) -> Any:
    """``openapi.json`` as the comparison reads it (see the module docstring)."""
    bodies = (doc.get("components") or {}).pop("requestBodies", {})
    if "components" in doc and not doc["components"]:
        del doc["components"]
    (doc.get("x-apismith") or {}).pop("spec_sha256", None)

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        target = node.get("$ref")
        if isinstance(target, str) and target.startswith("#/components/requestBodies/"):
            return walk(bodies[target.rsplit("/", 1)[1]])
        examples = node.get("examples")
        if isinstance(examples, dict) and list(examples) == ["response"]:
            value = examples["response"]
            if isinstance(value, dict) and list(value) == ["value"]:
                node = {k: v for k, v in node.items() if k != "examples"}
                node["example"] = value["value"]
        return {k: walk(v) for k, v in node.items()}

    return walk(doc)


def _lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [line for line in text.splitlines() if "sha256" not in line.lower()]


def compare(ours: Path, theirs: Path, context: int = 12) -> list[str]:
    """The differences between two generated packages (empty: the same), each file's as
    its first ``context`` diff lines."""
    found = []
    mine = {p.relative_to(ours).as_posix(): p for p in ours.rglob("*") if p.is_file()}
    other = {p.relative_to(theirs).as_posix(): p for p in theirs.rglob("*") if p.is_file()}
    for name in sorted(set(mine) | set(other)):
        if name == "MANIFEST.json" or "__pycache__" in name:
            continue
        if name not in mine or name not in other:
            found.append(f"{name}: only in {'ours' if name in mine else 'theirs'}")
            continue
        if name == "openapi.json":
            a = _same_json(json.loads(mine[name].read_text(encoding="utf-8")))
            b = _same_json(json.loads(other[name].read_text(encoding="utf-8")))
            left = json.dumps(a, indent=1, sort_keys=True).splitlines()
            right = json.dumps(b, indent=1, sort_keys=True).splitlines()
        else:
            left, right = _lines(mine[name]), _lines(other[name])
        if left != right:
            diff = difflib.unified_diff(left, right, f"ours/{name}", f"s2o/{name}", lineterm="")
            found.append("\n".join(list(diff)[: context + 2]))
    return found


def run_one(spec: Path, work: Path, harmonize: bool = False) -> dict[str, Any]:
    """Generate ``spec`` both ways in ``work`` and compare: a row. ``harmonize``: both
    from the document without the known differences (:func:`harmonized`)."""
    package = "pkg"
    doc = yaml.safe_load(spec.read_text(encoding="utf-8"))
    source = work / "source.json"
    text = json.dumps(harmonized(doc) if harmonize else doc, default=str)
    source.write_text(text, encoding="utf-8")
    converted = work / "s2o.json"
    convert(source, converted)
    ours = generate(source if harmonize else spec, work / "ours" / package)
    theirs = generate(converted, work / "s2o" / package)
    row: dict[str, Any] = {"spec": str(spec), "ours": ours.returncode, "s2o": theirs.returncode}
    if ours.returncode != 0 or theirs.returncode != 0:
        row["errors"] = [ours.stderr.strip()[-500:], theirs.stderr.strip()[-500:]]
        row["status"] = "not generated"
        return row
    row["differences"] = compare(work / "ours" / package, work / "s2o" / package)
    row["status"] = "same" if not row["differences"] else "different"
    return row


def specs_in(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.suffix in (".json", ".yaml", ".yml"))
        else:
            found.append(path)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "s2o.json")
    parser.add_argument(
        "--harmonize", action="store_true", help="take the known differences out first"
    )
    args = parser.parse_args()
    rows = []
    for spec in specs_in(args.paths):
        with tempfile.TemporaryDirectory(prefix="apismith-s2o-") as name:
            row = run_one(spec, Path(name), args.harmonize)
        rows.append(row)
        print(f"[{len(rows)}] {row['status']} {spec}", flush=True)
        for difference in row.get("differences", [])[:3]:
            print("    " + difference.replace("\n", "\n    "))
    args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    kinds = ("same", "different", "not generated")
    counts = {kind: sum(r["status"] == kind for r in rows) for kind in kinds}
    print(f"\n{len(rows)} specs: " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
