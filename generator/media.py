"""Media types, as a spec writes them."""

from __future__ import annotations


def is_json(media: str) -> bool:
    """Whether ``media`` (any case, parameters allowed) is a JSON media type:
    ``application/json``, ``*/*+json`` (``application/problem+json``), ``*/json``."""
    base = media.split(";", 1)[0].strip().lower()
    return base == "application/json" or base.endswith(("+json", "/json"))
