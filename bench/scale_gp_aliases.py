"""scale-gp's names for our response types: the ``[models.aliases]`` table of
``specs/sgp.toml`` (issue 25, "return types keep scale-gp's class names").

    PYTHONPATH=generated ~/.cache/apismith-scale-gp/venv-*/bin/python \\
        bench/scale_gp_aliases.py [--toml]

Needs an interpreter with both ``scale-gp`` (read, never called) and our ``sgp`` package
(``bench/scale_gp_suite.py`` makes such a venv). It walks scale-gp's sync resource tree
(``bench/scale_gp_names.py``), and for every method reads the return annotation from its
source. The same dotted name on our ``SgpClient`` (the resource map gives both clients
the same names) gives our method's return annotation. Where both are one class
(``-> ApplicationDeployment`` beside ``-> _m.ApplicationDeploymentResponse``), or both a
page of one class (``SyncPageResponse[X]`` beside ``SyncPage[_m.Y]``), the two names are
the same schema of the same operation: scale-gp's is a candidate alias of ours.

A candidate is kept only if it is unambiguous and adds a name:

- every method that returns scale-gp's type returns the same type of ours;
- scale-gp's name means one class of ``scale_gp.types`` (a bare name is all the suite's
  look-up has), and ours is a model class (not ``Any``);
- our models do not already define that name (then the suite checks it by name anyway).

It prints the kept pairs (``--toml``: as the table to paste), then the rejected ones with
why.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import re
import sys
import textwrap
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale_gp_names import SKIP

PAGE = re.compile(r"^\w*Page\w*\[(\w+)\]$")
ONE = re.compile(r"^(\w+)$")


def _shape(annotation: str) -> tuple[str, str] | None:
    """("one", Name) or ("page", Item) for a return annotation, else None."""
    text = annotation.replace("_m.", "").replace(" ", "").replace("\n", "")
    if match := PAGE.match(text):
        return "page", match.group(1)
    if match := ONE.match(text):
        return "one", match.group(1)
    return None


def _returns(cls: type) -> dict[str, str]:
    """Method name -> its return annotation's source, for a class's public methods."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    out: dict[str, str] = {}
    for node in tree.body[0].body:  # type: ignore[attr-defined]
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and node.returns:
            out[node.name] = ast.unparse(node.returns)
    return out


def _walk(root: object, base: type) -> dict[str, tuple[str, str]]:
    """Dotted method name -> (return annotation, the resource's module), over a client's
    sync resource tree."""
    out: dict[str, tuple[str, str]] = {}
    pending: list[tuple[str, object]] = [("", root)]
    while pending:
        dotted, resource = pending.pop()
        if dotted:
            for name, ann in _returns(type(resource)).items():
                out[f"{dotted}.{name}"] = ann, type(resource).__module__
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
            if isinstance(value, base):
                pending.append((f"{dotted}.{name}".lstrip("."), value))
    return out


def _defined(name: str, modules: set[str]) -> set[object]:
    """The objects ``name`` means in the resource modules that return it."""
    return {vars(sys.modules[m]).get(name) for m in modules} - {None}


def derive() -> tuple[dict[str, str], list[str]]:
    """(scale-gp name -> our name, kept), and the rejected candidates with why."""
    import sgp.models
    from scale_gp import SGPClient
    from scale_gp._resource import SyncAPIResource
    from sgp import SgpClient

    theirs = _walk(SGPClient(api_key="-", base_url="http://localhost"), SyncAPIResource)
    ours_root = SgpClient(api_key="-", base_url="http://localhost")
    ours: dict[str, str] = {}
    for dotted in theirs:
        target: Any = ours_root
        for part in dotted.split("."):
            target = getattr(target, part, None)
        if callable(target):
            ours[dotted] = str(inspect.signature(target).return_annotation)
    pairs: dict[str, set[str]] = defaultdict(set)
    modules: dict[str, set[str]] = defaultdict(set)
    for dotted, (ann, module) in theirs.items():
        a, b = _shape(ann), _shape(ours.get(dotted, ""))
        if a and b and a[0] == b[0] and a[1] != b[1]:
            pairs[a[1]].add(b[1])
            modules[a[1]].add(module)
    kept: dict[str, str] = {}
    rejected: list[str] = []
    for name, targets in sorted(pairs.items()):
        if len(targets) > 1:
            rejected.append(f"{name}: several of ours ({', '.join(sorted(targets))})")
        elif len(meant := _defined(name, modules[name])) != 1:
            rejected.append(f"{name}: names {len(meant)} different scale-gp types")
        elif getattr(next(iter(meant)), "__name__", None) != name:
            rejected.append(f"{name}: not a class of scale_gp.types")
        elif not hasattr(getattr(sgp.models, next(iter(targets)), None), "model_fields"):
            rejected.append(f"{name}: ours ({next(iter(targets))}) is not a model class")
        elif hasattr(sgp.models, name):
            rejected.append(f"{name}: our models already define it")
        else:
            kept[name] = next(iter(targets))
    return kept, rejected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--toml", action="store_true", help="print the table to paste")
    args = parser.parse_args(argv)
    kept, rejected = derive()
    if args.toml:
        print("[models.aliases]")
    for name, ours in kept.items():
        print(f'{name} = "{ours}"' if args.toml else f"{name} -> {ours}")
    print(f"# {len(kept)} kept; {len(rejected)} rejected:")
    for line in rejected:
        print(f"#   {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
