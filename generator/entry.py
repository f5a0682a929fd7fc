"""The ``apismith`` console script and ``python -m generator``.

For ``apismith generate``, the model renderer (its worker process) is started first,
before click and the pipeline are imported, so that it imports datamodel-code-generator
meanwhile; the command receives it.
"""

from __future__ import annotations

import sys


def run() -> None:
    args = sys.argv[1:]
    models = None
    if args[:1] == ["generate"] and not {"-h", "--help"} & set(args):
        from generator.render.models import ModelRenderer

        models = ModelRenderer()
    from generator.cli import run as cli

    cli(models)
