"""Media types, as a spec writes them."""

from __future__ import annotations


def media_base(media: str) -> str:
    """``media`` without its parameters, in lower case: ``text/plain; charset=utf-8`` is
    ``text/plain``."""
    return media.split(";", 1)[0].strip().lower()


def is_json(media: str) -> bool:
    """Whether ``media`` (any case, parameters allowed) is a JSON media type:
    ``application/json``, ``*/*+json`` (``application/problem+json``), ``*/json``."""
    base = media_base(media)
    return base == "application/json" or base.endswith(("+json", "/json"))
