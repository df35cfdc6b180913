"""The launch workflow: a request (``request.LaunchRequest``) is checked and its row built once
(``prepare``), the launch decision is taken for it under the quotas' locks
(``decision.take``), and it starts, waits in line, or is refused.

Who commits: this workflow, in exactly two documented steps, and nothing it calls (but the
lease's ``choose``, which commits step 1 with the lease chosen).

1. Record: a request that starts is recorded (status SUBMITTING, with its charge, reserved under
   the quotas' locks, and the lease chosen) and committed here, before the create request
   leaves, so no answer lost on the way can leave a deployment the portal does not know of, and
   no racing launch can pass a limit. A request that waits is recorded WAITING with its place in
   line (``app.lines.joining``), charged nothing, and committed here; nothing more happens to
   it until the admission pass (``admission``) starts it from step 1.
2. Submit outcome: the backend's answer (created, refused, or lost) is written and committed
   (``submitting``), together with the values to offer next time.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask_babel import gettext as _
from sqlalchemy import select

from app.backends import registry
from app.catalogue.loader import Entry
from app.catalogue.models import TemplateRevision
from app.clock import utcnow
from app.deployments import identity
from app.deployments.errors import DeploymentError, LaunchError
from app.deployments.models import NAME_MAX_LENGTH, Deployment
from app.deployments.secrets import seal, secret_inputs, split_parameters
from app.deployments.words import N_
from app.extensions import db
from app.launch import decision
from app.launch.checks import LaunchPending as LaunchPending  # callers catch it here
from app.launch.checks import check_pending, check_rate, chosen_group
from app.launch.constraints.hold import Claim
from app.launch.request import LaunchRequest, LeaseChoice
from app.launch.sites import chosen_site, placement_options
from app.launch.submitting import submit
from app.leases import operations as lease_operations
from app.lines import joining, wording
from app.tosca.inputs import generate_password

RECORDED = N_("Recorded; submitting.")


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


def prepare(request: LaunchRequest) -> tuple[Deployment, dict, frozenset[str]]:
    """The checks of a launch and its row, built but not added to the session: the row, the
    parameters to submit, and the names of the secret inputs the portal generated (kept sealed
    for the owner; missing ones that may be generated are generated here). The site picked is
    checked by ``sites.chosen_site`` and stored with the request options for the backend to
    place it there.

    Raises LaunchError (LaunchPending when an identical launch is still unconfirmed,
    TooManyLaunches over the rate limit, SiteRefused).
    """
    user, entry = request.user, request.entry
    blocker = identity.launch_blocker(user, entry.serving_backend)
    if blocker:
        raise LaunchError(blocker)
    check_rate(user)
    generated = set(request.generated)
    parameters = _generate_missing(entry, dict(request.parameters), generated)
    clear, kept = split_parameters(entry.parsed, parameters, generated)
    check_pending(user, entry, clear)
    charged_group = chosen_group(user, request.group)
    try:
        user_group = identity.user_group_to_send(user, charged_group, entry.serving_backend)
    except DeploymentError as error:
        raise LaunchError(error.message, "group") from error
    options = request_options(entry.serving_backend)
    if user_group:
        options["group"] = user_group
    options.update(placement_options(chosen_site(entry, request.site)))
    text = _template_text(entry)
    deployment = Deployment(
        user_id=user.id,
        name=(request.name or "").strip()[:NAME_MAX_LENGTH] or default_name(entry),
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
    return deployment, parameters, frozenset(generated)


def launch(request: LaunchRequest, *, wait: bool = False) -> Deployment:
    """Launch ``request``: it starts when the launch decision lets it, or, with ``wait`` and a
    decision that offers a line, it waits in line (WAITING; committed).

    Commits twice when it starts (see the module's docstring). Returns the deployment:
    creating, UNCONFIRMED when the answer was lost, or WAITING. Raises LaunchError (nothing
    launched; LaunchPending, TooManyLaunches, SiteRefused, NoSiteRoom), QuotaExceeded
    (KeptForLine when those waiting come first; CannotWait when it asked to wait and may not).
    """
    deployment, parameters, generated = prepare(request)
    user = request.user
    claim = Claim(
        user,
        deployment.group_name,
        deployment.charge,
        template_slug=deployment.template_slug,
        lease_minutes=request.lease.minutes if request.lease else None,
    )
    decided = decision.take(claim, deployment, source="launch", reason=RECORDED, actor=user)
    if decided.outcome == decision.START:
        # Its lease with it, so that a launch counted next against a budget sees its end.
        _choose_lease(deployment, request.lease)
        db.session.commit()  # step 1: recorded and reserved, before anything leaves
        return submit(user, deployment, parameters, request if request.remember else None)
    if wait and decided.outcome == decision.WAIT:
        hold = decided.hold
        joining.enter(
            deployment,
            user,
            hold.line,
            reason=hold.reason,
            joined=hold.joined,
            parameters=parameters,
            options={
                "generated": sorted(generated),
                "lease_minutes": request.lease.minutes if request.lease else None,
                "remember": request.remember,
            },
        )
        db.session.commit()  # step 1: in line, charged nothing
        return deployment
    db.session.rollback()  # nothing recorded; the quotas' locks let go
    raise decided.refusal(wanted_to_wait=wait and decision.lines_open())


def admit(deployment: Deployment, parameters: dict, lease: LeaseChoice) -> Deployment:
    """Start ``deployment``, recorded earlier and waiting (``app.lines``), exactly as
    ``launch`` does from step 1 on, with the limits asked again under the quotas' locks (the
    line's own order and the sites were planned by the admission pass). The caller holds the
    row (locked, still waiting) and has staged in the session what leaves the line with it.

    Raises QuotaExceeded (rolled back: it still waits) or LaunchError as ``launch`` does.
    """
    deployment.submitted_at = utcnow()
    user = deployment.user
    claim = Claim(
        user,
        deployment.group_name,
        deployment.charge,
        excluding=deployment.id,
        from_line=True,
        template_slug=deployment.template_slug,
        lease_minutes=lease.minutes if lease else None,
    )
    decided = decision.take(
        claim, deployment, source="portal", reason=wording.STARTED, kind=wording.STARTED_KIND
    )
    if decided.outcome != decision.START:
        db.session.rollback()
        raise decided.refusal()
    _choose_lease(deployment, lease)
    db.session.commit()  # step 1: reserved and out of the line, before anything leaves
    return submit(user, deployment, parameters)


def _choose_lease(deployment: Deployment, lease: LeaseChoice | None) -> None:
    if lease is not None:
        lease_operations.choose(deployment, minutes=lease.minutes)  # commits step 1 with it
