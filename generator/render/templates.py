"""The Jinja environment every renderer uses.

Templates are looked up first in a user directory (``--templates DIR``), then in the
built-in ``templates/`` (shipped inside the wheel as ``generator/templates``), through a
``ChoiceLoader``: a user overrides one file by dropping a file of the same name.

Spec text is untrusted. Templates never paste it raw into code: they use the filters
below, which turn any string into a safe Python literal, docstring or comment.

Template overrides are untrusted too (a cloned repository's ``templates``): every template
renders in Jinja's ``SandboxedEnvironment`` (no ``__globals__``, no ``os``, no private
attributes), and an override is read only if its real path is inside its folder (no
symlink to a file elsewhere).
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import jinja2
import jinja2.bccache
import jinja2.sandbox

from generator.errors import ApismithError
from generator.tree import builtin_templates, tree_files


def py_literal(value: object) -> str:
    """A Python literal for a JSON value (``repr`` is exact and safe for str/int/float/bool/None,
    and for lists/dicts of them)."""
    return repr(value)


def py_docstring(text: str | None) -> str:
    """Text safe to place between triple double quotes, that black and ruff format both leave
    as it is: line breaks become ``\\n``; tabs, other control characters, the Unicode line
    and paragraph separators and lone surrogates become escapes (the formatters expand tabs
    and split lines differently; an escape is the same string at run time)."""
    import re

    if not text:
        return ""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    cleaned = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').strip()
    cleaned = re.sub(
        r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]",
        lambda m: (
            "\\t"
            if m[0] == "\t"
            else f"\\x{ord(m[0]):02x}"
            if ord(m[0]) < 0x100
            else f"\\u{ord(m[0]):04x}"
        ),
        cleaned,
    )
    if cleaned.endswith('"'):
        cleaned += " "
    return cleaned


def py_comment(text: str | None) -> str:
    """One line of text safe inside a ``#`` comment."""
    return " ".join((text or "").split())


CACHE_ENV = "APISMITH_CACHE_DIR"  # where compiled templates are kept; "" for nowhere


class TemplateCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept across runs, as Python keeps ``__pycache__``: compiling the
    built-in templates takes about 70 ms of every run. A template is taken from the cache
    only when its source is the one compiled (Jinja compares a checksum); the directory's
    name holds what else the compiled code depends on (:func:`template_cache`). A cache
    that cannot be read or written is no cache: the template compiles as without one."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # a truncated or foreign file: compile instead
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def cache_root() -> Path | None:
    """apismith's cache directory: ``$APISMITH_CACHE_DIR`` (empty: none), else
    ``$XDG_CACHE_HOME/apismith``, else ``~/.cache/apismith`` (none without a home)."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # unset, or relative: ignored, as the XDG spec says
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "apismith" if os.path.isabs(base) else None


def template_cache(options: dict[str, object]) -> TemplateCache | None:
    """The compiled-template cache for an environment with ``options``: one directory per
    apismith and Jinja version, Python version and set of options (the compiled code
    depends on all of them)."""
    from generator import __version__

    root = cache_root()
    if root is None:
        return None
    key = repr(sorted(options.items())) + f"|{jinja2.__version__}|{sys.version_info[:2]}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    directory = root / "templates" / f"{__version__}-{digest}"
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return None
    return TemplateCache(str(directory))


class ConfinedLoader(jinja2.FileSystemLoader):
    """A ``FileSystemLoader`` of one folder that reads no file outside it (a symlink's
    target is resolved first)."""

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        if filename:
            folder = os.path.realpath(self.searchpath[0])
            if os.path.commonpath([folder, os.path.realpath(filename)]) != folder:
                raise jinja2.TemplateNotFound(template)
        return source, filename, uptodate


ENVIRONMENT_OPTIONS: dict[str, object] = {
    "keep_trailing_newline": True,
    "trim_blocks": True,
    "lstrip_blocks": True,
    "autoescape": False,
}


@lru_cache(maxsize=8)
def environment(user_dir: str | None = None) -> jinja2.Environment:
    """The environment of the built-in templates, under those in ``user_dir``. A template
    is read once per process (``auto_reload`` off: no ``stat`` of its file at every use,
    each of which had waited for the interpreter lock while a thread imported the runtime
    for the import check, 45 ms a run)."""
    loaders: list[jinja2.BaseLoader] = []
    if user_dir:
        loaders.append(ConfinedLoader(user_dir))
    loaders.append(jinja2.FileSystemLoader(str(builtin_templates())))
    cache_key = {**ENVIRONMENT_OPTIONS, "undefined": "StrictUndefined", "sandboxed": True}
    env = jinja2.sandbox.SandboxedEnvironment(
        loader=jinja2.ChoiceLoader(loaders),
        undefined=jinja2.StrictUndefined,
        bytecode_cache=template_cache(cache_key),
        auto_reload=False,
        **ENVIRONMENT_OPTIONS,
    )
    env.filters["pyrepr"] = py_literal
    env.filters["docstring"] = py_docstring
    env.filters["comment"] = py_comment
    return env


def builtin_names() -> list[str]:
    """The relative names of every built-in template (posix), sorted."""
    root = builtin_templates()
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )


def unmatched_overrides(user_dir: Path) -> list[tuple[str, str | None]]:
    """Override files that replace no built-in template: (name, closest built-in name)."""
    import difflib

    known = builtin_names()
    unmatched = []
    for name, _path in tree_files(user_dir):
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            unmatched.append((name, close[0] if close else None))
    return unmatched


def _template_error(exc: Exception, name: str, user_dir: str | None) -> ApismithError:
    """One line naming the template file and line of a Jinja error."""
    import traceback

    file, line = None, None
    if isinstance(exc, jinja2.TemplateSyntaxError):
        file, line = exc.filename or exc.name, exc.lineno
    else:
        for frame in reversed(traceback.extract_tb(exc.__traceback__)):
            if frame.filename.endswith(".jinja") or (
                user_dir and Path(frame.filename).resolve().is_relative_to(Path(user_dir).resolve())
            ):
                file, line = frame.filename, frame.lineno
                break
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return ApismithError(
        f"template error in {name}: {type(exc).__name__}: {message}",
        file=file or name,
        line=line,
        exit_code=2,
    )


def render(name: str, context: dict[str, object], user_dir: str | None = None) -> str:
    """Render one template; a template that fails gives ``file:line`` and exit 2."""
    try:
        return environment(user_dir).get_template(name).render(**context)
    except ApismithError:
        raise
    except jinja2.exceptions.SecurityError as exc:
        raise ApismithError(
            f"template {name} is refused: {exc} (templates are sandboxed)", file=name
        ) from None
    except jinja2.TemplateNotFound:
        raise
    except Exception as exc:  # a broken template: user overrides are untrusted input
        raise _template_error(exc, name, user_dir) from None


def render_header(spec_sha256: str, user_dir: str | None = None) -> str:
    """The generated-file header (``header.py.jinja``), without its final newline."""
    from generator import __version__

    context: dict[str, object] = {
        "generator_version": __version__,
        "spec_sha256_short": spec_sha256[:16],
    }
    return render("header.py.jinja", context, user_dir).rstrip("\n")
