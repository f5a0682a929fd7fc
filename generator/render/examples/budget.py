"""The size budget of one full value: at most ``nodes`` JSON nodes, ``depth`` levels deep.

A node is one JSON value (an object, an array, a string, a number...); the depth counts
containers (a scalar is 0 deep, ``{}`` is 1, ``{"a": [1]}`` is 2). The node budget is
shared out over the API's operations, so that the whole mock stays proportionate to the
API: :data:`TOTAL_NODES` divided by the number of operations, within
:data:`MIN_NODES`..:data:`MAX_NODES`. The vendored APIs' largest value (SGP's
``get_evaluations``, 1,211 nodes, 12 deep) is far inside their budget (4,000), so their
mocks are what they were without one (GitHub's too, at 1,635); Microsoft Graph's 22,361
operations get 100 nodes each. How a value is filled within it: :mod:`.full`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

TOTAL_NODES = 2_000_000  # the whole mock's answers, shared by the operations
MAX_NODES = 4_000  # one value, in an API of few operations
MIN_NODES = 100  # one value, however many operations
MAX_LEVELS = 16  # nesting depth of one value


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


class Sized(NamedTuple):
    """A JSON value with its node count and depth."""

    value: Any
    nodes: int
    depth: int

    def fits(self, room: Budget) -> bool:
        return self.nodes <= room.nodes and self.depth <= room.depth


def budget_for(operations: int) -> Budget:
    """The budget of one value of an API with ``operations`` operations."""
    share = TOTAL_NODES // max(operations, 1)
    return Budget(max(MIN_NODES, min(MAX_NODES, share)), MAX_LEVELS)


def measure(value: Any) -> Sized:
    """``value`` with its size (iterative: a spec's example may nest deeply)."""
    nodes, deepest = 0, 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, level = stack.pop()
        nodes += 1
        if isinstance(v, dict):
            deepest = max(deepest, level + 1)
            stack.extend((x, level + 1) for x in v.values())
        elif isinstance(v, list):
            deepest = max(deepest, level + 1)
            stack.extend((x, level + 1) for x in v)
    return Sized(value, nodes, deepest)


def larger_than(value: Any, nodes: int) -> bool:
    """Whether ``value`` has more than ``nodes`` nodes (counted only that far: a value of
    shared parts may be far larger written out than held)."""
    count = 0
    stack: list[Any] = [value]
    while stack:
        v = stack.pop()
        count += 1
        if count > nodes:
            return True
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def leaf(value: Any) -> Sized:
    """A scalar (or an empty container)."""
    if isinstance(value, (dict, list)):
        return measure(value)
    return Sized(value, 1, 0)
