"""Jinja settings and helpers shared by every template."""

from flask import Flask, current_app
from flask_babel import get_locale

from app import formatting
from app.clock import utcnow
from app.i18n import offered_languages, timezone_groups

# Features lend the navigation bar menus of their own (the notifications bell): each fills this
# slot at start with a template, drawn before the person's own menu.
NAVIGATION_MENUS = "navigation.menus"


def add_navigation_menu(app: Flask, template: str) -> None:
    """Draw ``template`` in the navigation bar of logged-in people."""
    app.extensions.setdefault(NAVIGATION_MENUS, []).append(template)


def _page_globals() -> dict:
    return {
        "navigation_menus": current_app.extensions.get(NAVIGATION_MENUS, ()),
        # The language the page is written in, for <html lang> and the switch.
        "current_locale": str(get_locale() or current_app.config["DEFAULT_LOCALE"]),
        "languages": offered_languages(),
    }


def init_templating(app: Flask) -> None:
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
    app.context_processor(_page_globals)
    app.add_template_global(timezone_groups)
    app.add_template_global(utcnow)
    # Dates, numbers and sizes in the person's language and time zone (app.formatting). The
    # filter names predate the languages, so every template follows without a change.
    app.add_template_filter(formatting.when, "datetime")
    app.add_template_filter(formatting.day, "date")
    app.add_template_filter(formatting.relative, "relative")
    app.add_template_filter(formatting.number, "number")
    # An absent or zero amount reads as a dash in the figures' tables.
    app.add_template_filter(lambda value: formatting.size(value) if value else "\u2014", "size")
