"""The ``apismith`` console script and ``python -m generator``.

For ``apismith generate``, the model renderer (its worker process) is started first,
before click and the pipeline are imported, so that it imports datamodel-code-generator
meanwhile; the command receives it. A plain ``apismith check [API...]`` whose manifests
vouch for every API is answered before click is imported
(:func:`generator.check.noop_check`); anything else goes through the command.
"""

from __future__ import annotations

import os
import sys


def shared_imports() -> None:
    """What both processes import, imported once, before the fork: pydantic (about a tenth
    of a second), which datamodel-code-generator runs on in the worker and the import
    check of the output needs here. The worker would spend that time importing it anyway."""
    import pydantic
    import pydantic._internal._generate_schema  # what defining a model needs
    import pydantic.main  # noqa: F401


def run() -> None:
    args = sys.argv[1:]
    if args[:1] == ["check"] and not any(a.startswith("-") for a in args[1:]):
        from generator.check import noop_check

        if noop_check(args[1:]):  # up to date: done, without click (see generator.cli.run)
            sys.stdout.flush()
            os._exit(0)
    models = None
    if args[:1] == ["generate"] and not {"-h", "--help"} & set(args):
        from generator.model_worker import ModelRenderer

        shared_imports()
        models = ModelRenderer()
    from generator.cli import run as cli

    cli(models)
