"""What can go wrong with a deployment, in words meant for the researcher."""

from __future__ import annotations

from flask_babel import gettext as _

from app.errors import PortalError
from app.orchestrator.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    OrchestratorError,
    OrchestratorUnavailable,
    Unauthorized,
)


class DeploymentError(PortalError):
    """The orchestrator could not do what was asked; the message says what to do next."""

    status_code = 502


class LaunchError(DeploymentError):
    """Nothing was launched; the caller shows the message beside the user's filled-in form."""


class TooManyLaunches(LaunchError):
    """The user launched too often in the last minute; nothing was launched."""

    status_code = 429


class LaunchConflict(LaunchError):
    """The orchestrator answered a create with 409: it created nothing, and says why."""

    status_code = 409


def explain_create_conflict(error: Conflict) -> str:
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


def explain(error: OrchestratorError, outcome: str) -> str:
    """A sentence for a researcher about ``error``; ``outcome`` says what did not happen."""
    if isinstance(error, OrchestratorUnavailable):
        return (
            f"The orchestrator is not answering right now; {outcome}. Try again in a few minutes."
        )
    if isinstance(error, Unauthorized):
        return (
            f"The orchestrator did not accept your login; {outcome}. Log out, log in again "
            "and retry."
        )
    if isinstance(error, Forbidden):
        return (
            f"The orchestrator does not allow your account to do this; {outcome}. "
            f"It said: {error.message}"
        )
    if isinstance(error, Conflict):
        return (
            f"The deployment is busy with another operation at the orchestrator; {outcome}. "
            f"Try again in a moment. It said: {error.message}"
        )
    if isinstance(error, BadRequest):
        return f"The orchestrator refused the request; {outcome}. It said: {error.message}"
    return f"The orchestrator failed; {outcome}. It said: {error.message}"
