"""OpenAPI 3.1 ``webhooks``: one model per payload, ``client.webhooks.unwrap`` (Standard
Webhooks signatures, a discriminated union of the events), the FastAPI receiver stub, and
``apismith serve --send-webhooks URL``.

- the naming of inline payloads (``<Key>Event``) and the IR's webhooks, on small specs;
- bad input (a payload that is no object, no body): a warning, the webhook left out;
- ``WebhookEvent``: tagged payloads discriminated, the others in a plain union beside them;
- a webhooks-only spec: a package with ``client.webhooks``, ruff and ``mypy --strict``
  clean;
- outside-in: the golden spec's package generated, ``apismith serve --send-webhooks`` (its
  mock on 127.0.0.1) posts to a recording server and to the generated receiver; the posted
  bodies unwrap into their models, a tampered body or a wrong secret raises.
"""

from __future__ import annotations

import importlib
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from generator.config import adhoc_config
from generator.ir import build_ir
from generator.ir.model import Api
from generator.normalize import inline_bodies, normalize
from generator.pipeline import generate
from generator.render.webhooks import discriminator, event_union
from generator.write import write_package
from tests.client.support import HANG_GUARD, Server
from tests.conftest import REPO_ROOT, cli_env, describe, import_package, run_cli

GOLDEN = REPO_ROOT / "tests" / "golden" / "webhooks-31" / "spec.json"
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
OBJECT = {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}


def hook(schema: Any, media: str = "application/json") -> dict[str, Any]:
    """A webhook entry (``post``) whose request body is ``schema``."""
    body = {"content": {media: {"schema": schema}}}
    return {"post": {"requestBody": body, "responses": {"200": {"description": "ok"}}}}


def ref_hook(name: str) -> dict[str, Any]:
    return hook({"$ref": f"#/components/schemas/{name}"})


def spec_of(webhooks: dict[str, Any], schemas: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Hooks", "version": "1"},
        "paths": {},
        "webhooks": webhooks,
        "components": {"schemas": schemas or {}},
    }


def api_of(spec: dict[str, Any]) -> Api:
    return build_ir(normalize(spec).spec)


def tagged(value: str, **more: Any) -> dict[str, Any]:
    props = {"type": {"type": "string", "const": value}, **more}
    return {"type": "object", "required": ["type"], "properties": props}


# --- naming and the IR -----------------------------------------------------------------------


def test_an_inline_payload_is_named_after_its_webhook() -> None:
    nested = {"type": "object", "properties": {"name": {"type": "string"}}}
    inline = {"type": "object", "properties": {"id": {"type": "string"}, "owner": nested}}
    spec = spec_of(
        {"newPet": hook(inline), "pet.gone": hook({"$ref": "#/components/schemas/Gone"})},
        {"Gone": OBJECT},
    )
    result = inline_bodies.run(spec, {})
    assert result.diagnostics == ()
    schemas = result.spec["components"]["schemas"]
    assert list(schemas) == ["Gone", "NewPetEvent"]
    body = result.spec["webhooks"]["newPet"]["post"]["requestBody"]["content"]
    assert body["application/json"]["schema"] == {"$ref": "#/components/schemas/NewPetEvent"}
    api = api_of(spec)  # inline_objects names the nested object after its model
    assert "NewPetEventOwner" in {m.name for m in api.models}
    assert [(w.name, w.python_name, w.method, w.payload) for w in api.webhooks] == [
        ("newPet", "new_pet", "post", "NewPetEvent"),
        ("pet.gone", "pet_gone", "post", "Gone"),
    ]


def test_several_methods_and_a_taken_name() -> None:
    entry = {**hook(OBJECT), "put": hook(OBJECT)["post"]}
    spec = spec_of({"newPet": entry, "new_pet": hook(OBJECT)}, {"NewPetEvent": OBJECT})
    api = api_of(spec)
    assert [(w.python_name, w.payload) for w in api.webhooks] == [
        ("new_pet_put", "NewPetPutEvent"),
        ("new_pet_post", "NewPetPostEvent"),
        ("new_pet", "NewPetEvent2"),
    ]


BAD = {
    "text": (hook({"type": "string"}), "its payload is not an object"),
    "list": (hook({"type": "array", "items": OBJECT}), "its payload is not an object"),
    "form": (hook(OBJECT, "application/x-www-form-urlencoded"), "its request body is not JSON"),
    "none": ({"post": {"responses": {"200": {"description": "ok"}}}}, "it has no request body"),
    "name": (hook({"$ref": "#/components/schemas/Name"}), "its payload Name is not an object"),
    "maybe": (
        hook({"anyOf": [{"$ref": "#/components/schemas/Ok"}, {"type": "null"}]}),
        "its payload is not an object",
    ),
}


LEFT_OUT = "no event type is generated for it"


def test_a_payload_that_is_no_object_is_left_out_with_a_warning() -> None:
    webhooks = {name: entry for name, (entry, _) in BAD.items()}
    webhooks["ok"] = hook({"$ref": "#/components/schemas/Ok"})
    spec = spec_of(webhooks, {"Name": {"type": "string"}, "Ok": OBJECT})
    normalized = normalize(spec)
    warnings = [d for d in normalized.diagnostics if d.pass_name == "inline_bodies"]
    assert [(d.kind, d.pointer, d.message) for d in warnings] == [
        ("warning", f"#/webhooks/{name}/post", f"webhook {name!r}: {why}; {LEFT_OUT}")
        for name, (_, why) in BAD.items()
    ]
    assert [w.name for w in build_ir(normalized.spec).webhooks] == ["ok"]


def test_a_spec_of_bad_webhooks_only_generates(tmp_path: Path) -> None:
    """Nothing to generate for: no webhooks module, no client, and no traceback."""
    schemas = {"Name": {"type": "string"}, "Ok": OBJECT}
    spec = spec_of({name: entry for name, (entry, _) in BAD.items()}, schemas)
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    result = generate(adhoc_config(path, tmp_path / "bad_hooks"))
    assert not {"webhooks.py", "webhook_receiver.py", "_client.py"} & set(result.files)
    assert sum(d.pass_name == "inline_bodies" for d in result.diagnostics) == len(BAD)


# --- the union of the events -----------------------------------------------------------------


def test_tagged_payloads_are_discriminated_the_others_beside() -> None:
    spec = spec_of(
        {
            "a": ref_hook("A"),
            "plain": ref_hook("Plain"),
            "b": ref_hook("B"),
            "a_again": ref_hook("A"),
        },
        {"A": tagged("a"), "B": tagged("b"), "Plain": OBJECT},
    )
    union = event_union(api_of(spec))
    assert union.code == (
        "Annotated[models.A | models.B, Field(discriminator='type')] | models.Plain"
    )


def test_all_tagged_one_payload_and_clashing_tags() -> None:
    both = spec_of({"a": ref_hook("A"), "b": ref_hook("B")}, {"A": tagged("a"), "B": tagged("b")})
    assert event_union(api_of(both)).code == (
        "Annotated[models.A | models.B, Field(discriminator='type')]"
    )
    one = spec_of({"a": ref_hook("A")}, {"A": tagged("a")})
    assert event_union(api_of(one)).code == "models.A"
    clash = spec_of(
        {"a": ref_hook("A"), "b": ref_hook("B")}, {"A": tagged("same"), "B": tagged("same")}
    )
    api = api_of(clash)
    assert discriminator(api, ["A", "B"]) is None
    assert event_union(api).code == "models.A | models.B"


def test_an_inline_payload_goes_through_every_pass() -> None:
    """The passes before ``inline_bodies`` see webhook payloads too: an ``allOf`` wrapper
    becomes its ``$ref``, a 3.0-style ``nullable`` reads as a null union, an invalid
    default is dropped."""
    payload = {
        "type": "object",
        "required": ["pet"],
        "properties": {
            "pet": {"allOf": [{"$ref": "#/components/schemas/Pet"}], "description": "It."},
            "note": {"type": "string", "nullable": True},
            "count": {"type": "integer", "default": "many"},
        },
    }
    spec = spec_of({"adopted": hook(payload)}, {"Pet": OBJECT})
    normalized = normalize(spec)
    event = normalized.spec["components"]["schemas"]["AdoptedEvent"]["properties"]
    assert event["pet"]["$ref"] == "#/components/schemas/Pet"
    assert event["note"] == {"type": ["string", "null"]}
    assert "default" not in event["count"]
    assert any(
        d.pass_name == "defaults" and "/webhooks/" in d.pointer for d in normalized.diagnostics
    )


# --- a webhooks-only spec --------------------------------------------------------------------


def test_a_webhooks_only_spec_has_a_client_to_call(tmp_path: Path) -> None:
    spec = spec_of({"ping": hook({"type": "object", "properties": {"zen": {"type": "string"}}})})
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    config = adhoc_config(path, tmp_path / "only_hooks")
    result = generate(config)
    write_package(config.out, result.files, verify=False)
    assert {"webhooks.py", "webhook_receiver.py", "_client.py"} <= set(result.files)
    assert "server.py" not in result.files  # no operation: no mock
    package = import_package(config.out, "only_hooks")
    event = package.OnlyHooksClient().webhooks.unwrap('{"zen": "hi"}')
    assert type(event).__name__ == "PingEvent" and event.zen == "hi"
    mypy = tmp_path / "mypy.ini"
    mypy.write_text("[mypy]\n", encoding="utf-8")
    for command in (
        [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "only_hooks"],
        [sys.executable, "-m", "mypy", "--strict", "--config-file", str(mypy), "only_hooks"],
    ):
        proc = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, describe(proc)


# --- outside-in: the golden spec's package ---------------------------------------------------

PACKAGE = "webhooks_outside_in"
EVENTS = ["PetCreated", "PetDeleted", "NewsletterSignupEvent"]  # the spec's order


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    out = tmp_path_factory.mktemp("hooks") / PACKAGE
    proc = run_cli("generate", "--spec", GOLDEN, "--out", out, cwd=out.parent)
    assert proc.returncode == 0, describe(proc)
    return import_package(out, PACKAGE)


class Recorder:
    """An HTTP server on 127.0.0.1 that keeps every POST (headers, body) and answers 204;
    ``done`` is set once ``expected`` posts came."""

    def __init__(self, expected: int) -> None:
        self.posts: list[tuple[dict[str, str], bytes]] = []
        self.done = threading.Event()
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                recorder.posts.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()
                if len(recorder.posts) >= expected:
                    recorder.done.set()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_and_send(package_dir: Path, url: str, secret: str, wait: threading.Event) -> str:
    """``apismith serve --send-webhooks url``, its mock on a free port, until ``wait`` is
    set (or a hang); its output. The mock answers the client meanwhile."""
    port = free_port()
    command = [sys.executable, "-m", "generator", "serve", "--out", str(package_dir)]
    command += ["--port", str(port), "--send-webhooks", url, "--webhook-secret", secret]
    proc = subprocess.Popen(
        command,
        cwd=package_dir.parent,
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert wait.wait(timeout=HANG_GUARD), "no webhooks were posted"
        client = sys.modules[PACKAGE].WebhooksOutsideInClient(base_url=f"http://127.0.0.1:{port}")
        assert client.pets.retrieve(1).id >= 1  # the mock is up and answering
    finally:
        proc.terminate()
        output, _ = proc.communicate(timeout=HANG_GUARD)
    return output


def test_served_webhooks_unwrap_into_their_models(package: ModuleType) -> None:
    recorder = Recorder(len(EVENTS))
    try:
        output = serve_and_send(Path(package.__file__).parent, recorder.url, SECRET, recorder.done)
    finally:
        recorder.stop()
    for name in ("petCreated", "pet.deleted", "newsletterSignup"):
        assert f"apismith: webhook {name}: POST {recorder.url} -> 204" in output, output
    webhooks = package.WebhooksOutsideInClient().webhooks
    errors = sys.modules[f"{PACKAGE}.webhooks"]
    events = [webhooks.unwrap(body, headers, secret=SECRET) for headers, body in recorder.posts]
    assert [type(e).__name__ for e in events] == EVENTS
    headers, body = recorder.posts[0]
    assert headers["content-type"] == "application/json"
    assert headers["webhook-signature"].startswith("v1,")
    with pytest.raises(errors.WebhookVerificationError):
        webhooks.unwrap(body.replace(b"pet.created", b"pet.deleted"), headers, secret=SECRET)
    with pytest.raises(errors.WebhookVerificationError):
        webhooks.unwrap(body, headers, secret="whsec_" + "QUJD" * 8)
    with pytest.raises(errors.WebhookVerificationError):
        webhooks.unwrap(body, {}, secret=SECRET)
    with pytest.raises(errors.WebhookPayloadError) as caught:
        webhooks.unwrap(b'{"type": "pet.adopted"}')
    assert isinstance(caught.value, package.APIError)
    assert caught.value.body == {"type": "pet.adopted"}


def test_the_generated_receiver_gets_each_event(package: ModuleType) -> None:
    receiver = importlib.import_module(f"{PACKAGE}.webhook_receiver")
    seen: list[tuple[str, str]] = []
    done = threading.Event()

    class Service(receiver.BaseWebhooksService):
        async def pet_created(self, payload: Any) -> None:
            self.note("pet_created", payload)

        async def pet_deleted(self, payload: Any) -> None:
            self.note("pet_deleted", payload)

        async def newsletter_signup(self, payload: Any) -> None:
            self.note("newsletter_signup", payload)

        def note(self, method: str, payload: Any) -> None:
            seen.append((method, type(payload).__name__))
            if len(seen) == len(EVENTS):
                done.set()

    server = Server(receiver.create_receiver_app(Service(), secret=SECRET))
    try:
        url = f"{server.url}/webhooks"
        serve_and_send(Path(package.__file__).parent, url, SECRET, done)
        assert seen == list(zip(["pet_created", "pet_deleted", "newsletter_signup"], EVENTS))
        sample = json.dumps(receiver.WEBHOOK_SAMPLES["petCreated"])
        unsigned = httpx.post(url, content=sample)
        assert unsigned.status_code == 401, unsigned.text
        sign = sys.modules[f"{PACKAGE}.webhooks"].signature_headers
        one = httpx.post(f"{url}/pet_deleted", content=sample, headers=sign(sample, secret=SECRET))
        assert one.status_code == 422, one.text  # a pet.created body on the pet.deleted route
    finally:
        server.stop()


def test_the_standard_webhooks_example(package: ModuleType) -> None:
    """The signature of Standard Webhooks' example (its spec and test suites)."""
    webhooks = sys.modules[f"{PACKAGE}.webhooks"]
    body = '{"test": 2432232314}'
    msg_id, timestamp = "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330
    signature = webhooks.sign(body, secret=SECRET, msg_id=msg_id, timestamp=timestamp)
    assert signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    headers = {
        "Webhook-Id": msg_id,
        "Webhook-Timestamp": str(timestamp),
        "Webhook-Signature": f"v1,bm90IGl0 {signature}",  # any of the listed signatures
    }
    webhooks.verify(body, headers, secret=SECRET, now=timestamp + 299)
    with pytest.raises(webhooks.WebhookVerificationError, match="seconds from now"):
        webhooks.verify(body, headers, secret=SECRET, now=timestamp + 301)


def test_send_webhooks_refuses_a_lone_secret(tmp_path: Path) -> None:
    proc = run_cli("serve", "--spec", GOLDEN, "--webhook-secret", "s", cwd=tmp_path)
    assert proc.returncode == 2, describe(proc)
    assert "--send-webhooks" in proc.stderr


@pytest.fixture(autouse=True)
def _no_secret_in_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("WEBHOOKS_OUTSIDE_IN_WEBHOOK_SECRET", raising=False)
    yield


def test_the_environments_secret_is_the_default(
    package: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    webhooks = sys.modules[f"{PACKAGE}.webhooks"]
    assert webhooks.SECRET_ENV == "WEBHOOKS_OUTSIDE_IN_WEBHOOK_SECRET"
    body = json.dumps(sys.modules[f"{PACKAGE}.webhook_receiver"].WEBHOOK_SAMPLES["pet.deleted"])
    client = package.WebhooksOutsideInClient()
    assert type(client.webhooks.unwrap(body)).__name__ == "PetDeleted"  # no secret: no check
    monkeypatch.setenv(webhooks.SECRET_ENV, SECRET)
    with pytest.raises(webhooks.WebhookVerificationError, match="missing header"):
        client.webhooks.unwrap(body)
    signed = webhooks.signature_headers(body, secret=SECRET)
    assert type(client.webhooks.unwrap(body, signed)).__name__ == "PetDeleted"
    with pytest.raises(webhooks.WebhookVerificationError):
        webhooks.Webhooks("whsec_" + "QUJD" * 8).unwrap(body, signed)  # the constructor's wins


def test_a_webhooks_resource_keeps_its_name(tmp_path: Path) -> None:
    """A resource named ``webhooks`` (a tag, a path) keeps it: the reader is then
    ``client.webhook_events``."""
    spec = spec_of({"ping": ref_hook("Ok")}, {"Ok": OBJECT})
    answer = {"200": {"description": "ok"}}
    spec["paths"] = {"/webhooks": {"get": {"operationId": "listWebhooks", "responses": answer}}}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    client = generate(adhoc_config(path, tmp_path / "clash")).files["_client.py"].decode()
    assert "    def webhooks(self) -> WebhooksResource:" in client
    assert "    def webhook_events(self) -> Webhooks:" in client
