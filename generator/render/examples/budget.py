"""The size budget of one full value: at most ``nodes`` JSON nodes, ``depth`` levels deep.

A node is one JSON value (an object, an array, a string, a number...); text weighs too: a
string, or an object's key, of ``n`` characters adds ``n // TEXT_PER_NODE`` nodes, so a
budget bounds the bytes of a value and not only its count of values. The depth counts
containers (a scalar is 0 deep, ``{}`` is 1, ``{"a": [1]}`` is 2). The node budget is
shared out over the API's operations, so that the whole mock stays proportionate to the
API: :data:`TOTAL_NODES` divided by the number of operations, within
:data:`MIN_NODES`..:data:`MAX_NODES`. The vendored APIs' largest value (SGP's
``get_evaluations``, 1,211 nodes, 12 deep) is far inside their budget (4,000), so their
mocks are what they were without one (GitHub's too, at 1,635); Microsoft Graph's 22,361
operations get 100 nodes each. How a value is filled within it: :mod:`.full`.

What the schema requires counts against the budget too: a value whose required part
(required fields, ``minItems``, ``minProperties``, ``minLength``) does not fit is not
built (:class:`OverBudget`, a :class:`MockError`: that operation's mock answers 501 and
says why). A synthesized string has at most 10,000 characters whatever the budget
(``pattern_values.MAX_TEXT``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from generator.render.examples.common import OverBudget

TOTAL_NODES = 2_000_000  # the whole mock's answers, shared by the operations
MAX_NODES = 4_000  # one value, in an API of few operations
MIN_NODES = 100  # one value, however many operations
MAX_LEVELS = 16  # nesting depth of one value
TEXT_PER_NODE = 64  # characters of a string or key that weigh as much as one more node
MAX_NESTING = 64  # models being built inside each other (alias chains add no level)


class Budget(NamedTuple):
    """What a value may still take: JSON nodes and levels of nesting."""

    nodes: int
    depth: int

    def inside(self, used: int) -> Budget:
        """The room of a container's next member, once ``used`` nodes are taken."""
        return Budget(self.nodes - used, self.depth - 1)

    @property
    def empty(self) -> bool:
        """Whether nothing fits any more (not even a scalar)."""
        return self.nodes < 1 or self.depth < 0

    def describe(self) -> str:
        """The budget in a reason's words."""
        return f"the mock's budget of one value ({self.nodes} JSON nodes, {self.depth} levels)"


class Sized(NamedTuple):
    """A JSON value with its node count (text included) and depth."""

    value: Any
    nodes: int
    depth: int

    def fits(self, room: Budget) -> bool:
        return self.nodes <= room.nodes and self.depth <= room.depth


def budget_for(operations: int) -> Budget:
    """The budget of one value of an API with ``operations`` operations."""
    share = TOTAL_NODES // max(operations, 1)
    return Budget(max(MIN_NODES, min(MAX_NODES, share)), MAX_LEVELS)


def text_weight(text: str) -> int:
    """The nodes ``text`` adds to its value (a string's or a key's characters)."""
    return len(text) // TEXT_PER_NODE


def _weight(value: Any) -> int:
    return 1 + text_weight(value) if isinstance(value, str) else 1


def _walk(value: Any, nodes: int, depth: int) -> Sized | None:
    """``value``'s size, or None as soon as it has more than ``nodes`` nodes or ``depth``
    levels (iterative: a spec's example may nest deeply; counted only that far: a value of
    shared parts may be far larger written out than held)."""
    count, deepest = 0, 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, level = stack.pop()
        count += _weight(v)
        if isinstance(v, dict):
            deepest = max(deepest, level + 1)
            count += sum(text_weight(k) for k in v if isinstance(k, str))
            stack.extend((x, level + 1) for x in v.values())
        elif isinstance(v, list):
            deepest = max(deepest, level + 1)
            stack.extend((x, level + 1) for x in v)
        if count > nodes or deepest > depth:
            return None
    return Sized(value, count, deepest)


def measure(value: Any) -> Sized:
    """``value`` with its size."""
    found = _walk(value, 1 << 62, 1 << 62)
    assert found is not None
    return found


def larger_than(value: Any, nodes: int) -> bool:
    """Whether ``value`` has more than ``nodes`` nodes (counted only that far)."""
    return _walk(value, nodes, 1 << 62) is None


def over_budget(where: str, budget: Budget, what: str = "larger") -> OverBudget:
    """The error of a value at ``where`` that cannot fit ``budget`` (``larger``, ``deeper``)."""
    return OverBudget(f"{where}: what the schema requires is {what} than {budget.describe()}")


def check_fits(value: Any, budget: Budget, where: str) -> None:
    """:class:`OverBudget` unless ``value`` fits ``budget`` (counted only that far)."""
    if _walk(value, budget.nodes, budget.depth) is None:
        raise over_budget(where, budget)


def check_count(count: int, what: str, budget: Budget, where: str) -> None:
    """:class:`OverBudget` when ``count`` members (``minItems``, ``minProperties``) cannot
    fit ``budget`` (each is one node at least)."""
    if count + 1 > budget.nodes:
        raise OverBudget(f"{where}: {what} {count} is larger than {budget.describe()}")


def leaf(value: Any) -> Sized:
    """A scalar (or an empty container)."""
    if isinstance(value, (dict, list)):
        return measure(value)
    return Sized(value, _weight(value), 0)


class Members:
    """A container being filled at ``where``: its members (an array's) and its size so far,
    never more than ``budget`` (:class:`OverBudget`)."""

    def __init__(self, budget: Budget, where: str) -> None:
        self.values: list[Any] = []
        self.nodes = 1
        self.depth = 1
        self.budget = budget
        self.where = where

    def add(self, member: Sized, key: str = "") -> Sized:
        """Count ``member`` in, under ``key`` (an object keeps its fields itself), and
        return it."""
        self.nodes += member.nodes + text_weight(key)
        self.depth = max(self.depth, member.depth + 1)
        if self.nodes > self.budget.nodes:
            raise over_budget(self.where, self.budget)
        return member

    def append(self, member: Sized) -> None:
        self.values.append(self.add(member).value)

    def sized(self) -> Sized:
        return Sized(self.values, self.nodes, self.depth)
