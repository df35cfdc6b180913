"""The errors every backend raises, in the portal's terms, and the one rule that keeps a
credential a backend was called with out of what it says (``masked``).

A backend turns its own failures into these at its door; the rest of the portal catches them
(imported through ``app.backends.base``) and never a backend's own.
"""

from __future__ import annotations

from collections.abc import Iterable

from flask_babel import lazy_gettext as _l


class BackendError(Exception):
    """A backend refused or failed a call. ``message`` can be shown to a person;
    ``status_code`` is the backend's HTTP status, or None when no answer came."""

    default_message = _l("The deployment service answered with an error.")
    # The backend that raised it, where the caller knows (``app.backends.registry`` names).
    service: str | None = None
    # The backend's own words where ``message`` says them for people instead: for admins.
    detail: str | None = None

    def __init__(self, message: str | None = None, *, status_code: int | None = None):
        self.message = message or str(self.default_message)
        self.status_code = status_code
        super().__init__(self.message)


class Refused(BackendError):
    """The backend clearly refused: nothing was done. ``message`` says why."""

    default_message = _l("The deployment service refused the request.")


class NotAllowed(Refused):
    """The caller's identity was not accepted, or may not do this."""

    default_message = _l("The deployment service does not allow this.")


class Unauthenticated(NotAllowed):
    """The caller's identity (their token, the service's credentials) was not accepted."""

    default_message = _l("The deployment service did not accept the login.")


class NotFound(BackendError):
    """The backend does not know this deployment (any more)."""

    default_message = _l("The deployment service does not know this deployment.")


class Busy(BackendError):
    """The deployment is busy with another operation. ``retry_after`` is in seconds when the
    backend said when to try again: then nothing was done and the call may be repeated."""

    default_message = _l("The deployment is busy with another operation.")

    def __init__(self, message=None, *, status_code=409, retry_after: int | None = None):
        super().__init__(message, status_code=status_code)
        self.retry_after = retry_after


class Unavailable(BackendError):
    """No usable answer (timeout, dropped connection, a server error): the call may or may not
    have been carried out."""

    default_message = _l("The deployment service is not answering right now.")


class Unreachable(Unavailable):
    """The call never reached the backend: it certainly did nothing."""

    default_message = _l("The deployment service cannot be reached right now.")


# What a credential is shown as. Values shorter than SHORTEST_CREDENTIAL are not looked for: a
# two-letter password would mask every word holding those letters.
MASK = "***"
SHORTEST_CREDENTIAL = 4


def masked(text: str, credentials: Iterable[str]) -> str:
    """``text`` with every one of ``credentials`` written as ``MASK``: the one rule by which
    what a backend says (its errors, reasons, logs and outputs) never shows a credential it
    was called with, wherever it is kept or shown. Longer credentials first, so that one
    holding another is masked whole."""
    for credential in sorted(set(credentials), key=len, reverse=True):
        if credential and len(credential) >= SHORTEST_CREDENTIAL:
            text = text.replace(credential, MASK)
    return text


class Unreadable(Unavailable):
    """An answer came but could not be read (or named no deployment): the call may have been
    carried out."""

    default_message = _l("The deployment service's answer could not be read.")


class NoId(Unreadable):
    """A create was answered without the new deployment's id: it may have been made."""

    default_message = _l("The deployment service's answer named no deployment.")
