"""HTTP security headers and cookie policy."""

from urllib.parse import unquote_to_bytes

from flask import Flask, g, request, session
from flask_babel import lazy_gettext as _l
from flask_login import current_user
from werkzeug.middleware.proxy_fix import ProxyFix

from app.errors import PortalError
from app.extensions import talisman

UNREADABLE_FORM = _l(
    "The form data could not be read: it contained bytes that are not UTF-8 text. Nothing was "
    "changed. Reload the page and send the form again from the browser; if it keeps happening, "
    "check the text you pasted for unusual characters."
)


NUL_IN_REQUEST = _l(
    "The request contained a NUL character (\\0), which no text the portal keeps may hold. "
    "Nothing was changed. Go back, remove it from what you typed or pasted, and send again."
)


class UnreadableForm(PortalError):
    """A submitted body that is not valid UTF-8 (raised before any view or CSRF check)."""


# No inline scripts or styles anywhere: every script and stylesheet is a file under static/.
CONTENT_SECURITY_POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "frame-ancestors": "'none'",
}


def init_security(app: Flask) -> None:
    if proxies := int(app.config["PROXY_FIX"]):
        # Client addresses matter for login throttling; trust only the configured proxies.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)
    secure = app.config["SESSION_COOKIE_SECURE"]
    talisman.init_app(
        app,
        # TLS ends at the reverse proxy, which also redirects plain HTTP.
        force_https=False,
        strict_transport_security=secure,
        frame_options="DENY",
        content_security_policy=CONTENT_SECURITY_POLICY,
        referrer_policy="same-origin",
        session_cookie_secure=secure,
        session_cookie_http_only=True,
        session_cookie_samesite=app.config["SESSION_COOKIE_SAMESITE"],
        permissions_policy={"geolocation": "()", "camera": "()", "microphone": "()"},
    )
    app.after_request(_no_store_for_people)
    # First of all before-request functions, so that CSRF checking does not mistake an
    # unreadable body for an expired form.
    app.before_request_funcs.setdefault(None, []).insert(0, _refuse_unreadable_forms)


def _refuse_unreadable_forms() -> None:
    """Raise UnreadableForm when a submitted form is not UTF-8 text, or when the form or the
    query string holds a NUL character: SQLite stores one, PostgreSQL refuses it, so it is
    refused here, the same on both, before anything is written."""
    if any("\x00" in key or "\x00" in value for key, value in request.args.items(multi=True)):
        raise UnreadableForm(str(NUL_IN_REQUEST))
    if request.method not in ("POST", "PUT", "PATCH"):
        return
    if request.mimetype == "application/x-www-form-urlencoded":
        body = request.get_data(cache=True)
        try:
            for pair in body.split(b"&"):
                unquote_to_bytes(pair.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            raise UnreadableForm(str(UNREADABLE_FORM)) from None
        if b"%00" in body or b"\x00" in body:
            raise UnreadableForm(str(NUL_IN_REQUEST))
    elif request.mimetype == "multipart/form-data":
        # The multipart parser has already replaced undecodable bytes with U+FFFD.
        for key, value in request.form.items(multi=True):
            if "\ufffd" in key or "\ufffd" in value:
                raise UnreadableForm(str(UNREADABLE_FORM))
            if "\x00" in key or "\x00" in value:
                raise UnreadableForm(str(NUL_IN_REQUEST))


def _no_store_for_people(response):
    # A page made for one person must not be kept by a shared cache or the browser's history
    # after logout. Static files are the same for everyone and stay cacheable.
    if request.endpoint != "static" and _made_for_a_person():
        response.headers["Cache-Control"] = "no-store"
    return response


def _made_for_a_person() -> bool:
    """Whether the answer was made for someone logged in. When nothing in the request asked
    who is (the health check), a cookie that claims a login is taken at its word rather than
    checked with a query: the answer is kept from caches either way."""
    if "_login_user" in g:
        return current_user.is_authenticated
    return "_user_id" in session
