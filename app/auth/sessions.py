"""The session cookie, written only by the requests that should write it.

Sessions are permanent and slide: a page's answer signs the cookie anew, so that it lasts
SESSION_LIFETIME_MINUTES from the latest use. Not every answer: a session unchanged since its
cookie was signed less than SESSION_TOUCH_SECONDS ago is left as the browser holds it. That is
the cadence at which the login's own "last seen" time is written on the server (``logins``),
so the cookie, like the login, lasts from the latest use at least the lifetime less those
seconds; signing it anew was a sixth of the steps of the smallest logged-in answer. htmx
requests (the launch summary, status polling) run beside full page loads, and a cookie written
by one of them overwrites whatever a page load stored in the meantime: a flashed message
vanishes, or a logout is undone by a poll that was already in flight. The browser's own
background fetches race the same way: a favicon or script asked for while a form was being sent
carries the cookie from before, and its answer, arriving last, would drop the flash the form
stored. So background requests (htmx, static files, anything the browser says is not a
document) leave the cookie alone unless they changed the session themselves. This also means an
open page that only polls does not keep a session alive; people do.

The JSON API (under ``API_PREFIX``) authenticates each request by its token: it neither reads
the browser's session cookie nor ever sets one.
"""

import time

from flask import Flask, request
from flask.sessions import SecureCookieSessionInterface, SessionMixin
from itsdangerous import BadSignature, URLSafeTimedSerializer

API_PREFIX = "/api/"


class PageSessionInterface(SecureCookieSessionInterface):
    """One per app (``init_auth``)."""

    def __init__(self) -> None:
        self._serializers: dict[tuple, URLSafeTimedSerializer] = {}

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        """Flask's serializer, made once per set of keys: making one encodes a test value
        to learn the serializer's kind, and each request asked for one twice."""
        if not app.secret_key:
            return None
        keys = (*(app.config["SECRET_KEY_FALLBACKS"] or ()), app.secret_key)
        try:
            return self._serializers[keys]
        except KeyError:
            pass
        if len(self._serializers) >= 4:  # keys replaced at run time: the old are forgotten
            self._serializers.clear()
        serializer = self._serializers[keys] = super().get_signing_serializer(app)
        return serializer

    def open_session(self, app: Flask, request):
        """Flask's, remembering on the session when its cookie was signed (``signed_at``)."""
        if request.path.startswith(API_PREFIX):
            return self.session_class()
        serializer = self.get_signing_serializer(app)
        if serializer is None:
            return None
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:
            return self.session_class()
        max_age = int(app.permanent_session_lifetime.total_seconds())
        try:
            data, signed_at = serializer.loads(value, max_age=max_age, return_timestamp=True)
        except BadSignature:
            return self.session_class()
        session = self.session_class(data)
        session.signed_at = signed_at.timestamp()
        return session

    def should_set_cookie(self, app: Flask, session: SessionMixin) -> bool:
        if request.path.startswith(API_PREFIX):
            return False
        if session.modified:
            return True
        if _in_the_background():
            return False
        if not super().should_set_cookie(app, session):
            return False
        signed_at = getattr(session, "signed_at", None)
        # The signature's time is in whole seconds, as itsdangerous checks it against max_age.
        return signed_at is None or time.time() - signed_at >= app.config["SESSION_TOUCH_SECONDS"]


def _in_the_background() -> bool:
    if request.headers.get("HX-Request") or request.endpoint == "static":
        return True
    # Browsers name what a request is for; clients that do not (scripts, tests) count as pages.
    destination = request.headers.get("Sec-Fetch-Dest")
    return destination is not None and destination not in ("document", "iframe")
