"""The data the client templates receive (what :mod:`.context` builds and
:mod:`.imports` reads): one method, resource and flavor of the client, ready to print.
Fields marked *code* are Python source built from valid identifiers and ``repr``; *spec
text* is raw, for the templates to quote."""

from __future__ import annotations

from dataclasses import dataclass

from generator.render.surface.methods import Param


@dataclass(frozen=True)
class Call:
    """The ``self._client._request(...)`` arguments of a method, ready to print; None (or
    False) for an argument it does not pass."""

    method: str  # spec text: the HTTP method
    path: str  # code: the request path
    kind: str  # code: the runtime type of the answer (or of each chunk)
    query: str | None  # code: a dict literal
    query_styles: str | None  # code: a dict literal, wire name -> (style, explode)
    headers: str | None  # code: a dict literal
    body: str | None  # code
    files: list[str] | None  # spec text: the multipart file fields' wire names
    form: bool  # the body is sent as an urlencoded form
    stream: str | None  # code
    page: str | None  # code: a runtime Paging(...) call
    errors: str | None  # code: the name of an error table


def positional(params: list[Param]) -> list[Param]:
    """The parameter a call may pass by position: the path's last (the id of what the call
    acts on), as the Stainless SDKs have it: ``c.evaluations.retrieve("e1")``,
    ``c.knowledge_bases.uploads.retrieve("up1", knowledge_base_id="kb1")``. The parents'
    ids, and everything else, are keyword-only."""
    path = [p for p in params if p.location == "path" and p.required]
    return path[-1:]


def keyword(params: list[Param]) -> list[Param]:
    """The keyword-only parameters (after ``*``)."""
    taken = {id(p) for p in positional(params)}
    return [p for p in params if id(p) not in taken]


class _Parameters:
    """A signature's parameters, split where the template writes ``*``."""

    params: list[Param]

    @property
    def positional(self) -> list[Param]:
        return positional(self.params)

    @property
    def keyword(self) -> list[Param]:
        return keyword(self.params)


@dataclass(frozen=True)
class SignatureCode(_Parameters):
    params: list[Param]
    returns: str  # code: this flavor's return annotation


@dataclass(frozen=True)
class MethodCode(_Parameters):
    """One method of one flavor of the client."""

    name: str
    def_: str  # "def" or "async def"
    await_: str  # "" or "await "
    overloads: list[SignatureCode]
    params: list[Param]
    returns: str  # code: the implementation's return annotation
    verb: str  # the HTTP method, upper case (the docstring's first word)
    path: str  # spec text: the path template
    summary: str  # spec text
    description: str  # spec text
    deprecated_note: str  # " (deprecated)" or ""
    call: Call
    args_doc: list[tuple[str, str]]  # (parameter, spec text) of the documented parameters


@dataclass(frozen=True)
class Child:
    """A resource attribute: ``self.<attr> = <class_name>(client)``; ``module``: the
    module that defines its classes (its top-level resource's), relative to the package:
    ``resources.<attr>``."""

    attr: str
    class_name: str
    raw_class_name: str
    module: str


@dataclass(frozen=True)
class ResourceCode:
    """One resource class of one flavor (and its ``...WithRawResponse`` class)."""

    class_name: str
    raw_class_name: str
    children: list[Child]
    methods: list[MethodCode]


@dataclass(frozen=True)
class ResourceFlavor:
    """The sync or the async classes of one resource module."""

    base_client: str  # the resources' client type
    to_raw: str  # the function that makes a method return the raw response
    resources: list[ResourceCode]  # the top-level resource last, its sub-resources first


@dataclass(frozen=True)
class Flavor:
    """The sync client or the async one."""

    is_async: bool
    client: str  # the client class
    base_client: str  # its base class
    http_client: str  # the httpx client class it may be given
    noun: str  # "Client" or "Async client" (its docstring's first word)
    top: ResourceCode  # the root: its children are the client's attributes


@dataclass(frozen=True)
class AuthHeader:
    """One credential the constructor sets: a header, a query parameter or a cookie."""

    header: str  # spec text: the header's (query parameter's, cookie's) name
    value: str  # code: its value
    target: str = "headers"  # the constructor's dict it goes in: headers, query, cookies


@dataclass(frozen=True)
class AuthBranch:
    """One auth alternative of the constructor: its headers, sent together when every
    parameter of ``condition`` is given; the first such alternative is sent."""

    keyword: str  # "if" for the first alternative, then "elif"
    condition: str  # code: ``api_key`` or ``app_key and app_token``
    headers: tuple[AuthHeader, ...]
