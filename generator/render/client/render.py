"""Render the generated client: ``_client.py`` (from ``templates/client/_client.py.jinja``)
and ``_runtime.py`` (``templates/runtime/_runtime.py``, copied as is).

The client's surface (the ``[client]`` config, the resource tree, the methods and the
credentials) is computed in :mod:`generator.render.surface`, shared with the docs.
"""

from __future__ import annotations

import re
from typing import Any

from generator.config import ApiConfig
from generator.ir import Api
from generator.render.surface.auth import auth_context
from generator.render.surface.config import client_config
from generator.render.surface.resources import build_resources
from generator.render.templates import builtin_templates, render

RUNTIME_NAMES = (
    "AsyncAPIClient",
    "AsyncPage",
    "AsyncStream",
    "Body",
    "DEFAULT_MAX_RETRIES",
    "FileInput",
    "Headers",
    "NOT_GIVEN",
    "NotGiven",
    "Query",
    "Stream",
    "SyncAPIClient",
    "SyncPage",
    "Timeout",
    "async_to_raw",
    "basic_auth",
    "path_param",
    "to_raw",
)
STDLIB_TYPES = (
    ("datetime", ("date", "datetime", "time", "timedelta")),
    ("decimal", ("Decimal",)),
    ("uuid", ("UUID",)),
)
TYPING_NAMES = ("Any", "Literal", "Optional", "Union", "cast", "overload")
PLACEHOLDER = "# -- apismith: imports --"


def _names(text: str) -> set[str]:
    """Every bare name the code uses (not an attribute such as ``_m.Any``)."""
    return set(re.findall(r"(?<![.\w])[A-Za-z_]\w*", text))


def render_client(
    api: Api, config: ApiConfig, header: str, templates: str | None
) -> dict[str, str]:
    """Relative path -> Python source of every client file of the package (none for an API
    without operations)."""
    if not api.operations:
        return {}
    cfg = client_config(config, api)
    client = f"{cfg.name}Client"
    root, tables = build_resources(api, cfg, client)
    base_url = config.base_url or (api.servers[0].url if api.servers else None)
    context: dict[str, Any] = {
        "header": header,
        "title": config.title,
        "client": client,
        "async_client": f"Async{client}",
        "base_url": base_url,
        "env_base_url": f"{cfg.env_prefix}_BASE_URL",
        "error_tables": tables,
        "resources": root.walk(),
        "top": root,
        **auth_context(api, cfg),
    }
    source = render("client/_client.py.jinja", {**context, "imports": [PLACEHOLDER]}, templates)
    head, _, body = source.partition(PLACEHOLDER)
    used = _names(body)
    typing = [n for n in TYPING_NAMES if n in used]
    runtime = [n for n in RUNTIME_NAMES if n in used]
    imports = [
        "import builtins",
        "import copy",
        "import os",
        "from collections.abc import Mapping",
        "from functools import cached_property",
    ]
    for module, names in STDLIB_TYPES:
        found = [n for n in names if n in used]
        if found:
            imports.append(f"from {module} import {', '.join(found)}")
    imports += [
        f"from typing import {', '.join(typing)}",
        "",
        "import httpx",
        "",
        "from . import models as _m",
        f"from ._runtime import {', '.join(runtime)}",
    ]
    source = head + "\n".join(imports) + body
    runtime_source = (builtin_templates() / "runtime" / "_runtime.py").read_text(encoding="utf-8")
    return {"_client.py": source, "_runtime.py": f"{header}\n{runtime_source}"}


def client_names(api: Api, config: ApiConfig) -> list[str]:
    """The client classes ``__init__.py`` exports (none for an API without operations)."""
    if not api.operations:
        return []
    name = client_config(config, api).name
    return [f"{name}Client", f"Async{name}Client"]
