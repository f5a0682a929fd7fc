"""Compiled templates kept across runs (``generator.render.templates.TemplateCache``)."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from generator.render import templates
from generator.render.templates import ENVIRONMENT_OPTIONS, template_cache
from generator.tree import builtin_templates


def _env(cache: jinja2.BytecodeCache | None) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(builtin_templates())),
        undefined=jinja2.StrictUndefined,
        bytecode_cache=cache,
        **ENVIRONMENT_OPTIONS,  # type: ignore[arg-type]
    )


CONTEXT = {"generator_version": "1.2.3", "spec_sha256_short": "0123456789abcdef"}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> jinja2.BytecodeCache:
    """The cache for the built-in environment's options, under ``tmp_path/cache``."""
    monkeypatch.setenv("APISMITH_CACHE_DIR", str(tmp_path / "cache"))
    made = template_cache(ENVIRONMENT_OPTIONS)
    assert made is not None
    return made


def _header(cache: jinja2.BytecodeCache | None) -> str:
    return _env(cache).get_template("header.py.jinja").render(**CONTEXT)


def test_a_cached_template_renders_the_same_text(
    cache: jinja2.BytecodeCache, tmp_path: Path
) -> None:
    plain = _header(None)
    first = _header(cache)  # compiles, stores
    stored = list((tmp_path / "cache").rglob("*.cache"))
    assert len(stored) == 1
    second = _header(cache)  # from the cache
    assert plain == first == second


def test_a_broken_cache_file_is_compiled_over(cache: jinja2.BytecodeCache, tmp_path: Path) -> None:
    expected = _header(cache)
    (stored,) = (tmp_path / "cache").rglob("*.cache")
    good = stored.read_bytes()
    for broken in (b"", good[:20], good[: len(good) // 2], b"garbage" * 10):
        stored.write_bytes(broken)
        assert _header(cache) == expected


def test_other_options_take_another_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APISMITH_CACHE_DIR", str(tmp_path))
    one = template_cache(ENVIRONMENT_OPTIONS)
    other = template_cache({**ENVIRONMENT_OPTIONS, "trim_blocks": False})
    assert one is not None and other is not None
    assert one.directory != other.directory


def test_no_cache_when_disabled_or_unwritable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APISMITH_CACHE_DIR", "")
    assert template_cache(ENVIRONMENT_OPTIONS) is None
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("APISMITH_CACHE_DIR", str(blocker / "cache"))  # under a file
    assert template_cache(ENVIRONMENT_OPTIONS) is None


def test_the_cache_follows_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("APISMITH_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert templates.cache_root() == tmp_path / "apismith"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # not absolute: ignored (XDG)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert templates.cache_root() == tmp_path / "home" / ".cache" / "apismith"
