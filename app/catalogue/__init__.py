"""What can be launched: TOSCA templates, their portal metadata, and the forms built from them."""

from flask import Flask


def init_catalogue(app: Flask) -> None:
    from app.catalogue import models  # noqa: F401  (registers the tables)
