"""The generated Python packages of two versions compared with griffe: what code written
against the old package meets in the new one (the ``python`` side of a diff).

Both packages are read statically (``griffe.load``; nothing is imported). The surface
compared is what users call and read: the public classes and type aliases of ``models``
with the fields of each class, and the resource classes of ``resources/`` with their
methods. The async twin of each resource (``Async<Name>``) and the ``with_raw_response``
and ``with_streaming_response`` wrappers mirror the sync resource, so they are left out.

What breaks comes from ``griffe.find_breaking_changes`` (kept where it falls on that
surface); what was added, and the annotations that changed, from griffe's object tree. A
method whose keyword parameters are also offered as ``@overload`` signatures (a request
body's fields, or the body whole) has them required in an overload only, so the overloads
count too: a parameter required in one of them is required. Locations are dotted paths
inside the package: ``models.Thing.owner``, ``resources.things.ThingsResource.create(name)``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from generator.diff.change import Change
from generator.diff.rules import change

if TYPE_CHECKING:
    import griffe

_WRAPPERS = ("WithRawResponse", "WithStreamingResponse")
_SKIPPED_METHODS = frozenset({"with_raw_response", "with_streaming_response"})
# the client's "not given" marker and its alias of the models module, as annotations spell
# them: noise when comparing types
_NOT_GIVEN = re.compile(r"\s*\|\s*NotGiven\b|\bNotGiven\s*\|\s*")
_MODELS_ALIAS = re.compile(r"\b_m\.")
_ALIASED = re.compile(r"^TypeAliasType\('[^']*', (.*)\)$", re.DOTALL)  # its type, shown
_PARAMETER_RULES = {
    "PARAMETER_REMOVED": ("python-parameter-removed", "parameter removed"),
    "PARAMETER_CHANGED_REQUIRED": ("python-parameter-became-required", "parameter became required"),
    "PARAMETER_ADDED_REQUIRED": ("python-parameter-added-required", "new required parameter"),
    "PARAMETER_MOVED": ("python-parameter-moved", "parameter moved"),
    "PARAMETER_CHANGED_KIND": ("python-parameter-kind-changed", "parameter kind changed"),
    "PARAMETER_CHANGED_DEFAULT": ("python-parameter-default-changed", "default changed"),
}

Surface = dict[str, "griffe.Object"]


def package_changes(old_root: Path, new_root: Path, package: str) -> list[Change]:
    """The changes from the package ``package`` under ``old_root`` to the one under
    ``new_root``."""
    import griffe

    old, new = load(package, old_root), load(package, new_root)
    before, after = surface(old), surface(new)
    found: list[Change] = []
    for breakage in griffe.find_breaking_changes(old, new):
        found += from_breakage(breakage, before, after)
    found += added(before, after)
    for path, obj in before.items():
        other = after.get(path)
        if other is not None:
            found += signature_changes(path, obj, other)
    return renamed(unique(found), before, after)


def load(package: str, root: Path) -> griffe.Module:
    """The package ``package`` under ``root``, read statically."""
    import griffe

    logger = logging.getLogger("griffe")
    level = logger.level
    logger.setLevel(logging.ERROR)  # an unresolved import is no news here
    try:
        module = griffe.load(
            package, search_paths=[root], resolve_aliases=False, allow_inspection=False
        )
    finally:
        logger.setLevel(level)
    assert isinstance(module, griffe.Module)
    return module


def _relative(obj: griffe.Object | griffe.Alias) -> str:
    """``obj``'s dotted path inside its package."""
    return obj.path.split(".", 1)[1] if "." in obj.path else obj.path


def members(obj: griffe.Object) -> list[griffe.Object]:
    """The public members ``obj`` defines (not the names it imports), in order."""
    import griffe

    return [m for m in obj.members.values() if isinstance(m, griffe.Object) and m.is_public]


def surface(package: griffe.Module) -> Surface:
    """The objects compared, by path inside the package (see the module docstring)."""
    import griffe

    found: Surface = {}
    models = package.members.get("models")
    if isinstance(models, griffe.Module):
        for member in members(models):
            found[_relative(member)] = member
            if member.is_class:
                for attribute in members(member):
                    if attribute.is_attribute and attribute.name != "model_config":
                        found[_relative(attribute)] = attribute
    resources = package.members.get("resources")
    if isinstance(resources, griffe.Module):
        for module in members(resources):
            if module.is_module:
                _resources(module, found)
    return found


def _resources(module: griffe.Object, found: Surface) -> None:
    found[_relative(module)] = module
    classes = {m.name: m for m in members(module) if m.is_class}
    for name, cls in classes.items():
        if name.endswith(_WRAPPERS) or (name.startswith("Async") and name[5:] in classes):
            continue
        found[_relative(cls)] = cls
        for method in members(cls):
            if method.is_function and not method.name.startswith("__"):
                if method.name not in _SKIPPED_METHODS:
                    found[_relative(method)] = method
    for sub in members(module):
        if sub.is_module:
            _resources(sub, found)


def _what(path: str, obj: griffe.Object) -> tuple[str, str]:
    """(rule family, what to call it) of a surface object: ``("method", "method")``..."""
    if path.startswith("resources."):
        if obj.is_function:
            return "method", "method"
        return "resource", "resource module" if obj.is_module else "resource"
    if path.count(".") == 1:
        return "model", "model" if obj.is_class else "type alias"
    return "field", "field"


def from_breakage(b: griffe.Breakage, before: Surface, after: Surface) -> list[Change]:
    """The change a griffe breakage is, when it falls on the surface."""
    kind, path = b.kind.name, _relative(b.obj)
    if kind == "OBJECT_REMOVED":
        if path not in before:
            return []
        family, name = _what(path, before[path])
        return [change(f"python-{family}-removed", path, f"{name} removed")]
    if path not in before and path not in after:
        return []
    if kind in _PARAMETER_RULES:
        rule, message = _PARAMETER_RULES[kind]
        param = b.new_value if kind == "PARAMETER_ADDED_REQUIRED" else b.old_value
        return [change(rule, f"{path}({param.name})", message + _detail(b))]
    if kind == "RETURN_CHANGED_TYPE":
        message = f"return annotation {_spelled(b.old_value)} -> {_spelled(b.new_value)}"
        return [change("python-return-type-changed", path, message)]
    if kind == "OBJECT_CHANGED_KIND":
        was, now = (_kind(path, k.value) for k in (b.old_value, b.new_value))
        return [change("python-object-kind-changed", path, f"{was} -> {now}")]
    if kind == "CLASS_REMOVED_BASE":
        message = f"bases {_bases(b.old_value)} -> {_bases(b.new_value)}"
        return [change("python-base-removed", path, message)]
    message = f"{_spelled(b.old_value)} -> {_spelled(b.new_value)}"
    return [change("python-field-type-changed", path, message)]  # ATTRIBUTE_CHANGED_*


def _kind(path: str, kind: str) -> str:
    """A griffe kind as users know it: a module-level attribute of ``models`` is a type
    alias."""
    return "type alias" if kind == "attribute" and path.count(".") == 1 else kind


def _detail(b: griffe.Breakage) -> str:
    if b.kind.name == "PARAMETER_MOVED":
        return f" ({b.details})" if b.details else ""
    if b.kind.name == "PARAMETER_CHANGED_KIND":
        return f": {b.old_value.kind.value} -> {b.new_value.kind.value}"
    if b.kind.name == "PARAMETER_CHANGED_DEFAULT":
        return f": {b.old_value.default} -> {b.new_value.default}"
    return ""


def _spelled(value: object) -> str:
    """An annotation or value as source spells it, without the client's noise."""
    if value is None:
        return "nothing"
    return _MODELS_ALIAS.sub("", _NOT_GIVEN.sub("", str(value)))


def _bases(bases: Iterable[object]) -> str:
    return "(" + ", ".join(str(b) for b in bases) + ")"


def added(before: Surface, after: Surface) -> list[Change]:
    """What the new surface has and the old one has not (once: not inside what is new)."""
    found = []
    for path, obj in after.items():
        parent = path.rsplit(".", 1)[0]
        if path in before or (parent in after and parent not in before):
            continue
        family, name = _what(path, obj)
        found.append(change(f"python-{family}-added", path, f"{name} added"))
    return found


def signature_changes(path: str, old: griffe.Object, new: griffe.Object) -> list[Change]:
    """What griffe's breakages leave out of one object in both versions: parameters added
    or required in an overload, annotations of parameters, returns and fields, and the
    value of a type alias."""
    import griffe

    if isinstance(old, griffe.Function) and isinstance(new, griffe.Function):
        return _parameters(path, old, new)
    if isinstance(old, griffe.Attribute) and isinstance(new, griffe.Attribute):
        if path.count(".") == 1:  # a type alias: ``Color = TypeAliasType(...)``
            was, now = (_ALIASED.sub(r"\1", _spelled(a.value)) for a in (old, new))
            rule = "python-alias-changed"
        else:
            was, now = _spelled(old.annotation), _spelled(new.annotation)
            rule = "python-field-type-changed"
            if core_type(was) == core_type(now):  # only a description or constraint
                return []
        return [change(rule, path, f"{was} -> {now}")] if was != now else []
    return []


def core_type(annotation: str) -> str:
    """An annotation without ``Annotated[...]``'s metadata (a ``Field`` with a description,
    a constraint, a JSON schema note): what a reader's type checker sees. The spec side
    reports constraint changes; a new description is no change of type."""
    import ast

    try:
        tree = ast.parse(annotation, mode="eval")
    except SyntaxError:
        return annotation

    class _Strip(ast.NodeTransformer):
        def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
            self.generic_visit(node)
            name = node.value
            named = isinstance(name, ast.Name) and name.id == "Annotated"
            if named and isinstance(node.slice, ast.Tuple) and node.slice.elts:
                return node.slice.elts[0]
            return node

    return ast.unparse(_Strip().visit(tree))


def _signatures(fn: griffe.Function) -> list[griffe.Function]:
    return [fn, *(fn.overloads or [])]


def _names(fn: griffe.Function) -> list[str]:
    """Every parameter name of ``fn`` and its overloads (``self`` aside), in order."""
    found = [p.name for f in _signatures(fn) for p in f.parameters if p.name != "self"]
    return list(dict.fromkeys(found))


def _required(fn: griffe.Function) -> set[str]:
    """The parameters that ``fn``, or one of its overloads, requires."""
    return {p.name for f in _signatures(fn) for p in f.parameters if p.required} - {"self"}


def _parameters(path: str, old: griffe.Function, new: griffe.Function) -> list[Change]:
    found = []
    before, after = _names(old), _names(new)
    old_required, new_required = _required(old), _required(new)
    for name in after:
        at = f"{path}({name})"
        if name not in before:
            if name in new_required:
                found.append(
                    change("python-parameter-added-required", at, "new required parameter")
                )
            else:
                found.append(change("python-parameter-added", at, "new optional parameter"))
        elif name in new_required and name not in old_required:
            found.append(
                change("python-parameter-became-required", at, "parameter became required")
            )
    old_params = {p.name: p for p in old.parameters}
    for param in new.parameters:
        was = old_params.get(param.name)
        if was is not None and _spelled(was.annotation) != _spelled(param.annotation):
            message = f"annotation {_spelled(was.annotation)} -> {_spelled(param.annotation)}"
            found.append(change("python-parameter-type-changed", f"{path}({param.name})", message))
    if _spelled(old.returns) != _spelled(new.returns):
        message = f"return annotation {_spelled(old.returns)} -> {_spelled(new.returns)}"
        found.append(change("python-return-type-changed", path, message))
    return found


def unique(changes: list[Change]) -> list[Change]:
    """One change per rule and location (griffe's and the tree's may both see it)."""
    seen: dict[tuple[str, str], Change] = {}
    for c in changes:
        seen.setdefault((c.rule, c.location), c)
    return list(seen.values())


def renamed(changes: list[Change], before: Surface, after: Surface) -> list[Change]:
    """A method that lost one parameter and gained one at the same place: a rename."""
    removed: dict[str, list[Change]] = {}
    gained: dict[str, list[Change]] = {}
    for c in changes:
        method = c.location.partition("(")[0]
        if c.rule == "python-parameter-removed":
            removed.setdefault(method, []).append(c)
        elif c.rule in ("python-parameter-added", "python-parameter-added-required"):
            gained.setdefault(method, []).append(c)
    dropped: set[Change] = set()
    found = []
    for method, lost in removed.items():
        new = gained.get(method, [])
        if len(lost) != 1 or len(new) != 1:
            continue
        old_name, new_name = _parameter_of(lost[0]), _parameter_of(new[0])
        at = _position(before.get(method), old_name)
        if at is None or at != _position(after.get(method), new_name):
            continue
        dropped.update((lost[0], new[0]))
        message = f"parameter {old_name} renamed {new_name}"
        found.append(change("python-parameter-renamed", new[0].location, message))
    return [c for c in changes if c not in dropped] + found


def _parameter_of(c: Change) -> str:
    return c.location.rpartition("(")[2].rstrip(")")


def _position(fn: griffe.Object | None, name: str) -> int | None:
    import griffe

    if not isinstance(fn, griffe.Function):
        return None
    names = _names(fn)
    return names.index(name) if name in names else None
