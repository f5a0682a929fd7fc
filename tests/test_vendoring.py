"""Issue 8 end to end, from the outside: apismith's wheel installed (not editable) into a
fresh venv, used in another git repository that vendors generated packages, configured
by ``[tool.apismith]`` in its pyproject.toml, and guarded by the pre-commit hook.

Every command is the venv's ``apismith`` (or ``pre-commit``) with a clean environment: the
repo is not on the path and is never the working directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import (
    GENERATED,
    PACKAGES,
    REPO_ROOT,
    SPECS,
    cli_env,
    describe,
    error_lines,
    tree_bytes,
    write_json,
)
from tests.e2e_support import (
    FINGERPRINT_CODE,
    SLOW_TIMEOUT,
    Venv,
    build_wheel,
    clean_env,
    fingerprint_of,
    flip_one_byte,
    git_commit_all,
    git_init,
    make_venv,
    run,
    snapshot_repo,
)

pytestmark = pytest.mark.slow

LLM_OUT = "vendor/llm_engine"
CONSUMER_PYPROJECT = """\
[project]
name = "consumer"
version = "0.0.0"

[tool.apismith.apis.llm-engine]
spec = "api/openapi.json"
out = "vendor/llm_engine"
"""
PETS_ENTRY = """
[tool.apismith.apis.pets]
spec = "api/pets/openapi.json"
out = "vendor/pets"
"""
OVERRIDE_MARKER = "# consumer override: pets"


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venv]:
    """apismith's wheel installed, non-editable, into a fresh venv (dependencies from the
    package index)."""
    root = tmp_path_factory.mktemp("wheel-venv")
    start = time.perf_counter()
    wheel = build_wheel(root / "wheels")
    made = make_venv(root / "venv", wheel)
    print(f"wheel + venv: {time.perf_counter() - start:.1f} s")
    yield made


@pytest.fixture(scope="module")
def consumer_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """(a) A git repo that vendors llm_engine: pyproject + spec (and its overlay) + the
    committed package."""
    root = tmp_path_factory.mktemp("consumer-template") / "consumer"
    root.mkdir()
    git_init(root)
    (root / "pyproject.toml").write_text(CONSUMER_PYPROJECT, encoding="utf-8")
    (root / "api").mkdir()
    shutil.copy2(SPECS / "llm-engine" / "openapi.json", root / "api" / "openapi.json")
    # the spec's overlay travels with it (the manifest lists it, relative to the spec)
    overlay = "mock-data.overlay.yaml"
    shutil.copy2(SPECS / "llm-engine" / overlay, root / "api" / overlay)
    shutil.copytree(
        GENERATED / "llm_engine",
        root / LLM_OUT,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    git_commit_all(root, "vendor llm_engine")
    return root


@pytest.fixture
def consumer(consumer_template: Path, tmp_path: Path) -> Path:
    """A private copy of the consumer repo (git history included)."""
    root = tmp_path / "consumer"
    shutil.copytree(consumer_template, root, symlinks=True)
    return root


# --- helpers ----------------------------------------------------------------------------------


def named_files(proc: subprocess.CompletedProcess[str], out: str) -> set[str]:
    """The files under ``out`` that stderr names (drifted or stray), not counting the
    closing ``apismith generate ...`` hint."""
    pattern = re.compile(re.escape(out) + r"/(\S+)")
    names = set()
    for line in error_lines(proc.stderr):
        if "apismith generate" in line:
            continue
        names.update(m.rstrip(".,:;'\"`)") for m in pattern.findall(line))
    return names


def assert_exit(proc: subprocess.CompletedProcess[str], code: int, step: str) -> None:
    assert proc.returncode == code, f"{step}: expected exit {code}\n{describe(proc)}"
    assert "Traceback" not in proc.stderr, f"{step}: traceback\n{describe(proc)}"


def assert_one_line_error(proc: subprocess.CompletedProcess[str], step: str) -> str:
    """Exit 2, and the error is one ``apismith: error: ...`` line, the last one."""
    assert_exit(proc, 2, step)
    lines = error_lines(proc.stderr)
    errors = [line for line in lines if line.startswith("apismith: error:")]
    assert len(errors) == 1 and lines[-1] == errors[0], f"{step}: not one error line\n" + describe(
        proc
    )
    assert "internal error" not in proc.stderr.lower(), f"{step}\n{describe(proc)}"
    return errors[0]


def add_pets(consumer: Path, *, templates: bool = False) -> None:
    """(f) A second API whose spec ``$ref``s a schema in another file."""
    entry = PETS_ENTRY + ('templates = "templates"\n' if templates else "")
    pyproject = consumer / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + entry, encoding="utf-8")
    pet_ref = {"$ref": "./schemas/pet.json"}
    write_json(
        consumer / "api" / "pets" / "openapi.json",
        {
            "openapi": "3.1.0",
            "info": {"title": "Pets", "version": "1.0.0"},
            "paths": {
                "/pets/{pet_id}": {
                    "get": {
                        "operationId": "get_pet",
                        "parameters": [
                            {
                                "name": "pet_id",
                                "in": "path",
                                "required": True,
                                "schema": {"type": "integer"},
                            }
                        ],
                        "responses": {
                            "200": {
                                "description": "The pet.",
                                "content": {"application/json": {"schema": pet_ref}},
                            }
                        },
                    }
                }
            },
            "components": {"schemas": {"Pet": pet_ref}},
        },
    )
    write_json(consumer / "api" / "pets" / "schemas" / "pet.json", pet_schema())


def pet_schema(**extra_properties: object) -> dict[str, object]:
    return {
        "type": "object",
        "title": "Pet",
        "description": "A pet.",
        "properties": {
            "name": {"type": "string", "description": "The pet's name."},
            "age": {"type": "integer", "minimum": 0},
            **extra_properties,
        },
        "required": ["name"],
    }


def builtin_header() -> str:
    return (REPO_ROOT / "templates" / "header.py.jinja").read_text(encoding="utf-8")


# --- the wheel's fingerprint ------------------------------------------------------------------


def test_fingerprint_is_the_same_in_the_wheel_and_the_editable_install(
    venv: Venv, tmp_path: Path
) -> None:
    wheel = fingerprint_of(venv.python(FINGERPRINT_CODE, cwd=tmp_path))
    editable = fingerprint_of(
        subprocess.run(
            [str(REPO_ROOT / ".venv" / "bin" / "python"), "-c", FINGERPRINT_CODE],
            cwd=tmp_path,
            env=cli_env(repo_on_path=False),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    )
    assert wheel == editable, "the installed wheel fingerprints itself differently"
    for package in PACKAGES.values():
        manifest = json.loads((GENERATED / package / "MANIFEST.json").read_text("utf-8"))
        assert manifest["generator"] == wheel, f"generated/{package} is stale (regenerate)"


# --- a repo that vendors llm_engine -----------------------------------------------------------


def test_b_clean_vendored_package_passes(venv: Venv, consumer: Path) -> None:
    proc = venv.apismith("check", cwd=consumer)
    assert_exit(proc, 0, "(b) check")
    # NAME: up to date (OUT), OUT as the tool shows it (relative or absolute)
    up_to_date = re.compile(rf"^llm-engine: up to date \(.*{LLM_OUT}\)$", re.M)
    assert up_to_date.search(proc.stdout), describe(proc)
    # the pre-commit hook runs --full: a faithful copy passes it too
    full = venv.apismith("check", "--full", cwd=consumer)
    assert_exit(full, 0, "(b) check --full")


def test_c_one_byte_edit_fails_the_check(venv: Venv, consumer: Path) -> None:
    models = consumer / LLM_OUT / "models.py"
    original = flip_one_byte(models)
    proc = venv.apismith("check", cwd=consumer)
    assert_exit(proc, 1, "(c) check after a one-byte edit")
    assert named_files(proc, LLM_OUT) == {"models.py"}, describe(proc)
    assert "apismith generate" in error_lines(proc.stderr)[-1], describe(proc)
    assert models.read_bytes() != original, "the check must not repair anything"

    models.write_bytes(original)
    assert_exit(venv.apismith("check", cwd=consumer), 0, "(c) check after restoring")


def test_d_edit_hidden_in_the_manifest_fails_the_full_check(venv: Venv, consumer: Path) -> None:
    out = consumer / LLM_OUT
    models, manifest_path = out / "models.py", out / "MANIFEST.json"
    original_manifest = manifest_path.read_bytes()
    original = flip_one_byte(models)
    manifest = json.loads(original_manifest)
    assert "models.py" in manifest["files"]
    manifest["files"]["models.py"] = hashlib.sha256(models.read_bytes()).hexdigest()
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", "utf-8")

    # the fast path trusts the manifest, so a plain check may pass or fail; never crash
    plain = venv.apismith("check", cwd=consumer)
    assert plain.returncode in (0, 1) and "Traceback" not in plain.stderr, describe(plain)

    full = venv.apismith("check", "--full", cwd=consumer)
    assert_exit(full, 1, "(d) check --full after an edit re-hashed in the manifest")
    named = named_files(full, LLM_OUT)
    assert "models.py" in named and named <= {"models.py", "MANIFEST.json"}, describe(full)

    models.write_bytes(original)
    manifest_path.write_bytes(original_manifest)
    assert_exit(venv.apismith("check", "--full", cwd=consumer), 0, "(d) after restoring")


def test_e_stray_bytecode_is_reported_but_a_module_cache_is_not(venv: Venv, consumer: Path) -> None:
    out = consumer / LLM_OUT
    cache = out / "__pycache__"
    cache.mkdir()
    legit = cache / "models.cpython-311.pyc"
    legit.write_bytes(b"\xa7\r\r\n" + bytes(12) + b"cache of models.py")
    strays = [out / "evil.pyc", cache / "evil.cpython-311.pyc"]
    for stray in strays:
        stray.write_bytes(b"\xa7\r\r\n" + bytes(12) + b"no source for this")

    proc = venv.apismith("check", "--full", cwd=consumer)
    assert_exit(proc, 1, "(e) check --full with stray .pyc files")
    assert named_files(proc, LLM_OUT) == {
        "evil.pyc",
        "__pycache__/evil.cpython-311.pyc",
    }, describe(proc)
    assert "models.cpython-311.pyc" not in proc.stdout + proc.stderr, describe(proc)

    for stray in strays:
        stray.unlink()
    # the bytecode cache of a generated module alone is not stray, for either check
    assert_exit(venv.apismith("check", "--full", cwd=consumer), 0, "(e) only a module cache")
    assert_exit(venv.apismith("check", cwd=consumer), 0, "(e) plain check, module cache")


# --- a second API: cross-file $ref and template overrides ------------------------------------


def test_f_a_referenced_file_is_an_input(venv: Venv, consumer: Path) -> None:
    add_pets(consumer)
    made = venv.apismith("generate", "pets", cwd=consumer)
    assert_exit(made, 0, "(f) generate pets")
    assert (consumer / "vendor" / "pets" / "models.py").is_file(), describe(made)
    assert not (consumer / "vendor" / "llm_engine" / "pets").exists()
    manifest = json.loads((consumer / "vendor" / "pets" / "MANIFEST.json").read_text("utf-8"))
    inputs = manifest["inputs"]
    assert any(str(row.get("path", "")).endswith("pet.json") for row in inputs), inputs

    assert_exit(venv.apismith("check", cwd=consumer), 0, "(f) check after generate pets")

    write_json(
        consumer / "api" / "pets" / "schemas" / "pet.json",
        pet_schema(colour={"type": "string", "description": "Fur colour."}),
    )
    proc = venv.apismith("check", "--diff", cwd=consumer)
    assert_exit(proc, 1, "(f) check after editing the $ref'd schema file")
    assert "models.py" in named_files(proc, "vendor/pets"), describe(proc)
    assert "colour" in proc.stdout, f"(f) the diff shows the new field\n{describe(proc)}"


def test_g_template_override_is_an_input(venv: Venv, consumer: Path) -> None:
    add_pets(consumer, templates=True)
    override = consumer / "templates" / "header.py.jinja"
    override.parent.mkdir()
    override.write_text(builtin_header() + OVERRIDE_MARKER + "\n", encoding="utf-8")

    made = venv.apismith("generate", "pets", cwd=consumer)
    assert_exit(made, 0, "(g) generate pets with an override")
    pets = consumer / "vendor" / "pets"
    assert any(OVERRIDE_MARKER in p.read_text(encoding="utf-8") for p in pets.rglob("*.py")), (
        f"(g) the override was not used\n{describe(made)}"
    )
    assert_exit(venv.apismith("check", cwd=consumer), 0, "(g) check with the override")

    override.write_text(builtin_header() + OVERRIDE_MARKER + " (edited)\n", encoding="utf-8")
    proc = venv.apismith("check", cwd=consumer)
    assert_exit(proc, 1, "(g) check after editing the override")
    assert named_files(proc, "vendor/pets"), describe(proc)


def test_g_misspelled_override_warns(venv: Venv, consumer: Path) -> None:
    add_pets(consumer, templates=True)
    typo = consumer / "templates" / "heder.py.jinja"
    typo.parent.mkdir()
    typo.write_text(builtin_header() + OVERRIDE_MARKER + "\n", encoding="utf-8")
    made = venv.apismith("generate", "pets", cwd=consumer)
    assert_exit(made, 0, "(g) generate pets with a misspelled override")
    warned = [line for line in error_lines(made.stderr) if "heder.py.jinja" in line]
    assert warned, f"(g) no warning names the misspelled override\n{describe(made)}"


def test_g_jinja_syntax_error_in_an_override(venv: Venv, consumer: Path) -> None:
    add_pets(consumer, templates=True)
    override = consumer / "templates" / "header.py.jinja"
    override.parent.mkdir()  # empty: no override yet
    made = venv.apismith("generate", "pets", cwd=consumer)
    assert_exit(made, 0, "(g) generate pets (no override yet)")
    before = tree_bytes(consumer / "vendor" / "pets")

    text = builtin_header()
    line = len(text.splitlines()) + 1
    override.write_text(text + "{% if %}\n", encoding="utf-8")

    for command in ("generate", "check"):
        proc = venv.apismith(command, "pets", cwd=consumer)
        error = assert_one_line_error(proc, f"(g) {command} with a Jinja syntax error")
        assert re.search(rf"header\.py\.jinja:{line}\b", error), (
            f"(g) {command}: the error does not point at header.py.jinja:{line}\n{describe(proc)}"
        )
    assert tree_bytes(consumer / "vendor" / "pets") == before, "a failed generate wrote output"


# --- the documented pins: the Actions job and the pre-commit configuration -------------------
# docs/vendoring.md's own lines, run as written; only the placeholder repository URL and the
# example commit are replaced, by a local clone of apismith (its working tree, committed)
# and that clone's commit, so that the docs cannot name a pin that does not resolve.

VENDORING_DOC = REPO_ROOT / "docs" / "vendoring.md"
REPO_PLACEHOLDER = "https://github.com/<org>/apismith"
FULL_SHA = re.compile(r"\b[0-9a-f]{40}\b")


def documented_block(heading: str, lang: str) -> str:
    """The first ```lang block under ``heading`` in docs/vendoring.md."""
    text = VENDORING_DOC.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    end = text.find("\n## ", start + 1)
    block = re.search(rf"^```{lang}\n(.*?)^```$", text[start:end], re.S | re.M)
    assert block, f"no {lang} block under {heading!r} in {VENDORING_DOC}"
    return block.group(1)


def documented_command(heading: str, prefix: str) -> str:
    """The first inline command starting with ``prefix`` under ``heading``."""
    text = VENDORING_DOC.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    found = re.search(rf"`({re.escape(prefix)}[^`]*)`", text[start:])
    assert found, f"no `{prefix}...` under {heading!r} in {VENDORING_DOC}"
    return found.group(1)


def local_pin(text: str, url: str, commit: str) -> str:
    """``text`` with the documented repository URL and commit (a full SHA: a tag would not
    exist) replaced by ``url`` and ``commit``; nothing else changes."""
    assert REPO_PLACEHOLDER in text and FULL_SHA.search(text), text
    return FULL_SHA.sub(commit, text.replace(REPO_PLACEHOLDER, url))


@pytest.fixture(scope="module")
def apismith_clone(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A git repo holding apismith's working tree as one commit, and that commit."""
    clone = snapshot_repo(tmp_path_factory.mktemp("apismith-clone") / "apismith")
    commit = run(["git", "rev-parse", "HEAD"], cwd=clone).stdout.strip()
    assert FULL_SHA.fullmatch(commit), commit
    return clone, commit


def test_h_actions_job_as_documented(
    consumer: Path, tmp_path: Path, apismith_clone: tuple[Path, str]
) -> None:
    """The job's ``run:`` steps, in a fresh venv: the pinned install, then the check."""
    clone, commit = apismith_clone
    job = documented_block("## A GitHub Actions job", "yaml")
    steps = re.findall(r"^\s*- run: (.*)$", job, re.M)
    assert len(steps) == 2 and steps[0].startswith("pip install "), job
    assert steps[1].startswith("apismith check --full"), job
    ci = make_venv(tmp_path / "ci-venv")
    path = f"{ci.root / 'bin'}{os.pathsep}{clean_env()['PATH']}"
    env = {"PATH": path, "VIRTUAL_ENV": str(ci.root)}
    # (a host in the URL: pip before 24 takes no git+file:/// URL without one)
    install = local_pin(steps[0], clone.as_uri().replace("file://", "file://localhost"), commit)
    proc = run(["bash", "-euc", install], cwd=consumer, env=env, timeout=SLOW_TIMEOUT)
    assert_exit(proc, 0, f"(h) {install}")
    assert ci.bin("apismith").is_file(), describe(proc)
    proc = run(["bash", "-euc", steps[1]], cwd=consumer, env=env, timeout=SLOW_TIMEOUT)
    assert_exit(proc, 0, f"(h) {steps[1]} on the clean repo")
    assert "llm-engine: up to date" in proc.stdout, describe(proc)


def test_h_pre_commit_hook_as_documented(
    venv: Venv, consumer: Path, tmp_path: Path, apismith_clone: tuple[Path, str]
) -> None:
    """The documented ``.pre-commit-config.yaml``, run with the documented command."""
    venv.pip_install("pre-commit")
    clone, commit = apismith_clone
    assert (clone / ".pre-commit-hooks.yaml").is_file()
    config = local_pin(documented_block("## Pre-commit", "yaml"), clone.as_uri(), commit)
    (consumer / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    git_commit_all(consumer, "the documented pre-commit configuration")
    command = documented_command("## Pre-commit", "pre-commit run ")
    argv: list[str | Path] = [venv.bin("pre-commit"), *shlex.split(command)[1:]]
    env = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}

    clean = run(argv, cwd=consumer, env=env, timeout=SLOW_TIMEOUT)
    assert clean.returncode == 0, f"(h) {command} on the clean repo\n{describe(clean)}"
    assert "apismith drift check" in clean.stdout and "Passed" in clean.stdout, describe(clean)

    flip_one_byte(consumer / LLM_OUT / "models.py")
    dirty = run(argv, cwd=consumer, env=env, timeout=SLOW_TIMEOUT)
    assert dirty.returncode == 1, f"(h) {command} after a one-byte edit\n{describe(dirty)}"
    assert "Failed" in dirty.stdout and "models.py" in dirty.stdout, describe(dirty)


# --- the wheel reproduces the committed output ------------------------------------------------


@pytest.mark.parametrize("api", sorted(PACKAGES))
def test_i_wheel_reproduces_the_committed_bytes(venv: Venv, tmp_path: Path, api: str) -> None:
    package = PACKAGES[api]
    shutil.copytree(SPECS, tmp_path / "specs")
    out = tmp_path / "out" / package
    made = venv.apismith(
        "generate",
        "--config",
        tmp_path / "specs" / f"{api}.toml",
        "--out",
        out,
        cwd=tmp_path,
        timeout=SLOW_TIMEOUT,
    )
    assert_exit(made, 0, f"(i) generate {api} with the wheel")
    produced, committed = tree_bytes(out), tree_bytes(GENERATED / package)
    assert sorted(produced) == sorted(committed), f"(i) {api}: file sets differ"
    differ = [name for name in committed if produced[name] != committed[name]]
    assert not differ, f"(i) {api}: the wheel's output differs from generated/: {differ}"

    check = venv.apismith(
        "check", "--full", "--config", SPECS / f"{api}.toml", cwd=tmp_path, timeout=SLOW_TIMEOUT
    )
    assert_exit(check, 0, f"(i) check --full {api} on the repo, from the wheel")
    assert tree_bytes(GENERATED / package) == committed, "the check wrote into generated/"
