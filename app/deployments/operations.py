"""What people do with deployments: the verbs views and the command line call.

Launching lives a floor above, in ``app.launch.workflow``; staying current in ``sync`` (and
``callbacks``); this module holds the rest and re-exports what callers need. Every verb that
changes something writes a timeline entry and commits; actions by an admin on someone else's
deployment are recorded as "admin". Errors are DeploymentError (LaunchError for launches)
with a message meant for a person.
"""

from __future__ import annotations

import json
import logging
from functools import cache

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import bindparam, select

from app.auth.errors import TokenUnavailable
from app.auth.models import User
from app.backends import base
from app.backends.base import BackendError, RemoteState
from app.clock import utcnow
from app.deployments import access, remote, said, tracking, words
from app.deployments import status as statuses
from app.deployments.access import Action
from app.deployments.errors import DeploymentError, LaunchError, TooManyLaunches, explain
from app.deployments.identity import groups_for, launch_blocker
from app.deployments.models import Deployment
from app.deployments.secrets import unseal
from app.deployments.status import Status
from app.deployments.timeline import actor_source, record_event
from app.errors import NotFound
from app.extensions import db
from app.locks import lock_rows

log = logging.getLogger(__name__)

# The timeline kind of a delete someone asked for (a lease's expiry records its own kind).
DELETE_REQUESTED = "delete-requested"
# The timeline kind of a reveal of the secrets by a co-owner.
SECRETS_REVEALED = "secrets-revealed"
# Why an action waits for the orchestrator's confirmation, by action (see ``_require_uuid``).
_UNCONFIRMED = {
    "delete": _l(
        "The orchestrator has not confirmed this deployment yet, so it cannot be deleted now; "
        "the portal is checking, try again in a few minutes."
    ),
    "reset": _l(
        "The orchestrator has not confirmed this deployment yet, so its delete cannot be reset "
        "now; the portal is checking, try again in a few minutes."
    ),
    "log": _l(
        "The orchestrator has not confirmed this deployment yet, so it has no log to show; the "
        "portal is checking, try again in a few minutes."
    ),
    "resources": _l(
        "The orchestrator has not confirmed this deployment yet, so it has no resources to "
        "show; the portal is checking, try again in a few minutes."
    ),
    "template": _l(
        "The orchestrator has not confirmed this deployment yet, so its template cannot be "
        "fetched; the portal is checking, try again in a few minutes."
    ),
}
# What the orchestrator not knowing a deployment means for what was asked of it.
_UNKNOWN = {
    "log": _l("The orchestrator no longer knows this deployment; it has no log."),
    "resources": _l("The orchestrator no longer knows this deployment; it has no resources."),
    "template": _l("The orchestrator no longer knows this deployment; it has no template."),
}

__all__ = [
    "DeploymentError",
    "LaunchError",
    "TooManyLaunches",
    "delete",
    "fetch_log",
    "fetch_resources",
    "fetch_template",
    "forget_secrets",
    "groups_for",
    "launch_blocker",
    "record_event",
    "remembered_group",
    "reset_delete",
    "reveal_secrets",
    "visible_deployment",
]


def visible_deployment(user: User, deployment_id: int, action: Action = Action.VIEW) -> Deployment:
    """Deployment ``deployment_id`` if ``user`` may do ``action`` to it (``access`` says who).

    Raises NotFound otherwise, and for deleted ones, so that nobody learns which ids exist.
    """
    return access.deployment_for(user, deployment_id, action)


@cache
def _last_group_statement():
    # Built once and kept (the launch form asks at each showing): the values go in as the
    # parameters ``user_id`` and ``slug``.
    return (
        select(Deployment.group_name)
        .where(
            Deployment.user_id == bindparam("user_id"),
            Deployment.template_slug == bindparam("slug"),
            Deployment.group_name.is_not(None),
        )
        .order_by(Deployment.created_at.desc(), Deployment.id.desc())
        .limit(1)
    )


def remembered_group(user: User, slug: str) -> str | None:
    """The group ``user`` charged their last launch of template ``slug`` to, if still theirs."""
    group = db.session.scalar(_last_group_statement(), {"user_id": user.id, "slug": slug})
    return group if group in groups_for(user) else None


def _require_uuid(deployment: Deployment, action: str) -> str:
    """The orchestrator's id of ``deployment``; DeploymentError worded for ``action`` (a key of
    ``_UNCONFIRMED``) while it has none."""
    if not deployment.uuid:
        raise DeploymentError(str(_UNCONFIRMED[action]))
    return deployment.uuid


def delete(actor: User, deployment: Deployment, *, force: bool = False) -> None:
    """Ask the orchestrator to delete ``deployment`` (``force``: the INFN fork's forced delete).

    A deployment the orchestrator never had (not launched, vanished) is just marked deleted.
    Raises NotFound if ``actor`` may not see it, DeploymentError if the orchestrator refuses.
    """
    deployment = visible_deployment(actor, deployment.id, Action.DELETE)
    source = actor_source(actor, deployment)
    if not statuses.deletable(deployment.status, deployment.uuid):
        _require_uuid(deployment, "delete")
    if deployment.status == Status.WAITING:
        # A request waiting in line may be starting this very moment: its row's lock, which
        # the line's admission takes too, says which came first.
        lock_rows(select(Deployment.id).where(Deployment.id == deployment.id))
        db.session.refresh(deployment)
    if deployment.status == Status.WAITING:
        record_event(
            deployment,
            Status.NOT_LAUNCHED,
            source=source,
            actor=actor,
            reason=words.LEFT_THE_LINE,
            kind="line-left",
        )
        deployment.status_reason = words.LEFT_THE_LINE
        deployment.deleted, deployment.deleted_at = True, utcnow()
        db.session.commit()
        return
    if not deployment.uuid or deployment.status in statuses.NOTHING_AT_ORCHESTRATOR:
        record_event(
            deployment,
            deployment.status,
            source=source,
            actor=actor,
            reason=words.REMOVED_FROM_LIST,
            kind=DELETE_REQUESTED,
        )
        deployment.deleted, deployment.deleted_at = True, utcnow()
        db.session.commit()
        return
    reason = words.FORCED_DELETE_ASKED if force else words.DELETE_ASKED
    try:
        outcome = remote.delete(deployment, force=force)
    except BackendError as error:
        raise DeploymentError(explain(error, "the deployment was not deleted")) from error
    except TokenUnavailable as error:
        raise DeploymentError(error.message) from error
    if outcome is remote.Deleted.GONE:
        record_event(
            deployment,
            deployment.status,
            source=source,
            actor=actor,
            reason=reason,
            kind=DELETE_REQUESTED,
        )
        tracking.mark_gone(deployment, source=source)
        if not deployment.deleted:  # it was not being deleted: it vanished; drop it anyway
            deployment.deleted, deployment.deleted_at = True, utcnow()
    else:
        under_way = outcome is remote.Deleted.UNDER_WAY
        record_event(
            deployment,
            Status.DELETING,
            source=source,
            actor=actor,
            reason=words.DELETE_UNDER_WAY if under_way else reason,
            kind=DELETE_REQUESTED,
        )
        if not under_way:
            deployment.status_reason = None
    if not deployment.deleted:
        deployment.next_check_at, deployment.check_failures = utcnow(), 0
    db.session.commit()
    log.info("User %s deleted deployment %s (%s)", actor.id, deployment.id, deployment.uuid)


def reset_delete(actor: User, deployment: Deployment) -> None:
    """Reset a stuck delete (to a failed delete, where the backend can) so it can be retried.

    Raises NotFound if ``actor`` may not see it, DeploymentError if the orchestrator refuses.
    """
    deployment = visible_deployment(actor, deployment.id, Action.DELETE)
    _require_uuid(deployment, "reset")
    try:
        remote.reset_delete(deployment)
    except BackendError as error:
        raise DeploymentError(explain(error, "the delete was not reset")) from error
    except TokenUnavailable as error:
        raise DeploymentError(error.message) from error
    record_event(
        deployment,
        Status.DELETE_FAILED,
        source=actor_source(actor, deployment),
        actor=actor,
        reason=words.DELETE_RESET,
    )
    deployment.next_check_at = None
    db.session.commit()


def record_callback(deployment: Deployment, state: RemoteState) -> None:
    """Apply what the orchestrator's callback says of ``deployment``, and commit; a callback
    reporting a step already finished is ignored (it was overtaken by a later one)."""
    if _arrived_late(deployment.status, state.phase):
        log.info(
            "Callback for deployment %s said %s after %s; kept the later news",
            deployment.id,
            state.phase,
            deployment.status,
        )
        return
    tracking.apply_state(deployment, state, source="callback")
    db.session.commit()


# Each step still under way, and the statuses that end it.
_FINISHED_STEP = {
    Status.CREATING: (Status.READY, Status.FAILED),
    Status.UPDATING: (Status.UPDATED, Status.UPDATE_FAILED),
    Status.DELETING: (Status.DELETED, Status.DELETE_FAILED),
}


def _arrived_late(current: str, reported: str) -> bool:
    """Whether a callback reports a step its workflow has already finished: the orchestrator
    also calls back while a deployment is being built, and those calls may be overtaken by the
    one announcing the end (its times are to the minute, too coarse to order them)."""
    return current in _FINISHED_STEP.get(reported, ())


def _secrets_keeper(actor: User, deployment: Deployment) -> Deployment:
    """``deployment`` if ``actor`` may reveal its secrets (its owner and co-owners)."""
    deployment = visible_deployment(actor, deployment.id)
    if not access.may(actor, deployment, Action.REVEAL):
        raise NotFound(_("Only the owner of a deployment can see its secrets."))
    return deployment


def reveal_secrets(actor: User, deployment: Deployment) -> dict[str, str]:
    """The generated secrets and secret outputs of ``deployment``, decrypted, by name
    (non-text values as JSON text), for its owner and co-owners; a reveal by anyone but the
    owner is recorded on the timeline, and committed. Raises NotFound for anyone else."""
    deployment = _secrets_keeper(actor, deployment)
    if actor.id != deployment.user_id:
        record_event(
            deployment,
            deployment.status,
            source=actor_source(actor, deployment),
            actor=actor,
            kind=SECRETS_REVEALED,
        )
        db.session.commit()
    values = {**unseal(deployment.secrets_sealed), **unseal(deployment.secret_outputs_sealed)}
    return {
        name: value if isinstance(value, str) else json.dumps(value, indent=2, sort_keys=True)
        for name, value in values.items()
    }


def forget_secrets(actor: User, deployment: Deployment) -> None:
    """Drop the kept secrets of ``actor``'s own ``deployment`` for good. Secret outputs the
    orchestrator sends again later are kept again. Raises NotFound for anyone but those who
    may reveal them (its owner and co-owners)."""
    deployment = _secrets_keeper(actor, deployment)
    deployment.secrets_sealed = None
    deployment.secret_outputs_sealed = None
    record_event(
        deployment,
        deployment.status,
        source=actor_source(actor, deployment),
        actor=actor,
        reason=words.SECRETS_FORGOTTEN,
    )
    db.session.commit()


def _on_demand(actor: User, deployment: Deployment, what: str, call):
    deployment = visible_deployment(actor, deployment.id)
    _require_uuid(deployment, what)
    try:
        return call(deployment)
    except base.NotFound as error:
        raise DeploymentError(str(_UNKNOWN[what])) from error
    except BackendError as error:
        raise DeploymentError(explain(error, f"the {what} could not be fetched")) from error
    except TokenUnavailable as error:
        raise DeploymentError(error.message) from error


def fetch_log(actor: User, deployment: Deployment) -> said.Log:
    """The contextualisation log, asked for now (short timeout), masked and bounded
    (``said.log``). Raises DeploymentError."""
    return _on_demand(actor, deployment, "log", remote.log)


def fetch_resources(actor: User, deployment: Deployment) -> list[dict]:
    """The deployment's resources (VMs and their state), asked for now. Raises DeploymentError."""
    return _on_demand(actor, deployment, "resources", remote.resources)


def fetch_template(actor: User, deployment: Deployment) -> str:
    """The template as submitted: stored at launch, else fetched once and kept (adopted
    deployments). Raises DeploymentError when it has to be fetched and cannot be."""
    deployment = visible_deployment(actor, deployment.id)
    if deployment.template_text:
        return deployment.template_text
    text = _on_demand(actor, deployment, "template", remote.template)
    deployment.template_text = text
    db.session.commit()
    return text
