"""Hypothesis strategies for random, valid, small OpenAPI 3.0, 3.1 and 3.2 documents.

:func:`fuzz_specs` draws one document (a plain dict, :class:`FuzzSpec`) that exercises:

- ``components/schemas`` (:mod:`tests.fuzz.schemas`): objects, enums (odd values),
  aliases of primitives, arrays and maps, ``allOf`` inheritance, ``oneOf``/``anyOf``
  unions, discriminated unions with and without ``mapping`` (a ``oneOf``/``anyOf`` of
  members, or a base that members extend with ``allOf``), the nullable forms of both
  versions (3.0 ``nullable: true``, 3.1 ``type: [..., "null"]`` and ``anyOf``/``oneOf``
  with ``{"type": "null"}``), ``$ref``s in every direction: self and mutual recursion,
  forward references, a required self-reference;
- formats (date-time, date, time, uuid, uri, email, binary, byte, int32/int64,
  float/double, unknown ones) and patterns (plain, ``\\p{..}`` classes, lookarounds);
- tricky names: Python keywords and builtins, names pydantic, typing and the generated
  package's own modules use, leading digits, unicode, dashes and dots, names equal up to
  case or punctuation, 72+ character names, operationIds equal to schema names;
  ``readOnly``/``writeOnly``/``deprecated`` properties;
- ``paths`` (:mod:`tests.fuzz.operations`): path (also path-level), query, header and
  cookie parameters (arrays, deepObject, ``content``, ``$ref``'d); request bodies of
  ``application/json``, ``multipart/form-data`` and ``application/x-www-form-urlencoded``
  (inline and ``$ref``'d), ``text/plain`` and ``application/octet-stream``; responses
  with and without content, status ranges and ``default``, ``text/event-stream``,
  response headers; pagination styles (cursor, page token, page number, ``Link``);
  security schemes of every kind, global, per operation, alternatives and anonymous;
- what OpenAPI 3.2 adds (:mod:`tests.fuzz.openapi32`): ``query`` and additional
  operations, ``querystring`` parameters, ``itemSchema`` streams, nested tags, ``$self``.

Every document is valid (one liberty: a few component names are not ASCII, ``Café``, as
real specs have them and apismith accepts them): no dangling ``$ref``; path templates
match path parameters and no two differ only in variable names; discriminator members
carry their tag; enums and defaults match their types; every schema but the deliberate
required self-reference has a finite instance. Where a document is not valid on purpose,
:attr:`FuzzSpec.refusable` says why: there, and only there, a clean refusal (exit 2) is
a legitimate answer. Documents stay small (at most about eight schemas and four
operations) so that one generation takes a fraction of a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.fuzz.openapi32 import add_openapi32
from tests.fuzz.operations import paths
from tests.fuzz.schemas import PLAIN_SCHEMAS, TRICKY_SCHEMAS, VERSIONS, Drawing

TITLES = ["t", "Pets", "My API", "ümlaut API", "class", "Items"]


@dataclass(frozen=True)
class FuzzSpec:
    """One drawn document, what it exercises, and why a refusal would be legitimate."""

    doc: dict[str, Any]
    features: frozenset[str]
    # (why the document is not valid as it stands, a regex its exit-2 line must match)
    refusable: tuple[tuple[str, str], ...] = ()

    @property
    def version(self) -> str:
        return str(self.doc["openapi"])


@st.composite
def fuzz_specs(draw: st.DrawFn, version: str | None = None) -> FuzzSpec:
    """One small document of ``version`` (``3.0.3``, ``3.1.0`` or ``3.2.0``; drawn when
    None)."""
    version = version or draw(st.sampled_from(VERSIONS))
    d = Drawing(draw, version)
    d.feature(f"openapi:{version[:3]}")
    pool = d.pick([PLAIN_SCHEMAS, TRICKY_SCHEMAS, PLAIN_SCHEMAS + TRICKY_SCHEMAS])
    low = 0 if d.chance(0.1) else 1  # a document without components now and then
    names = draw(st.lists(st.sampled_from(pool), min_size=low, max_size=4, unique=True))
    for index, name in enumerate(names):
        if name not in d.schemas:  # a discriminator's member may have taken it
            d.component(name, index, names)
    doc: dict[str, Any] = {
        "openapi": version,
        "info": {"title": d.pick(TITLES), "version": d.pick(["1", "1.0.0", "2024-01-01"])},
    }
    if d.chance(0.3):
        doc["servers"] = [d.pick([{"url": "https://api.example.com/v1"}, {"url": "/api"}])]
    doc["paths"] = paths(d)
    if version.startswith("3.2"):
        add_openapi32(d, doc)  # (it may add components: before they are collected)
    components: dict[str, Any] = {}
    if d.schemas:
        components["schemas"] = d.schemas
    components.update(d.components)
    if d.security_schemes:
        components["securitySchemes"] = d.security_schemes
    if components:
        doc["components"] = components
    if d.global_security is not None:
        doc["security"] = d.global_security
    return FuzzSpec(doc, frozenset(d.features), tuple(d.refusable))
