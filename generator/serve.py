"""``apismith serve``: run a generated package's mock server.

The package is a configured API's, one at ``--out DIR`` (vendored or ad hoc), one a
``--config FILE`` writes, or one generated on the spot from ``--spec FILE`` into a
temporary folder. The mock's data are the package's own tables, computed when it was
generated (realistic data, seed 0). ``--seed N`` and ``--required-only`` compute other
tables from the package's spec, with the same code that generated them.

``--send-webhooks URL`` posts, once the mock is up, one sample of each webhook payload of
the package (its ``webhook_receiver.WEBHOOK_SAMPLES``) to URL as JSON, with the Standard
Webhooks headers (``webhook-id``, ``webhook-timestamp``, and with ``--webhook-secret`` a
``webhook-signature`` made by the package's own ``webhooks.signature_headers``), and prints
one line per post. A package with webhooks and no operations has no mock: the posts are
all it does.
"""

from __future__ import annotations

import importlib
import json
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.config import ApiConfig, adhoc_config, load_config, vendored_config
from generator.errors import ApismithError
from generator.selection import generated_package, select_configs


@dataclass(frozen=True)
class MockSettings:
    """What the mock does beyond answering: the ``apismith serve`` options."""

    seed: int = 0
    required_only: bool = False
    stateful: bool = False
    latency_ms: float = 0
    error_rate: float = 0.0

    def __post_init__(self) -> None:
        if not 0 <= self.error_rate <= 1:
            raise ApismithError(f"--error-rate must be within 0..1, got {self.error_rate}")
        if self.latency_ms < 0:
            raise ApismithError(f"--latency must be >= 0 ms, got {self.latency_ms}")

    @property
    def own_data(self) -> bool:
        """Whether the data differ from the package's tables."""
        return self.seed != 0 or self.required_only


def _generate_into(config: ApiConfig) -> None:
    """Generate ``config``'s package (``serve --spec``: into a temporary folder)."""
    from generator.model_worker import ModelRenderer
    from generator.pipeline import generate
    from generator.write import check_target, write_package

    with ModelRenderer() as models:
        result = generate(config, models)
    check_target(config.out, force=False)
    package = config.package if config.meta else ""
    write_package(
        config.out, result.files, package=package, compiled=result.compiled, probes=result.probes
    )


def resolve(
    api: str | None, out: Path | None, spec: Path | None, config: Path | None, root: Path | None
) -> tuple[str, Path, ApiConfig]:
    """(name, package folder, the config that generates it) of the package to serve."""
    given = [flag for flag, v in (("--out", out), ("--spec", spec), ("--config", config)) if v]
    if len(given) > 1 or (given and api is not None):
        named = [f"API {api!r}"] if api is not None else []
        raise ApismithError(f"serve one package: got {' and '.join(named + given)}")
    if spec is not None:
        folder = Path(tempfile.mkdtemp(prefix="apismith-serve-"))
        cfg = adhoc_config(spec, folder / "package")
        _generate_into(cfg)
        return cfg.name, cfg.package_dir, cfg
    if config is not None:
        cfg = load_config(config)
        return cfg.name, cfg.package_dir, cfg
    name, package_dir = generated_package(api, out, root)
    if out is not None:
        # the package's openapi.json is the spec with its overlays applied already: the
        # recorded overlays (relative to the original spec) are not applied again
        spec_copy = package_dir / "openapi.json"
        cfg = vendored_config(name, spec_copy, package_dir, {"overlays": []}, base=package_dir)
        return name, package_dir, cfg
    (cfg,) = select_configs([name], None, None, None, None, root)
    return name, package_dir, cfg


def mock_data(config: ApiConfig, settings: MockSettings) -> tuple[dict[str, Any], dict[str, Any]]:
    """The mock's answers and chunks for ``settings`` (seed, required-only), from the spec."""
    from generator.pipeline import build_api, load_and_normalize
    from generator.render.examples import Synthesizer
    from generator.render.server import mock_data as server_mock_data

    _, normalized = load_and_normalize(config)
    api, bound = build_api(config, normalized.spec)
    synth = Synthesizer(api, full=not settings.required_only, seed=settings.seed)
    return server_mock_data(api, config, bound, synth)


def with_cors(app: Any) -> Any:
    """``app`` answering browsers of any origin (CORS): the docs' "Try it" consoles call the
    mock from the site's origin. Preflight ``OPTIONS`` requests (an ``Origin`` and an
    ``Access-Control-Request-Method``) are answered here, allowing every method and the
    headers asked for; every answer to a request with an ``Origin`` allows any origin and
    exposes its headers. No credentials mode (cookies): the consoles send none. Only the
    mock gets this, never a generated server (whose CORS policy is its owner's)."""
    from starlette.middleware.cors import CORSMiddleware

    return CORSMiddleware(
        app, allow_origins=["*"], allow_methods=["*"], allow_headers=["*"], expose_headers=["*"]
    )


def mock_app(package_dir: Path, config: ApiConfig, settings: MockSettings) -> Any:
    """The ASGI app of the package's mock, with ``settings`` applied (and CORS)."""
    return with_cors(_mock_app(package_dir, config, settings))


def _mock_app(package_dir: Path, config: ApiConfig, settings: MockSettings) -> Any:
    if not (package_dir / "server.py").is_file():
        raise ApismithError(
            f"{config.name}: no server in {package_dir} (an API without operations, or not"
            " generated yet: run `apismith generate` first)"
        )
    sys.path.insert(0, str(package_dir.resolve().parent))
    server = importlib.import_module(f"{package_dir.name}.server")
    mock = importlib.import_module(f"{package_dir.name}.mock")
    if not hasattr(mock, "create_mock_app"):  # a package from an older apismith
        if settings != MockSettings():
            raise ApismithError(
                f"{config.name}: this package's mock has no options; regenerate it"
                " with this apismith to use --seed, --stateful, --latency or --error-rate"
            )
        return server.create_app(mock.MockService())
    responses, chunks = mock_data(config, settings) if settings.own_data else (None, None)
    options = mock.MockOptions(
        seed=settings.seed,
        stateful=settings.stateful,
        latency_ms=settings.latency_ms,
        error_rate=settings.error_rate,
    )
    return mock.create_mock_app(options, responses=responses, chunks=chunks)


@dataclass(frozen=True)
class WebhookSending:
    """``--send-webhooks URL`` (and ``--webhook-secret``): where the samples go."""

    url: str
    secret: str | None = None


def _package_module(package_dir: Path, module: str) -> Any:
    sys.path.insert(0, str(package_dir.resolve().parent))
    return importlib.import_module(f"{package_dir.name}.{module}")


def webhook_deliveries(
    package_dir: Path, secret: str | None
) -> list[tuple[str, bytes, dict[str, str]]]:
    """(webhook, body, headers) of one sample of each webhook of the package: the body as
    JSON, with the Standard Webhooks headers, signed when there is a ``secret``."""
    if not (package_dir / "webhook_receiver.py").is_file():
        raise ApismithError(
            f"{package_dir}: no webhooks to send (the spec has none, or the package has no"
            " server output: regenerate it with this apismith)"
        )
    samples = _package_module(package_dir, "webhook_receiver").WEBHOOK_SAMPLES
    sign = _package_module(package_dir, "webhooks").signature_headers
    out = []
    for name, sample in samples.items():
        body = json.dumps(sample).encode("utf-8")
        if secret:
            headers = sign(body, secret=secret)
        else:
            stamp = str(int(time.time()))
            headers = {"webhook-id": f"msg_{secrets.token_hex(12)}", "webhook-timestamp": stamp}
        out.append((str(name), body, {"content-type": "application/json", **headers}))
    return out


def send_webhooks(
    package_dir: Path, sending: WebhookSending, echo: Callable[[str], None]
) -> list[int | None]:
    """Post one sample of each webhook to ``sending.url``; one line each to ``echo``; the
    statuses (None: no answer)."""
    import httpx

    statuses: list[int | None] = []
    status: int | None
    with httpx.Client(timeout=30) as client:
        for name, body, headers in webhook_deliveries(package_dir, sending.secret):
            try:
                answer = client.post(sending.url, content=body, headers=headers)
                status, what = answer.status_code, str(answer.status_code)
            except httpx.HTTPError as exc:
                status, what = None, f"failed: {type(exc).__name__}: {exc}"
            statuses.append(status)
            echo(f"apismith: webhook {name}: POST {sending.url} -> {what}")
    return statuses


def run_mock(
    app: Any, host: str, port: int, on_started: Callable[[], object] | None = None
) -> None:
    """Serve ``app`` with uvicorn until stopped; ``on_started`` runs in a thread of its own
    once the server listens."""
    try:
        import uvicorn
    except ImportError:
        raise ApismithError(
            "`apismith serve` needs uvicorn, which apismith depends on: pip install apismith"
        ) from None

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if on_started is not None and self.started:
                threading.Thread(target=on_started, daemon=True).start()

    Server(uvicorn.Config(app, host=host, port=port)).run()


def serve_package(
    name: str,
    package_dir: Path,
    config: ApiConfig,
    settings: MockSettings,
    address: tuple[str, int],
    sending: WebhookSending | None,
    echo: Callable[[str], None],
) -> None:
    """``apismith serve``: the package's mock on ``address`` (host, port) until stopped,
    with ``sending``'s webhooks posted once it is up; for a package with webhooks and no
    operations (no mock), only the posts."""
    if sending is not None and not (package_dir / "server.py").is_file():
        if (package_dir / "webhook_receiver.py").is_file():
            send_webhooks(package_dir, sending, echo)
            return
    app = mock_app(package_dir, config, settings)
    if sending is not None:
        webhook_deliveries(package_dir, sending.secret)  # no webhooks: refused before serving
    host, port = address
    echo(f"apismith: serving the {name} mock on http://{host}:{port}")
    if sending is None:
        run_mock(app, host, port)
    else:
        run_mock(app, host, port, lambda: send_webhooks(package_dir, sending, echo))
