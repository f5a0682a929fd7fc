"""Stage 3: the intermediate representation (IR) that renderers consume.

``build_ir(spec)`` turns a normalized OpenAPI 3.1 spec dict into a frozen, typed
:class:`Api` (operations, models, security, servers, tags). See ``docs/ir.md``.
"""

from generator.ir.build import build_ir
from generator.ir.model import (
    CONSTRAINT_KEYS,
    Api,
    Discriminator,
    Field,
    MediaType,
    Model,
    ModelKind,
    OAuthFlow,
    Operation,
    Parameter,
    ParameterLocation,
    RequestBody,
    Requirement,
    Response,
    SecurityKind,
    SecurityScheme,
    Server,
    Tag,
    TypeKind,
    TypeRef,
)
from generator.ir.types import TypeReader, schema_ref_name

# The naming rule the IR derives names with, under its old name here (tests import it):
# the rule itself is ``generator.normalize.naming.python_snake_case``.
from generator.normalize.naming import python_snake_case as snake_case

__all__ = [
    "CONSTRAINT_KEYS",
    "Api",
    "Discriminator",
    "Field",
    "MediaType",
    "Model",
    "ModelKind",
    "OAuthFlow",
    "Operation",
    "Parameter",
    "ParameterLocation",
    "RequestBody",
    "Requirement",
    "Response",
    "SecurityKind",
    "SecurityScheme",
    "Server",
    "Tag",
    "TypeKind",
    "TypeReader",
    "TypeRef",
    "build_ir",
    "schema_ref_name",
    "snake_case",
]
