"""The schema half of a fuzzed document: ``components/schemas`` and the inline schemas
of properties, parameters, bodies and responses, drawn through :class:`Drawing` (the state
of one draw, which :mod:`tests.fuzz.operations` uses for the operation half).

See :mod:`tests.fuzz.strategies` for what the documents exercise and guarantee.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

VERSIONS = ("3.0.3", "3.1.0", "3.2.0")
LONG_ENUM = "microsoft.graph.deviceGuardVirtualizationBasedSecurityHardwareRequirementState"
LONG_OBJECT = (
    "io.k8s.apiextensions.v1.CustomResourceSubresourceScaleSpecificationWithStatusReplicas"
)

PLAIN_SCHEMAS = ["Pet", "Owner", "Order", "Item", "Tag", "Error", "Address", "User", "Node"]
TRICKY_SCHEMAS = [
    # keywords, builtins, constants
    "class", "None", "True", "from", "list", "dict", "type", "object", "str", "int", "bytes",
    "id", "self", "json",
    # what models.py, the client, the server and the mock import or define
    "BaseModel", "Field", "Literal", "Any", "Optional", "Enum", "datetime", "date", "UUID",
    "RootModel", "ConfigDict", "Annotated", "TypeAliasType", "Model", "models", "Client",
    "APIError", "NotGiven", "Stream", "SyncPage", "Response", "Request", "Service",
    "BaseService", "MockService", "Credentials", "ItemsResource", "MOCK_RESPONSES",
    # digits, punctuation, case, unicode, length
    "2FactorAuth", "1", "my-model", "my_model", "myModel", "MyModel", "v1.Pet", "Pet_",
    "_Pet", "__init__", "pet", "PET", "Café", "名前", LONG_ENUM, LONG_OBJECT,
]  # fmt: skip
MEMBER_SCHEMAS = ["Cat", "Dog", "Bird", "cat", "Lizard.v2", "fish-type", "Dog_"]
FORM_SCHEMAS = ["UploadForm", "Body_upload_file_upload_post", "multipart"]
PROPS_PLAIN = ["id", "name", "count", "created_at", "tags", "value", "status", "owner"]
PROPS_TRICKY = [
    "class", "from", "import", "self", "None", "True", "def", "lambda", "type", "list",
    "json", "model_config", "model_fields", "schema", "copy", "dict", "validate", "fields",
    "Field", "BaseModel", "user-id", "user_id", "userId", "UserId", "@type", "$ref",
    "odata.type", "1st", "2fa", "", "_private", "__dunder__", "名前", "café", "naïve", "a b",
    "with.dot", "x-y", "kebab-case", "UPPER", "€", "🐍",
]  # fmt: skip
STRING_ENUMS = [
    "", " ", "a b", "A", "a", "1", "0", "-1", "1.5", "true", "null", "None", "class", "mro",
    "with-dash", "dot.ted", "ümlaut", "日本", "UPPER_CASE", "mixedCase", "a'b", 'a"b',
    "back\\slash", "new\nline", "$", "%", "_", "__",
]  # fmt: skip
INT_ENUMS = [0, 1, -1, 2, 100, 2**31, -(2**63), 2**53 + 1]
STRING_FORMATS = [
    "date-time", "date", "time", "duration", "uuid", "uri", "uri-reference", "email",
    "hostname", "ipv4", "ipv6", "byte", "binary", "password", "color",
]  # fmt: skip
# Patterns pydantic's engine compiles (a mock must find a value that matches them)...
PATTERNS = [
    r"^[a-z]+$", r"^\d{3}-\d{4}$", r"^[A-Z]{2,3}$", r"^arn:aws:.*$", r"^[a-zA-Z0-9_.-]*$",
    r"^(foo|bar)$", r"^\S+@\S+\.\S+$", r"^v[0-9]+(\.[0-9]+){0,2}$", r"^[0-9a-f]{24}$",
    r"^[^\s]+$", r"^.{1,8}$",
]  # fmt: skip
UNICODE_PATTERNS = [r"^\p{L}+$", r"^[\p{L}\p{N}_ -]+$", r"^\p{Lu}\p{Ll}*$", r"^[\p{Han}]{1,4}$"]
# ...ECMA-262 patterns only Python's re compiles (lookaround: dropped with a warning)...
PYTHON_ONLY_PATTERNS = [r"^(?!x)[a-z]+$", r"^(?=.*\d)[a-z0-9]{4,}$"]
# ...and ECMA-262 (non-unicode mode) patterns that neither engine takes as they are.
UNPORTABLE_PATTERNS = [r"^[\w\d-_]+$", r"[[A-Z0-9]{1,18}"]

TITLES = ["t", "Pets", "My API", "ümlaut API", "class", "Items"]


def ref(name: str) -> dict[str, str]:
    return {"$ref": "#/components/schemas/" + name.replace("~", "~0").replace("/", "~1")}


class Drawing:
    """The state of one draw: the document under construction and what it has used."""

    def __init__(self, draw: st.DrawFn, version: str) -> None:
        self.draw = draw
        self.v31 = version.startswith(("3.1", "3.2"))  # 3.2 schemas are 3.1's
        self.schemas: dict[str, Any] = {}
        self.features: set[str] = set()
        self.refusable: list[tuple[str, str]] = []
        self.components: dict[str, dict[str, Any]] = {}  # parameters, requestBodies, ...
        self.security_schemes: dict[str, Any] = {}
        self.global_security: list[dict[str, list[str]]] | None = None
        self.operation_ids: list[str] = []
        self.unsatisfiable: set[str] = set()  # schemas without a finite instance

    # --- small helpers -------------------------------------------------------------------

    def chance(self, p: float) -> bool:
        """True with about probability ``p`` (in steps of 1/100). hypothesis favours small
        integers, so the simplest draw (0) is False: the plain path is the default."""
        return self.draw(st.integers(0, 99)) >= 100 - round(p * 100)

    def pick(self, items: list[Any]) -> Any:
        return self.draw(st.sampled_from(items))

    def feature(self, name: str) -> None:
        self.features.add(name)

    def fresh(self, pool: list[str]) -> str:
        """A schema name from ``pool`` not yet used (a numbered one when all are)."""
        free = [n for n in pool if n not in self.schemas]
        if free:
            return str(self.pick(free))
        n = 2
        while f"{pool[0]}{n}" in self.schemas:
            n += 1
        return f"{pool[0]}{n}"

    def nullable(self, schema: dict[str, Any]) -> dict[str, Any]:
        """``schema`` that also accepts null, in one of the forms of this version."""
        self.feature("nullable")
        if not self.v31:
            if "$ref" in schema:  # a $ref's siblings are ignored in 3.0
                return {"allOf": [schema], "nullable": True}
            if self.chance(0.2):
                return {"oneOf": [schema], "nullable": True}
            out = dict(schema, nullable=True)
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
            return out
        form = self.pick(["type", "anyOf", "oneOf"]) if "type" in schema else "anyOf"
        if form == "type" and isinstance(schema.get("type"), str) and "$ref" not in schema:
            out = dict(schema, type=[schema["type"], "null"])
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
            return out
        key = "oneOf" if form == "oneOf" else "anyOf"
        return {key: [schema, {"type": "null"}]}

    def properties_of(self, name: str) -> set[str]:
        """The property names of component ``name``, its ``allOf`` parents' included."""
        schema = self.schemas.get(name, {})
        found = set(schema.get("properties", {}))
        for part in schema.get("allOf", []):
            if "$ref" in part:
                found |= self.properties_of(part["$ref"].rsplit("/", 1)[-1])
            found |= set(part.get("properties", {}))
        return found

    def objects(self, names: list[str]) -> list[str]:
        """Those of ``names`` that are defined object schemas with properties, and no map
        (whose ``additionalProperties`` would apply to an extension's properties too):
        ``allOf`` parents."""
        return [
            n
            for n in names
            if self.schemas.get(n, {}).get("type") == "object"
            and "properties" in self.schemas[n]
            and self.schemas[n].get("additionalProperties", True) is True
            and "discriminator" not in self.schemas[n]
        ]

    def example(self, schema: dict[str, Any], value: Any) -> None:
        if self.v31:
            schema["examples"] = [value]
        else:
            schema["example"] = value

    # --- schemas -------------------------------------------------------------------------

    def primitive(self, *, plain: bool = False) -> dict[str, Any]:
        """A string, integer, number or boolean schema, with a format, a pattern, an enum,
        constraints, a default or an example (``plain``: none of them)."""
        kind = self.pick(["string", "string", "integer", "number", "boolean"])
        schema: dict[str, Any] = {"type": kind}
        if plain:
            return schema
        if kind == "string":
            self._string(schema)
        elif kind in ("integer", "number"):
            self._number(schema)
        elif self.chance(0.3):
            schema["default"] = self.draw(st.booleans())
        if self.chance(0.15):
            schema["description"] = self.pick(["A value.", "Line one.\n\nLine 'two' \"3\".", ""])
        return schema

    def _string(self, schema: dict[str, Any]) -> None:
        extra = self.pick(
            ["none", "format", "format", "pattern", "pattern", "enum", "length", "const"]
        )
        if extra == "format":
            fmt = self.pick(STRING_FORMATS)
            self.feature(f"format:{fmt}")
            if fmt == "binary" and self.v31 and self.chance(0.5):
                schema["contentMediaType"] = "application/octet-stream"
            else:
                schema["format"] = fmt
        elif extra == "pattern":
            schema["pattern"] = self.pattern()
        elif extra == "enum":
            self.feature("enum")
            values = self.draw(st.lists(st.sampled_from(STRING_ENUMS), min_size=1, max_size=4))
            schema["enum"] = list(dict.fromkeys(values))
            if self.chance(0.3):
                schema["default"] = schema["enum"][-1]
        elif extra == "length":
            low = self.draw(st.integers(0, 4))
            schema["minLength"] = low
            if self.chance(0.6):
                schema["maxLength"] = low + self.draw(st.integers(0, 40))
        elif extra == "const":
            value = self.pick(STRING_ENUMS)
            self.feature("const")
            schema.update({"const": value} if self.v31 else {"enum": [value]})
        elif self.chance(0.3):
            schema["default"] = self.pick(["x", "", "default value", "ü"])
        if extra in ("none", "length") and self.chance(0.3):
            self.example(schema, "example")

    def pattern(self) -> str:
        kind = self.pick(["plain"] * 3 + ["unicode"] * 2 + ["python-only", "unportable"])
        if kind in ("plain", "unicode"):
            value = str(self.pick(UNICODE_PATTERNS if kind == "unicode" else PATTERNS))
            self.feature(f"pattern:{kind}")
            return value
        if kind == "python-only":
            self.feature("pattern:lookaround")
            return str(self.pick(PYTHON_ONLY_PATTERNS))
        value = str(self.pick(UNPORTABLE_PATTERNS))
        self.feature("pattern:unportable")
        self.refusable.append(("a pattern neither engine compiles: " + value, "pattern"))
        return value

    def _number(self, schema: dict[str, Any]) -> None:
        integer = schema["type"] == "integer"
        if self.chance(0.5):
            fmt = self.pick(["int32", "int64"] if integer else ["float", "double", "decimal"])
            schema["format"] = fmt
            self.feature(f"format:{fmt}")
        extra = self.pick(["none", "enum", "range", "exclusive", "multiple"])
        if extra == "enum" and integer:
            self.feature("enum")
            values = self.draw(st.lists(st.sampled_from(INT_ENUMS), min_size=1, max_size=4))
            schema["enum"] = list(dict.fromkeys(values))
            schema.pop("format", None)  # 2**31 is no int32
        elif extra == "enum":
            schema["enum"] = [0.5, -2.5, 1e3][: self.draw(st.integers(1, 3))]
        elif extra == "range":
            low = self.draw(st.integers(-5, 5))
            schema.update(minimum=low, maximum=low + self.draw(st.integers(0, 1000)))
            if self.chance(0.3):
                schema["default"] = low
        elif extra == "exclusive":
            self.feature("exclusive-bounds")
            if self.v31:
                schema.update(exclusiveMinimum=0, exclusiveMaximum=100)
            else:
                schema.update(minimum=0, exclusiveMinimum=True, maximum=100)
                schema["exclusiveMaximum"] = True
        elif extra == "multiple":
            schema.update(multipleOf=5 if integer else 0.5, minimum=0, maximum=100)
        elif self.chance(0.3):
            schema["default"] = 0
        if extra == "none" and self.chance(0.3):
            self.example(schema, 1)

    def inline(self, depth: int, *, grounded: list[str], anywhere: list[str]) -> dict[str, Any]:
        """A property or item schema. ``grounded``: the schemas this one may require
        (satisfiable without it); ``anywhere``: those it may point to where it may be
        absent, empty or null (which makes recursion and cycles)."""
        targets = grounded or anywhere
        kinds = ["primitive"] * 4 + ["ref"] * (3 if targets else 0) + ["any"]
        if depth < 2:
            kinds += ["array", "array", "object", "map", "union", "nullable"]
            kinds += ["allOf"] * (1 if targets else 0)
            if self.v31:
                kinds += ["multi-type"]
        kind = self.pick(kinds)
        if kind == "primitive":
            return self.primitive()
        if kind == "ref":
            name = self.pick(targets)
            if self.v31 and self.chance(0.2):
                self.feature("ref-with-siblings")
                return {**ref(name), "description": "A reference with a sibling."}
            return ref(name)
        if kind == "any":
            self.feature("any")
            return dict(self.pick([{}, {"description": "anything"}]))
        if kind == "array":
            items = self.inline(depth + 1, grounded=anywhere, anywhere=anywhere)
            schema: dict[str, Any] = {"type": "array", "items": items}
            if self.chance(0.3):
                schema.update(minItems=0, maxItems=self.draw(st.integers(1, 5)))
            if self.chance(0.2):
                schema["uniqueItems"] = True
                schema["items"] = self.primitive(plain=True)
            return schema
        if kind == "object":
            self.feature("inline-object")
            return self.object(depth + 1, grounded=grounded, anywhere=anywhere)
        if kind == "map":
            self.feature("map")
            value = self.pick([True, {}, "schema"])
            if value == "schema":
                value = self.inline(depth + 1, grounded=anywhere, anywhere=anywhere)
            return {"type": "object", "additionalProperties": value}
        if kind == "union":
            return self.union(depth, grounded=grounded, anywhere=anywhere)
        if kind == "nullable":
            return self.nullable(self.inline(depth + 1, grounded=anywhere, anywhere=anywhere))
        if kind == "multi-type":
            self.feature("multi-type")
            return {"type": self.pick([["string", "integer"], ["number", "boolean", "null"]])}
        return self.all_of(depth + 1, grounded=grounded, anywhere=anywhere)

    def all_of(self, depth: int, *, grounded: list[str], anywhere: list[str]) -> dict[str, Any]:
        """An inline ``allOf``: a component object and an inline object, or two inline ones."""
        self.feature("inline-allOf")
        parents = self.objects(grounded)
        if not parents:
            first = self.object(depth, grounded=grounded, anywhere=anywhere, merged=set())
            taken = set(first["properties"])
            second = self.object(depth, grounded=grounded, anywhere=anywhere, merged=taken)
            return {"allOf": [first, second]}
        parent = self.pick(parents)
        taken = self.properties_of(parent)
        extra = self.object(depth, grounded=grounded, anywhere=anywhere, merged=taken)
        return {"allOf": [ref(parent), extra]}

    def union(self, depth: int, *, grounded: list[str], anywhere: list[str]) -> dict[str, Any]:
        key = self.pick(["oneOf", "anyOf"])
        self.feature(key)
        members = []
        for _ in range(self.draw(st.integers(2, 3))):
            if grounded and self.chance(0.5):
                members.append(ref(self.pick(grounded)))
            else:
                members.append(self.primitive(plain=self.chance(0.5)))
        return {key: members}

    def object(
        self,
        depth: int,
        *,
        grounded: list[str],
        anywhere: list[str],
        own: str | None = None,
        merged: set[str] | None = None,
    ) -> dict[str, Any]:
        """An object schema of one to five properties, some required. ``own``: the schema's
        own name, which optional properties may refer to (recursion). ``merged``: it is
        merged by ``allOf`` with objects of these properties (left out; it stays open)."""
        pool = self.pick([PROPS_PLAIN, PROPS_TRICKY, PROPS_PLAIN + PROPS_TRICKY])
        pool = [p for p in pool if p not in (merged or ())] or ["extra_field"]
        names = self.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=5, unique=True))
        cyclic = anywhere + ([own] if own else [])
        properties: dict[str, Any] = {}
        required = []
        for name in names:
            if self.chance(0.45):
                required.append(name)
                properties[name] = self.inline(depth, grounded=grounded, anywhere=grounded)
            else:
                properties[name] = self.inline(depth, grounded=cyclic, anywhere=cyclic)
        for prop in properties.values():
            if "$ref" not in prop and self.chance(0.06):
                flag = self.pick(["readOnly", "writeOnly", "deprecated"])
                self.feature(f"property:{flag}")
                prop[flag] = True  # readOnly and required: required in responses only
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        if self.chance(0.15) and depth > 0 and merged is None:
            schema["additionalProperties"] = False  # no allOf parent, no component (a parent)
        if self.chance(0.2):
            schema["description"] = self.pick(["An object.", 'Has """quotes""" and\nlines.'])
        if self.chance(0.1):
            schema["title"] = self.pick(["Title", "Other Name", "class"])
        return schema

    def enum_schema(self) -> dict[str, Any]:
        self.feature("enum")
        kind = self.pick(["string", "string", "integer", "mixed", "boolean"])
        if kind == "string":
            values = self.draw(st.lists(st.sampled_from(STRING_ENUMS), min_size=1, max_size=5))
            return {"type": "string", "enum": list(dict.fromkeys(values))}
        if kind == "integer":
            values = self.draw(st.lists(st.sampled_from(INT_ENUMS), min_size=1, max_size=4))
            return {"type": "integer", "enum": list(dict.fromkeys(values))}
        if kind == "boolean":
            return {"type": "boolean", "enum": [True]}
        self.feature("enum:mixed")
        return {"enum": ["a", 1, True, 2.5][: self.draw(st.integers(2, 4))]}

    def component(self, name: str, index: int, names: list[str]) -> None:
        """``components/schemas/<name>``: the ``index``-th schema of ``names``; it may
        require the ones before it and point anywhere otherwise."""
        grounded = [n for n in names[:index] if n in self.schemas and n not in self.unsatisfiable]
        objects = self.objects(grounded)
        kinds = ["object"] * 4 + ["enum", "primitive", "array", "map", "recursive"]
        kinds += ["discriminated", "nullable", "required-self"]
        if objects:
            kinds += ["allOf", "allOf"]
        if grounded:
            kinds += ["union"]
        kind = self.pick(kinds)
        self.feature(f"schema:{kind}")
        anywhere = list(names)
        if kind == "object":
            schema = self.object(0, grounded=grounded, anywhere=anywhere, own=name)
        elif kind == "enum":
            schema = self.enum_schema()
        elif kind == "primitive":
            schema = self.primitive()
        elif kind == "array":
            schema = {
                "type": "array",
                "items": self.inline(1, grounded=anywhere, anywhere=anywhere),
            }
        elif kind == "map":
            value = self.inline(1, grounded=anywhere, anywhere=anywhere)
            schema = {"type": "object", "additionalProperties": value}
        elif kind == "recursive":
            schema = self.recursive(name)
        elif kind == "discriminated":
            schema = self.discriminated(name)
        elif kind == "nullable":
            inner = ref(self.pick(grounded)) if grounded else self.primitive()
            schema = self.nullable(inner)
        elif kind == "required-self":
            self.unsatisfiable.add(name)
            # valid, but no finite instance exists: the models import, a mock cannot answer
            schema = {
                "type": "object",
                "required": ["parent"],
                "properties": {"parent": ref(name), "label": {"type": "string"}},
            }
        elif kind == "allOf":
            parents = [self.pick(objects)]
            others = [
                o for o in objects if not self.properties_of(o) & self.properties_of(parents[0])
            ]
            if others and self.chance(0.3):
                parents.append(self.pick(others))  # two parents, no property in common
            taken = set().union(*map(self.properties_of, parents))
            extra = self.object(1, grounded=grounded, anywhere=anywhere, own=name, merged=taken)
            schema = {"allOf": [*map(ref, parents), extra]}
        else:
            schema = self.union(0, grounded=grounded, anywhere=anywhere)
        self.schemas[name] = schema

    def recursive(self, name: str) -> dict[str, Any]:
        """A tree: optional children of its own type, an optional parent, maybe nullable."""
        parent: dict[str, Any] = ref(name)
        if self.chance(0.5):
            parent = self.nullable(parent)
        return {
            "type": "object",
            "required": ["value"],
            "properties": {
                "value": self.primitive(),
                "children": {"type": "array", "items": ref(name)},
                "parent": parent,
            },
        }

    def discriminated(self, name: str) -> dict[str, Any]:
        """A tagged union: new member schemas that carry the tag, and either a ``oneOf``
        of them (returned) or a base (returned) that each member extends by ``allOf``."""
        tag = self.pick(["type", "kind", "pet_type", "@type", "pet-type", "class"])
        style = self.pick(["oneOf", "base", "oneOf", "anyOf", "base"])
        self.feature(f"discriminator:{style}")
        discriminator: dict[str, Any] = {"propertyName": tag}
        members = []
        for _ in range(self.draw(st.integers(1, 3))):
            member = self.fresh(MEMBER_SCHEMAS)
            members.append(member)
            self.schemas[member] = {}  # reserve the name
        tagging = self.pick(["enum", "plain"] + (["const"] if self.v31 else []))
        mapping: dict[str, str] = {}
        for member in members:
            value = member if tagging == "plain" and self.chance(0.5) else self.pick(
                ["cat", "Dog", "bird-type", "1", "a b", "ümlaut", member.lower(), member]
            )  # fmt: skip
            value = value if value not in mapping else member + str(len(mapping))
            mapping[value] = member
            tag_schema: dict[str, Any] = {"type": "string"}
            if tagging == "enum":
                tag_schema["enum"] = [value]
            elif tagging == "const":
                tag_schema["const"] = value
            fields = self.object(1, grounded=[], anywhere=[])["properties"]
            fields.pop(tag, None)
            own = {"type": "object", "required": [tag], "properties": {tag: tag_schema, **fields}}
            if style == "base":
                self.schemas[member] = {"allOf": [ref(name), own]}
            else:
                self.schemas[member] = own
        if self.chance(0.7) or tagging != "plain":
            self.feature("discriminator:mapping")
            bare = self.chance(0.3)  # mapping values may be plain schema names
            discriminator["mapping"] = {
                k: (v if bare else ref(v)["$ref"]) for k, v in mapping.items()
            }
            if bare:
                self.feature("discriminator:bare-mapping")
        if style == "base":
            return {
                "type": "object",
                "required": [tag],
                "properties": {tag: {"type": "string"}},
                "discriminator": discriminator,
            }
        return {style: [ref(m) for m in members], "discriminator": discriminator}
