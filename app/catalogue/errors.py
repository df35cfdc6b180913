"""The catalogue's named error."""

from app.errors import PortalError


class CatalogueError(PortalError):
    """An admin's catalogue action can't proceed; the message says why, ``field`` where."""
