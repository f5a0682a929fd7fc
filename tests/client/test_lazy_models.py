"""The package root imports ``models`` on first use (PEP 562): importing a generated
package and making its client import neither the models nor the resources' ``_params``
(GitHub's models take seconds to import; ``make bench-import`` times it), while
``from pkg import models``, ``pkg.models.X``, ``import pkg.models`` and ``dir(pkg)`` work as
with an eager import, and a misspelt attribute is still an ``AttributeError``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

GENERATED = Path(__file__).resolve().parents[2] / "generated"

CODE = """
import sys
sys.path.insert(0, sys.argv[1])
import llm_engine
client = llm_engine.LlmEngineClient(api_key="k")
with_options = client.with_options(max_retries=1)
loaded = sorted(m for m in sys.modules if m.startswith("llm_engine."))
assert "llm_engine.models" not in loaded, loaded
assert "llm_engine._params" not in loaded, loaded
assert not any(m.startswith("llm_engine.resources.") for m in loaded), loaded
assert "models" in dir(llm_engine) and "models" in llm_engine.__all__
try:
    llm_engine.no_such_name
except AttributeError as exc:
    assert "no_such_name" in str(exc)
else:
    raise AssertionError("no AttributeError")
from llm_engine import models
assert models.__name__ == "llm_engine.models" and llm_engine.models is models
assert llm_engine.models.CompletionSyncV1Request is models.CompletionSyncV1Request
print("ok")
"""


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, str(GENERATED)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_making_a_client_imports_no_models() -> None:
    proc = run(CODE)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_import_pkg_models_still_works() -> None:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import llm_engine.models\n"
        "assert llm_engine.models.CompletionSyncV1Request.__name__\n"
        "print('ok')\n"
    )
    proc = run(code)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


REACHED = """
import sys
sys.path.insert(0, sys.argv[1])
import sgp
client = sgp.SgpClient(api_key="k", account_id="a", base_url="http://127.0.0.1:9", max_retries=0)
client.knowledge_bases.uploads, client.evaluations, client.with_raw_response.models
loaded = sorted(m for m in sys.modules if m.startswith("sgp."))
assert "sgp.resources.knowledge_bases" in loaded and "sgp.resources.evaluations" in loaded
assert "sgp.models" not in loaded and "sgp._params" not in loaded, loaded
try:
    client.knowledge_bases.retrieve("kb1")
except sgp.APIConnectionError:
    pass
assert "sgp.models" in sys.modules  # the first call's error table and answer type need it
print("ok")
"""


def test_reaching_resources_imports_no_models() -> None:
    """Issue 25: a resource module's ``models``, ``_params`` and error tables are lazy, so
    that reaching resources (scale-gp's import benchmark: a client and two resources)
    builds no model; the first call imports them."""
    proc = run(REACHED)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
