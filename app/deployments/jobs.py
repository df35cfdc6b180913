"""Batch jobs (Chronos) in their own words: queued, scheduled, running, succeeded or failed,
when a scheduled job runs next, and what deleting one means.

The orchestrator treats a Chronos deployment as created once its jobs have succeeded: it
keeps it creating while Chronos counts neither a success nor an error, moves it to
ready at the first success and to failed ("Chronos job <id> failed to
execute") at the first error, once Chronos's retries are spent. Between queued and running
it reports nothing, so the portal tells them apart by what it knows: whether a site took the
job, and when the schedule it sent starts.
"""

from __future__ import annotations

from datetime import datetime

from flask_babel import gettext as _
from sqlalchemy import inspect

from app.clock import utcnow
from app.deployments.job_text import holds_job, schedule_in
from app.deployments.models import Deployment
from app.deployments.presenters import StatusLook, status_look
from app.deployments.status import Status
from app.tosca.schedules import Schedule, plain_time


def is_job(deployment: Deployment) -> bool:
    """Whether ``deployment`` is a Chronos batch job rather than a service.

    Once placed, the site's deployment type says so. Before that only the template does: the
    list leaves its text unloaded for its cost and asks the database instead (``job_hint``)."""
    if deployment.deployment_type:
        return deployment.deployment_type == "CHRONOS"
    if "template_text" not in inspect(deployment).dict:  # not loaded
        return bool(deployment.job_hint)
    return holds_job(deployment.template_text)


def schedule_of(deployment: Deployment) -> Schedule | None:
    """The schedule the job was sent with (its Chronos node's ``schedule``), or None."""
    return schedule_in(deployment.template_text, deployment.parameters)


def next_run(deployment: Deployment, schedule: Schedule | None, now: datetime) -> datetime | None:
    """When the job runs next, if it is still scheduled."""
    if schedule is None or deployment.status not in (Status.CREATING, Status.READY):
        return None
    submitted = deployment.submitted_at or deployment.created_at
    return schedule.next_run(submitted, now)


def job_look(deployment: Deployment, now: datetime | None = None) -> StatusLook:
    """The badge of a batch job: its run state in words a researcher reads."""
    now = now or utcnow()
    status = deployment.status
    schedule = (
        schedule_of(deployment)
        if status in (Status.CREATING, Status.READY, Status.FAILED)
        else None
    )
    coming = next_run(deployment, schedule, now)
    if status == "SUBMITTING":
        return StatusLook(
            _("Queued"), "info", _("The portal is handing it to the orchestrator's queue.")
        )
    if status == Status.CREATING:
        first = schedule.start if schedule else None
        if first is not None and first > now:
            return StatusLook(
                _("Scheduled"), "info", _("Its first run is on %(when)s.", when=plain_time(first))
            )
        if not deployment.site:
            return StatusLook(
                _("Queued"), "info", _("Waiting for the orchestrator to hand it to a site.")
            )
        return StatusLook(
            _("Running"),
            "info",
            _(
                "The batch system at %(site)s is running it; you see here when it ends.",
                site=deployment.site,
            ),
        )
    if status == Status.READY:
        if coming is not None:
            return StatusLook(
                _("Succeeded"),
                "success",
                _("Its first run succeeded. It runs next on %(when)s.", when=plain_time(coming)),
            )
        return StatusLook(_("Succeeded"), "success", _("It ran and succeeded."))
    if status == Status.FAILED:
        return StatusLook(
            _("Failed"), "danger", _("It ran and failed; the orchestrator's reason is below.")
        )
    if status == Status.DELETING:
        return StatusLook(
            _("Removing"), "secondary", _("It is being removed from the batch system.")
        )
    if status == Status.DELETED:
        return StatusLook(_("Removed"), "secondary", _("It was removed from the batch system."))
    return status_look(status)


def has_started(deployment: Deployment, now: datetime | None = None) -> bool:
    """Whether the job may have run: a site took it and its schedule has begun."""
    if deployment.status in ("WAITING", "SUBMITTING", "UNCONFIRMED", "NOT_LAUNCHED"):
        return False
    if deployment.status != Status.CREATING:
        return True
    schedule = schedule_of(deployment)
    first = schedule.start if schedule else None
    return bool(deployment.site) and not (first is not None and first > (now or utcnow()))


def step_looks(deployment: Deployment):
    """How a job's timeline words each status it passed through (None for a service)."""
    if not is_job(deployment):
        return None
    words = {
        Status.CREATING: StatusLook(_("Queued"), "info", ""),
        Status.READY: StatusLook(_("Succeeded"), "success", ""),
        Status.FAILED: StatusLook(_("Failed"), "danger", ""),
        Status.DELETING: StatusLook(_("Removing"), "secondary", ""),
        Status.DELETED: StatusLook(_("Removed"), "secondary", ""),
    }
    return lambda status: words.get(status) or status_look(status)


def look_of(deployment: Deployment) -> StatusLook:
    """The badge of any deployment: a job's run state, else the status of a service."""
    if is_job(deployment):
        return job_look(deployment)
    return status_look(deployment.status)


def counted_words(deployment: Deployment) -> str:
    """How a job is counted against quotas, in a sentence for its page (the rule is
    ``app.deployments.status.holds_resources``)."""
    if deployment.runs_once:
        return _(
            "It holds its cores, memory and GPUs against your quota only while it waits and "
            "runs: once it has succeeded or failed, it holds nothing."
        )
    return _(
        "A repeating job holds its cores, memory and GPUs against your quota from launch until "
        "you delete it, between runs too: each run needs the same room."
    )


def plan_of(deployment: Deployment) -> dict | None:
    """What a job's page says about its schedule: ``words`` (the schedule in plain words),
    ``next`` (when it runs next, in words, or None), ``iso`` (what was sent, for admins) and
    ``counted`` (how it holds quota, in a sentence)."""
    if not is_job(deployment):
        return None
    counted = counted_words(deployment)
    schedule = schedule_of(deployment)
    if schedule is None:
        return {"words": None, "next": None, "iso": None, "counted": counted}
    coming = next_run(deployment, schedule, utcnow())
    if coming is not None and coming == schedule.start:
        coming = None  # the status already says when the first run is
    return {
        "words": schedule.describe(),
        "next": plain_time(coming) if coming else None,
        "iso": schedule.iso(),
        "counted": counted,
    }
