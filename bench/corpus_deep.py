"""One level deeper than "it generated and imported", on one package apismith generated:
what ``bench/corpus.py --deep`` runs in a subprocess for each package (its own
interpreter, in the package's parent folder), printing one JSON object:

- ``apps``: ``"ok"`` when the server's app (``server.create_app`` on the base service) and
  the mock's (``mock.create_mock_app()``) both build, else the error line;
- ``object_responses``: the operations whose 2xx JSON answer is, in the spec as written
  (a Swagger 2.0 ``schema`` in each ``produces`` type), an object with fields or a list of
  such objects; ``untyped``: how many of them the client
  method returns as ``Any`` or a ``dict`` (``untyped_examples``: a few, ``GET /path``);
- ``calls`` and ``calls_ok``: up to 5 operations called through the generated sync client,
  over real HTTP, against the package's own mock (uvicorn on 127.0.0.1): those whose
  required parameters (and required body fields, which are keywords) are all scalars
  (``"1"``, ``1``, ``True``); those answering a model first (GETs first), each ok when the
  call returns a validated pydantic model (or a list or page of them), then, where a
  package has fewer, the others, ok when the call returns; ``call_errors`` why not.

    python bench/corpus_deep.py PACKAGE_DIR SPEC_FILE
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import re
import socket
import sys
import threading
import time
import typing
from pathlib import Path
from typing import Any

import pydantic
import yaml

UNTYPED = ("Any", "typing.Any", "dict[str, Any]", "builtins.dict[str, Any]", "dict", "object")
SCALARS: dict[str, Any] = {"str": "1", "int": 1, "float": 1.0, "bool": True}
CALLS = 5
SECRET = "apismith-deep"
MODEL = re.compile(r"(_m\.\w+|(builtins\.)?list\[_m\.\w+\]|\w*Page\[_m\.\w+\])( \| None)?$")
OPTIONS = {"base_url", "timeout", "max_retries", "http_client", "default_headers", "default_query"}


def _resolve(spec: dict[str, Any], schema: Any, depth: int = 0) -> Any:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and depth < 20:
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            return None
        node: Any = spec
        for token in ref[2:].split("/"):
            node = (
                node.get(token.replace("~1", "/").replace("~0", "~"))
                if isinstance(node, dict)
                else None
            )
        schema, depth = node, depth + 1
    return schema


def _is_object(spec: dict[str, Any], schema: Any) -> bool:
    schema = _resolve(spec, schema)
    if not isinstance(schema, dict):
        return False
    if schema.get("properties") or schema.get("allOf"):
        return True
    return schema.get("type") == "array" and _is_object(spec, schema.get("items")) is True


def object_operations(spec: dict[str, Any]) -> set[tuple[str, str]]:
    """(METHOD, path) of every operation answering an object (or a list of objects)."""
    found: set[tuple[str, str]] = set()
    for path, item in (spec.get("paths") or {}).items():
        item = _resolve(spec, item)
        if not isinstance(item, dict):
            continue
        for method, op in item.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            for status, response in (op.get("responses") or {}).items():
                response = _resolve(spec, response)
                if not str(status).startswith("2") or not isinstance(response, dict):
                    continue
                entries = response.get("content") or {}
                if not entries and "schema" in response:  # Swagger 2.0: in each produces type
                    media_types = op.get("produces") or spec.get("produces") or ["json"]
                    entries = {m: {"schema": response["schema"]} for m in media_types}
                for media, entry in entries.items():
                    json_media = "json" in str(media).lower()
                    if (
                        json_media
                        and isinstance(entry, dict)
                        and _is_object(spec, entry.get("schema"))
                    ):
                        found.add((method.upper(), str(path).split("#", 1)[0] or "/"))
                break
    return found


def answering_operations(spec: dict[str, Any]) -> set[tuple[str, str]]:
    """(METHOD, path) of every operation with a success answer (a 2xx or ``default``):
    one that documents only errors (the petstore's ``DELETE /pet/{petId}``: 400) has none
    to round-trip."""
    found: set[tuple[str, str]] = set()
    for path, item in (spec.get("paths") or {}).items():
        item = _resolve(spec, item)
        for method, op in item.items() if isinstance(item, dict) else ():
            statuses = op.get("responses") if isinstance(op, dict) else None
            if isinstance(statuses, dict) and any(
                str(s).startswith("2") or str(s) == "default" for s in statuses
            ):
                found.add((method.upper(), str(path).split("#", 1)[0] or "/"))
    return found


def methods(package: str) -> list[tuple[str, str, Any, str]]:
    """(METHOD, path, function, return annotation) of every sync resource method."""
    found = []
    resources = importlib.import_module(f"{package}.resources")
    for info in pkgutil.iter_modules(resources.__path__):
        module = importlib.import_module(f"{package}.resources.{info.name}")
        for cls in vars(module).values():
            if not inspect.isclass(cls) or cls.__module__ != module.__name__:
                continue
            if cls.__name__.startswith("Async") or "With" in cls.__name__:
                continue
            for name, fn in vars(cls).items():
                if name.startswith("_") or not inspect.isfunction(fn) or not fn.__doc__:
                    continue
                words = fn.__doc__.split()
                if len(words) >= 2 and words[0].isupper():
                    returns = str(inspect.signature(fn).return_annotation)
                    found.append((words[0], words[1].rstrip(":"), (cls, name), returns))
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _arguments(fn: Any) -> dict[str, Any] | None:
    """Values for the required parameters of ``fn`` (of its first overload, where the body's
    fields are keywords; None: one is not a scalar)."""
    args: dict[str, Any] = {}
    overloads = typing.get_overloads(fn)
    for p in list(inspect.signature(overloads[0] if overloads else fn).parameters.values())[1:]:
        if p.default is not inspect.Parameter.empty or p.kind is p.VAR_KEYWORD:
            continue
        value = SCALARS.get(str(p.annotation).split(" |")[0])
        if value is None:
            return None
        args[p.name] = value
    return args


def _validated(result: Any) -> bool:
    if isinstance(result, pydantic.BaseModel):
        return True
    if isinstance(result, list):
        return all(isinstance(x, pydantic.BaseModel) for x in result)
    items = getattr(result, "items", None)  # a page
    return isinstance(items, list) and all(isinstance(x, pydantic.BaseModel) for x in items)


def call_some(package: str, found: list[tuple[str, str, Any, str]], app: Any) -> dict[str, Any]:
    import uvicorn

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.01)
    pkg = importlib.import_module(package)
    client_cls = next(
        v
        for k, v in vars(pkg).items()
        if inspect.isclass(v)
        and k.endswith("Client")
        and not k.startswith("Async")
        and "With" not in k
        and hasattr(v, "with_options")
    )
    base: dict[str, Any] = {"base_url": f"http://127.0.0.1:{port}", "max_retries": 0}
    credentials = [  # every credential parameter of the constructor
        p.name
        for p in inspect.signature(client_cls).parameters.values()
        if p.name not in OPTIONS and "str" in str(p.annotation) and p.name != "idempotency_header"
    ]
    # all of them (AND requirements), then each alone (a client sends the first it has)
    clients = [client_cls(**base, **dict.fromkeys(credentials, SECRET))]
    if len(credentials) > 1:
        clients += [client_cls(**base, **{c: SECRET}) for c in credentials]
    models = importlib.import_module(f"{package}.models")
    calls, ok, errors = 0, 0, []
    try:
        # model answers first (GETs first), then the others where a package has fewer
        order = sorted(found, key=lambda f: (not _model_typed(models, f[3]), f[0] != "GET"))
        for verb, path, (cls, name), returns in order:
            if calls >= CALLS:
                break
            typed = _model_typed(models, returns)
            args = _arguments(getattr(cls, name))
            if args is None or _find(clients[0], cls) is None:
                continue
            calls += 1
            failure = ""
            for client in clients:
                try:
                    result = getattr(_find(client, cls), name)(**args)
                except Exception as exc:
                    failure = f"{verb} {path}: {type(exc).__name__}: {str(exc)[:200]}"
                    if type(exc).__name__ in ("AuthenticationError", "PermissionDeniedError"):
                        continue
                    break
                valid = not typed or _validated(result)
                failure = "" if valid else f"{verb} {path}: {type(result).__name__}"
                break
            if failure:
                errors.append(failure)
            else:
                ok += 1
    finally:
        server.should_exit = True
        thread.join(10)
    return {"calls": calls, "calls_ok": ok, "call_errors": errors[:5]}


def _model_typed(models: Any, returns: str) -> bool:
    """Whether a return annotation names a pydantic model of the package (alone, in a list
    or a page, or optional): not a type alias of a dict or a primitive."""
    match = MODEL.match(returns)
    if match is None:
        return False
    name = re.search(r"_m\.(\w+)", returns)
    model = getattr(models, name.group(1), None) if name else None
    return inspect.isclass(model) and issubclass(model, pydantic.BaseModel)


def _find(client: Any, cls: type, depth: int = 0) -> Any:
    """The instance of resource class ``cls`` under ``client``."""
    if isinstance(client, cls):
        return client
    if depth > 4:
        return None
    for child in list(vars(client).values()):  # sub-resources made in __init__
        if type(child).__module__.split(".")[1:2] == ["resources"]:
            found = _find(child, cls, depth + 1)
            if found is not None:
                return found
    for name in dir(type(client)):
        attr = getattr(type(client), name, None)
        if name.startswith("_") or name.startswith("with_") or not hasattr(attr, "__get__"):
            continue
        if not isinstance(attr, (property,)) and type(attr).__name__ != "cached_property":
            continue
        try:
            child = getattr(client, name)
        except Exception:
            continue
        if type(child).__module__.split(".")[1:2] == ["resources"]:
            found = _find(child, cls, depth + 1)
            if found is not None:
                return found
    return None


def main() -> int:
    folder, spec_file = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    sys.path.insert(0, str(folder.parent))
    package = folder.name
    text = spec_file.read_text(encoding="utf-8")
    spec = json.loads(text) if text.lstrip()[:1] == "{" else yaml.safe_load(text)
    out: dict[str, Any] = {}
    try:
        if not (folder / "server.py").is_file():  # no operations: no server, nothing to call
            raise LookupError("no server")
        server = importlib.import_module(f"{package}.server")
        server.create_app(server.BaseService())
        app = importlib.import_module(f"{package}.mock").create_mock_app()
        out["apps"] = "ok"
    except LookupError:
        out["apps"] = "none"
        app = None
    except Exception as exc:
        out["apps"] = f"{type(exc).__name__}: {str(exc)[:300]}"
        app = None
    wanted = object_operations(spec)
    found = methods(package) if (folder / "resources").is_dir() else []
    typed = {(v, p): r for v, p, _fn, r in found}
    untyped = sorted(f"{v} {p}" for (v, p) in wanted if typed.get((v, p)) in UNTYPED)
    out.update(
        object_responses=len([k for k in wanted if k in typed]),
        untyped=len(untyped),
        untyped_examples=untyped[:5],
    )
    if app is not None:
        answering = answering_operations(spec)
        out.update(call_some(package, [f for f in found if (f[0], f[1]) in answering], app))
    out["probe"] = 4  # the probe's version (4: model-typed GETs, each credential in turn)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
