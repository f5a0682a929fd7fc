"""The Jinja environment every renderer uses.

Templates are looked up first in a user directory (``--templates DIR``), then in the
built-in ``templates/`` (shipped inside the wheel as ``generator/templates``), through a
``ChoiceLoader``: a user overrides one file by dropping a file of the same name.

Spec text is untrusted. Templates never paste it raw into code: they use the filters
below, which turn any string into a safe Python literal, docstring or comment.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2


def builtin_templates() -> Path:
    """``generator/templates`` in a wheel; ``<repo>/templates`` in a source checkout."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "templates", here.parent / "templates"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("apismith templates directory not found")  # pragma: no cover


def py_literal(value: object) -> str:
    """A Python literal for a JSON value (``repr`` is exact and safe for str/int/float/bool/None,
    and for lists/dicts of them)."""
    return repr(value)


def py_docstring(text: str | None) -> str:
    """Text safe to place between triple double quotes."""
    if not text:
        return ""
    cleaned = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').strip()
    if cleaned.endswith('"'):
        cleaned += " "
    return cleaned


def py_comment(text: str | None) -> str:
    """One line of text safe inside a ``#`` comment."""
    return " ".join((text or "").split())


@lru_cache(maxsize=8)
def environment(user_dir: str | None = None) -> jinja2.Environment:
    loaders: list[jinja2.BaseLoader] = []
    if user_dir:
        loaders.append(jinja2.FileSystemLoader(user_dir))
    loaders.append(jinja2.FileSystemLoader(str(builtin_templates())))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["pyrepr"] = py_literal
    env.filters["docstring"] = py_docstring
    env.filters["comment"] = py_comment
    return env


def render(name: str, context: dict[str, object], user_dir: str | None = None) -> str:
    return environment(user_dir).get_template(name).render(**context)
