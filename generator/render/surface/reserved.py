"""The names the generated client classes own, read from their source at generation time:
a resource attribute or a method of one of these names would shadow them.

- :func:`client_names`: the client classes' (``SgpClient``, ``AsyncSgpClient`` and their
  ``with_raw_response`` / ``with_streaming_response`` views): every method and attribute
  of the runtime's base clients (``templates/runtime/_base_client.py``:
  ``SyncAPIClient``, ``AsyncAPIClient`` and their bases, ``base_url``, ``timeout``,
  ``strict_response_validation``, ``close``, ``_http``...), and what the client template
  defines or names in its class bodies (``with_options``, ``with_raw_response``, the
  ``cached_property`` decorator, the ``str`` and ``httpx`` of its signatures);
- :func:`resource_names`: a resource class's (``XResource`` and its variants), from the
  resource template (``with_raw_response``, ``with_streaming_response``, ``_client``, the
  ``overload`` decorator), and ``builtins``, which qualifies ``list`` in its signatures.

The source is scanned, once a process, not imported (the runtime's relative imports need
its package) nor parsed (``ast`` took about 5 ms on the runtime, the scan about 1 ms; the
templates are not Python): a ``def``, an assignment to ``self.<name>``, a class attribute
(at the class body's indentation), a decorator, and the lower-case names of the
annotations of signatures. Anything else the scan picks up only reserves a name too many.
``tests/test_names_round3.py`` checks the result against ``dir()`` of generated clients
and resources.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from generator.normalize.naming import NAME_LIMIT, capped, unique_names
from generator.render.surface.methods import LIST_NAME
from generator.tree import builtin_templates

HTTP_MODULE = "httpx"  # the client's signatures take ``httpx.Client`` / ``httpx.AsyncClient``
CLIENT_BASES = ("SyncAPIClient", "AsyncAPIClient")  # what the client template extends

_CLASS = re.compile(r"^class (\w+)(?:\(([\w, ]*)\))?:", re.MULTILINE)
_DEF = re.compile(r"[ \t]+(?:async[ \t]+)?def[ \t]+(\w+)")
_SELF = re.compile(r"\bself\.(\w+)[ \t]*(?::[^=]*)?=(?!=)")
_CLASS_ATTR = re.compile(r"    (\w+(?:[ \t]*,[ \t]*\w+)*)[ \t]*(?::|=(?!=))")
_DECORATOR = re.compile(r"[ \t]+@(\w+)")
# where an annotation starts in a line: after a parameter's or variable's name, or an arrow
_ANNOTATION = re.compile(r"(?:(?:^|[(,])[ \t]*\**\w+[ \t]*:(?!=)|->)[ \t]*")
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
_STRING = re.compile(r'""".*?"""|"[^"\n]*"|\'[^\'\n]*\'', re.DOTALL)
_COMMENT = re.compile(r"#[^\n]*")
_LOWER_NAME = re.compile(r"\b[a-z_]\w*")
# a variable annotated in a function body (``headers: dict[str, str] = {}``): not evaluated
# in the class body, where a parameter's annotation is (mypy resolves it there)
_LOCAL_VARIABLE = re.compile(r" {8,}\w+[ \t]*:(?!=).*[^,(:\s][ \t]*$")


def defined_names(source: str) -> set[str]:
    """The names ``source`` (Python or a template of it) defines or evaluates in its class
    bodies: methods, ``self.<name>`` and class attributes, decorators, and the lower-case
    names of the annotations of signatures and class attributes (module-level ones come
    along: a name too many is harmless). Line by line (strings, comments and Jinja tags
    taken out first), each pattern only where its text can be."""
    found: set[str] = set()
    for line in _COMMENT.sub("", _STRING.sub('""', _JINJA.sub("", source))).splitlines():
        found |= _line_names(line)
    return found - {"self"}


def _line_names(line: str) -> set[str]:
    """What :func:`defined_names` finds in one line."""
    found: set[str] = set()
    if "def" in line and (m := _DEF.match(line)):
        found.add(m.group(1))
    if "self." in line:
        found.update(_SELF.findall(line))
    if "@" in line and (m := _DECORATOR.match(line)):
        found.add(m.group(1))
    if line[4:5].isidentifier() and (m := _CLASS_ATTR.match(line)):
        found.update(name.strip() for name in m.group(1).split(","))
    if (":" in line or "->" in line) and not _LOCAL_VARIABLE.match(line):
        for start in _ANNOTATION.finditer(line):
            found.update(_LOWER_NAME.findall(_annotation_at(line, start.end())))
    return found


def _annotation_at(line: str, start: int) -> str:
    """The annotation that starts at ``start``: up to a ``,``, ``)``, ``=`` or ``:`` outside
    brackets, or the end of the line."""
    depth = 0
    for i in range(start, len(line)):
        char = line[i]
        if char in "[(":
            depth += 1
        elif char == "]" or (char == ")" and depth):
            depth -= 1
        elif depth == 0 and char in ",)=:":
            return line[start:i]
    return line[start:]


def _class_bodies(source: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Class name -> (its text, its bases) of every top-level class of ``source``."""
    heads = list(_CLASS.finditer(source))
    out = {}
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(source)
        bases = tuple(b.strip() for b in (head.group(2) or "").split(",") if b.strip())
        out[head.group(1)] = (source[head.start() : end], bases)
    return out


def runtime_client_names(source: str, classes: tuple[str, ...] = CLIENT_BASES) -> set[str]:
    """The names the runtime's ``classes`` (and their bases in ``source``) define."""
    bodies = _class_bodies(source)
    found: set[str] = set()
    todo, seen = list(classes), set()
    while todo:
        name = todo.pop()
        if name in seen or name not in bodies:
            continue
        seen.add(name)
        text, bases = bodies[name]
        found |= defined_names(text)
        todo.extend(bases)
    return found


def _read(*parts: str) -> str:
    return Path(builtin_templates(), *parts).read_text(encoding="utf-8")


@cache
def client_names() -> frozenset[str]:
    """Every name a client class (or its raw and streaming views) owns: see the module
    docstring."""
    runtime = runtime_client_names(_read("runtime", "_base_client.py"))
    template = defined_names(_read("client", "_client.py.jinja"))
    return frozenset(runtime | template | {HTTP_MODULE})


@cache
def resource_names() -> frozenset[str]:
    """Every name a resource class (or its raw and streaming variants) owns."""
    template = defined_names(_read("client", "resource.py.jinja"))
    return frozenset(template | {LIST_NAME.partition(".")[0]})


# --- resource attributes free of them -------------------------------------------------------

AttrPath = tuple[str, ...]  # a resource's attributes, from the client down


def owned_note(name: str, owner: str) -> str:
    """Why ``name`` was renamed: ``"timeout is the client's own"``."""
    return f"{name} is {owner}'s own"


def free_name(name: str, reserved: frozenset[str]) -> str:
    """``name`` with ``_`` appended while the class owns it, capped at ``NAME_LIMIT``."""
    while name in reserved:
        name += "_"
    return capped(name)


def _settled_children(parent: AttrPath, names: list[str]) -> dict[str, str]:
    """The attributes of one resource's children (the client's, for ``()``): each free
    (:func:`free_name`); a renamed one yields to those that keep their name, then is
    numbered."""
    reserved = resource_names() if parent else client_names()
    wanted = {name: free_name(name, reserved) for name in names}
    order = {name: (wanted[name] != name, i) for i, name in enumerate(names)}
    return unique_names(
        wanted, order.__getitem__, lambda name, n: capped(f"{name.rstrip('_')}_{n}")
    )


def _note(raw: str, settled: str, parent: AttrPath) -> str:
    if raw in (resource_names() if parent else client_names()):
        return owned_note(raw, "every resource" if parent else "the client")
    if len(raw) > NAME_LIMIT:
        return f"{raw[:20]}... is over {NAME_LIMIT} characters"
    return f"{settled.rstrip('_0123456789')} is taken"


def settled_paths(paths: Sequence[AttrPath]) -> dict[AttrPath, tuple[AttrPath, tuple[str, ...]]]:
    """Each resource path (the rules' attributes) -> the path with every attribute free of
    what its class owns and capped, deterministic and as distinct as the paths, and a note
    per renamed attribute."""
    children: dict[AttrPath, list[str]] = {}
    for path in paths:
        for i in range(len(path)):
            siblings = children.setdefault(path[:i], [])
            if path[i] not in siblings:
                siblings.append(path[i])
    attrs = {parent: _settled_children(parent, names) for parent, names in children.items()}
    out = {}
    for path in paths:
        settled = tuple(attrs[path[:i]][raw] for i, raw in enumerate(path))
        notes = tuple(
            _note(raw, settled[i], path[:i]) for i, raw in enumerate(path) if settled[i] != raw
        )
        out[path] = (settled, notes)
    return out
