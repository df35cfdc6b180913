"""Every call to an identity provider (discovery, JWKS, token, refresh, userinfo, the service
identity's grant) read whole within an overall deadline and under a size cap (``app.remote``).

Authlib makes its own requests sessions; these classes are its classes with one change: each
call goes through ``remote.bounded``. A provider that dribbles its answer then fails as one
that does not answer (``remote.AnswerTooSlow`` is a ``requests.Timeout``), and an answer too
large as an unusable one (``remote.AnswerTooLarge`` is a ``requests.RequestException``), so
the callers' handlers and their words stay as they are. The deadline is the provider's
timeout added up (``remote.deadline_of``).
"""

from __future__ import annotations

from authlib.integrations.flask_client import FlaskOAuth2App, OAuth
from authlib.integrations.requests_client import OAuth2Session

from app import remote

# Discovery documents, key sets, tokens and userinfo are a few KB; a provider's key set with
# many keys stays far below this.
MAX_ANSWER_BYTES = 1024 * 1024
# Seconds when a session is made without a timeout (Authlib's own sessions always get one
# here, from the provider's settings).
FALLBACK_TIMEOUT = 10.0


class BoundedOAuth2Session(OAuth2Session):
    """Authlib's requests session whose every call ends by its deadline and cap."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        remote.watch_session(self)

    def request(self, method, url, withhold_token=False, auth=None, **kwargs):
        timeout = kwargs.pop("timeout", None) or self.default_timeout or FALLBACK_TIMEOUT
        parent = super().request

        def send(**streaming):
            return parent(
                method,
                url,
                withhold_token=withhold_token,
                auth=auth,
                timeout=timeout,
                **streaming,
                **kwargs,
            )

        return remote.bounded(
            send, deadline=remote.deadline_of(timeout), max_bytes=MAX_ANSWER_BYTES
        )


class BoundedOAuth2App(FlaskOAuth2App):
    """Authlib's Flask client making its sessions as ``BoundedOAuth2Session``."""

    client_cls = BoundedOAuth2Session


class BoundedOAuth(OAuth):
    """Authlib's Flask registry whose clients are ``BoundedOAuth2App``."""

    oauth2_client_cls = BoundedOAuth2App
