"""The HTTP methods of operations, as a spec writes them (lower case)."""

from __future__ import annotations

# The operations a path item holds, in the order every stage visits them: OpenAPI's fixed
# fields (3.2 adds ``query``), then the methods of the IANA registry (and PURGE) that an
# OpenAPI 3.2 ``additionalOperations`` map may name, which the load stage moves into the
# path item under their lower-case name (``generator.load.openapi32``).
HTTP_METHODS = (
    *("get", "put", "post", "delete", "options", "head", "patch", "trace", "query"),
    *("copy", "link", "lock", "mkcol", "move", "propfind", "proppatch", "purge", "report"),
    *("search", "unlink", "unlock"),
)
