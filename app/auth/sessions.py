"""The session cookie, written only by the requests that should write it.

Sessions are permanent and slide: Flask rewrites the signed cookie on every response. htmx
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
        if _in_the_background():
            return False
        return super().should_set_cookie(app, session)


def _in_the_background() -> bool:
    if request.headers.get("HX-Request") or request.endpoint == "static":
        return True
    # Browsers name what a request is for; clients that do not (scripts, tests) count as pages.
    destination = request.headers.get("Sec-Fetch-Dest")
    return destination is not None and destination not in ("document", "iframe")
