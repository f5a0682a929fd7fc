"""Per-API configuration, and the options a generated package records about itself.

An API is configured in one of three places:

- ``specs/<api>.toml`` (or ``--config FILE``), one small TOML file per API::

      [api]
      package = "llm_engine"            # Python package name of the output
      title = "LLM Engine"              # human title (docs, client docstrings)
      spec = "llm-engine/openapi.json"  # relative to this file
      base_url = "https://..."          # default base URL (else the spec's first server)
      overlays = []                     # OpenAPI Overlay files, relative to this file
      outputs = ["models", "client", "server", "docs"]  # what to render (models always)
      out = "../generated/llm_engine"   # optional; default <project>/generated/<package>
      templates = "../templates-local"  # optional: template overrides, relative to this file
      meta = false                      # true: out/ is an installable project (pyproject)
      ref_root = "."                    # optional: where $refs may read files (default:
                                        # the spec's folder), relative to this file

      [passes]                          # every pass is on unless switched off here
      upgrade = true

      [passes.names]                    # options of one pass
      schema_renames = { Old = "New" }

      [client]                          # the client's names, methods, credentials
      [streaming.<operation>]           # an operation answering server-sent events
      [uploads]                         # multipart fields that are files

  (:mod:`generator.config.tables` documents these three tables.)

  Such a file is authoritative: what it does not say takes the default. The project root
  is the parent of the directory holding it.

- ``[tool.apismith.apis.<api>]`` in a repo's ``pyproject.toml``: the same keys, flat (``spec``
  and ``out`` required, the tables ``passes``, ``client``, ``streaming`` and ``uploads`` as
  sub-tables), paths relative to ``pyproject.toml``;
- the command line: ``--spec FILE --out DIR [--package NAME]``.

The last two are *vendoring* configs: every option they do not give is taken from the
options recorded in the existing package's ``MANIFEST.json`` (see :func:`recorded_options`),
else the default. Copying a package and its spec into another repo is therefore enough to
check and regenerate it there.

Everything is read and shape-checked once, into frozen dataclasses (:class:`ApiConfig`,
:mod:`.tables`); :func:`generator.render.settings.bind_settings` checks the tables
against the IR once per generation and gives the settings every renderer reads.
"""

from generator.config.api import (
    API_KEYS,
    OPTION_KEYS,
    OUTPUTS,
    TABLES,
    TOP_KEYS,
    ApiConfig,
    adhoc_config,
    build_config,
    load_config,
    package_name,
    recorded_options,
    relative_to_spec,
    vendored_config,
)
from generator.config.project import Project, find_configs, find_project, project_configs
from generator.config.tables import AuthHeader, ClientTable, ServerTable, StreamTable, Tables

__all__ = [
    "API_KEYS",
    "OPTION_KEYS",
    "OUTPUTS",
    "TABLES",
    "TOP_KEYS",
    "ApiConfig",
    "AuthHeader",
    "ClientTable",
    "Project",
    "ServerTable",
    "StreamTable",
    "Tables",
    "adhoc_config",
    "build_config",
    "find_configs",
    "find_project",
    "load_config",
    "package_name",
    "project_configs",
    "recorded_options",
    "relative_to_spec",
    "vendored_config",
]
