"""``apismith serve``: run a generated package's mock server.

The package is a configured API's, one at ``--out DIR`` (vendored or ad hoc), one a
``--config FILE`` writes, or one generated on the spot from ``--spec FILE`` into a
temporary folder. The mock's data are the package's own tables, computed when it was
generated (realistic data, seed 0). ``--seed N`` and ``--required-only`` compute other
tables from the package's spec, with the same code that generated them.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
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
        spec_copy = package_dir / "openapi.json"
        cfg = vendored_config(name, spec_copy, package_dir, {}, base=package_dir)
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


def mock_app(package_dir: Path, config: ApiConfig, settings: MockSettings) -> Any:
    """The ASGI app of the package's mock, with ``settings`` applied."""
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
