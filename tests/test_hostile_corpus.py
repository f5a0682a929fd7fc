"""The hostile corpus: every file in ``tests/hostile/`` (``*.json``, ``*.yaml``, ``*.yml``) is
an adversarial spec, generated from in a fresh folder by the real CLI.

Each case runs in its own tmp dir laid out as::

    tmp/outside.json     {"Secret": ...}: a file OUTSIDE the spec's folder, holding SECRET
    tmp/secret.txt       SECRET again
    tmp/spec/FILE        the spec under test (``@MARKER@`` -> a per-test marker path,
                         ``@BIG@`` -> 2 MB of text, ``@OUTSIDE@`` ->
                         the absolute path of outside.json, ``@TMP@`` -> tmp)
    tmp/spec/load-files/ helper files the load-* specs may $ref (tests/hostile/load-files)
    tmp/spec/link.json   symlink -> ../outside.json      (inside the folder, pointing out)
    tmp/spec/linkdir     symlink -> ..                   (a directory pointing out)
    tmp/spec/sub/        a directory
    tmp/spec/fifo.json   a FIFO (reading it would block forever)
    tmp/spec/big.json    a sparse file over the 128 MiB size limit

and ``apismith generate --spec spec/FILE --out out/pkg``, apismith installed from its
wheel, must stay within 10 CPU-seconds and 1 GiB (``os.wait4``'s rusage: no wall clock)
and:

- exit 0 with a package that imports (every module, in a fresh interpreter) and whose
  mock app builds (``create_mock_app()``), without side effects (the marker file never
  appears, nothing else in tmp changes), or
- exit 2 with exactly one stderr line, ``apismith: error: <file>: ... (at #...)``, naming a
  file of the spec's folder and a JSON pointer;
- never print "internal error" or a traceback, and never let SECRET reach stdout, stderr or
  any generated file.

The ``load-*`` specs also have an expected outcome (``EXPECT``). Other specs (``names-*``)
may end either way. A second, in-process test loads every spec with ``Path.open``
recorded: no file outside the spec's folder is ever opened.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from generator.errors import ApismithError
from generator.load import MAX_BYTES, load_spec
from tests.conftest import REPO_ROOT, describe, error_lines, run_cli, write_json
from tests.e2e_support import Venv, run_measured

HOSTILE = Path(__file__).resolve().parent / "hostile"
HELPERS = HOSTILE / "load-files"
FILES = sorted(
    p for p in HOSTILE.iterdir() if p.is_file() and p.suffix in (".json", ".yaml", ".yml")
)
SECRET = "S3CRET-d41d8cd98f00b204-do-not-leak"
TIMEOUT = 300.0  # a hang guard only: the bounds are CPU time and memory
CPU_SECONDS = 10.0
MEMORY = 2**30

OK, BAD = 0, 2
# file -> (exit code, a fragment of the error line (exit 2) or of stderr (exit 0))
EXPECT: dict[str, tuple[int, str]] = {
    # finding 2: $refs that leave the spec's folder are refused before anything is read
    "load-ref-abs-etc-passwd.json": (BAD, "absolute path"),
    "load-ref-abs-proc-environ.json": (BAD, "absolute path"),
    "load-ref-abs-dev-zero.json": (BAD, "absolute path"),
    "load-ref-dotdot-secret.json": (BAD, "leaves the spec's folder"),
    "load-ref-dotdot-text.json": (BAD, "leaves the spec's folder"),
    "load-ref-dotdot-deep.json": (BAD, "leaves the spec's folder"),
    "load-ref-dot-slash-dotdot.json": (BAD, "leaves the spec's folder"),
    "load-ref-urlencoded-slash.json": (BAD, "leaves the spec's folder"),
    "load-ref-urlencoded-dots.json": (BAD, "leaves the spec's folder"),
    "load-ref-urlencoded-abs.json": (BAD, "absolute path"),
    "load-ref-file-url.json": (BAD, "file: URL"),
    "load-ref-file-url-relative.json": (BAD, "file: URL"),
    "load-ref-windows-drive.json": (BAD, "drive letter"),
    "load-ref-windows-drive-slash.json": (BAD, "drive letter"),
    "load-ref-windows-unc.json": (BAD, "backslash"),
    "load-ref-backslash-dotdot.json": (BAD, "backslash"),
    "load-ref-symlink-file.json": (BAD, "leaves the spec's folder"),
    "load-ref-symlink-dir.json": (BAD, "leaves the spec's folder"),
    "load-ref-nested-escape.json": (BAD, "leaves the spec's folder"),
    # a $ref inside an example is data (an Example value is literal): never followed
    "load-ref-in-example.json": (OK, ""),
    "load-ref-directory.json": (BAD, "is a directory"),
    "load-ref-dot-directory.json": (BAD, "is a directory"),
    "load-ref-fifo.json": (BAD, "not a regular file"),
    "load-ref-oversize.json": (BAD, "too large"),
    "load-ref-nul-byte.json": (BAD, "NUL"),
    "load-ref-long-name.json": (BAD, "unreadable file"),
    "load-ref-remote-http.json": (BAD, "remote $ref"),
    "load-ref-missing-file.json": (BAD, "missing file"),
    "load-ref-dangling-pointer.json": (BAD, "dangling $ref"),
    "load-ref-loop-files.json": (BAD, "circular $ref alias"),
    "load-ref-circular-local.json": (BAD, "circular $ref alias"),
    "load-ref-non-string.json": (BAD, "$ref must be a string"),
    "load-ref-inside-ok.json": (OK, ""),
    "load-ref-recursive-files-ok.json": (OK, ""),
    # finding 3: bounded loading
    "load-yaml-billion-laughs.yaml": (BAD, "alias bomb"),
    "load-yaml-merge-bomb.yaml": (BAD, "alias bomb"),
    "load-yaml-recursive-alias.yaml": (BAD, "recursive"),
    "load-yaml-recursive-seq.yaml": (BAD, "recursive"),
    "load-yaml-alias-ok.yaml": (OK, ""),
    "load-json-deep-10k.json": (BAD, "nests too deeply"),
    "load-yaml-deep-10k.yaml": (BAD, "nesting depth"),
    "load-json-deep-schema-80.json": (BAD, "nests too deeply"),
    "load-json-deep-schema-20-ok.json": (OK, ""),
    "load-big-description.json": (OK, ""),
    # finding 4: what used to be an "internal error"
    "load-surrogate-string.json": (BAD, "lone surrogate"),
    "load-surrogate-key.json": (BAD, "lone surrogate"),
    "load-surrogate-enum.json": (BAD, "lone surrogate"),
    "load-yaml-surrogate.yaml": (BAD, "invalid YAML"),
    "load-yaml-int-keys.yaml": (OK, ""),
    "load-yaml-bool-null-keys.yaml": (OK, ""),
    "load-yaml-complex-key.yaml": (BAD, "a mapping key must be a string"),
    "load-info-string.json": (BAD, "info must be an object"),
    "load-info-list.json": (BAD, "info must be an object"),
    "load-title-object.json": (BAD, "title must be a string"),
    "load-paths-list.json": (BAD, "paths must be an object"),
    "load-path-item-string.json": (BAD, "a path item must be an object"),
    "load-operation-string.json": (BAD, "an operation must be an object"),
    "load-operation-id-number.json": (BAD, "operationId must be a string"),
    "load-parameters-object.json": (BAD, "must be an array"),
    "load-parameter-string.json": (BAD, "a parameter must be an object"),
    "load-request-body-string.json": (BAD, "a request body must be an object"),
    "load-content-list.json": (BAD, "content must be an object"),
    "load-responses-list.json": (BAD, "responses must be an object"),
    "load-response-string.json": (BAD, "a response must be an object"),
    "load-components-list.json": (BAD, "components must be an object"),
    "load-schemas-list.json": (BAD, "schemas must be an object"),
    "load-schema-string.json": (BAD, "a schema must be an object or a boolean"),
    "load-schema-null.json": (BAD, "a schema must be an object or a boolean"),
    "load-properties-list.json": (BAD, "properties must be an object"),
    "load-required-bool.json": (BAD, "required must be an array"),
    "load-type-number.json": (BAD, "type must be a string"),
    "load-allof-object.json": (BAD, "allOf must be an array"),
    "load-items-string.json": (BAD, "a schema must be an object or a boolean"),
    "load-nan.json": (BAD, "non-finite number"),
    "load-infinity.json": (BAD, "non-finite number"),
    "load-float-overflow.json": (BAD, "non-finite number"),
    "load-yaml-inf.yaml": (BAD, "non-finite number"),
    "load-huge-int.json": (BAD, "5000 digits"),
    "load-yaml-huge-int.yaml": (BAD, "5000 digits"),
    "load-big-int-ok.json": (OK, ""),
    "load-nulls-ok.json": (OK, ""),  # null counts as absent in the skeleton
    "load-null-property-schema.json": (BAD, "a schema must be an object or a boolean"),
    "load-null-enum.json": (BAD, "enum must be an array"),
    # finding 5: duplicate keys are a warning with the pointer
    "load-duplicate-keys.json": (OK, "duplicate key 'id'"),
    "load-yaml-duplicate-keys.yaml": (OK, "duplicate key 'a'"),
    # roots, encodings, YAML tags, formats
    "load-null-root.json": (BAD, "top level, not null"),
    "load-list-root.json": (BAD, "top level, not an array"),
    "load-number-root.json": (BAD, "top level, not a number"),
    "load-string-root.yaml": (BAD, "top level, not a string"),
    "load-empty.json": (BAD, "invalid JSON"),
    "load-empty.yaml": (BAD, "top level, not null"),
    "load-whitespace-only.yaml": (BAD, "top level, not null"),
    "load-bom.json": (OK, ""),
    "load-bom.yaml": (OK, ""),
    "load-not-utf8.json": (BAD, "not UTF-8"),
    "load-utf16.json": (BAD, "not UTF-8"),
    "load-yaml-python-object.yaml": (BAD, "unsupported YAML tag"),
    "load-yaml-python-name.yaml": (BAD, "unsupported YAML tag"),
    "load-yaml-custom-tag.yaml": (BAD, "unsupported YAML tag"),
    "load-yaml-binary-tag.yaml": (BAD, "unsupported YAML tag"),
    "load-yaml-set-tag.yaml": (BAD, "unsupported YAML tag"),
    "load-yaml-merge-key-ok.yaml": (OK, ""),
    "load-yaml-bad-merge.yaml": (BAD, "merging"),
    "load-yaml-timestamps.yaml": (OK, ""),
    "load-yaml-multi-document.yaml": (BAD, "another document"),
    "load-yaml-tab-indent.yaml": (BAD, "invalid YAML"),
    "load-invalid-json.json": (BAD, "invalid JSON"),
    "load-swagger-1-2.json": (BAD, "Swagger '1.2'"),
    "load-swagger-2-host-list.json": (BAD, "host must be a string"),
    "load-openapi-4.json": (BAD, "OpenAPI version"),
    "load-openapi-object-version.json": (BAD, "OpenAPI version"),
    # round 3, finding 1: every reference-like keyword under the $ref policy, refused
    # before anything is read (a missing target reads as an existing one: no oracle)
    "load-dynref-abs-secret.json": (BAD, "an absolute path"),
    "load-dynref-missing-abs.json": (BAD, "an absolute path"),
    "load-dynref-dotdot.json": (BAD, "names another file"),
    "load-dynref-inside-file.json": (BAD, "names another file"),
    "load-dynref-file-url.json": (BAD, "file: URL"),
    "load-dynref-dev-zero.json": (BAD, "an absolute path"),
    "load-dynref-http.json": (BAD, "a URL"),
    "load-dynref-non-string.json": (BAD, "$dynamicRef must be a string"),
    "load-dynref-local-ok.json": (OK, ""),
    "load-dynref-anchor-ok.json": (OK, "is not followed"),
    "load-recursiveref-dotdot.json": (BAD, "names another file"),
    "load-recursiveref-root-ok.json": (OK, "is not followed"),
    "load-id-base-remote-ok.json": (OK, ""),
    "load-id-base-file-ok.json": (OK, ""),
    "load-anchor-ok.json": (OK, ""),
    "load-self-remote-ok.json": (OK, ""),
    "load-mapping-outside-ok.json": (OK, "leaves the document: dropped"),
    "load-external-value-ok.json": (OK, ""),
    # round 3, finding 3: a path key is a path below the server's URL
    "load-path-absolute-url.json": (BAD, "a path must start with '/'"),
    "load-path-host-suffix.json": (BAD, "a path must start with '/'"),
    "load-path-scheme-relative-ok.json": (OK, ""),
}

IMPORT_ALL = """
import importlib, pkgutil, sys
sys.path.insert(0, sys.argv[1])
import pkg
for module in sorted(m.name for m in pkgutil.walk_packages(pkg.__path__, "pkg.")):
    importlib.import_module(module)
if importlib.util.find_spec("pkg.mock") is not None:
    from pkg.mock import create_mock_app
    create_mock_app()
print("imported")
"""


def build_case(tmp: Path, source: Path) -> Path:
    """The layout of the module docstring; returns the spec's path (relative to tmp)."""
    spec_dir = tmp / "spec"
    spec_dir.mkdir(parents=True)
    data = source.read_bytes()
    data = data.replace(b"@MARKER@", str(tmp / "PWNED").encode())
    data = data.replace(b"@BIG@", b"x" * 2_000_000)
    data = data.replace(b"@OUTSIDE@", str(tmp / "outside.json").encode())
    data = data.replace(b"@TMP@", str(tmp).encode())
    (spec_dir / source.name).write_bytes(data)
    write_json(tmp / "outside.json", {"Secret": {"type": "string", "description": SECRET}})
    (tmp / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    shutil.copytree(HELPERS, spec_dir / "load-files")
    (spec_dir / "link.json").symlink_to("../outside.json")
    (spec_dir / "linkdir").symlink_to("..", target_is_directory=True)
    (spec_dir / "sub").mkdir()
    write_json(spec_dir / "sub" / "x.json", {"X": {"type": "string"}})
    os.mkfifo(spec_dir / "fifo.json")
    with (spec_dir / "big.json").open("wb") as fh:
        fh.truncate(MAX_BYTES + 1024 * 1024)  # sparse: costs no disk
    return Path("spec") / source.name


def outside_state(tmp: Path) -> dict[str, int]:
    """Every path under tmp but out/ (symlinks not followed), with its size."""
    state = {}
    for root, dirs, files in os.walk(tmp, followlinks=False):
        rel = Path(root).relative_to(tmp)
        if rel == Path("."):
            dirs[:] = [d for d in dirs if d != "out"]
        for name in dirs + files:
            path = Path(root) / name
            state[(rel / name).as_posix()] = path.lstat().st_size
    return state


def leaks(root: Path) -> list[str]:
    return [
        p.relative_to(root).as_posix()
        for p in sorted(root.rglob("*"))
        if p.is_file() and SECRET.encode() in p.read_bytes()
    ]


@pytest.mark.parametrize("source", FILES, ids=[p.name for p in FILES])
def test_hostile_spec(tmp_path: Path, source: Path, wheel_apismith: Venv) -> None:
    spec = build_case(tmp_path, source)
    before = outside_state(tmp_path)
    proc = run_measured(
        [wheel_apismith.bin("apismith"), "generate", "--spec", spec, "--out", "out/pkg"],
        cwd=tmp_path,
        cpu_limit=int(CPU_SECONDS) * 3,
    )
    assert proc.cpu_seconds < CPU_SECONDS, f"over {CPU_SECONDS} CPU-s\n{proc.describe()}"
    assert proc.max_rss < MEMORY, f"over 1 GiB\n{proc.describe()}"
    output = proc.stdout + proc.stderr
    assert "internal error" not in output, proc.describe()
    assert "Traceback" not in output, proc.describe()
    assert SECRET not in output, f"the secret leaked\n{proc.describe()}"
    assert proc.returncode in (0, 2), proc.describe()
    expected = EXPECT.get(source.name)
    if expected is not None:
        assert proc.returncode == expected[0], f"expected exit {expected[0]}\n{proc.describe()}"
        assert expected[1] in proc.stderr, f"expected {expected[1]!r} on stderr\n{proc.describe()}"
    marker = tmp_path / "PWNED"
    if proc.returncode == 2:
        lines = error_lines(proc.stderr)
        assert len(lines) == 1, f"expected one line on stderr\n{proc.describe()}"
        line = lines[0]
        assert line.startswith("apismith: error: spec/"), f"names no file of the spec: {line}"
        assert "(at #" in line, f"names no JSON pointer: {line}"
        assert not (tmp_path / "out" / "pkg").exists(), "exit 2, yet output was written"
    else:
        package = tmp_path / "out" / "pkg"
        assert (package / "__init__.py").is_file(), proc.describe()
        assert not leaks(tmp_path / "out"), f"the secret leaked into {leaks(tmp_path / 'out')}"
        imported = run_measured(
            [wheel_apismith.bin("python"), "-c", IMPORT_ALL, tmp_path / "out"], cwd=tmp_path
        )
        assert imported.returncode == 0 and "imported" in imported.stdout, imported.describe()
        assert SECRET not in imported.stdout + imported.stderr
    assert not marker.exists(), "the spec ran code: the marker file exists"
    assert outside_state(tmp_path) == before, "something outside out/ changed"


@pytest.mark.parametrize("source", FILES, ids=[p.name for p in FILES])
def test_loading_opens_nothing_outside_the_spec_folder(
    tmp_path: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In process: every file load_spec opens is inside tmp/spec (symlinks resolved), and
    every failure is an ApismithError with exit code 2, a file and a pointer."""
    spec = build_case(tmp_path, source)
    monkeypatch.chdir(tmp_path)
    opened: list[Path] = []
    real_open = pathlib.Path.open

    def recording_open(self: Path, *args: Any, **kwargs: Any) -> Any:
        opened.append(self.resolve())
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "open", recording_open)
    try:
        load_spec(spec)
    except ApismithError as exc:
        assert exc.exit_code == 2 and exc.file and exc.pointer is not None, str(exc)
    inside = (tmp_path / "spec").resolve()
    outside = [p for p in opened if not p.is_relative_to(inside)]
    assert not outside, f"opened outside the spec's folder: {outside}"
    assert all(p.is_file() and not p.name.startswith("fifo") for p in opened), opened


# --- the ref root: widened by --ref-root DIR or ref_root -------------------------------------


def _outside_case(tmp: Path) -> Path:
    return build_case(tmp, HOSTILE / "load-ref-dotdot-secret.json")


def test_ref_root_flag_widens_the_root(tmp_path: Path) -> None:
    spec = _outside_case(tmp_path)
    refused = run_cli("generate", "--spec", spec, "--out", "out/pkg", cwd=tmp_path, timeout=60)
    assert refused.returncode == 2, describe(refused)
    proc = run_cli(
        "generate", "--spec", spec, "--out", "out/pkg", "--ref-root", ".", cwd=tmp_path, timeout=60
    )
    assert proc.returncode == 0, describe(proc)
    # the user asked for it: the outside file is bundled
    assert SECRET in (tmp_path / "out" / "pkg" / "models.py").read_text(encoding="utf-8")
    check = run_cli(
        "check", "--spec", spec, "--out", "out/pkg", "--ref-root", ".", cwd=tmp_path, timeout=60
    )
    assert check.returncode == 0, describe(check)
    normalized = run_cli("normalize", spec, "--ref-root", ".", cwd=tmp_path, timeout=60)
    assert normalized.returncode == 0 and SECRET in normalized.stdout, describe(normalized)
    # still no way out of the wider root
    narrow = run_cli("normalize", spec, "--ref-root", "spec/load-files", cwd=tmp_path, timeout=60)
    assert narrow.returncode == 2 and "leaves the spec's folder" in narrow.stderr


def test_ref_root_is_not_recorded(tmp_path: Path) -> None:
    spec = _outside_case(tmp_path)
    proc = run_cli(
        "generate", "--spec", spec, "--out", "out/pkg", "--ref-root", ".", cwd=tmp_path, timeout=60
    )
    assert proc.returncode == 0, describe(proc)
    manifest = json.loads((tmp_path / "out" / "pkg" / "MANIFEST.json").read_text())
    assert "ref_root" not in manifest["options"]
    assert str(tmp_path) not in json.dumps(manifest)


def test_ref_root_config_key_in_specs_toml(tmp_path: Path) -> None:
    spec = _outside_case(tmp_path)
    (tmp_path / "specs").mkdir()
    config = tmp_path / "specs" / "pets.toml"
    config.write_text(f'[api]\nspec = "../{spec.as_posix()}"\nout = "../out/pkg"\n')
    refused = run_cli("generate", "--config", config, cwd=tmp_path, timeout=60)
    assert refused.returncode == 2 and "--ref-root" in refused.stderr, describe(refused)
    config.write_text(config.read_text() + 'ref_root = ".."\n')  # relative to the config
    proc = run_cli("generate", "--config", config, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, describe(proc)
    bad = tmp_path / "specs" / "bad.toml"
    bad.write_text(f'[api]\nspec = "../{spec.as_posix()}"\nref_root = 3\n')
    wrong = run_cli("generate", "--config", bad, cwd=tmp_path, timeout=60)
    assert wrong.returncode == 2 and "ref_root must be a string" in wrong.stderr, describe(wrong)


def test_ref_root_config_key_in_pyproject(tmp_path: Path) -> None:
    spec = _outside_case(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    entry = f'[tool.apismith.apis.pets]\nspec = "{spec.as_posix()}"\nout = "out/pkg"\n'
    pyproject.write_text(entry)
    refused = run_cli("generate", cwd=tmp_path, timeout=60)
    assert refused.returncode == 2, describe(refused)
    pyproject.write_text(entry + 'ref_root = "."\n')  # relative to pyproject.toml
    proc = run_cli("generate", cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, describe(proc)
    check = run_cli("check", cwd=tmp_path, timeout=60)
    assert check.returncode == 0, describe(check)


def test_ref_root_must_be_a_directory(tmp_path: Path) -> None:
    spec = _outside_case(tmp_path)
    proc = run_cli("normalize", spec, "--ref-root", "secret.txt", cwd=tmp_path, timeout=60)
    assert proc.returncode == 2, describe(proc)
    assert "Traceback" not in proc.stderr and SECRET not in proc.stdout + proc.stderr


# --- bounds ------------------------------------------------------------------------------


def test_an_alias_bomb_fails_within_seconds(tmp_path: Path) -> None:
    spec = build_case(tmp_path, HOSTILE / "load-yaml-billion-laughs.yaml")
    assert (tmp_path / spec).stat().st_size < 1024
    proc = run_measured(
        [sys.executable, "-m", "generator", "generate", "--spec", spec, "--out", "out/pkg"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO_ROOT)},
    )
    assert proc.returncode == 2 and "alias bomb" in proc.stderr, proc.describe()
    assert proc.cpu_seconds < 5, proc.describe()


def test_an_oversized_spec_is_refused_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as fh:
        fh.truncate(MAX_BYTES + 1)
    proc = run_cli("generate", "--spec", big, "--out", "out/pkg", cwd=tmp_path, timeout=TIMEOUT)
    assert proc.returncode == 2 and "too large" in proc.stderr, describe(proc)


def test_duplicate_key_warning_reaches_normalize(tmp_path: Path) -> None:
    spec = build_case(tmp_path, HOSTILE / "load-duplicate-keys.json")
    proc = run_cli("normalize", spec, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, describe(proc)
    assert (
        "[load] warning: duplicate key 'id' in spec/load-duplicate-keys.json: the last value"
        " wins (at #/components/schemas/Pet/properties/id)" in proc.stderr
    ), describe(proc)
    assert "duplicate key 'Pet'" in proc.stderr


def test_overlays_are_not_confined_but_still_bounded(tmp_path: Path) -> None:
    """Overlays come from the config's author, not the spec: they may live anywhere.
    They are parsed by the same bounded loader, and a malformed action is exit 2."""
    spec = build_case(tmp_path, HOSTILE / "load-ref-inside-ok.json")
    overlay = tmp_path / "elsewhere" / "overlay.yaml"
    overlay.parent.mkdir()
    overlay.write_text(
        "overlay: 1.0.0\nactions:\n  - target: $.info\n    update: {description: patched}\n"
    )
    (tmp_path / "specs").mkdir()
    config = tmp_path / "specs" / "pets.toml"
    config.write_text(
        f'[api]\nspec = "../{spec.as_posix()}"\nout = "../out/pkg"\n'
        'overlays = ["../elsewhere/overlay.yaml"]\n'
    )
    proc = run_cli("generate", "--config", config, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, describe(proc)
    for text, fragment in (
        ("overlay: 1.0.0\nactions: [5]\n", "an overlay action must be an object"),
        ("overlay: 1.0.0\nactions:\n  - target: 5\n", "target must be a string"),
        ("overlay: 1.0.0\nactions:\n  - target: $.info\n    update: 'x'\n", "info must be"),
        ((HOSTILE / "load-yaml-billion-laughs.yaml").read_text(), "alias bomb"),
    ):
        overlay.write_text(text)
        bad = run_cli("generate", "--config", config, cwd=tmp_path, timeout=TIMEOUT)
        assert bad.returncode == 2 and fragment in bad.stderr, describe(bad)
        assert len(error_lines(bad.stderr)) == 1 and "(at #" in bad.stderr, describe(bad)


def test_corpus_has_every_load_class() -> None:
    names = {p.name for p in FILES if p.name.startswith("load-")}
    assert len(names) >= 35
    assert names == set(EXPECT), sorted(names ^ set(EXPECT))
