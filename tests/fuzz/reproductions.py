"""Minimal specs for every failure class the fuzzer knows of (issue 11's reproductions,
and the reduced specs of what ``bench/fuzz.py --shrink`` found), each held to the fuzzer's
property by ``tests/test_spec_fuzzer.py::test_reproduction``: while its class is in
:data:`tests.fuzz.known.KNOWN` it is an expected failure (xfail); once the entry is
deleted, it must generate.
"""

from __future__ import annotations

from typing import Any

from tests.fuzz.strategies import FuzzSpec

INFO = {"title": "t", "version": "1"}


def _returning(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    """A 3.0 document with one GET answering ``schema`` and these components."""
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    doc: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": INFO,
        "paths": {"/x": {"get": {"operationId": "getX", "responses": {"200": ok}}}},
    }
    if schemas:
        doc["components"] = {"schemas": schemas}
    return doc


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


REPRODUCTIONS: dict[str, FuzzSpec] = {
    # cause 1: the mock's nine fixed strings miss the pattern; generation is refused
    "1-pattern": FuzzSpec(
        _returning(
            _ref("X"),
            {
                "X": {
                    "type": "object",
                    "required": ["arn"],
                    "properties": {"arn": {"type": "string", "pattern": "^arn:aws:.*$"}},
                }
            },
        ),
        frozenset({"pattern:plain"}),
    ),
    # cause 1, what the fix in e603116 leaves: a Unicode script class
    "1-pattern-script": FuzzSpec(
        _returning(
            _ref("X"),
            {
                "X": {
                    "type": "object",
                    "required": ["n"],
                    "properties": {"n": {"type": "string", "pattern": "^[\\p{Han}]{1,4}$"}},
                }
            },
        ),
        frozenset({"pattern:unicode"}),
    ),
    # cause 1: no finite instance; the models import, the mock should answer 501
    "1-required-self": FuzzSpec(
        _returning(
            _ref("Node"),
            {
                "Node": {
                    "type": "object",
                    "required": ["parent"],
                    "properties": {"parent": _ref("Node")},
                }
            },
        ),
        frozenset({"schema:required-self"}),
    ),
    # cause 2: Rust-regex classes Python's re does not know
    "2-unicode-class": FuzzSpec(
        _returning(
            _ref("X"),
            {
                "X": {
                    "type": "object",
                    "required": ["n"],
                    "properties": {"n": {"type": "string", "pattern": "^\\p{L}+$"}},
                }
            },
        ),
        frozenset({"pattern:unicode"}),
    ),
    # cause 2: a pattern neither engine compiles: a clean refusal naming it, or a recovery
    "2-unportable": FuzzSpec(
        _returning(
            _ref("X"),
            {
                "X": {
                    "type": "object",
                    "properties": {"n": {"type": "string", "pattern": "[\\w\\d-_]"}},
                }
            },
        ),
        frozenset({"pattern:unportable"}),
        (("a pattern neither engine compiles", "pattern"),),
    ),
    # cause 3: an operationId equal to a schema name (issue 11's reproduction)
    "3-operation-id": FuzzSpec(
        {
            "openapi": "3.0.0",
            "info": INFO,
            "paths": {
                "/send": {
                    "post": {
                        "operationId": "SendDocument",
                        "responses": {"204": {"description": "ok"}},
                    }
                }
            },
            "components": {
                "schemas": {
                    "SendDocument": {"type": "object", "properties": {"a": {"type": "string"}}}
                }
            },
        },
        frozenset({"operationId=schema"}),
    ),
    # cause 4: ruff wraps a 72+ character alias name; the fix-up regex misses it
    "4-long-alias": FuzzSpec(
        {
            "openapi": "3.0.3",
            "info": INFO,
            "paths": {},
            "components": {
                "schemas": {
                    "microsoft.graph.deviceGuardVirtualizationBasedSecurityHardwareRequirementState": {  # noqa: E501
                        "type": "string",
                        "enum": ["a"],
                    }
                }
            },
        },
        frozenset({"schema:enum"}),
    ),
    # cause 5 (issue 11's reproduction)
    "5-nullable-primitive": FuzzSpec(
        _returning({"type": "string", "nullable": True}, {}), frozenset({"nullable"})
    ),
    # cause 6: a requirement naming no scheme; exit 0 with a warning, or a clean refusal
    "6-undefined-security": FuzzSpec(
        {
            "openapi": "3.0.3",
            "info": INFO,
            "paths": {
                "/x": {
                    "get": {
                        "operationId": "getX",
                        "security": [{"api_key": []}],
                        "responses": {"204": {"description": "ok"}},
                    }
                }
            },
        },
        frozenset({"security:undefined"}),
        (("security requirement names no scheme: api_key", "api_key"),),
    ),
    # cause 7: an allOf property, required, is mocked as {} (found by the fuzzer, reduced)
    "7-allof-property": FuzzSpec(
        _returning(
            _ref("Order"),
            {
                "Owner": {"type": "object", "required": ["value"], "properties": {"value": {}}},
                "Order": {
                    "type": "object",
                    "required": ["json"],
                    "properties": {"json": {"allOf": [_ref("Owner"), {"type": "object"}]}},
                },
            },
        ),
        frozenset({"inline-allOf"}),
    ),
    # cause 7: the same, for a property of an allOf model's extension
    "7-allof-extension-object": FuzzSpec(
        _returning(
            _ref("Item"),
            {
                "User": {
                    "type": "object",
                    "required": ["x"],
                    "properties": {"x": {"type": "string"}},
                },
                "Item": {
                    "allOf": [
                        _ref("User"),
                        {
                            "type": "object",
                            "required": ["p"],
                            "properties": {
                                "p": {
                                    "type": "object",
                                    "required": ["y"],
                                    "properties": {"y": {"type": "string"}},
                                }
                            },
                        },
                    ]
                },
            },
        ),
        frozenset({"schema:allOf", "inline-object"}),
    ),
    # cause 7, wider than issue 11 says: any required inline object is mocked as {}
    "7-inline-object": FuzzSpec(
        _returning(
            _ref("X"),
            {
                "X": {
                    "type": "object",
                    "required": ["inner"],
                    "properties": {
                        "inner": {
                            "type": "object",
                            "required": ["a"],
                            "properties": {"a": {"type": "string"}},
                        }
                    },
                }
            },
        ),
        frozenset({"inline-object"}),
    ),
    # cause 7: an allOf response model (generates; the mock must answer the merged object)
    "7-allof-response": FuzzSpec(
        _returning(
            _ref("B"),
            {
                "A": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}},
                "B": {
                    "allOf": [
                        _ref("A"),
                        {
                            "type": "object",
                            "required": ["b"],
                            "properties": {"b": {"type": "integer"}},
                        },
                    ]
                },
            },
        ),
        frozenset({"schema:allOf"}),
    ),
    # not in issue 11: a property whose type is a discriminator base (allOf inheritance)
    "new-discriminator-base-property": FuzzSpec(
        _returning(
            _ref("Owner"),
            {
                "Pet": {
                    "type": "object",
                    "required": ["kind"],
                    "properties": {"kind": {"type": "string"}},
                    "discriminator": {
                        "propertyName": "kind",
                        "mapping": {"cat": "#/components/schemas/Cat"},
                    },
                },
                "Cat": {
                    "allOf": [
                        _ref("Pet"),
                        {
                            "type": "object",
                            "required": ["kind"],
                            "properties": {"kind": {"type": "string", "enum": ["cat"]}},
                        },
                    ]
                },
                "Owner": {
                    "type": "object",
                    "required": ["pet"],
                    "properties": {"pet": _ref("Pet")},
                },
            },
        ),
        frozenset({"discriminator:base"}),
    ),
    # not in issue 11: the inline item model of "fields" takes the name of component Field
    "new-inline-name-clash": FuzzSpec(
        _returning(
            _ref("Field"),
            {
                "Field": {
                    "type": "object",
                    "required": ["n"],
                    "properties": {
                        "n": {"type": "integer"},
                        "fields": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "required": ["a"],
                                "properties": {"a": {"type": "string"}},
                            },
                        },
                    },
                }
            },
        ),
        frozenset({"inline-object"}),
    ),
    # not in issue 11: a mapped member whose tag is a plain string, and another reference
    # to the base
    "new-discriminator-plain-tag": FuzzSpec(
        _returning(
            _ref("Pet"),
            {
                "Pet": {
                    "type": "object",
                    "required": ["pet_type"],
                    "properties": {"pet_type": {"type": "string"}},
                    "discriminator": {"propertyName": "pet_type", "mapping": {"cat": "Bird"}},
                },
                "Bird": {
                    "allOf": [
                        _ref("Pet"),
                        {
                            "type": "object",
                            "required": ["pet_type"],
                            "properties": {"pet_type": {"type": "string"}},
                        },
                    ]
                },
                "Owner": {"type": "object", "properties": {"pet": _ref("Pet")}},
            },
        ),
        frozenset({"discriminator:base"}),
    ),
    # not in issue 11: the tag "@type" is named type in one member, type_ in another
    "new-discriminator-python-name": FuzzSpec(
        {
            "openapi": "3.1.0",
            "info": INFO,
            "paths": {},
            "components": {
                "schemas": {
                    "Cat": {
                        "type": "object",
                        "required": ["@type"],
                        "properties": {"@type": {"type": "string", "enum": ["cat"]}},
                    },
                    "Dog": {
                        "type": "object",
                        "required": ["@type"],
                        "properties": {
                            "@type": {"type": "string", "enum": ["dog"]},
                            "type": {"type": "string"},
                        },
                    },
                    "Pet": {
                        "oneOf": [_ref("Cat"), _ref("Dog")],
                        "discriminator": {
                            "propertyName": "@type",
                            "mapping": {
                                "cat": "#/components/schemas/Cat",
                                "dog": "#/components/schemas/Dog",
                            },
                        },
                    },
                }
            },
        },
        frozenset({"discriminator:oneOf"}),
    ),
    # cause 7: an inline multipart body (generates; issue 11 wants it sent as multipart)
    "7-multipart-inline": FuzzSpec(
        {
            "openapi": "3.0.3",
            "info": INFO,
            "paths": {
                "/x": {
                    "post": {
                        "operationId": "upload",
                        "requestBody": {
                            "content": {
                                "multipart/form-data": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "file": {"type": "string", "format": "binary"}
                                        },
                                    }
                                }
                            }
                        },
                        "responses": {"204": {"description": "ok"}},
                    }
                }
            },
        },
        frozenset({"body:multipart/form-data:inline"}),
    ),
}
