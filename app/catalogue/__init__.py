"""What can be launched: TOSCA templates, their portal metadata, and the forms built from them."""

from flask import Flask


def init_catalogue(app: Flask) -> None:
    """Register the tables; check ``DEFAULT_BACKEND``.

    Raises ConfigurationError when ``DEFAULT_BACKEND`` names no known backend.
    """
    from app.catalogue import models  # noqa: F401  (registers the tables)
    from app.catalogue.routing import check_default_backend

    check_default_backend(app.config)
