"""The names of generated modules and the cap on file names
(:mod:`generator.normalize.naming.modules`)."""

from __future__ import annotations
import __future__

import builtins

from generator.normalize.naming import NAME_LIMIT, capped, module_names, module_problem
from generator.normalize.naming.modules import BUILTIN_NAMES, FUTURE_FEATURES


def test_the_hardcoded_lists_hold_this_python() -> None:
    assert set(__future__.all_feature_names) == FUTURE_FEATURES
    lower = {n for n in dir(builtins) if n[:1].islower()}
    assert lower <= BUILTIN_NAMES, sorted(lower - BUILTIN_NAMES)


def test_capped_names_are_short_deterministic_and_distinct() -> None:
    assert capped("evaluations") == "evaluations"
    assert capped("x" * NAME_LIMIT) == "x" * NAME_LIMIT
    long_a, long_b = "t" * 300, "t" * 299 + "u"
    assert len(capped(long_a)) == NAME_LIMIT == len(capped("x" * (NAME_LIMIT + 1)))
    assert capped(long_a) == capped(long_a) != capped(long_b)
    assert capped(long_a).startswith("t" * 20) and capped(long_a).isidentifier()
    assert "__" not in capped("ab_" * 100)  # no doubled underscore before the hash
    assert len(capped("a" * 100, limit=20)) == 20


def test_module_problem() -> None:
    assert module_problem("annotations") == "a __future__ feature"
    assert module_problem("division") == "a __future__ feature"
    assert module_problem("getattr") == "a builtin"
    assert module_problem("list") == "a builtin"
    for name in ("current_credentials", "verify_credentials", "json", "require_credentials_2"):
        assert module_problem(name) == "a name the package's __init__.py binds", name
    assert module_problem("x" * (NAME_LIMIT + 1)) == f"longer than {NAME_LIMIT} characters"
    # the package's own modules, soft keywords and near misses are fine
    for name in ("models", "resources", "types", "match", "require_credentials_x", "jsons"):
        assert module_problem(name) is None, name


def test_module_names() -> None:
    attrs = ["evaluations", "annotations", "json", "list", "models", "x" * 70]
    names = module_names(attrs)
    assert list(names) == attrs  # in order
    assert names["evaluations"] == "evaluations" and names["models"] == "models"
    assert names["annotations"] == "annotations_" and names["list"] == "list_"
    assert names["json"] == "json_" and names["x" * 70] == capped("x" * 70)
    assert all(len(n) <= NAME_LIMIT and module_problem(n) is None for n in names.values())
    assert module_names(reversed(attrs)) == names  # a name does not depend on the order


def test_module_names_stay_distinct() -> None:
    # an attribute may already be what a reserved one would become
    names = module_names(["annotations", "annotations_", "list_", "list"])
    assert names == {
        "annotations": "annotations_2",
        "annotations_": "annotations_",
        "list_": "list_",
        "list": "list_2",
    }
    assert module_names(["a", "a"]) == {"a": "a"}
