"""HTTP security headers and cookie policy."""

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from app.extensions import talisman

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
