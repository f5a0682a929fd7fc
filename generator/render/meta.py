"""Render the project files of ``--meta`` output: ``pyproject.toml`` and ``README.md``.

With ``--meta`` the output directory is an installable project: these two files at
``OUT/``, the package in ``OUT/<package>/``. ``pip install OUT`` installs the models and
the client (pydantic, httpx); ``pip install "OUT[server]"`` adds the FastAPI server stubs
and the mock server (fastapi, python-multipart, uvicorn). The package's ``__init__`` never
imports ``server.py``, so the base install works without FastAPI.

Spec text (title, description, version) is untrusted: it reaches ``pyproject.toml`` only
through :func:`toml_string`, and ``README.md`` only through :func:`markdown_text`. The
templates get ready-made literals and compute nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from generator import __version__
from generator.config import ApiConfig
from generator.normalize.naming import distribution_name
from generator.render.templates import render, render_header

# Runtime dependencies of the generated code, each with the lowest release it was tested
# with. pydantic < 2.10 cannot build the llm-engine models (a "definition ... was never
# filled" SchemaError on recursive TypeAliasType unions) and warns about fields named
# ``model_*``; models.py imports ``typing_extensions.TypeAliasType`` directly, and 4.12.2
# is the floor pydantic 2.10 itself needs.
BASE_DEPENDENCIES = ("pydantic>=2.10,<3", "typing-extensions>=4.12.2,<5")
CLIENT_DEPENDENCIES = ("httpx>=0.27,<1",)
# server.py: fastapi (``separate_input_output_schemas``: 0.102+), python-multipart for
# form and file parameters; ``python -m <package>.server`` runs the mock with uvicorn.
SERVER_DEPENDENCIES = ("fastapi>=0.110", "python-multipart>=0.0.9", "uvicorn>=0.29")
BUILD_REQUIRES = ("hatchling>=1.25",)
REQUIRES_PYTHON = ">=3.10"
FALLBACK_VERSION = "0.0.0"
# run where the spec's path is valid; MANIFEST.json (at the project's top) has the options
REGENERATE = "apismith generate --spec <spec file> --out <this folder>"
SUMMARY_LIMIT = 1000  # characters of the README's description paragraph

# --- versions ---------------------------------------------------------------------------

# PEP 440, Appendix B: the pattern every version string that PEP 440 normalizes matches
# (case-insensitive, surrounding whitespace already stripped).
PEP440_PATTERN = r"""
    v?
    (?:
        (?:(?P<epoch>[0-9]+)!)?                           # epoch
        (?P<release>[0-9]+(?:\.[0-9]+)*)                  # release segment
        (?P<pre>                                          # pre-release
            [-_\.]?
            (?P<pre_l>(a|b|c|rc|alpha|beta|pre|preview))
            [-_\.]?
            (?P<pre_n>[0-9]+)?
        )?
        (?P<post>                                         # post release
            (?:-(?P<post_n1>[0-9]+))
            |
            (?:
                [-_\.]?
                (?P<post_l>post|rev|r)
                [-_\.]?
                (?P<post_n2>[0-9]+)?
            )
        )?
        (?P<dev>                                          # dev release
            [-_\.]?
            (?P<dev_l>dev)
            [-_\.]?
            (?P<dev_n>[0-9]+)?
        )?
    )
    (?:\+(?P<local>[a-z0-9]+(?:[-_\.][a-z0-9]+)*))?       # local version
"""
_PEP440 = re.compile(PEP440_PATTERN, re.VERBOSE | re.IGNORECASE | re.ASCII)
# PEP 440, Appendix B: a public version in canonical form.
CANONICAL_PUBLIC = re.compile(
    r"^([1-9][0-9]*!)?(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*((a|b|rc)(0|[1-9][0-9]*))?"
    r"(\.post(0|[1-9][0-9]*))?(\.dev(0|[1-9][0-9]*))?$"
)
# An ISO date or year-month at the start of a version: 2024-01-01, 2024-02-15-preview, 2023-10
_DATE = re.compile(r"([0-9]{4})-(0[1-9]|1[0-2])(?:-(0[1-9]|[12][0-9]|3[01]))?(?![0-9])")
# PEP 440 spellings of a pre-release -> the canonical one
_PRE = {
    "a": "a",
    "alpha": "a",
    "b": "b",
    "beta": "b",
    **dict.fromkeys(("c", "rc", "pre", "preview"), "rc"),
}
VERSION_LIMIT = 100  # longer "versions" are not versions


def normalize_version(value: object) -> str | None:
    """The canonical PEP 440 public version of a spec's ``info.version``, or None.

    Accepts what PEP 440 normalizes (``v2`` -> ``2``, ``0.1.0-beta`` -> ``0.1.0b0``,
    ``1.0-RC1`` -> ``1.0rc1``); a leading ISO date becomes a release (``2024-01-01`` ->
    ``2024.1.1``, ``2024-02-15-preview`` -> ``2024.2.15rc0``, ``2023-10`` -> ``2023.10``);
    a local part (``+build.5``) is dropped, as a package on an index cannot have one.
    Anything else (``latest``, ``1.0.0-SNAPSHOT``, a bool, non-ASCII digits) is None.
    """
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = str(value).strip()
    if not text or len(text) > VERSION_LIMIT or not text.isascii():
        return None
    date = _DATE.match(text)
    if date:
        release = ".".join(str(int(part)) for part in date.groups() if part)
        text = release + text[date.end() :]
    match = _PEP440.fullmatch(text)
    if match is None:
        return None
    parts: list[str] = []
    if match["epoch"] and int(match["epoch"]):
        parts.append(f"{int(match['epoch'])}!")
    parts.append(".".join(str(int(n)) for n in match["release"].split(".")))
    if match["pre_l"]:
        parts.append(f"{_PRE[match['pre_l'].lower()]}{int(match['pre_n'] or 0)}")
    if match["post"]:
        parts.append(f".post{int(match['post_n1'] or match['post_n2'] or 0)}")
    if match["dev"]:
        parts.append(f".dev{int(match['dev_n'] or 0)}")
    version = "".join(parts)
    return version if CANONICAL_PUBLIC.match(version) else None


# --- TOML -------------------------------------------------------------------------------

_TOML_ESCAPES = {
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string (with its quotes), valid for any Python str.

    Quotes, backslashes and control characters are escaped, and so is every other
    non-printable character (bidi controls, zero-width and line separators), so the file
    shows what the string holds. A lone surrogate (possible in JSON text) is not a Unicode
    scalar value, which TOML requires: it becomes U+FFFD.
    """
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _TOML_ESCAPES:
            out.append(_TOML_ESCAPES[char])
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\\uFFFD")
        elif char.isprintable():
            out.append(char)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04X}")
        else:
            out.append(f"\\U{code:08X}")
    out.append('"')
    return "".join(out)


def one_line(text: str) -> str:
    """``text`` on one line: every non-printable character and whitespace run is a space,
    and lone surrogates are dropped."""
    chars = ("" if 0xD800 <= ord(c) <= 0xDFFF else c if c.isprintable() else " " for c in text)
    return " ".join("".join(chars).split())


def toml_comment_lines(text: str) -> str:
    """``text`` (the Python file header) as TOML comment lines: each line on its own, with
    no control character, and starting with ``#``."""
    lines = (one_line(line) for line in text.splitlines())
    return "\n".join(line if line.startswith("#") else f"# {line}" for line in lines if line)


# --- Markdown ---------------------------------------------------------------------------

# Backslash-escaped anywhere: inline markup, HTML, entities, links and images.
_MD_INLINE = re.compile(r"([\\`*_\[\]<>#!|~&])")
# Block markup only counts at the start of a line: lists, quotes, headings, breaks.
_MD_LINE_START = re.compile(r"^([-+=>]|[0-9]+(?=[.)]))")


def markdown_text(text: str) -> str:
    """Plain text, on one line, that Markdown renders as exactly that text: no links,
    images, HTML, entities or emphasis."""
    line = _MD_INLINE.sub(r"\\\1", one_line(text))
    start = _MD_LINE_START.match(line)
    if start:
        end = start.end()
        if line[0].isdigit():
            line = f"{line[:end]}\\{line[end:]}"
        else:
            line = f"\\{line}"
    return line


def first_paragraph(text: object, limit: int = SUMMARY_LIMIT) -> str:
    """The first non-empty paragraph of a (Markdown) description, on one line ("" for
    anything but a string)."""
    if not isinstance(text, str):
        return ""
    for paragraph in re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n")):
        line = one_line(paragraph)
        if line:
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "\u2026"
    return ""


def code_fence(*texts: str) -> str:
    """A backtick fence longer than any backtick run in ``texts``."""
    longest = max((len(run) for t in texts for run in re.findall(r"`+", t)), default=0)
    return "`" * max(3, longest + 1)


# --- rendering --------------------------------------------------------------------------


def _version_note(normalized: str | None, spec_version: str, version: str) -> str:
    """The README's sentence on the package version and the spec's."""
    if normalized is None:
        return (
            f"The spec's version, {markdown_text(spec_version)}, is not a PEP 440 version,"
            f" so the package version is {version}."
            if spec_version
            else f"The spec gives no version, so the package version is {version}."
        )
    if normalized != spec_version:
        return (
            f"Version {version}: the spec's version, {markdown_text(spec_version)},"
            " in PEP 440 form."
        )
    return f"Version {version}, as the spec gives it."


def _pyproject(
    config: ApiConfig,
    header: str,
    version: str,
    title: str,
    has_client: bool,
    has_server: bool,
    templates: str | None,
) -> str:
    dependencies = [*BASE_DEPENDENCIES, *(CLIENT_DEPENDENCIES if has_client else ())]
    extras = [("server", list(SERVER_DEPENDENCIES))] if has_server else []
    return render(
        "meta/pyproject.toml.jinja",
        {
            "header": toml_comment_lines(header),
            "build_requires": ", ".join(toml_string(d) for d in BUILD_REQUIRES),
            "name": toml_string(distribution_name(config.package)),
            "version": toml_string(version),
            "description": toml_string(title),
            "requires_python": toml_string(REQUIRES_PYTHON),
            "dependencies": [toml_string(d) for d in dependencies],
            "extras": [(name, [toml_string(d) for d in deps]) for name, deps in extras],
            "package": toml_string(config.package),
        },
        templates,
    )


def render_meta(
    config: ApiConfig,
    info: Mapping[str, Any],
    *,
    client_class: str | None,
    has_server: bool,
    spec_sha256: str,
    templates: str | None,
    regenerate: str = REGENERATE,
) -> dict[str, str]:
    """``{"pyproject.toml": ..., "README.md": ...}`` of the project around the package.

    ``info`` is the spec's ``info`` object (its version and description; the title is
    ``config.title``, else ``info.title``). ``client_class`` is the sync client class
    (``client_names()[0]``; its async twin is ``Async<client_class>``), or None without a
    client: then the project does not depend on httpx. ``has_server``: the package has
    ``server.py``, installed with the ``server`` extra. ``spec_sha256``: the spec's hex
    digest. ``pyproject.toml`` starts with the Python file header (``header.py.jinja``);
    ``regenerate`` is the command the README shows.
    """
    raw_version = info.get("version")
    normalized = normalize_version(raw_version)
    version = normalized or FALLBACK_VERSION
    spec_version = one_line(str(raw_version)) if raw_version is not None else ""
    title = one_line(config.title or "") or one_line(str(info.get("title") or "")) or config.package
    header = render_header(spec_sha256, templates)
    pyproject = _pyproject(
        config, header, version, title, bool(client_class), has_server, templates
    )

    version_note = _version_note(normalized, spec_version, version)
    command = one_line(regenerate)
    readme = render(
        "meta/README.md.jinja",
        {
            "title": markdown_text(title),
            "description": markdown_text(first_paragraph(info.get("description"))),
            "version_note": version_note,
            "package": config.package,
            "distribution": distribution_name(config.package),
            "client": client_class,
            "async_client": f"Async{client_class}" if client_class else None,
            "server": has_server,
            "generator_version": __version__,
            "spec_sha256": markdown_text(spec_sha256),
            "regenerate": command,
            "fence": code_fence(command),
        },
        templates,
    )
    return {"pyproject.toml": pyproject, "README.md": readme}
