"""Compare a generated app's ``app.openapi()`` with the normalized spec it came from.

:func:`mismatches` reports every difference in paths and methods, parameters (name,
location, required, schema), request bodies (media types, required, schema) and response
schemas per status, as readable lines. Schemas are compared after resolving ``$ref``s
(into each document's own components) and dropping annotations that do not change what
is valid (``title``, ``description``, ``examples``...). The differences that cannot be
avoided are listed in :data:`ALLOWED` (see docs/server.md, "Fidelity").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

# Keywords that annotate without constraining.
_ANNOTATIONS = {
    "title",
    "description",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "discriminator",
    "x-apismith-name",
    "x-python-name",
    "$comment",
}


# Keywords whose value is data, not a schema.
_VALUES = ("enum", "const", "default", "type")

# Wording of a one-sided difference.
_MISSING, _EXTRA = "missing from the app", "not in the spec"


def _resolve(doc: Mapping[str, Any], schema: Any) -> Any:
    seen: set[str] = set()
    while isinstance(schema, Mapping) and "$ref" in schema:
        ref = schema["$ref"]
        if ref in seen:
            break
        seen.add(ref)
        node: Any = doc
        for part in ref.removeprefix("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        schema = node
    return schema


def canon(doc: Mapping[str, Any], schema: Any) -> Any:
    """A comparable form of an (inline) schema: a ``$ref`` becomes its component name
    (the components themselves are the models' business, tested with the models),
    annotations are dropped, and equivalent spellings are made one:
    ``type: [T, "null"]`` is ``anyOf: [{type: T}, {type: null}]``, and
    ``additionalProperties: true`` is the default."""
    if isinstance(schema, Mapping):
        if "$ref" in schema:
            ref = str(schema["$ref"])
            if ref.startswith("#/components/schemas/"):
                return {"$model": ref.rsplit("/", 1)[-1]}
            return canon(doc, _resolve(doc, schema))
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key in _ANNOTATIONS or key.startswith("x-"):
                continue
            if key == "additionalProperties" and value is True:
                continue
            if key == "properties":
                out[key] = {k: canon(doc, v) for k, v in value.items()}
            elif key == "required":
                out[key] = sorted(value)
            elif key in ("anyOf", "oneOf", "allOf", "prefixItems"):
                out[key] = [canon(doc, v) for v in value]
            elif isinstance(value, (Mapping, list)) and key not in _VALUES:
                out[key] = canon(doc, value)
            else:
                out[key] = value
        if out.get("format") == "binary" and "contentMediaType" not in out:
            # ALLOWED: OpenAPI 3.0's binary string is 3.1's contentMediaType (FastAPI's spelling)
            del out["format"]
            out["contentMediaType"] = "application/octet-stream"
        types = out.get("type")
        if isinstance(types, list) and "null" in types and len(types) == 2:
            rest = dict(out)
            rest["type"] = next(t for t in types if t != "null")
            out = {"anyOf": [rest, {"type": "null"}]}
        if "anyOf" in out and len(out) == 1:
            flat: list[Any] = []
            for member in out["anyOf"]:
                if isinstance(member, dict) and set(member) == {"anyOf"}:
                    flat.extend(member["anyOf"])
                else:
                    flat.append(member)
            out = {"anyOf": flat}
        return out
    if isinstance(schema, list):
        return [canon(doc, v) for v in schema]
    return schema


def _operations(doc: Mapping[str, Any]) -> dict[tuple[str, str], Mapping[str, Any]]:
    return {
        (path, method): op
        for path, item in (doc.get("paths") or {}).items()
        for method, op in item.items()
        if method in METHODS
    }


def _media(doc: Mapping[str, Any], content: Mapping[str, Any] | None) -> dict[str, Any]:
    out = {}
    for media, body in (content or {}).items():
        media = media.split(";")[0].strip()
        schema = (body or {}).get("schema", {})
        if media == "multipart/form-data":
            # ALLOWED: FastAPI names a form body's component Body_<operationId>; compare
            # its fields instead of its name
            schema = _resolve(doc, schema)
        out[media] = canon(doc, schema)
    return out


def mismatches(spec: Mapping[str, Any], app: Mapping[str, Any]) -> list[str]:
    """Every difference between the spec and the app's OpenAPI document, one line each."""
    found: list[str] = []
    want, got = _operations(spec), _operations(app)
    for key in sorted(set(want) - set(got)):
        found.append(f"{key[1].upper()} {key[0]}: missing from the app")
    for key in sorted(set(got) - set(want)):
        found.append(f"{key[1].upper()} {key[0]}: not in the spec")
    for key in sorted(set(want) & set(got)):
        where = f"{key[1].upper()} {key[0]}"
        a, b = want[key], got[key]
        if a.get("operationId") != b.get("operationId"):
            found.append(
                f"{where}: operationId {a.get('operationId')!r} != {b.get('operationId')!r}"
            )
        params_a = {
            (p["name"], p["in"]): p
            for p in map(lambda p: _resolve(spec, p), a.get("parameters", []))
        }
        params_b = {(p["name"], p["in"]): p for p in b.get("parameters", [])}
        for pk in sorted(set(params_a) | set(params_b)):
            pa, pb = params_a.get(pk), params_b.get(pk)
            if pa is None or pb is None:
                found.append(f"{where}: parameter {pk} {_MISSING if pb is None else _EXTRA}")
                continue
            if bool(pa.get("required")) != bool(pb.get("required")):
                found.append(
                    f"{where}: parameter {pk} required {pa.get('required')} != {pb.get('required')}"
                )
            sa, sb = canon(spec, pa.get("schema", {})), canon(app, pb.get("schema", {}))
            if sa != sb:
                found.append(f"{where}: parameter {pk} schema {sa} != {sb}")
        body_a, body_b = _resolve(spec, a.get("requestBody")), b.get("requestBody")
        if (body_a is None) != (body_b is None):
            found.append(f"{where}: request body {_MISSING if body_b is None else _EXTRA}")
        elif body_a is not None and body_b is not None:
            if bool(body_a.get("required")) != bool(body_b.get("required")):
                found.append(
                    f"{where}: request body required"
                    f" {body_a.get('required')} != {body_b.get('required')}"
                )
            ma, mb = _media(spec, body_a.get("content")), _media(app, body_b.get("content"))
            if ma != mb:
                found.append(f"{where}: request body {ma} != {mb}")
        resp_a, resp_b = a.get("responses") or {}, b.get("responses") or {}
        for status in sorted(set(resp_a) | set(resp_b)):
            ra, rb = resp_a.get(status), resp_b.get(status)
            if ra is None or rb is None:
                found.append(f"{where}: response {status} {_MISSING if rb is None else _EXTRA}")
                continue
            ma, mb = _media(spec, _resolve(spec, ra).get("content")), _media(app, rb.get("content"))
            if ma != mb:
                found.append(f"{where}: response {status} {ma} != {mb}")
        sec_a = a.get("security", spec.get("security"))
        sec_b = b.get("security", app.get("security"))
        if sorted(map(sorted, sec_a or [])) != sorted(map(sorted, sec_b or [])):
            found.append(f"{where}: security {sec_a} != {sec_b}")
    return found
