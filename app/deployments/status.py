"""A deployment's status, and the questions the portal asks of it: the one owner of that rule.

Statuses are the portal's own words: where a backend says a deployment stands
(``app.backends.base.Phase``, which each backend maps its own states onto) plus four the portal
adds before and around a create (see ``app.deployments.models``). ``Status`` is a ``StrEnum``,
so a member equals the text stored in the database; a status the portal does not know (a
backend's newer state it could not map) stays a plain string and is treated as still changing.
"""

from __future__ import annotations

from enum import StrEnum

from app.backends.base import MOVING, Phase


class Status(StrEnum):
    # The portal's own: before and around a backend's answer to a create.
    SUBMITTING = "SUBMITTING"
    UNCONFIRMED = "UNCONFIRMED"
    NOT_LAUNCHED = "NOT_LAUNCHED"
    VANISHED = "VANISHED"
    # Recorded and waiting in line for the resources it needs (``app.lines``): nothing exists
    # at a backend and nothing is charged until it is admitted.
    WAITING = "WAITING"
    # What a backend says (``Phase``).
    CREATING = Phase.CREATING.value
    READY = Phase.READY.value
    FAILED = Phase.FAILED.value
    UPDATING = Phase.UPDATING.value
    UPDATED = Phase.UPDATED.value
    UPDATE_FAILED = Phase.UPDATE_FAILED.value
    DELETING = Phase.DELETING.value
    DELETED = Phase.DELETED.value
    DELETE_FAILED = Phase.DELETE_FAILED.value
    UNKNOWN = Phase.UNKNOWN.value


KNOWN = frozenset(Status)
PORTAL_STATUSES = frozenset(
    {Status.SUBMITTING, Status.UNCONFIRMED, Status.NOT_LAUNCHED, Status.VANISHED, Status.WAITING}
)
# Waiting for a backend's answer to a create: the backend may hold it or not.
AWAITING_ANSWER = frozenset({Status.SUBMITTING, Status.UNCONFIRMED})
# Nothing exists at the backend, or its delete finished: no resources are held.
RELEASED = frozenset({Status.NOT_LAUNCHED, Status.VANISHED, Status.DELETED})
# Waiting in line: charged nothing yet. Kept apart from RELEASED, which also marks the moment a
# deployment that held stopped holding (usage over time reads it so).
WAITS = frozenset({Status.WAITING})
# The backend holds nothing to delete: removing such a row only hides it from the list.
NOTHING_AT_ORCHESTRATOR = frozenset({Status.NOT_LAUNCHED, Status.VANISHED, Status.WAITING})
# A batch job that runs once has finished for good in these: nothing of it runs any more.
JOB_FINISHED = frozenset({Status.READY, Status.FAILED})
# A delete can be forced (where the backend can) once one failed or while one seems stuck.
FORCE_DELETABLE = frozenset({Status.DELETE_FAILED, Status.DELETING})


def in_progress(status: str | None) -> bool:
    """Whether ``status`` may still change without anyone doing anything."""
    if status in AWAITING_ANSWER:
        return True
    if status in MOVING:
        return True
    # A status no one knows (a backend's newer state) counts as changing; UNKNOWN does not:
    # the backend itself has lost track.
    return status is not None and status not in KNOWN


def final(status: str | None) -> bool:
    """Whether ``status`` is settled: no callback or sync is expected to move it on."""
    return status is not None and not in_progress(status)


def finished_for_good(status: str | None, *, runs_once: bool) -> bool:
    """Whether a batch job that ``runs_once`` has finished: it succeeded, or failed once its
    retries were spent. A repeating job (or a service) is never finished by its status."""
    return runs_once and status in JOB_FINISHED


def holds_resources(
    status: str | None, *, deleted: bool, keeps_failed_attempt: bool, runs_once: bool = False
) -> bool:
    """Whether a deployment in ``status`` holds resources against its quotas.

    Everything holds but a deleted row, a released status, a request waiting in line, a batch
    job run once that has finished for good, and a failed create whose attempt the backend
    tears down (launched without keeping a failed attempt); see ``app.quotas.holding`` for
    why each is so.
    """
    if (
        deleted
        or status in RELEASED
        or status in WAITS
        or finished_for_good(status, runs_once=runs_once)
    ):
        return False
    if status == Status.FAILED:
        return keeps_failed_attempt
    return True


def deletable(status: str | None, uuid: str | None) -> bool:
    """Whether a delete may be asked for now: not while the create's answer is still awaited
    with no backend id to delete by."""
    return bool(uuid) or status not in AWAITING_ANSWER


def reachable(status: str | None, *, deleted: bool = False) -> bool:
    """Whether the ways in a deployment gave (its address, its ssh line) are still offered:
    not once its delete has started, when they lead nowhere or soon will."""
    return not deleted and status not in (Status.DELETING, Status.DELETED)


def resettable(status: str | None) -> bool:
    """Whether a stuck delete can be reset: a backend resets one still under way (to a failed
    delete, after which it can be deleted again); a failed delete is deleted again."""
    return status == Status.DELETING


def force_deletable(status: str | None) -> bool:
    """Whether a forced delete is offered (where the backend has one)."""
    return status in FORCE_DELETABLE
