"""The launch workflow: record the deployment, reserve its quota, then ask the orchestrator.

Who commits: this workflow, in exactly two documented steps, and nothing it calls.

1. Record and reserve: the row (status SUBMITTING, with its charge) is checked against the
   quotas under their locks (``app.quotas.operations.reserve``, which does not commit) and
   committed here, before the create request leaves, so no answer lost on the way can leave a
   deployment the portal does not know of, and no racing launch can pass a limit.
2. Submit outcome: the orchestrator's answer (created, refused, or lost) is written and
   committed here, together with the values to offer next time.

An ambiguous outcome (no answer, a timeout, a 5xx, an unreadable answer) leaves the row
UNCONFIRMED for the sync worker to match with the orchestrator's record; it is never submitted
again. Only a clear refusal, or a request that never left, means "nothing was launched"
(NOT_LAUNCHED).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import Any

from flask_babel import gettext as _
from flask_babel import ngettext
from sqlalchemy import select

from app.auth.errors import TokenUnavailable
from app.auth.models import User
from app.backends import registry
from app.backends.base import (
    BackendError,
    Busy,
    NoId,
    Unavailable,
    Unreachable,
    Unreadable,
)
from app.catalogue.loader import Entry
from app.catalogue.models import TemplateRevision
from app.clock import utcnow
from app.deployments import identity, remote, tracking
from app.deployments.errors import (
    DeploymentError,
    LaunchConflict,
    LaunchError,
    explain,
    explain_create_conflict,
)
from app.deployments.models import NAME_MAX_LENGTH, Deployment
from app.deployments.secrets import seal, secret_inputs, split_parameters
from app.deployments.status import Status
from app.deployments.timeline import record_event
from app.deployments.words import N_
from app.errors import ConfigurationError
from app.extensions import db
from app.launch import decision, prefill
from app.launch.checks import LaunchPending as LaunchPending  # callers catch it here
from app.launch.checks import check_pending, check_rate, chosen_group
from app.launch.sites import chosen_site, placement_options
from app.quotas.operations import reserve
from app.tosca.inputs import generate_password
from app.tosca.parsed import ParsedTemplate

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
RECORDED = N_("Recorded; submitting.")
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


def default_name(entry: Entry) -> str:
    """The template's name plus a short random suffix, e.g. "Jupyter notebook 3f9a"."""
    return f"{entry.parsed.name or entry.slug} {secrets.token_hex(2)}"


def request_options(backend: str) -> dict[str, Any]:
    """The steering options sent with every create at ``backend``: its own defaults."""
    return registry.kind(backend).request_options()


def _generate_missing(entry: Entry, parameters: dict, generated: set[str]) -> dict:
    filled = dict(parameters)
    for name, can_generate in secret_inputs(entry.parsed).items():
        if can_generate and not filled.get(name):
            filled[name] = generate_password()
            generated.add(name)
    return filled


def _template_text(entry: Entry) -> str:
    text = db.session.scalar(
        select(TemplateRevision.tosca_text).where(TemplateRevision.id == entry.revision_id)
    )
    if text is None:
        raise LaunchError(
            _(
                "This application changed while you were filling in the form; reload the page "
                "and launch again."
            )
        )
    return text


def prepare(
    user: User,
    entry: Entry,
    parameters: dict,
    *,
    name: str | None = None,
    group: str | None = None,
    generated: set[str] | frozenset[str] = frozenset(),
    site: str | None = None,
) -> tuple[Deployment, dict]:
    """The checks of a launch and its row, built but not added to the session: the row and
    the parameters to submit. Shared by ``launch`` and by a request that joins the line instead
    (``app.waiting``), so both record the same row. ``generated`` names the secret inputs the
    portal generated (kept sealed for the owner); missing ones that may be generated are
    generated here. ``site`` names the site picked (None: left to the portal; checked by
    ``sites.chosen_site``), stored with the request options for the backend to place it there.
    Raises LaunchError (LaunchPending when an identical launch is still unconfirmed,
    TooManyLaunches over the rate limit).
    """
    blocker = identity.launch_blocker(user, entry.serving_backend)
    if blocker:
        raise LaunchError(blocker)
    check_rate(user)
    generated = set(generated)
    parameters = _generate_missing(entry, parameters, generated)
    clear, kept = split_parameters(entry.parsed, parameters, generated)
    check_pending(user, entry, clear)
    charged_group = chosen_group(user, group)
    try:
        user_group = identity.user_group_to_send(user, charged_group, entry.serving_backend)
    except DeploymentError as error:
        raise LaunchError(error.message, "group") from error
    options = request_options(entry.serving_backend)
    if user_group:
        options["group"] = user_group
    options.update(placement_options(chosen_site(entry, site)))
    text = _template_text(entry)
    deployment = Deployment(
        user_id=user.id,
        name=(name or "").strip()[:NAME_MAX_LENGTH] or default_name(entry),
        template_slug=entry.slug,
        backend=entry.serving_backend,
        revision_id=entry.revision_id,
        # The default-language name: Deployment.template_name shows each reader their own.
        template_name=entry.template.name,
        template_text=text,
        parameters=clear,
        secrets_sealed=seal(kept),
        group_name=charged_group,
        request_options=options,
        charge=decision.charge_of(text, parameters),
        outputs={},
        reference_secret=secrets.token_urlsafe(32),
        submitted_at=utcnow(),
        check_failures=0,
    )
    return deployment, parameters


def launch(
    user: User,
    entry: Entry,
    parameters: dict,
    *,
    name: str | None = None,
    group: str | None = None,
    generated: set[str] | frozenset[str] = frozenset(),
    remember: bool = False,
    on_recorded: Callable[[Deployment], None] | None = None,
    site: str | None = None,
) -> Deployment:
    """Launch ``entry``'s revision with ``parameters`` (checked TOSCA values) for ``user``.

    Commits twice (see the module's docstring): the record with its reservation, then the
    submission's outcome; with ``remember`` the non-secret values are kept for the user's next
    launch. ``generated`` and ``site``: see ``prepare``. ``on_recorded(deployment)`` runs once
    it is recorded, before it is submitted, for what other features record with it (a lease);
    it commits. Returns the deployment, creating, or UNCONFIRMED when the answer was lost.
    Raises LaunchError (nothing launched; LaunchPending, TooManyLaunches, NoSiteRoom) or
    QuotaExceeded.
    """
    deployment, parameters = prepare(
        user, entry, parameters, name=name, group=group, generated=generated, site=site
    )
    record_event(deployment, Status.SUBMITTING, source="launch", reason=RECORDED, actor=user)
    reserve(user, deployment.group_name, deployment.charge, deployment)
    decision.check_room(deployment.charge)  # its quotas let it start; a site must have room
    db.session.commit()  # step 1: recorded and reserved, before anything leaves
    if on_recorded is not None:
        on_recorded(deployment)
    asked = parameters if remember else None
    return _submit(user, deployment, parameters, entry if remember else None, asked)


def admit(
    deployment: Deployment,
    parameters: dict,
    *,
    reason: str,
    kind: str,
    on_recorded: Callable[[Deployment], None] | None = None,
) -> Deployment:
    """Launch ``deployment``, recorded earlier and waiting (``app.waiting``), exactly as
    ``launch`` does from step 1 on: reserved under the quotas' locks with its submit time, the
    timeline entry (``kind``, ``reason``) committed with the reservation, ``on_recorded``, then
    the submission and its outcome. The caller holds the row (locked, still waiting) and has
    staged in the session what leaves the line with it.

    Raises QuotaExceeded (rolled back: it still waits) or LaunchError as ``launch`` does.
    """
    deployment.submitted_at = utcnow()
    record_event(deployment, Status.SUBMITTING, source="portal", reason=reason, kind=kind)
    user, charge = deployment.user, deployment.charge
    reserve(user, deployment.group_name, charge, deployment, behind_line=False)
    db.session.commit()  # step 1: reserved and out of the line, before anything leaves
    if on_recorded is not None:
        on_recorded(deployment)
    return _submit(user, deployment, parameters)


def _submit(
    user: User,
    deployment: Deployment,
    parameters: dict,
    remembered_entry: Entry | None = None,
    remembered: dict | None = None,
) -> Deployment:
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
        _remember(user, remembered_entry, remembered)
        return _unconfirmed(deployment, UNCONFIRMED_NO_ID)
    except Unreadable as error:
        _remember(user, remembered_entry, remembered)
        return _unconfirmed(deployment, UNCONFIRMED_UNREADABLE, error.message)
    except Unavailable as error:
        _remember(user, remembered_entry, remembered)
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
    _remember(user, remembered_entry, remembered)
    db.session.commit()  # step 2: the outcome
    log.info(
        "User %s launched %s as deployment %s (%s)",
        user.id,
        deployment.template_slug,
        deployment.id,
        state.backend_id,
    )
    return deployment


def _remember(user: User, entry: Entry | None, parameters: dict | None) -> None:
    if entry is not None and parameters is not None:
        prefill.remember_values(user, entry, parameters)


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


def entry_of(deployment: Deployment) -> Entry:
    """The catalogue entry of the revision ``deployment`` was launched from.

    Raises LaunchError when that revision no longer exists (or it was adopted).
    """
    revision = (
        db.session.get(TemplateRevision, deployment.revision_id)
        if deployment.revision_id is not None
        else None
    )
    if revision is None:
        raise LaunchError(
            _(
                "The application this deployment was launched from is no longer in the "
                "catalogue; launch it anew from the catalogue."
            )
        )
    return Entry(
        deployment.template_slug,
        revision.id,
        revision.number,
        ParsedTemplate.from_json(revision.parsed),
        revision.created_at,
    )


def relaunch(actor: User, deployment: Deployment, *, name: str | None = None) -> Deployment:
    """Launch ``deployment``'s template again with the same settings, for ``actor``.

    Generated secrets are generated anew. Raises LaunchError when a secret the user typed is
    required (the portal did not keep it: edit and relaunch instead), or as ``launch`` does.
    """
    entry = entry_of(deployment)
    typed = [
        spec.label or spec.name
        for spec in entry.parsed.inputs
        if spec.name in secret_inputs(entry.parsed)
        and not spec.generate
        and spec.required
        and not spec.has_default
    ]
    if typed:
        raise LaunchError(
            ngettext(
                "%(inputs)s was typed at launch and the portal does not keep it; use "
                "\u201cEdit and relaunch\u201d to type it again.",
                "%(inputs)s were typed at launch and the portal does not keep them; use "
                "\u201cEdit and relaunch\u201d to type them again.",
                len(typed),
                inputs=", ".join(typed),
            )
        )
    group = deployment.group_name if deployment.group_name in identity.groups_for(actor) else None
    # The same site as before, when one was picked (checked again: sites come and go).
    site = (deployment.request_options or {}).get("site")
    return launch(
        actor, entry, dict(deployment.parameters or {}), name=name, group=group, site=site
    )
