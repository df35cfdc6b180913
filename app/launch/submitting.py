"""The submit step of a launch: ask the backend to create the deployment, already recorded and
reserved, and write its answer (created, refused, or lost); commits that outcome.

An ambiguous outcome (no answer, a timeout, a 5xx, an unreadable answer) leaves the row
UNCONFIRMED for the sync worker to match with the backend's record; it is never submitted
again. Only a clear refusal, or a request that never left, means "nothing was launched"
(NOT_LAUNCHED).
"""

from __future__ import annotations

import logging

from flask_babel import gettext as _

from app.auth.errors import TokenUnavailable
from app.auth.models import User
from app.backends.base import (
    BackendError,
    Busy,
    NoId,
    Unavailable,
    Unreachable,
    Unreadable,
)
from app.clock import utcnow
from app.deployments import identity, remote, tracking
from app.deployments.errors import (
    DeploymentError,
    LaunchConflict,
    LaunchError,
    explain,
    explain_create_conflict,
)
from app.deployments.models import Deployment
from app.deployments.status import Status
from app.deployments.timeline import record_event
from app.deployments.words import N_
from app.errors import ConfigurationError
from app.extensions import db
from app.launch import prefill
from app.launch.request import LaunchRequest

log = logging.getLogger(__name__)

NOTHING_LAUNCHED = "nothing was launched"


# Sentences kept in a deployment's record (its status reason and timeline): stored in English as
# the message id, each one whole, and told to each reader in their language when a page shows
# it (``words.N_`` makes the deployments area's ``said`` know them). What went wrong in detail
# goes to the log.
NOT_SET_UP = N_(
    "The portal's connection to the orchestrator is not set up correctly; nothing was "
    "launched. Please tell your administrators."
)
NOT_REACHED = N_(
    "The orchestrator is not answering right now. Nothing was launched. Try again in a few minutes."
)
NO_LOGIN = N_(
    "The portal could not call the orchestrator on the owner's behalf. Nothing was launched."
)
UNCONFIRMED_UNANSWERED = N_(
    "The orchestrator did not answer in time, or failed while answering. It may have created "
    "the deployment; the portal is checking and will not submit it again."
)
UNCONFIRMED_UNREADABLE = N_(
    "The orchestrator's answer could not be read. It may have created the deployment; the "
    "portal is checking and will not submit it again."
)
UNCONFIRMED_NO_ID = N_(
    "The orchestrator's answer had no deployment id. It may have created the deployment; the "
    "portal is checking and will not submit it again."
)


def submit(
    user: User, deployment: Deployment, parameters: dict, remembered: LaunchRequest | None = None
) -> Deployment:
    """Ask the backend to create ``deployment`` (recorded, reserved and committed) with
    ``parameters``, and record its answer; commits. With ``remembered`` (a request that asked
    for it) the non-secret values are kept for the person's next launch of the template, unless
    nothing was launched. Returns the deployment, creating, or UNCONFIRMED when the answer was
    lost. Raises LaunchError (LaunchConflict) when nothing was launched.
    """
    try:
        state = remote.create(user, deployment, parameters)
    except Unreachable as error:
        _not_launched(deployment, NOT_REACHED)
        raise LaunchError(explain(error, NOTHING_LAUNCHED)) from error
    except (TokenUnavailable, DeploymentError) as error:
        # The person who launched reads why at once, in their language; the record keeps a
        # sentence every later reader can be told in theirs.
        log.warning("Launch of deployment %s not sent: %s", deployment.id, error.message)
        _not_launched(deployment, NO_LOGIN)
        raise LaunchError(_("%(problem)s Nothing was launched.", problem=error.message)) from error
    except ConfigurationError as error:
        log.error("Launch of deployment %s: %s", deployment.id, error)
        _not_launched(deployment, NOT_SET_UP)
        raise LaunchError(_(NOT_SET_UP)) from error
    except NoId:
        _remember(user, remembered, parameters)
        return _unconfirmed(deployment, UNCONFIRMED_NO_ID)
    except Unreadable as error:
        _remember(user, remembered, parameters)
        return _unconfirmed(deployment, UNCONFIRMED_UNREADABLE, error.message)
    except Unavailable as error:
        _remember(user, remembered, parameters)
        return _unconfirmed(deployment, UNCONFIRMED_UNANSWERED, error.message)
    except Busy as error:
        message = explain_create_conflict(error)
        _not_launched(deployment, message)
        raise LaunchConflict(message) from error
    except BackendError as error:
        message = explain(error, NOTHING_LAUNCHED)
        _not_launched(deployment, message)
        raise LaunchError.of(error, message) from error
    deployment.uuid = state.backend_id
    tracking.apply_state(deployment, state, source="launch")
    _remember(user, remembered, parameters)
    db.session.commit()  # step 2: the outcome
    log.info(
        "User %s launched %s as deployment %s (%s)",
        user.id,
        deployment.template_slug,
        deployment.id,
        state.backend_id,
    )
    return deployment


def _remember(user: User, remembered: LaunchRequest | None, parameters: dict) -> None:
    if remembered is not None:
        prefill.remember_values(user, remembered.entry, parameters)


def _not_launched(deployment: Deployment, reason: str) -> None:
    record_event(deployment, Status.NOT_LAUNCHED, source="launch", reason=reason)
    deployment.status_reason = reason
    deployment.next_check_at = None
    db.session.commit()  # step 2: the outcome


def _unconfirmed(deployment: Deployment, reason: str, detail: str | None = None) -> Deployment:
    log.warning("Launch of deployment %s unconfirmed: %s %s", deployment.id, reason, detail or "")
    record_event(deployment, Status.UNCONFIRMED, source="launch", reason=reason)
    deployment.status_reason = reason
    deployment.next_check_at = utcnow()
    tracking.list_soon(identity.identity_of(deployment.user, deployment.backend))
    db.session.commit()  # step 2: the outcome
    return deployment
