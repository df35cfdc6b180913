"""Entry point for WSGI servers: ``gunicorn wsgi:app``."""

from app import create_app

app = create_app()
