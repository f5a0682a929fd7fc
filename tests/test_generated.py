"""The committed packages in generated/ (read-only here): they import, pass ruff and
mypy --strict, carry their provenance, can be moved, import only pydantic and the standard
library, accept the real payloads collected from the APIs' own code and docs, and reject
what their specs forbid.
"""

from __future__ import annotations

import ast
import hashlib
import json
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pydantic
import pytest

from generator import __version__
from tests.conftest import (
    GENERATED,
    PACKAGES,
    REPO_ROOT,
    SPECS,
    describe,
    import_package,
    load_payload_cases,
    run_python,
)

PACKAGE_NAMES = sorted(PACKAGES.values())
API_OF = {package: api for api, package in PACKAGES.items()}

# Modules a generated package may import besides the standard library: pydantic and the
# two packages pydantic itself requires (typing_extensions gives TypeAliasType on 3.10/3.11).
ALLOWED_THIRD_PARTY = {"pydantic", "pydantic_core", "typing_extensions"}
# Optional modules of a package and the extras each may use besides those; any other module
# (a new one included) gets the strict rule.
SERVER_DEPS = {"fastapi", "starlette", "uvicorn"}
CLIENT_DEPS = {"httpx"}
OPTIONAL_MODULES = {
    "server.py": SERVER_DEPS,
    "mock.py": SERVER_DEPS,
    "_mock_engine.py": SERVER_DEPS,
    "_mock_faults.py": SERVER_DEPS,
    "client.py": CLIENT_DEPS,
    "_client.py": CLIENT_DEPS,
    "_runtime.py": CLIENT_DEPS,
    # the runtime's sections (templates/runtime/*.py), copied beside _runtime.py
    "_types.py": CLIENT_DEPS,
    "_errors.py": CLIENT_DEPS,
    "_encoding.py": CLIENT_DEPS,
    "_response.py": CLIENT_DEPS,
    "_streaming.py": CLIENT_DEPS,
    "_pages.py": CLIENT_DEPS,
    "_base_client.py": CLIENT_DEPS,
    # the client's resource modules (resources/<attr>.py) and their package
    "resources/*": CLIENT_DEPS,
    # the server's and the mock's resource modules (_server/<attr>.py, _mock/<attr>.py)
    # and their packages' __init__.py (shared pieces, merged tables)
    "_server/*": SERVER_DEPS,
    "_mock/*": SERVER_DEPS,
}
# Every package has at least these files.
CORE_FILES = ("MANIFEST.json", "__init__.py", "models.py", "openapi.json", "py.typed")


def package_dir(package: str) -> Path:
    path = GENERATED / package
    if not (path / "__init__.py").is_file():
        pytest.fail(f"generated/{package} is not committed (no {path / '__init__.py'})")
    return path


@cache
def committed(package: str) -> ModuleType:
    """The committed package, imported in-process under a private name."""
    return import_package(package_dir(package), f"_committed_{package}")


@cache
def spec_sha256(api: str) -> str:
    from generator.config import load_config

    return hashlib.sha256(load_config(SPECS / f"{api}.toml").spec.read_bytes()).hexdigest()


@cache
def renames(api: str) -> dict[str, str]:
    """old schema name -> new, from the normalize passes' rename and merge diagnostics."""
    from generator.config import load_config
    from generator.pipeline import load_and_normalize

    _doc, normalized = load_and_normalize(load_config(SPECS / f"{api}.toml"))
    return {d.old: d.new for d in normalized.diagnostics if d.kind in ("rename", "merge") and d.old}


def model_for(api: str, schema: str) -> Any:
    """The generated class or type alias for an original schema name."""
    models = committed(PACKAGES[api]).models
    mapping = renames(api)
    name, seen = schema, set()
    while name in mapping and name not in seen:  # follow renames first: the old name may
        seen.add(name)  # now belong to another schema
        name = mapping[name]
    if not hasattr(models, name):
        pytest.fail(
            f"{PACKAGES[api]}.models has no model for schema {schema!r} (looked for {name!r})"
        )
    return getattr(models, name)


def adapter_for(case: dict[str, Any]) -> pydantic.TypeAdapter[Any]:
    target = model_for(case["api"], case["schema"])
    if case.get("container") == "array":
        return pydantic.TypeAdapter(list[target])  # type: ignore[valid-type]
    return pydantic.TypeAdapter(target)


def validate(case: dict[str, Any]) -> Any:
    """Validate a case's payload as it travels: JSON text."""
    return adapter_for(case).validate_json(json.dumps(case["payload"]))


# --- the packages as they are ----------------------------------------------------------------


@pytest.mark.parametrize("package", PACKAGE_NAMES)
def test_imports_in_a_fresh_interpreter(package: str, tmp_path: Path) -> None:
    package_dir(package)
    code = (
        f"import sys; sys.path.insert(0, {str(GENERATED)!r}); "
        f"import {package}, {package}.models; print({package}.models.__name__)"
    )
    proc = run_python(code, cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout == f"{package}.models\n" and proc.stderr == "", describe(proc)


@pytest.mark.parametrize("args", [["check"], ["format", "--check"]], ids=["check", "format"])
@pytest.mark.parametrize("package", PACKAGE_NAMES)
def test_ruff(package: str, args: list[str], tmp_path: Path) -> None:
    path = package_dir(package)
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", *args, "--isolated", "--no-cache", str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, describe(proc)


STRICT_CONSUMER = """[project]
name = "consumer"
version = "0"

[tool.ruff]
line-length = 100

[tool.ruff.lint]
select = ["E", "F", "W", "I", "B", "UP", "RUF", "PYI", "N", "SIM"]
"""


@pytest.mark.parametrize("package", PACKAGE_NAMES)
def test_a_repositorys_own_ruff_leaves_the_package_alone(package: str, tmp_path: Path) -> None:
    """Vendored into a repo with its own (stricter, wider) ruff settings, the package's
    ruff.toml applies: `ruff check .` is clean and `ruff format --check .` changes nothing
    (this repo's own config included: `ruff check generated/`)."""
    (tmp_path / "pyproject.toml").write_text(STRICT_CONSUMER, encoding="utf-8")
    shutil.copytree(package_dir(package), tmp_path / "vendor" / package)
    for root in (tmp_path, REPO_ROOT):
        target = "vendor" if root == tmp_path else f"generated/{package}"
        # in the consumer repo with ruff's cache on, as a user runs it
        cache = ["--no-cache"] if root == REPO_ROOT else []
        for args in (["check"], ["format", "--check"]):
            proc = subprocess.run(
                [sys.executable, "-m", "ruff", *args, *cache, target],
                cwd=root,
                capture_output=True,
                text=True,
                check=False,
            )
            assert proc.returncode == 0, describe(proc)
    # ruff's cache lands beside the package, never in it (it would be a stray file)
    vendored = tmp_path / "vendor" / package
    assert sorted(p.name for p in vendored.iterdir()) == sorted(
        p.name for p in package_dir(package).iterdir() if p.name != "__pycache__"
    )
    assert (tmp_path / "vendor" / ".ruff_cache").is_dir()


def test_mypy_strict(tmp_path: Path) -> None:
    """One mypy run over every committed package (a missing package fails after the run)."""
    present = [p for p in PACKAGE_NAMES if (GENERATED / p / "__init__.py").is_file()]
    missing = sorted(set(PACKAGE_NAMES) - set(present))
    assert present, "no generated package is committed"
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n", encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(config),
            "--cache-dir",
            str(tmp_path / "cache"),
            *(str(GENERATED / p) for p in present),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, describe(proc)
    assert not missing, f"not committed, so not type-checked: {missing}"


@pytest.mark.parametrize("package", PACKAGE_NAMES)
def test_every_file_carries_its_provenance(package: str) -> None:
    path = package_dir(package)
    api = API_OF[package]
    sha = spec_sha256(api)
    files = sorted(
        p.relative_to(path).as_posix()
        for p in path.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
    assert set(CORE_FILES) <= set(files), files
    comment = {".py": "# ", ".yml": "# ", ".md": "<!-- "}
    for name in (f for f in files if Path(f).suffix in comment):
        first = (path / name).read_text(encoding="utf-8").splitlines()[0]
        start = comment[Path(name).suffix]
        assert first.startswith(f"{start}Generated by apismith {__version__} from "), (name, first)
        assert f"from a spec with sha256 {sha[:16]}. Do not edit." in first, (name, first)
    spec = json.loads((path / "openapi.json").read_text(encoding="utf-8"))
    assert spec["x-apismith"] == {"generator": f"apismith {__version__}", "spec_sha256": sha}
    manifest = json.loads((path / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["generator"]["version"] == __version__
    assert manifest["inputs"][0]["role"] == "spec" and manifest["inputs"][0]["sha256"] == sha
    assert (path / "py.typed").read_bytes() == b""
    recorded = manifest["files"]
    assert sorted(recorded) == [f for f in files if f != "MANIFEST.json"]
    for name, digest in recorded.items():
        assert hashlib.sha256((path / name).read_bytes()).hexdigest() == digest, name
    package_module = committed(package)
    assert package_module.SPEC_SHA256 == sha
    assert package_module.GENERATOR_VERSION == __version__


def test_relocatable(tmp_path: Path) -> None:
    """Copied anywhere under any name, the package imports and works."""
    shutil.copytree(package_dir("llm_engine"), tmp_path / "some_other_name")
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import some_other_name\n"
        "from some_other_name import models\n"
        "req = models.CompletionSyncV1Request.model_validate("
        "{'prompt': 'hi', 'max_new_tokens': 3, 'temperature': 0.5})\n"
        "assert req.prompt == 'hi' and req.max_new_tokens == 3\n"
        "assert models.__name__ == 'some_other_name.models'\n"
        "assert 'llm_engine' not in sys.modules\n"
        "print(some_other_name.__file__)\n"
    )
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    proc = run_python(code, str(tmp_path), cwd=elsewhere)
    assert proc.returncode == 0, describe(proc)
    assert Path(proc.stdout.strip()) == tmp_path / "some_other_name" / "__init__.py"


def third_party_imports(file: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute import of a module outside the standard library."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:  # relative: the package
            names = [node.module or ""]
        else:
            continue
        found += [(node.lineno, n) for n in names if n.split(".")[0] not in sys.stdlib_module_names]
    return found


@pytest.mark.parametrize("package", PACKAGE_NAMES)
def test_imports_only_pydantic_and_stdlib(package: str) -> None:
    """The models need only pydantic; the optional modules only their own extras."""
    outside: list[str] = []
    root = package_dir(package)
    for file in sorted(root.rglob("*.py")):
        where = file.relative_to(root).as_posix()
        key = f"{file.parent.name}/*" if file.parent != root else where
        allowed = ALLOWED_THIRD_PARTY | OPTIONAL_MODULES.get(key, set())
        outside += [
            f"{where}:{line}: {name}"
            for line, name in third_party_imports(file)
            if name.split(".")[0] not in allowed
        ]
    assert not outside, outside


@pytest.mark.parametrize("package", PACKAGE_NAMES)
def test_models_import_without_optional_dependencies(package: str, tmp_path: Path) -> None:
    """``import <package>`` works where fastapi and uvicorn are not installed: the runtime
    dependencies of a package are pydantic and httpx; only the server needs fastapi."""
    package_dir(package)
    blocked = sorted(SERVER_DEPS)
    code = (
        f"import sys; sys.path.insert(0, {str(GENERATED)!r})\n"
        f"for name in {blocked!r}: sys.modules[name] = None  # import fails\n"
        f"import {package}, {package}.models\n"
        f"print(len(vars({package}.models)))\n"
    )
    proc = run_python(code, cwd=tmp_path)
    assert proc.returncode == 0, describe(proc)


# --- real payloads -----------------------------------------------------------------------------


def test_real_payload_cases_are_well_formed() -> None:
    cases = load_payload_cases()
    assert len({c["id"] for c in cases}) == len(cases), "case ids must be unique"
    assert {c["api"] for c in cases} <= set(PACKAGES)
    assert sum(not c["spec_valid"] for c in cases) == 18


def test_real_payload_validates(real_case: dict[str, Any]) -> None:
    """Every payload that follows its spec validates against the generated model."""
    try:
        validate(real_case)
    except pydantic.ValidationError as exc:
        pytest.fail(f"{real_case['id']} ({real_case['schema']}) rejected:\n{exc}")


def _server_rejects_by_schema(case: dict[str, Any]) -> bool:
    behavior = str(case.get("expected_server_behavior", ""))
    return behavior.startswith("reject") and "not schema" not in behavior


# What the models do with each payload that breaks its spec, and why. "reject": the models
# enforce what the spec says (a required field, a type, an enum, a pattern). "accept": a
# documented leniency of the models (docs/models.md): every model has extra="allow", and an
# untagged oneOf is a pydantic union, which takes the first member that fits (the server's
# own DTO also accepts these, defaulting the framework to vllm).
INVALID_VERDICTS: dict[str, tuple[str, str]] = {
    "le-chat-v2-req-dto-empty-messages": ("reject", "minItems 1 on messages"),
    "le-completions-v2-resp-stream-chunk": ("reject", "finish_reason null, a string"),
    "le-llm-endpoint-update-req-domain-full": ("accept", "untagged oneOf: a union"),
    "le-llm-endpoint-update-req-domain-workers-only": ("accept", "untagged oneOf: a union"),
    "le-llm-endpoint-get-resp-client-docstring": ("reject", "null id and model_name"),
    "le-llm-endpoint-list-resp-client-docstring": ("reject", "null id, no status"),
    "le-fine-tune-create-req-docs": ("reject", "hyperparameters required"),
    "le-fine-tune-create-req-docs-client-wire": ("reject", "hyperparameters null"),
    "le-fine-tune-create-req-client-docstring": ("reject", "hyperparameters required"),
    "le-fine-tune-create-resp-client-docstring": ("reject", "id required"),
    "le-fine-tune-get-resp-client-docstring": ("reject", "id required"),
    "le-fine-tune-list-resp-client-docstring": ("reject", "id required"),
    "le-endpoint-create-req-smoke-inline-bundle": ("reject", "model_bundle_id required"),
    "le-batch-job-get-resp-api-1-running": ("reject", "duration null, a string"),
    "sgp-stainless-kb-upload-s3": ("reject", "aws_account_id pattern"),
    "sgp-stainless-model-chat-completion": ("accept", "extra='allow': reasoning_effort kept"),
    "sgp-stainless-chat-completion": ("reject", "model not in the enum"),
    "sgp-stainless-evaluation-create": ("reject", "annotation_config_type not in the enum"),
}


def test_every_spec_invalid_payload_has_a_verdict() -> None:
    invalid = {c["id"] for c in load_payload_cases() if not c["spec_valid"]}
    assert invalid == set(INVALID_VERDICTS)


def test_spec_invalid_payload_recorded(invalid_case: dict[str, Any], record_property: Any) -> None:
    """Payloads that break their spec: each gets the verdict of :data:`INVALID_VERDICTS`;
    the negative controls (the server's own tests expect a rejection) are rejected."""
    try:
        validate(invalid_case)
        outcome = "accepted"
    except pydantic.ValidationError as exc:
        outcome = f"rejected: {str(exc).splitlines()[1] if len(str(exc).splitlines()) > 1 else exc}"
    record_property("outcome", outcome)
    record_property("spec_error", invalid_case.get("spec_error", ""))
    verdict, why = INVALID_VERDICTS[invalid_case["id"]]
    assert outcome.startswith(f"{verdict}ed"), (
        f"{invalid_case['id']}: expected {verdict} ({why}), got {outcome}; "
        f"spec error: {invalid_case.get('spec_error')}"
    )
    if _server_rejects_by_schema(invalid_case):
        behavior, error = invalid_case["expected_server_behavior"], invalid_case["spec_error"]
        assert outcome.startswith("rejected"), (
            f"negative control {invalid_case['id']} was accepted; the server rejects it "
            f"({behavior}); spec error: {error}"
        )


def test_negative_controls() -> None:
    """Three cases say what the server does; the schema-level rejections are spec_valid false
    (checked above), the business-logic one is spec_valid true (validates above)."""
    controls = [c for c in load_payload_cases() if "expected_server_behavior" in c]
    assert len(controls) == 3
    for case in controls:
        assert case["expected_server_behavior"].startswith("reject")
        assert case["spec_valid"] is not _server_rejects_by_schema(case), case["id"]


# --- rejections and leniency --------------------------------------------------------------------

SYNC_REQUEST = {"prompt": "what is 1+1?", "max_new_tokens": 10, "temperature": 0.1}
CHAT_REQUEST = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def _llm(schema: str) -> Any:
    return model_for("llm-engine", schema)


SYSTEM_MESSAGE = {"role": "system", "content": "be brief"}
BASES = {
    "CompletionSyncV1Request": SYNC_REQUEST,
    "ChatCompletionV2Request": CHAT_REQUEST,
    "ChatCompletionRequestSystemMessage": SYSTEM_MESSAGE,
}


def _without(data: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != key}


@pytest.mark.parametrize(
    ("schema", "payload"),
    [
        pytest.param(
            "CompletionSyncV1Request", {**SYNC_REQUEST, "temperature": 1.5}, id="temperature>1"
        ),
        pytest.param(
            "CompletionSyncV1Request", {**SYNC_REQUEST, "temperature": -0.1}, id="temperature<0"
        ),
        pytest.param("CompletionSyncV1Request", {**SYNC_REQUEST, "top_p": 1.5}, id="sync-top_p>1"),
        pytest.param("CompletionSyncV1Request", {**SYNC_REQUEST, "top_p": 0}, id="sync-top_p=0"),
        pytest.param("ChatCompletionV2Request", {**CHAT_REQUEST, "top_p": 1.01}, id="chat-top_p>1"),
        pytest.param(
            "ChatCompletionV2Request", {**CHAT_REQUEST, "temperature": 2.5}, id="chat-temperature>2"
        ),
        pytest.param(
            "ChatCompletionV2Request",
            {**CHAT_REQUEST, "messages": [{"role": "robot", "content": "hi"}]},
            id="chat-role-unknown",
        ),
        pytest.param(
            "ChatCompletionRequestSystemMessage",
            {**SYSTEM_MESSAGE, "role": "user"},
            id="system-message-wrong-role",
        ),
        pytest.param(
            "ChatCompletionV2Request", {**CHAT_REQUEST, "messages": []}, id="chat-no-messages"
        ),
        pytest.param(
            "CompletionSyncV1Request", _without(SYNC_REQUEST, "prompt"), id="missing-prompt"
        ),
        pytest.param(
            "ChatCompletionV2Request", _without(CHAT_REQUEST, "model"), id="missing-model"
        ),
        pytest.param(
            "ChatCompletionRequestSystemMessage",
            _without(SYSTEM_MESSAGE, "role"),
            id="missing-role",
        ),
    ],
)
def test_rejects(schema: str, payload: dict[str, Any]) -> None:
    adapter = pydantic.TypeAdapter(_llm(schema))
    adapter.validate_json(json.dumps(BASES[schema]))  # the valid base passes
    with pytest.raises(pydantic.ValidationError):
        adapter.validate_json(json.dumps(payload))


def test_nullable_constrained_field_accepts_null() -> None:
    """The constraint applies to the number, not to None."""
    request = _llm("ChatCompletionV2Request").model_validate({**CHAT_REQUEST, "top_p": None})
    assert request.top_p is None
    sync = _llm("CompletionSyncV1Request").model_validate({**SYNC_REQUEST, "top_p": None})
    assert sync.top_p is None


def test_unknown_keys_are_kept() -> None:
    request = _llm("CompletionSyncV1Request").model_validate_json(
        json.dumps({**SYNC_REQUEST, "brand_new_server_field": {"x": 1}})
    )
    assert request.model_extra == {"brand_new_server_field": {"x": 1}}
    assert request.model_dump(mode="json")["brand_new_server_field"] == {"x": 1}


def test_naive_datetimes_are_accepted() -> None:
    trigger = {
        "id": "t1",
        "name": "n",
        "owner": "o",
        "created_by": "o",
        "created_at": "2022-01-02T00:00:00",
        "cron_schedule": "* * * * *",
        "docker_image_batch_job_bundle_id": "b",
    }
    parsed = _llm("GetTriggerV1Response").model_validate_json(json.dumps(trigger))
    assert parsed.created_at.tzinfo is None
    assert parsed.created_at.year == 2022
    aware = _llm("GetTriggerV1Response").model_validate_json(
        json.dumps({**trigger, "created_at": "2022-01-02T00:00:00Z"})
    )
    assert aware.created_at.tzinfo is not None
