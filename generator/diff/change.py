"""One change between two versions of an API (:class:`Change`), its levels and sides,
and the order every report lists changes in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["breaking", "warning", "info"]
Side = Literal["spec", "python"]
LEVELS: tuple[Level, ...] = ("breaking", "warning", "info")  # most severe first
SIDES: tuple[Side, ...] = ("spec", "python")


@dataclass(frozen=True)
class Change:
    """A classified change: ``rule`` (an id of :mod:`generator.diff.rules`) gives its
    ``level``; ``location`` says where (``POST /v1/things request.body.owner.name`` on the
    spec side, ``models.Thing.owner`` on the python side); ``message`` says what."""

    level: Level
    rule: str
    message: str
    location: str
    side: Side = "spec"

    def sort_key(self) -> tuple[int, int, str, str, str]:
        """Most severe first, the spec before the Python surface, then by place."""
        return (
            LEVELS.index(self.level),
            SIDES.index(self.side),
            self.location,
            self.rule,
            self.message,
        )

    def as_dict(self) -> dict[str, str]:
        """The change as JSON output shows it."""
        return {
            "level": self.level,
            "rule": self.rule,
            "message": self.message,
            "location": self.location,
            "side": self.side,
        }


def ordered(changes: list[Change]) -> list[Change]:
    """``changes`` without repeats, in report order (:meth:`Change.sort_key`)."""
    return sorted(set(changes), key=Change.sort_key)


def at_or_above(changes: list[Change], level: Level) -> bool:
    """Whether a change of ``level`` or a more severe one is among ``changes``."""
    bar = LEVELS.index(level)
    return any(LEVELS.index(c.level) <= bar for c in changes)
