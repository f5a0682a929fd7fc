"""What a normalization pass reports besides the spec it returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from generator.errors import one_line

Kind = Literal["warning", "rename", "merge", "alias", "drop", "name", "note"]


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding of one pass.

    ``kind`` says what happened, and feeds the CLI summary:

    - ``warning``: something suspicious, kept as it is or patched;
    - ``rename``: a schema or operation got a new name (``old`` -> ``new``);
    - ``merge``: two schemas became one (``old`` merged into ``new``);
    - ``alias``: a field keeps its wire name but gets another Python name;
    - ``drop``: a value was removed (an invalid default, say).
    - ``name``: an operation's place in the generated client is not the naming rules'
      default (the config's resource map, or a clash); reported by ``-v`` only.
    - ``note``: a routine rewrite, one summary per pass (how many schemas it changed);
      reported by ``-v`` only.
    """

    pass_name: str
    kind: Kind
    pointer: str
    message: str
    old: str = ""
    new: str = ""

    def line(self) -> str:
        return one_line(f"[{self.pass_name}] {self.kind}: {self.message} (at {self.pointer})")

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "pass": self.pass_name,
            "kind": self.kind,
            "pointer": self.pointer,
            "message": self.message,
        }
        if self.old or self.new:
            data["old"], data["new"] = self.old, self.new
        return data


@dataclass(frozen=True)
class PassResult:
    """The output of a pass: a new spec (the input is never mutated) and its findings."""

    spec: dict[str, Any]
    diagnostics: tuple[Diagnostic, ...] = ()
