"""The session cookie, written only by the requests that should write it.

Sessions are permanent and slide: Flask rewrites the signed cookie on every response. htmx
requests (the launch summary, status polling) run beside full page loads, and a cookie written
by one of them overwrites whatever a page load stored in the meantime: a flashed message
vanishes, or a logout is undone by a poll that was already in flight. So background requests
leave the cookie alone unless they changed the session themselves. This also means an open page
that only polls does not keep a session alive; people do.
"""

from flask import Flask, request
from flask.sessions import SecureCookieSessionInterface, SessionMixin


class PageSessionInterface(SecureCookieSessionInterface):
    def should_set_cookie(self, app: Flask, session: SessionMixin) -> bool:
        if session.modified:
            return True
        if request.headers.get("HX-Request"):
            return False
        return super().should_set_cookie(app, session)
