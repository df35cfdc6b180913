"""Who you are: local accounts, LDAP and OpenID Connect providers, and roles."""

from flask import Flask, flash, make_response, redirect, request, url_for
from flask_babel import gettext as _
from flask_login import AnonymousUserMixin

from app.extensions import login_manager

# Set at login and removed at logout, so that a visitor whose session ran out is told so.
SESSION_HINT_COOKIE = "portal_signed_in"


class Anonymous(AnonymousUserMixin):
    roles = frozenset()
    is_admin = False
    is_operator = False

    def has_role(self, role: str) -> bool:
        return False


def init_auth(app: Flask) -> None:
    from app.auth import access_tokens, logins, models  # noqa: F401  (registers the tables)
    from app.auth.ldap import check_settings as check_ldap_settings
    from app.auth.oidc import init_oidc
    from app.auth.sessions import PageSessionInterface

    app.session_interface = PageSessionInterface()
    login_manager.init_app(app)
    login_manager.anonymous_user = Anonymous
    # Flask-Login's "strong" protection drops the session when the address or browser changes.
    login_manager.session_protection = "strong"
    login_manager.user_loader(_load_user)
    logins.init_request_user()
    login_manager.unauthorized_handler(_unauthorized)
    check_ldap_settings(app.config["LDAP"])
    init_oidc(app)
    app.jinja_env.globals["provider_label"] = provider_label
    app.jinja_env.filters["role_label"] = role_label


def provider_label(provider: str) -> str:
    """How a login provider is named to people: "a local account", the LDAP or OIDC label."""
    from flask import current_app

    if provider == "local":
        return _("a local account")
    if provider == "ldap":
        return (current_app.config["LDAP"] or {}).get("label") or _("the institute's directory")
    for entry in current_app.config["OIDC_PROVIDERS"]:
        if entry.get("name") == provider:
            return entry.get("label") or provider
    return provider


def role_label(role: str) -> str:
    """A role as people read it ("amministratore"); a role the portal does not know, as stored."""
    from app.auth.roles import ROLE_NAMES

    return str(ROLE_NAMES[role]) if role in ROLE_NAMES else role


def _load_user(user_id: str):
    from app.auth import logins

    try:
        pk, version = (int(part) for part in user_id.split(":", 1))
    except ValueError:
        return None
    # The cookie alone proves nothing once the login behind it has ended on the server.
    return logins.logged_in_user(pk, version)


def _unauthorized():
    from app.auth.views import safe_next

    if request.headers.get("HX-Request"):
        # htmx would swap the login page into a fragment; ask it to navigate instead.
        response = make_response("", 401)
        response.headers["HX-Redirect"] = url_for("auth.login", next=request.full_path)
        return response
    if request.cookies.get(SESSION_HINT_COOKIE):
        flash(_("Your session has expired. Please log in again."), "warning")
    else:
        flash(_("Please log in to see this page."), "info")
    return redirect(url_for("auth.login", next=safe_next(request.full_path)))
