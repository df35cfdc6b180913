"""The orchestrator's JSON turned into what the portal shows and stores.

Statuses and tasks are kept as the text the orchestrator sent: values this module does not
know are shown as they are, never rejected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.backends.base import Phase, RemoteState

CREATE_IN_PROGRESS = "CREATE_IN_PROGRESS"
CREATE_COMPLETE = "CREATE_COMPLETE"
CREATE_FAILED = "CREATE_FAILED"
UPDATE_IN_PROGRESS = "UPDATE_IN_PROGRESS"
UPDATE_COMPLETE = "UPDATE_COMPLETE"
UPDATE_FAILED = "UPDATE_FAILED"
DELETE_IN_PROGRESS = "DELETE_IN_PROGRESS"
DELETE_COMPLETE = "DELETE_COMPLETE"
DELETE_FAILED = "DELETE_FAILED"
UNKNOWN = "UNKNOWN"

IN_PROGRESS = frozenset({CREATE_IN_PROGRESS, UPDATE_IN_PROGRESS, DELETE_IN_PROGRESS})
COMPLETE = frozenset({CREATE_COMPLETE, UPDATE_COMPLETE, DELETE_COMPLETE})
FAILED = frozenset({CREATE_FAILED, UPDATE_FAILED, DELETE_FAILED})
KNOWN_STATUSES = IN_PROGRESS | COMPLETE | FAILED | {UNKNOWN}
# The states from which the orchestrator accepts an update (PUT).
UPDATABLE = frozenset({CREATE_COMPLETE, UPDATE_COMPLETE, UPDATE_FAILED})

# The orchestrator's statuses in the portal's words.
PHASES = {
    CREATE_IN_PROGRESS: Phase.CREATING,
    CREATE_COMPLETE: Phase.READY,
    CREATE_FAILED: Phase.FAILED,
    UPDATE_IN_PROGRESS: Phase.UPDATING,
    UPDATE_COMPLETE: Phase.UPDATED,
    UPDATE_FAILED: Phase.UPDATE_FAILED,
    DELETE_IN_PROGRESS: Phase.DELETING,
    DELETE_COMPLETE: Phase.DELETED,
    DELETE_FAILED: Phase.DELETE_FAILED,
    UNKNOWN: Phase.UNKNOWN,
}
RAW = {phase: status for status, phase in PHASES.items()}

KNOWN_TASKS = frozenset({"NONE", "MONITORING", "QOS", "BROKERING", "DMS", "DEPLOYER", "UNKNOWN"})

TIME_FORMAT = "%Y-%m-%dT%H:%M%z"


def still_changing(status: str | None) -> bool:
    """Whether a deployment in ``status`` is worth asking about again.

    Statuses this module does not know count as changing: a newer orchestrator may have added
    an in-progress state. UNKNOWN does not: the orchestrator itself has lost track.
    """
    return status in IN_PROGRESS or (status is not None and status not in KNOWN_STATUSES)


def phase_of(status: str | None) -> Phase | str:
    """The portal's word for the orchestrator's ``status``; a status this module does not know
    (a newer orchestrator's) is kept as it is, and the portal treats it as still changing."""
    if status is None:
        return Phase.UNKNOWN
    return PHASES.get(status, status)


def parse_time(text: Any) -> datetime | None:
    """'2016-06-01T10:47+0000' as a naive UTC datetime; ``None`` when absent or unreadable.

    Seconds (and ISO forms with a colon in the offset or a Z) are accepted too, to be lenient.
    """
    if not isinstance(text, str) or not text:
        return None
    candidate = text.strip().replace("Z", "+0000")
    for fmt in (TIME_FORMAT, "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S.%f%z"):
        try:
            moment = datetime.strptime(candidate, fmt)
        except ValueError:
            continue
        return moment.astimezone(UTC).replace(tzinfo=None)
    return None


def format_time(moment: datetime) -> str:
    """A UTC datetime in the orchestrator's minute-precision form."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime(TIME_FORMAT)


@dataclass(frozen=True)
class DeploymentState:
    """What the portal shows of one deployment, read from its JSON."""

    uuid: str
    status: str = UNKNOWN
    status_reason: str | None = None
    task: str | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    site: str | None = None
    creation_time: datetime | None = None
    update_time: datetime | None = None
    created_by: dict[str, str] = field(default_factory=dict)
    region: str | None = None
    deployment_type: str | None = None
    callback: str | None = None
    user_group: str | None = None

    @classmethod
    def from_json(cls, data: dict) -> DeploymentState:
        """Read a deployment's JSON; raises ValueError when it has no ``uuid``."""
        uuid = data.get("uuid")
        if not isinstance(uuid, str) or not uuid:
            raise ValueError("deployment JSON without a uuid")
        outputs = data.get("outputs")
        created_by = data.get("createdBy")
        endpoint = data.get("cloudProviderEndpoint")
        endpoint = endpoint if isinstance(endpoint, dict) else {}
        return cls(
            uuid=uuid,
            status=_text(data.get("status")) or UNKNOWN,
            status_reason=_text(data.get("statusReason")),
            task=_text(data.get("task")),
            outputs=dict(outputs) if isinstance(outputs, dict) else {},
            site=_text(data.get("cloudProviderName")),
            creation_time=parse_time(data.get("creationTime")),
            update_time=parse_time(data.get("updateTime")),
            created_by=dict(created_by) if isinstance(created_by, dict) else {},
            region=_text(endpoint.get("region")),
            deployment_type=_text(endpoint.get("deploymentType")),
            callback=_text(data.get("callback")),
            user_group=_text(data.get("userGroup")),
        )

    @property
    def phase(self) -> Phase | str:
        """``status`` in the portal's words."""
        return phase_of(self.status)

    @property
    def owner(self) -> str | None:
        """``createdBy`` as "subject@issuer", the form the orchestrator's queries use."""
        subject, issuer = self.created_by.get("subject"), self.created_by.get("issuer")
        return f"{subject}@{issuer}" if subject and issuer else None

    def remote(self) -> RemoteState:
        """What the portal keeps of it, in the portal's words (the orchestrator's own status,
        task and group kept for admins)."""
        return RemoteState(
            backend_id=self.uuid,
            phase=self.phase,
            raw_state=self.status,
            reason=self.status_reason,
            outputs=dict(self.outputs),
            site=self.site,
            region=self.region,
            kind=self.deployment_type,
            created_at=self.creation_time,
            updated_at=self.update_time,
            owner=self.owner,
            owner_subject=self.created_by.get("subject"),
            owner_issuer=self.created_by.get("issuer"),
            callback=self.callback,
            details={"task": self.task, "group": self.user_group},
            # Kept with the record: its task now, and who made it once that is known.
            data={"task": self.task, **({"owner": self.owner} if self.owner else {})},
        )

    @property
    def in_progress(self) -> bool:
        return still_changing(self.status)

    @property
    def failed(self) -> bool:
        return self.status in FAILED


def _text(value: Any) -> str | None:
    # A NUL character is dropped: PostgreSQL refuses it in text columns, and it never means
    # anything in a status, a reason or a name.
    if not isinstance(value, str):
        return None
    return value.replace("\x00", "") or None


def next_link(page: dict) -> str | None:
    """The ``href`` of the ``next`` link of a page envelope, or ``None`` on the last page."""
    for link in page.get("links") or []:
        if isinstance(link, dict) and link.get("rel") == "next" and link.get("href"):
            return str(link["href"])
    return None
