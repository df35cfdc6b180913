"""The session cookie, written only by the requests that should write it.

Sessions are permanent and slide: Flask rewrites the signed cookie on every response. htmx
requests (the launch summary, status polling) run beside full page loads, and a cookie written
by one of them overwrites whatever a page load stored in the meantime: a flashed message
vanishes, or a logout is undone by a poll that was already in flight. So background requests
leave the cookie alone unless they changed the session themselves. This also means an open page
that only polls does not keep a session alive; people do.

The JSON API (under ``API_PREFIX``) authenticates each request by its token: it neither reads
the browser's session cookie nor ever sets one.
"""

from flask import Flask, request
from flask.sessions import SecureCookieSessionInterface, SessionMixin

API_PREFIX = "/api/"


class PageSessionInterface(SecureCookieSessionInterface):
    def open_session(self, app: Flask, request):
        if request.path.startswith(API_PREFIX):
            return self.session_class()
        return super().open_session(app, request)

    def should_set_cookie(self, app: Flask, session: SessionMixin) -> bool:
        if request.path.startswith(API_PREFIX):
            return False
        if session.modified:
            return True
        if request.headers.get("HX-Request"):
            return False
        return super().should_set_cookie(app, session)
