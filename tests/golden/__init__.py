"""Golden tests: small fixture specs and the exact output they generate.

Each case is a directory ``tests/golden/<case>/`` with ``spec.json`` (or ``spec.yaml``),
optionally ``apismith.toml``, and the committed output in ``expected/``. See
:mod:`tests.golden.harness`; regenerate with ``make golden``.
"""
