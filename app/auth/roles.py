"""Roles: who may curate the catalogue (admin), adjust quotas (operator), or launch (user)."""

from functools import wraps

from flask import abort
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user, login_required

from app.auth.groups import normalise_groups

ROLES = ("user", "operator", "admin")
GRANTABLE_ROLES = ("operator", "admin")
# The roles in people's words: the names above are identifiers, stored and compared.
ROLE_NAMES = {"user": _l("user"), "operator": _l("operator"), "admin": _l("admin")}
# Who a page is for, when someone without the role asks for it.
_PAGE_FOR = {
    "user": _l("This page is for the portal's users."),
    "operator": _l("This page is for the portal's operators."),
    "admin": _l("This page is for the portal's admins."),
}


def roles_from_groups(groups: list[str], role_groups: dict[str, list[str]]) -> list[str]:
    """The roles that membership of ``groups`` confers under the configured mapping (whose
    group names may be written either way, "/cms/users" or "cms/users")."""
    member_of = set(normalise_groups(groups))
    return sorted(
        role
        for role, granting in role_groups.items()
        if member_of & set(normalise_groups(granting))
    )


def role_required(role: str):
    """Decorate a view so that only logged-in users with ``role`` reach it (others get 403).

    Admins have every role.
    """

    def decorator(view):
        @wraps(view)
        @login_required
        def wrapped(*args, **kwargs):
            if not (current_user.has_role(role) or current_user.is_admin):
                abort(403, str(_PAGE_FOR.get(role) or _("You are not allowed to see this page.")))
            return view(*args, **kwargs)

        return wrapped

    return decorator
