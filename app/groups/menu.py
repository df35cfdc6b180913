"""The navigation bar's "My groups" entry, for people who manage at least one group.

Drawn on every page: whether the person was named a manager anywhere comes with the login
check's own query (``LOGIN_READINGS``), and managing by membership is on the person's row
already, so a page costs no query of its own for the entry.
"""

from __future__ import annotations

from flask import request
from flask_login import current_user
from sqlalchemy import func, select

from app.auth.logins import login_reading
from app.auth.managers import managed_groups
from app.auth.models import GroupManager

NAMED_READING = "groups_named_manager"


def named_with_login(user_id_column):
    """How many groups the person was named a manager of, as the login check reads it."""
    return (
        select(func.count(GroupManager.id))
        .where(GroupManager.user_id == user_id_column)
        .scalar_subquery()
    )


def draws_the_menu() -> bool:
    """Whether this request is likely to draw the navigation bar: a page, not an htmx partial."""
    return not request.headers.get("HX-Request")


def shows_entry() -> bool:
    """Whether the logged-in person manages a group (asked only when the bar is drawn)."""
    if not current_user.is_authenticated:
        return False
    if current_user.managed_by_membership:
        return True
    named = login_reading(NAMED_READING)
    if named is None:
        return bool(managed_groups(current_user))
    return bool(named)
