"""Jinja settings and helpers shared by every template."""

from flask import Flask


def init_templating(app: Flask) -> None:
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True

    @app.template_filter("datetime")
    def format_datetime(value, fmt: str = "%Y-%m-%d %H:%M") -> str:
        return value.strftime(fmt) + " UTC" if value else ""
