"""What people do with deployments: launch one, follow its status, delete it.

Each verb talks to the orchestrator through ``orchestrator_for(user)``, stores what it learnt,
and raises a DeploymentError (LaunchError for ``launch``) whose message is meant for the
researcher: the orchestrator's own wording is passed on only where it helps them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from flask import current_app
from sqlalchemy import select

from app.auth import oidc
from app.auth.errors import TokenUnavailable
from app.auth.models import User, utcnow
from app.auth.tokens import access_token_for
from app.catalogue.inputs import SECRET_KINDS
from app.catalogue.loader import Entry
from app.catalogue.models import TemplateRevision
from app.catalogue.parsed import ParsedTemplate
from app.deployments.models import Deployment
from app.errors import NotFound, PortalError
from app.extensions import db
from app.orchestrator import schemas
from app.orchestrator.client import OrchestratorClient
from app.orchestrator.emulator_demo import DEMO_BASE_URL, DemoTokens, demo_identity, demo_session
from app.orchestrator.errors import (
    BadRequest,
    Conflict,
    DeploymentNotFound,
    Forbidden,
    OrchestratorError,
    OrchestratorUnavailable,
    Unauthorized,
)

log = logging.getLogger(__name__)


class DeploymentError(PortalError):
    """The orchestrator could not do what was asked; the message says what to do next."""

    status_code = 502


class LaunchError(DeploymentError):
    """Nothing was launched; the caller shows the message beside the user's filled-in form."""


@dataclass
class Refresh:
    """The outcome of ``refresh_statuses``: how many deployments changed, and why the
    orchestrator could not be asked (``None`` when it could)."""

    changed: int = 0
    problem: str | None = None


def _explain(error: OrchestratorError, outcome: str) -> str:
    """A sentence for a researcher about ``error``; ``outcome`` says what did not happen."""
    if isinstance(error, OrchestratorUnavailable):
        return f"The orchestrator is not answering right now; {outcome}. Try again in a few " \
               "minutes."  # fmt: skip
    if isinstance(error, Unauthorized):
        return f"The orchestrator did not accept your login; {outcome}. Log out, log in again " \
               "and retry."  # fmt: skip
    if isinstance(error, Forbidden):
        return f"The orchestrator does not allow your account to do this; {outcome}. " \
               f"It said: {error.message}"  # fmt: skip
    if isinstance(error, BadRequest):
        return f"The orchestrator refused the request; {outcome}. It said: {error.message}"
    return f"The orchestrator failed; {outcome}. It said: {error.message}"


def orchestrator_for(user: User) -> OrchestratorClient:
    """A client acting for ``user`` on the configured orchestrator (use it in a ``with``).

    Raises DeploymentError when a real orchestrator is configured and ``user`` did not log in
    through an identity provider (only those have the access token it needs).
    """
    config = current_app.config
    url, timeout = config["ORCHESTRATOR_URL"], config["ORCHESTRATOR_TIMEOUT"]
    if url == "demo":
        tokens, identity = DemoTokens(config["SECRET_KEY"]), demo_identity(user)
        session = demo_session(current_app._get_current_object())
        return OrchestratorClient(DEMO_BASE_URL, lambda: tokens.issue(identity), timeout, session)
    if oidc.find_provider(user.provider) is None:
        labels = [provider.label for provider in oidc.enabled_providers()]
        through = " or ".join(labels) or "an identity provider"
        raise DeploymentError(
            f"Launching needs a login through {through}; local accounts can only launch on "
            "the demo orchestrator."
        )
    return OrchestratorClient(url, lambda: access_token_for(user), timeout)


def _without_secrets(parsed: ParsedTemplate, parameters: dict) -> dict:
    secret = {spec.name for spec in parsed.inputs if spec.kind in SECRET_KINDS}
    return {name: value for name, value in parameters.items() if name not in secret}


def launch(
    user: User, entry: Entry, parameters: dict, *, user_group: str | None = None
) -> Deployment:
    """Submit ``entry``'s published template with ``parameters`` (validated TOSCA values) for
    ``user``, and record the new deployment.

    Raises LaunchError, with nothing launched, when the orchestrator cannot be reached or
    refuses, or the user has no usable login for it.
    """
    revision = db.session.get(TemplateRevision, entry.revision_id)
    if revision is None:
        raise LaunchError("This application changed while you were filling in the form; "
                          "reload the page and launch again.")  # fmt: skip
    outcome = "nothing was launched"
    try:
        with orchestrator_for(user) as client:
            answer = client.create_deployment(
                revision.tosca_text, parameters, user_group=user_group
            )
        state = schemas.DeploymentState.from_json(answer)
    except OrchestratorError as error:
        log.warning("Launch of %s for user %s failed: %r", entry.slug, user.id, error)
        raise LaunchError(_explain(error, outcome)) from error
    except (TokenUnavailable, DeploymentError) as error:
        raise LaunchError(f"{error.message} Nothing was launched.") from error
    except ValueError as error:
        log.error("Launch of %s for user %s: unreadable answer: %s", entry.slug, user.id, error)
        raise LaunchError("The orchestrator's answer could not be read; check My deployments "
                          "before launching again.") from error  # fmt: skip
    deployment = Deployment(
        uuid=state.uuid,
        user_id=user.id,
        template_slug=entry.slug,
        revision_id=entry.revision_id,
        template_name=entry.parsed.name,
        parameters=_without_secrets(entry.parsed, parameters),
        outputs={},
        checked_at=utcnow(),
    )
    _apply(deployment, state)
    db.session.add(deployment)
    db.session.commit()
    log.info("User %s launched %s (revision %s) as %s", user.id, entry.slug,
             entry.revision_id, state.uuid)  # fmt: skip
    return deployment


def _apply(deployment: Deployment, state: schemas.DeploymentState) -> bool:
    """Copy what the orchestrator says onto ``deployment``; True when something changed."""
    before = (deployment.status, deployment.status_reason, deployment.task, deployment.site,
              deployment.outputs)  # fmt: skip
    deployment.status = state.status
    deployment.status_reason = state.status_reason
    deployment.task = state.task
    deployment.site = state.site or deployment.site
    deployment.outputs = state.outputs or deployment.outputs or {}
    after = (deployment.status, deployment.status_reason, deployment.task, deployment.site,
             deployment.outputs)  # fmt: skip
    return before != after


def _vanished(deployment: Deployment) -> None:
    """The orchestrator answers 404: deleted, if a delete was under way; else lost."""
    if deployment.status == schemas.DELETE_IN_PROGRESS:
        deployment.status, deployment.deleted = schemas.DELETE_COMPLETE, True
    else:
        deployment.status = schemas.UNKNOWN
        deployment.status_reason = "The orchestrator no longer knows this deployment."


def deployments_of(user: User) -> list[Deployment]:
    """``user``'s deployments that are not deleted, newest first (from the database only)."""
    return list(db.session.scalars(
        select(Deployment)
        .where(Deployment.user_id == user.id, Deployment.deleted.is_(False))
        .order_by(Deployment.created_at.desc(), Deployment.id.desc())
    ))  # fmt: skip


def owned_deployment(user: User, deployment_id: int) -> Deployment:
    """``user``'s deployment ``deployment_id``; raises NotFound for anyone else's."""
    deployment = db.session.get(Deployment, deployment_id)
    if deployment is None or deployment.user_id != user.id or deployment.deleted:
        raise NotFound("There is no such deployment among yours.")
    return deployment


def refresh_statuses(user: User, only: Deployment | None = None) -> Refresh:
    """Ask the orchestrator about ``user``'s deployments still in progress (or just ``only``)
    and store the answers. Never raises for orchestrator trouble: ``Refresh.problem`` says it.
    """
    now = utcnow()
    seconds = current_app.config["DEPLOYMENTS_RECHECK_SECONDS"]
    recheck = timedelta(seconds=seconds)
    candidates = [only] if only is not None else deployments_of(user)
    due = [d for d in candidates if d.in_progress
           and (d.checked_at is None or now - d.checked_at >= recheck)]  # fmt: skip
    result = Refresh()
    if not due:
        return result
    try:
        client = orchestrator_for(user)
    except DeploymentError as error:
        return Refresh(problem=error.message)
    with client:
        for deployment in due:
            try:
                state = schemas.DeploymentState.from_json(client.get_deployment(deployment.uuid))
            except DeploymentNotFound:
                _vanished(deployment)
                result.changed += 1
            except (OrchestratorError, TokenUnavailable, ValueError) as error:
                # One failure is enough: the others would fail alike, only slower.
                log.info("Status refresh for user %s stopped: %r", user.id, error)
                result.problem = getattr(error, "message", None) or "Unreadable answer."
                break
            else:
                result.changed += _apply(deployment, state)
            deployment.checked_at = now
    db.session.commit()
    return result


def delete(user: User, deployment: Deployment) -> None:
    """Ask the orchestrator to delete ``user``'s ``deployment``.

    Raises NotFound if it is not theirs, DeploymentError if the orchestrator refuses or fails.
    """
    if deployment.user_id != user.id or deployment.deleted:
        raise NotFound("There is no such deployment among yours.")
    try:
        with orchestrator_for(user) as client:
            client.delete_deployment(deployment.uuid)
    except DeploymentNotFound:
        deployment.status, deployment.deleted = schemas.DELETE_COMPLETE, True
    except Conflict:
        deployment.status = schemas.DELETE_IN_PROGRESS  # a delete is already under way
    except OrchestratorError as error:
        raise DeploymentError(_explain(error, "the deployment was not deleted")) from error
    except TokenUnavailable as error:
        raise DeploymentError(error.message) from error
    else:
        deployment.status, deployment.status_reason = schemas.DELETE_IN_PROGRESS, None
    deployment.checked_at = None
    db.session.commit()
    log.info("User %s deleted deployment %s", user.id, deployment.uuid)
