"""Login and logout pages. They translate HTTP; the auth modules do the checking."""

from urllib.parse import urlsplit

from flask import (
    Blueprint,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_login import current_user, login_required, login_user, logout_user

from app.auth import SESSION_HINT_COOKIE, ldap, local, logins, oidc, throttle, tokens
from app.auth.errors import DirectoryUnavailable, LoginFailed, LoginThrottled, ProviderError
from app.auth.forms import LoginForm
from app.auth.operations import record_identity
from app.extensions import db

bp = Blueprint("auth", __name__)


def safe_next(target: str | None) -> str | None:
    """``target`` if it is a path on this site, else None (no open redirects)."""
    if not target or "\\" in target or any(ord(c) < 32 for c in target):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return None
    return target


def _password_methods() -> list[str]:
    # The institution's directory first: where it is configured, most people have an account there.
    methods = []
    if current_app.config["LDAP"]:
        methods.append("ldap")
    if current_app.config["LOCAL_LOGIN_ENABLED"]:
        methods.append("local")
    return methods


def _render_login(form: LoginForm, status: int = 200):
    return (
        render_template(
            "auth/login.html",
            form=form,
            providers=oidc.enabled_providers(),
            show_password_form=bool(_password_methods()),
        ),
        status,
    )


@bp.route("/login", methods=["GET", "POST"])
def login():
    if current_user.is_authenticated:
        return redirect(safe_next(request.args.get("next")) or url_for("main.home"))
    ldap_label = (current_app.config["LDAP"] or {}).get("label")
    form = LoginForm(_password_methods(), label=ldap_label)
    if request.method != "POST":  # GET, and HEAD answered the same way
        form.next.data = safe_next(request.args.get("next")) or ""
        return _render_login(form)
    if not _password_methods():
        return _render_login(form, 404)
    if not form.validate_on_submit():
        return _render_login(form, 400)

    username, address = form.username.data.strip(), request.remote_addr or ""
    try:
        throttle.reserve_attempt(username, address)
    except LoginThrottled as error:
        form.form_errors.append(error.message)
        return _render_login(form, 429)
    try:
        if form.method.data == "ldap":
            identity = ldap.authenticate(current_app.config["LDAP"], username, form.password.data)
        else:
            identity = local.authenticate(username, form.password.data)
    except DirectoryUnavailable as error:
        db.session.rollback()
        throttle.release_attempt(username, address)
        form.form_errors.append(error.message)
        return _render_login(form, 503)
    except LoginFailed as error:
        db.session.rollback()
        throttle.record_failure(username, address)
        form.form_errors.append(error.message)
        return _render_login(form, 401)
    throttle.record_success(username, address)
    return _finish_login(record_identity(identity), form.next.data)


@bp.route("/login/oidc/<name>")
def oidc_login(name: str):
    provider = oidc.get_provider(name)
    session["login_next"] = safe_next(request.args.get("next")) or ""
    try:
        return oidc.begin_login(provider, url_for("auth.oidc_callback", name=name, _external=True))
    except ProviderError as error:
        flash(error.message, "danger")
        return redirect(url_for("auth.login"))


@bp.route("/login/oidc/<name>/callback")
def oidc_callback(name: str):
    provider = oidc.get_provider(name)
    try:
        identity, token = oidc.complete_login(provider)
    except ProviderError as error:
        flash(error.message, "danger")
        return redirect(url_for("auth.login"))
    user = record_identity(identity)
    if user.active:
        tokens.store_tokens(user, provider.name, token)
    return _finish_login(user, session.get("login_next"))


def _finish_login(user, next_url: str | None):
    # A fresh session: nothing an attacker planted before login survives it.
    session.clear()
    if not user.active:
        flash(
            _("This account has been disabled. Ask the portal's operators if that is a mistake."),
            "danger",
        )
        return redirect(url_for("auth.login"))
    login_user(user)
    logins.start(user)
    session.permanent = True
    flash(_("Welcome, %(name)s.", name=user.name), "success")
    response = redirect(safe_next(next_url) or url_for("main.home"))
    response.set_cookie(
        SESSION_HINT_COOKIE,
        "1",
        max_age=30 * 24 * 3600,
        secure=current_app.config["SESSION_COOKIE_SECURE"],
        httponly=True,
        samesite="Lax",
    )
    return response


@bp.route("/logout", methods=["POST"])
@login_required
def logout():
    tokens.drop_tokens(current_user)
    logins.end_current()
    logout_user()
    session.clear()
    flash(_("You have logged out."), "info")
    response = redirect(url_for("auth.login"))
    response.delete_cookie(SESSION_HINT_COOKIE)
    return response
