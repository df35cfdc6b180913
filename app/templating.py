"""Jinja settings and helpers shared by every template."""

from flask import Flask, current_app

# Features lend the navigation bar menus of their own (the notifications bell): each fills this
# slot at start with a template, drawn before the person's own menu.
NAVIGATION_MENUS = "navigation.menus"


def add_navigation_menu(app: Flask, template: str) -> None:
    """Draw ``template`` in the navigation bar of logged-in people."""
    app.extensions.setdefault(NAVIGATION_MENUS, []).append(template)


def init_templating(app: Flask) -> None:
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
    app.context_processor(
        lambda: {"navigation_menus": current_app.extensions.get(NAVIGATION_MENUS, ())}
    )

    @app.template_filter("datetime")
    def format_datetime(value, fmt: str = "%Y-%m-%d %H:%M") -> str:
        return value.strftime(fmt) + " UTC" if value else ""
