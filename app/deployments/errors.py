"""What can go wrong with a deployment, in words meant for the researcher."""

from __future__ import annotations

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
