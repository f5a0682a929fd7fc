"""The ``apismith`` console script and ``python -m generator``.

For ``apismith generate``, the model worker is forked first, before click and the
pipeline are imported, so that it imports datamodel-code-generator meanwhile.
"""

from __future__ import annotations

import sys


def run() -> None:
    args = sys.argv[1:]
    if args[:1] == ["generate"] and not {"-h", "--help"} & set(args):
        from generator.render.models import start_early

        start_early()
    from generator.cli import run as cli

    cli()
