"""A non-editable install works from any directory and uses the templates inside the wheel."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import REPO_ROOT, cli_env, describe, run_python, small_spec, write_json

MARKER = "# apismith-test: header from the installed wheel"


def pip(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", *args],
        cwd=cwd,
        env=cli_env({"PIP_DISABLE_PIP_VERSION_CHECK": "1"}, repo_on_path=False),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_wheel_installs_and_generates_from_anywhere(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    built = pip("wheel", "--no-deps", "-w", str(wheels), str(REPO_ROOT), cwd=tmp_path)
    assert built.returncode == 0, describe(built)
    (wheel,) = wheels.glob("apismith-*.whl")

    names = zipfile.ZipFile(wheel).namelist()
    assert "generator/templates/header.py.jinja" in names
    assert "generator/templates/package/__init__.py.jinja" in names
    assert "generator/cli.py" in names and "generator/normalize/names.py" in names
    stray = [n for n in names if not n.startswith(("generator/", "apismith-"))]
    assert not stray, f"the wheel ships more than the generator: {stray}"

    site = tmp_path / "site"
    installed = pip(
        "install", "--no-deps", "--no-index", "--target", str(site), str(wheel), cwd=tmp_path
    )
    assert installed.returncode == 0, describe(installed)
    header = site / "generator" / "templates" / "header.py.jinja"
    assert header.is_file()
    # a marker in the installed template proves which templates the run uses
    header.write_text(header.read_text(encoding="utf-8") + MARKER + "\n", encoding="utf-8")

    spec = write_json(tmp_path / "input" / "pets.json", small_spec())
    work = tmp_path / "somewhere" / "else"
    work.mkdir(parents=True)
    code = (
        "import sys; sys.path.insert(0, sys.argv.pop(1))\n"
        "import generator, generator.render.templates as t\n"
        "print('FILE', generator.__file__)\n"
        "print('TEMPLATES', t.builtin_templates())\n"
        "from generator.cli import main; main()\n"
    )
    proc = run_python(
        code, str(site), "generate", "--spec", str(spec), "--out", "out/pets", cwd=work
    )
    assert proc.returncode == 0, describe(proc)
    found = dict(
        line.split(" ", 1)
        for line in proc.stdout.splitlines()
        if line.startswith(("FILE", "TEMPLATES"))
    )
    assert Path(found["FILE"]).resolve().is_relative_to(site.resolve()), found
    assert Path(found["TEMPLATES"]).resolve() == (site / "generator" / "templates").resolve()
    models = (work / "out" / "pets" / "models.py").read_text(encoding="utf-8")
    assert MARKER in models, "the run did not use the wheel's templates"
    assert "class Pet(BaseModel):" in models
    check = run_python(
        "import sys; sys.path.insert(0, 'out'); from pets.models import Pet; "
        "print(Pet.model_validate({'name': 'Rex'}).name)",
        cwd=work,
    )
    assert check.returncode == 0 and check.stdout.strip() == "Rex", describe(check)
