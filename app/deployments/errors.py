"""What can go wrong with a deployment, in words meant for the researcher."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from app.backends import registry
from app.backends.base import (
    BackendError,
    Busy,
    NotAllowed,
    Refused,
    Unauthenticated,
    Unavailable,
)
from app.errors import PortalError


class DeploymentError(PortalError):
    """The orchestrator could not do what was asked; the message says what to do next."""

    status_code = 502


class LaunchError(DeploymentError):
    """Nothing was launched; the caller shows the message beside the user's filled-in form."""

    @classmethod
    def of(cls, error: BackendError, message: str) -> LaunchError:
        """The error for a create the backend answered with ``error``: ``LaunchRefused`` when
        it refused what was asked, else a failure on its side."""
        return LaunchRefused(message) if isinstance(error, Refused) else cls(message)


class TooManyLaunches(LaunchError):
    """The user launched too often in the last minute; nothing was launched."""

    status_code = 429


class LaunchConflict(LaunchError):
    """The orchestrator answered a create with 409: it created nothing, and says why."""

    status_code = 409


class LaunchRefused(LaunchError):
    """The backend refused the create and made nothing: its reason is about what was asked
    (the template, its values, who asks), for the person to fix, so it is answered as their
    request's failure (422), never as the portal's (5xx) in logs, metrics and monitoring."""

    status_code = 422


def explain_create_conflict(error: Busy) -> str:
    """What a 409 on a create means for the researcher: nothing exists yet, so it is never
    "busy with another operation"; with Retry-After the orchestrator rolled back a clash
    with a concurrent change, otherwise it refused the request as clashing with its state."""
    if error.retry_after is not None:
        return _(
            "The orchestrator was handling another change at the same moment and created "
            "nothing; nothing was launched. Launch it again. It said: %(said)s",
            said=error.message,
        )
    return _(
        "The orchestrator refused to create it because it clashes with something it already "
        "holds; nothing was launched. It said: %(said)s",
        said=error.message,
    )


NOT_DELETED = "the deployment was not deleted"
# What did not happen, as the callers name it; each is a sentence of its own in ``explain``.
OUTCOMES = {
    "nothing was launched": _l("Nothing was launched."),
    NOT_DELETED: _l("The deployment was not deleted."),
    "the delete was not reset": _l("The delete was not reset."),
    "the log could not be fetched": _l("The log could not be fetched."),
    "the resources could not be fetched": _l("The resources could not be fetched."),
    "the template could not be fetched": _l("The template could not be fetched."),
}
# The kinds of refusal ``explain`` words, by the exception's class (most specific first).
_ERRORS = (
    (Unavailable, "unavailable"),
    (Unauthenticated, "unauthorized"),
    (NotAllowed, "forbidden"),
    (Busy, "conflict"),
    (Refused, "bad-request"),
    (BackendError, "failed"),
)


def problem_of(error: BackendError, outcome: str) -> dict:
    """What ``explain`` needs to word ``error`` again later, in whoever's language reads it:
    kept with a timeline entry or a lease instead of the sentence."""
    code = next(code for kind, code in _ERRORS if isinstance(error, kind))
    problem = {"error": code, "outcome": outcome, "said": str(error.message)}
    if error.service and error.service != registry.FIRST:
        problem["service"] = error.service
    return problem


def explain(error: BackendError, outcome: str) -> str:
    """A sentence for a researcher about ``error``; ``outcome`` (a key of OUTCOMES) says what
    did not happen."""
    return problem_text(problem_of(error, outcome))


def problem_text(problem: dict) -> str:
    """The sentences of a problem kept by ``problem_of``, in the reader's language."""
    outcome = OUTCOMES.get(problem.get("outcome"), problem.get("outcome") or "")
    said = problem.get("said") or ""
    code = problem.get("error")
    if code == "portal":  # the portal's own sentence, kept as it was worded
        return said
    # A problem kept without a backend's name is the first backend's, from before there were
    # several: only other backends' names are kept (``problem_of``).
    name = problem.get("service") or registry.FIRST
    own = registry.words(name).refusals
    if own:
        return str(own.get(code) or own["failed"]) % {"outcome": outcome, "said": said}
    return _named_service_text(code, registry.label(name), outcome, said)


def _named_service_text(code: str, service: str, outcome: str, said: str) -> str:
    """``problem_text`` in the portal's neutral sentences, naming the backend (``service``)."""
    if code == "unavailable":
        return _(
            "%(service)s is not answering right now. %(outcome)s Try again in a few minutes.",
            service=service,
            outcome=outcome,
        )
    if code == "unauthorized":
        return _(
            "%(service)s did not accept your login. %(outcome)s Log out, log in again and retry.",
            service=service,
            outcome=outcome,
        )
    if code == "forbidden":
        return _(
            "%(service)s does not allow your account to do this. %(outcome)s It said: %(said)s",
            service=service,
            outcome=outcome,
            said=said,
        )
    if code == "conflict":
        return _(
            "The deployment is busy with another operation at %(service)s. %(outcome)s Try "
            "again in a moment. It said: %(said)s",
            service=service,
            outcome=outcome,
            said=said,
        )
    if code == "bad-request":
        return _(
            "%(service)s refused the request. %(outcome)s It said: %(said)s",
            service=service,
            outcome=outcome,
            said=said,
        )
    return _(
        "%(service)s failed. %(outcome)s It said: %(said)s",
        service=service,
        outcome=outcome,
        said=said,
    )
