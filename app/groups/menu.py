"""The navigation bar's "My groups" entry, for people who manage at least one group.

Drawn on every page: whether the person was named a manager anywhere comes with the login
check's own query (``LOGIN_READINGS``, with the reading ``app.auth.managers`` names), and
managing by membership is on the person's row already, so a page costs no query of its own for
the entry (nor for the bar's Lines link, which asks the same).
"""

from __future__ import annotations

from flask import request
from flask_login import current_user

from app.auth.managers import managed_groups


def draws_the_menu() -> bool:
    """Whether this request is likely to draw the navigation bar: a page, not an htmx partial."""
    return not request.headers.get("HX-Request")


def shows_entry() -> bool:
    """Whether the logged-in person manages a group (asked only when the bar is drawn)."""
    if not current_user.is_authenticated:
        return False
    return bool(managed_groups(current_user))
