"""The catalogue's admin side: templates, their revisions, and type libraries.

Importing this package registers every admin route on ``bp``.
"""

from app.catalogue.admin import libraries, revisions, templates  # noqa: F401  (they add routes)
from app.catalogue.admin.blueprint import bp

__all__ = ["bp"]
