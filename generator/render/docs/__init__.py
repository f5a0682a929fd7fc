"""The generated API reference: Markdown pages and a ``mkdocs.yml`` (see :mod:`.site`)."""

from generator.render.docs.site import docs_context, render_docs, site_dir

__all__ = ["docs_context", "render_docs", "site_dir"]
