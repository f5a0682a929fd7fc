"""The official SDKs' calls against a mock: ``harness`` (apismith's side: venvs, servers,
reports) and one ``*_calls.py`` script per SDK (run in that SDK's venv)."""
