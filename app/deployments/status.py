"""A deployment's status, and the questions the portal asks of it: the one owner of that rule.

Statuses are the orchestrator's (CREATE_IN_PROGRESS ... UNKNOWN) plus four of the portal's own
(see ``app.deployments.models``). ``Status`` is a ``StrEnum``, so a member equals the text
stored in the database and sent by the orchestrator; a status the portal does not know (a newer
orchestrator's) stays a plain string and is treated as still changing.
"""

from __future__ import annotations

from enum import StrEnum

from app.backends.paas import schemas


class Status(StrEnum):
    # The portal's own: before and around the orchestrator's answer to a create.
    SUBMITTING = "SUBMITTING"
    UNCONFIRMED = "UNCONFIRMED"
    NOT_LAUNCHED = "NOT_LAUNCHED"
    VANISHED = "VANISHED"
    # The orchestrator's.
    CREATE_IN_PROGRESS = schemas.CREATE_IN_PROGRESS
    CREATE_COMPLETE = schemas.CREATE_COMPLETE
    CREATE_FAILED = schemas.CREATE_FAILED
    UPDATE_IN_PROGRESS = schemas.UPDATE_IN_PROGRESS
    UPDATE_COMPLETE = schemas.UPDATE_COMPLETE
    UPDATE_FAILED = schemas.UPDATE_FAILED
    DELETE_IN_PROGRESS = schemas.DELETE_IN_PROGRESS
    DELETE_COMPLETE = schemas.DELETE_COMPLETE
    DELETE_FAILED = schemas.DELETE_FAILED
    UNKNOWN = schemas.UNKNOWN


PORTAL_STATUSES = frozenset(
    {Status.SUBMITTING, Status.UNCONFIRMED, Status.NOT_LAUNCHED, Status.VANISHED}
)
# Waiting for the orchestrator's answer to a create: the orchestrator may hold it or not.
AWAITING_ANSWER = frozenset({Status.SUBMITTING, Status.UNCONFIRMED})
# Nothing exists at the orchestrator, or its delete finished: no resources are held.
RELEASED = frozenset({Status.NOT_LAUNCHED, Status.VANISHED, Status.DELETE_COMPLETE})
# The orchestrator holds nothing to delete: removing such a row only hides it from the list.
NOTHING_AT_ORCHESTRATOR = frozenset({Status.NOT_LAUNCHED, Status.VANISHED})
# A batch job that runs once has finished for good in these: nothing of it runs any more.
JOB_FINISHED = frozenset({Status.CREATE_COMPLETE, Status.CREATE_FAILED})
# A delete can be forced (INFN fork) once one failed or while one seems stuck.
FORCE_DELETABLE = frozenset({Status.DELETE_FAILED, Status.DELETE_IN_PROGRESS})


def in_progress(status: str | None) -> bool:
    """Whether ``status`` may still change without anyone doing anything."""
    if status in AWAITING_ANSWER:
        return True
    return status not in PORTAL_STATUSES and schemas.still_changing(status)


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

    Everything holds but a deleted row, a released status, a batch job run once that has
    finished for good, and a failed create whose attempt the orchestrator tears down (launched
    without ``keepLastAttempt``); see ``app.quotas.holding`` for why each is so.
    """
    if deleted or status in RELEASED or finished_for_good(status, runs_once=runs_once):
        return False
    if status == Status.CREATE_FAILED:
        return keeps_failed_attempt
    return True


def deletable(status: str | None, uuid: str | None) -> bool:
    """Whether a delete may be asked for now: not while the create's answer is still awaited
    with no orchestrator id to delete by."""
    return bool(uuid) or status not in AWAITING_ANSWER


def reachable(status: str | None, *, deleted: bool = False) -> bool:
    """Whether the ways in a deployment gave (its address, its ssh line) are still offered:
    not once its delete has started, when they lead nowhere or soon will."""
    return not deleted and status not in (Status.DELETE_IN_PROGRESS, Status.DELETE_COMPLETE)


def resettable(status: str | None) -> bool:
    """Whether a stuck delete can be reset: the orchestrator resets one still under way (to
    DELETE_FAILED, after which it can be deleted again); a failed delete is deleted again."""
    return status == Status.DELETE_IN_PROGRESS


def force_deletable(status: str | None) -> bool:
    """Whether the INFN fork's forced delete is offered."""
    return status in FORCE_DELETABLE
