"""The client runtime's encoding (query, JSON and multipart values) and response parsing:
strict (validate, or raise) or lenient (validate, else build the models unvalidated)."""

from __future__ import annotations

import base64
import json
import mimetypes
import os
import types
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union, cast, get_args, get_origin
from urllib.parse import quote

import httpx
import pydantic
from pydantic_core import to_json

from ._errors import APIResponseValidationError
from ._types import NOT_GIVEN

_ADAPTERS: dict[Any, pydantic.TypeAdapter[Any]] = {}  # by response type, built once
# a value that does not validate, or a type no TypeAdapter takes
_INVALID = (pydantic.ValidationError, pydantic.PydanticUserError, TypeError, NameError)


def _adapter(kind: Any) -> pydantic.TypeAdapter[Any]:
    if (adapter := _ADAPTERS.get(kind)) is None:
        adapter = _ADAPTERS[kind] = pydantic.TypeAdapter(kind)
    return adapter


def parse_json(
    kind: Any, response: httpx.Response, text: str | None = None, strict: bool = True
) -> Any:
    """The body (or ``text``, one stream event) validated as ``kind`` (a model class, or any
    type a TypeAdapter takes). A failure raises :class:`APIResponseValidationError`; when not
    ``strict``, only for a body that is not JSON (else :func:`construct` builds it). A body
    whose Content-Type is not JSON (``text/plain``) is its text where ``kind`` is ``str``,
    its bytes where it is ``bytes``."""
    if kind is None:
        return None
    if text is None and kind in (str, bytes) and not _json_content(response):
        return response.text if kind is str else response.content
    content = response.content if text is None else text.encode()
    try:
        if _is_model(kind):
            return kind.model_validate_json(content)
        return _adapter(kind).validate_json(content)
    except pydantic.ValidationError as exc:
        if not strict:
            try:
                return construct(kind, json.loads(content))
            except ValueError:
                pass
        text = response.text if text is None else text
        raise APIResponseValidationError(response, text, exc) from exc


def _json_content(response: httpx.Response) -> bool:
    """Whether the response says its body is JSON (or says nothing)."""
    media = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return (
        not media or media == "application/json" or media.endswith(("+json", "/json"))
    )


def construct(kind: Any, value: object) -> Any:
    """``value`` as ``kind`` without failing: validated where it validates; otherwise models
    are built with ``model_construct`` field by field (a field is validated, else built in
    turn; unknown fields are kept in ``model_extra``, missing ones are absent), lists and
    dicts item by item, a union as its best-fitting member; other values are kept."""
    try:
        return _adapter(kind).validate_python(value)
    except _INVALID:
        pass
    origin, args = get_origin(kind), get_args(kind)
    if origin is Annotated:
        return construct(args[0], value)
    if origin in (Union, types.UnionType):
        member = _member(args, value)
        return value if member is None else construct(member, value)
    if isinstance(kind, type) and issubclass(kind, pydantic.RootModel):
        return kind.model_construct(
            construct(kind.model_fields["root"].annotation, value)
        )
    if _is_model(kind):
        if not isinstance(value, dict):
            return value
        data = dict(value)
        for name, field in kind.model_fields.items():
            key = name if name in data else field.alias
            if key in data:
                data[key] = construct(field.annotation, data[key])
        return kind.model_construct(**data)
    if origin is list and isinstance(value, list) and args:
        return [construct(args[0], v) for v in value]
    if origin is dict and isinstance(value, dict) and len(args) == 2:
        return {k: construct(args[1], v) for k, v in value.items()}
    return value


def _member(args: tuple[Any, ...], value: object) -> Any:
    """The member of a union that a dict (the model that fits best) or a list is built as."""
    shape = next((t for t in (dict, list) if isinstance(value, t)), None)
    fits = [(_fit(a, value), -i, a) for i, a in enumerate(args) if _shape(a) is shape]
    return max(fits)[2] if shape and fits else None


def _is_model(kind: Any) -> bool:
    return isinstance(kind, type) and issubclass(kind, pydantic.BaseModel)


def _shape(kind: Any) -> type | None:
    """``dict`` for a model or a dict type, ``list`` for a list type, else None."""
    origin = get_origin(kind)
    if origin is Annotated:
        return _shape(get_args(kind)[0])
    if _is_model(kind) or origin is dict:
        return dict
    return list if origin is list else None


def _fit(kind: Any, value: Any) -> int:
    """How well a union member fits ``value``: the fields it has (a ``Literal`` tag that
    differs rules it out)."""
    kind = get_args(kind)[0] if get_origin(kind) is Annotated else kind
    score = 0
    for name, field in kind.model_fields.items() if _is_model(kind) else ():
        key = name if name in value else field.alias
        if key in value:
            literal = get_origin(field.annotation) is Literal
            tags = get_args(field.annotation) if literal else ()
            score += -1000 if tags and value[key] not in tags else 1
    return score


def jsonable(value: object) -> object:
    """Models dumped by alias (only the fields that were set); containers recursed."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return value


def given(values: Mapping[str, object] | None) -> dict[str, object]:
    return {k: v for k, v in values.items() if v is not NOT_GIVEN} if values else {}


_DELIMITERS = {"spaceDelimited": " ", "pipeDelimited": "|"}


def query_items(
    values: Mapping[str, object], styles: Mapping[str, tuple[str, bool]] | None
) -> list[tuple[str, str]]:
    """The query: each value as its ``(style, explode)`` serializes it (OpenAPI's; by
    default ``form``, exploded); a list of objects as JSON text, one value each."""
    items: list[tuple[str, str]] = []
    for key, raw in values.items():
        style, explode = (styles or {}).get(key, ("form", True))
        value, delimiter = jsonable(raw), _DELIMITERS.get(style, ",")
        if isinstance(value, dict) and (explode or style == "deepObject"):
            deep = style == "deepObject"
            items += [
                (f"{key}[{k}]" if deep else k, text_of(v)) for k, v in value.items()
            ]
        elif isinstance(value, dict):  # key=p,v,p,v
            items.append(
                (key, delimiter.join(text_of(x) for p in value.items() for x in p))
            )
        elif isinstance(value, list) and (explode or any(_nested(v) for v in value)):
            items += [(key, text_of(v)) for v in value]
        elif isinstance(value, list):
            items.append((key, delimiter.join(text_of(v) for v in value)))
        else:
            items.append((key, "" if value is None else text_of(value)))
    return items


def _nested(value: object) -> bool:
    return isinstance(value, (dict, list))


def simple_text(value: object) -> str:
    """A path or header value (OpenAPI's ``simple`` style): a list of scalars as ``a,b``."""
    if isinstance(value, list) and not any(_nested(v) for v in value):
        return ",".join(text_of(v) for v in value)
    return text_of(value)


def path_param(value: object, name: str = "") -> str:
    """A path parameter's segment; an empty string is refused before any request (it
    would send another path: ``/items/`` for ``/items/{id}``)."""
    if value == "" and name:
        raise ValueError(
            f"Expected a non-empty value for `{name}` but received {value!r}"
        )
    return quote(simple_text(value), safe="")


def text_of(value: object) -> str:
    """A query, header or form value as text (booleans in lower case, objects as JSON)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list, pydantic.BaseModel)):
        return to_json(jsonable(value)).decode()
    return str(value)


def _file(name: str, value: Any) -> tuple[str, tuple[str, Any, str]]:
    filename, content, content_type = name, value, None
    if isinstance(value, tuple):
        filename, content, content_type = (*value, None)[:3]
    elif isinstance(value, (bytes, bytearray)):
        content = bytes(value)
    elif isinstance(value, os.PathLike):
        filename = os.path.basename(os.fspath(value))
        with open(value, "rb") as fh:
            content = fh.read()
    else:  # a file object
        filename = os.path.basename(str(getattr(value, "name", "") or name))
    if content_type is None:
        content_type = mimetypes.guess_type(filename)[0] or "application/octet-stream"
    return name, (filename, content, content_type)


def form_fields(body: object) -> dict[str, object]:
    """The fields of a form body: a dict's given values, or a model's set fields."""
    if isinstance(body, pydantic.BaseModel):
        return body.model_dump(by_alias=True, exclude_unset=True)
    return given(cast(Any, body)) if isinstance(body, Mapping) else {}


def _form_value(value: object) -> str | list[str]:
    """A form field's text; a list of scalars is the field repeated (OpenAPI's form
    style, exploded); an object or a list of objects is JSON text."""
    if isinstance(value, list) and not any(
        isinstance(v, (dict, list, pydantic.BaseModel)) for v in value
    ):
        return [text_of(v) for v in value]
    return text_of(value)


def multipart(
    body: object, extra: Mapping[str, object] | None, file_fields: list[str] | None
) -> tuple[dict[str, Any], list[Any]]:
    """Form fields and file parts (each with a filename and a content type) of a request:
    the ``body``'s fields (:func:`form_fields`) and the ``extra`` ones; ``file_fields``
    None: an urlencoded form (no parts). A multipart body without files has its fields as
    parts of their own (a form field part has no filename)."""
    fields = {**form_fields(body), **(extra or {})}
    names = set(file_fields or ())
    data = {
        k: _form_value(v) for k, v in fields.items() if k not in names and v is not None
    }
    items = [(k, v) for k, vs in fields.items() if k in names for v in _listed(vs)]
    files = [_file(k, v) for k, v in items]
    if file_fields is not None and not files:
        parts = [(k, (None, v)) for k, vs in data.items() for v in _listed(vs)]
        return {}, parts
    return data, files


def _listed(value: object) -> list[Any]:
    return value if isinstance(value, list) else [value]


def basic_auth(username: str, password: str = "") -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()
