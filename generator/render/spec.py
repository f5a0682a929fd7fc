"""Render the normalized spec as ``openapi.json``: pretty-printed, keys in a fixed order.

Top-level keys follow the usual OpenAPI order; component maps are sorted by name;
every other mapping keeps the order of the input document (itself deterministic).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

TOP_ORDER = (
    "openapi",
    "info",
    "jsonSchemaDialect",
    "servers",
    "security",
    "tags",
    "paths",
    "webhooks",
    "components",
    "externalDocs",
)


def canonical(spec: Mapping[str, Any]) -> dict[str, Any]:
    ordered: dict[str, Any] = {k: spec[k] for k in TOP_ORDER if k in spec}
    ordered.update({k: spec[k] for k in sorted(spec) if k not in ordered})
    components = ordered.get("components")
    if isinstance(components, dict):
        ordered["components"] = {
            kind: ({n: v[n] for n in sorted(v)} if isinstance(v, dict) else v)
            for kind, v in sorted(components.items())
        }
    return ordered


def render_spec(spec: Mapping[str, Any], spec_sha256: str) -> bytes:
    """``openapi.json``: the normalized spec, canonical, with the source spec's sha256 (not
    the generator's version: MANIFEST.json has it, and a new generator alone should not
    rewrite this file)."""
    data = canonical(spec)
    data["x-apismith"] = {"spec_sha256": spec_sha256}
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()
