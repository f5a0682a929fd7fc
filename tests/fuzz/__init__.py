"""The spec fuzzer (issue 11): hypothesis strategies for random valid OpenAPI 3.0 and 3.1
documents (:mod:`.strategies`), the generator run on one of them the way the CLI runs it
(:mod:`.run`), and the table of failures already known (:mod:`.known`).

``tests/test_spec_fuzzer.py`` runs the property in ``make test``; ``bench/fuzz.py`` runs it
with many random examples and writes every failing spec out for triage.
"""
