"""What people launched, as the portal remembers it between visits to the orchestrator.

A deployment row is written *before* the orchestrator is asked to create anything (status
SUBMITTING), so that no answer lost on the way can leave a deployment the portal does not know
about. Besides the orchestrator's own statuses, a row can be in one of the portal's:

- SUBMITTING: recorded, the create request is under way;
- UNCONFIRMED: the create request had no clear answer (timeout, dropped connection, 5xx); the
  sync worker matches it to the orchestrator's record, or to none, and never submits it again;
- NOT_LAUNCHED: the orchestrator clearly refused (4xx) or was never reached; nothing exists there;
- VANISHED: the orchestrator no longer knows a deployment it once had.
"""

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column, query_expression, relationship, validates

from app.auth.models import User
from app.backends import registry
from app.clock import utcnow
from app.deployments import job_text
from app.deployments import status as statuses
from app.deployments.revisions import parsed_template
from app.deployments.status import PORTAL_STATUSES, Status
from app.extensions import db
from app.tosca.translations import current_language

# The portal's own statuses, by their old names (``Status`` is their owner).
SUBMITTING = Status.SUBMITTING
UNCONFIRMED = Status.UNCONFIRMED
NOT_LAUNCHED = Status.NOT_LAUNCHED
VANISHED = Status.VANISHED
__all__ = ["PORTAL_STATUSES", "Deployment", "DeploymentEvent", "DeploymentShare", "Status"]


# The longest name a person may give a deployment: shorter than the column, so that lists stay
# readable. The launch form's field and the server's check both read it from here.
NAME_MAX_LENGTH = 120


class Deployment(db.Model):
    """One launch of a catalogue template by one user (or one adopted from the orchestrator).

    ``parameters`` holds the inputs as sent, minus every secret; secrets the portal generated
    are kept only encrypted in ``secrets_sealed``, and so are secret outputs in
    ``secret_outputs_sealed``. ``outputs`` are the orchestrator's non-secret outputs, as last
    seen. A deleted deployment keeps its row (with ``deleted`` set) for the record.
    """

    __tablename__ = "deployments"
    __table_args__ = (
        Index("ix_deployments_user_created", "user_id", "created_at"),
        # Quota sums and the list's counts read only these indexes (the holding rule's columns,
        # see app.quotas.holding), never the rows, which carry the template text.
        Index(
            "ix_deployments_user_holding",
            "user_id",
            "deleted",
            "status",
            "keeps_failed_attempt",
            "runs_once",
        ),
        # A group's live deployments in launch order, with what tells which hold and their
        # owner: the Group page's newest-first pages stop at their last row, and its
        # per-member counts come from the index alone.
        Index(
            "ix_deployments_group_holding",
            "group_name",
            "deleted",
            "created_at",
            "id",
            "status",
            "keeps_failed_attempt",
            "runs_once",
            "user_id",
        ),
        # The list's application filter.
        Index(
            "ix_deployments_user_templates", "user_id", "deleted", "template_slug", "template_name"
        ),
        # The sync worker's question: what is due for a check?
        Index("ix_deployments_next_check", "next_check_at"),
        # The operators' metrics: deployments by status and template, counted at each scrape
        # from the index alone. "deleted" comes last: first, it would lure the planner away from
        # ix_deployments_next_check for the sync worker's questions.
        Index("ix_deployments_status_template", "status", "template_slug", "deleted"),
        # A person's change stamp (app.deployments.stamps), read from this index alone.
        Index("ix_deployments_user_shown", "user_id", "shown_version", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    # Null until the orchestrator answers the create request (or sync finds its record).
    uuid: Mapped[str | None] = mapped_column(String(64), unique=True, nullable=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    # Whose identity its backend holds it in, when not its owner's: the person who made it
    # there, kept when it was taken over (``app.launch.taking_over``), since a backend lets only
    # a deployment's maker act on it. Null: its owner (``identity.holder_of``).
    backend_holder_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True, index=True
    )
    # What the user called it. Kept by the portal only: the orchestrator's request has no
    # field for it.
    name: Mapped[str] = mapped_column(String(255), default="")
    template_slug: Mapped[str] = mapped_column(String(100))
    # The revision launched; kept even if the catalogue later drops it (no foreign key).
    revision_id: Mapped[int | None] = mapped_column(nullable=True)
    # The template's name as launched, in the default language: see ``shown_template_name``.
    template_name: Mapped[str] = mapped_column(String(255), default="")
    # The exact TOSCA text submitted (or fetched, for adopted deployments).
    template_text: Mapped[str | None] = mapped_column(Text, nullable=True)
    parameters: Mapped[dict] = mapped_column(JSON, default=dict)
    secrets_sealed: Mapped[str | None] = mapped_column(Text, nullable=True)
    # The group the deployment is charged to (sent to backends that take one, when configured so).
    group_name: Mapped[str | None] = mapped_column(String(255), nullable=True)
    # The steering options the create carried, in the portal's words (``group`` sent, whether
    # a failed attempt is kept, time limits; see ``app.launch.workflow.request_options``).
    request_options: Mapped[dict] = mapped_column(JSON, default=dict)
    # ``keep_failed_attempt`` of ``request_options`` in a column of its own (set with them): a
    # failed deployment kept for inspection still holds quota, and quota sums must read this
    # from an index rather than parse JSON in every row.
    keeps_failed_attempt: Mapped[bool] = mapped_column(default=False, server_default=false())
    # Whether it is a batch job that runs once (``job_text.runs_once``, kept in step with the
    # text and parameters): finished, it holds nothing, and quota sums read this from an index.
    runs_once: Mapped[bool] = mapped_column(default=False, server_default=false())
    # What the deployment holds against quotas, as computed at launch (see app.quotas).
    charge: Mapped[dict] = mapped_column(JSON, default=dict)

    status: Mapped[str] = mapped_column(String(40), default=SUBMITTING)
    # Which backend makes it (``app.backends``), and that backend's own word for its state
    # as last seen (shown to admins; ``status`` is the portal's word for it).
    backend: Mapped[str] = mapped_column(
        String(20), default=registry.FIRST, server_default=registry.FIRST
    )
    backend_state: Mapped[str | None] = mapped_column(String(40), nullable=True)
    status_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    # What the backend keeps with the record in its own words (``RemoteState.data``): shown
    # to admins as it is, never read by the portal's rules. Written only by
    # ``tracking.apply_state``.
    backend_data: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    site: Mapped[str | None] = mapped_column(String(255), nullable=True)
    region: Mapped[str | None] = mapped_column(String(255), nullable=True)
    deployment_type: Mapped[str | None] = mapped_column(String(40), nullable=True)
    # Whether the submitted text holds a batch job's node, read by the database where the list
    # leaves the text itself unloaded (``queries.JOB_HINT``); None where not asked for.
    job_hint: Mapped[bool | None] = query_expression()
    outputs: Mapped[dict] = mapped_column(JSON, default=dict)
    secret_outputs_sealed: Mapped[str | None] = mapped_column(Text, nullable=True)

    # The secret by which the deployment's backend refers back to this record: in the
    # callback address a backend that reports is given, in the tag a backend that keeps tags
    # is given (``remote.tag_of``); known only to the portal and that backend, compared in
    # constant time. None for a deployment adopted from elsewhere.
    reference_secret: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # Whether sync adopted it (made elsewhere, found in its owner's listing).
    adopted: Mapped[bool] = mapped_column(default=False)

    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    submitted_at: Mapped[datetime | None] = mapped_column(nullable=True)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    # When the orchestrator was last asked, when to ask next, and how many asks failed in a
    # row (for back-off).
    checked_at: Mapped[datetime | None] = mapped_column(nullable=True)
    next_check_at: Mapped[datetime | None] = mapped_column(nullable=True)
    check_failures: Mapped[int] = mapped_column(default=0)
    # Set while one sync worker is asking the orchestrator about this row: other workers skip
    # it until then (a lease, so that no database lock is held during the call).
    claimed_until: Mapped[datetime | None] = mapped_column(nullable=True)
    deleted: Mapped[bool] = mapped_column(default=False)
    # Bumped whenever something the list shows changes (app.deployments.stamps), so that a
    # poll can tell "nothing changed" without reading or rendering a row.
    shown_version: Mapped[int] = mapped_column(default=0, server_default="0")
    deleted_at: Mapped[datetime | None] = mapped_column(nullable=True)

    user: Mapped[User] = relationship(foreign_keys=[user_id])
    backend_holder: Mapped[User | None] = relationship(foreign_keys=[backend_holder_id])
    events: Mapped[list["DeploymentEvent"]] = relationship(
        back_populates="deployment",
        order_by="DeploymentEvent.at, DeploymentEvent.id",
        cascade="all, delete-orphan",
    )

    @validates("request_options")
    def _keep_flag_in_step(self, _key: str, options: dict | None) -> dict | None:
        self.keeps_failed_attempt = bool((options or {}).get("keep_failed_attempt"))
        return options

    @validates("template_text", "parameters")
    def _job_kind_in_step(self, key: str, value):
        text = value if key == "template_text" else self.template_text
        parameters = value if key == "parameters" else self.parameters
        self.runs_once = job_text.runs_once(text, parameters)
        return value

    @property
    def in_progress(self) -> bool:
        """Whether the status may still change without the user doing anything."""
        return not self.deleted and statuses.in_progress(self.status)

    @property
    def waiting(self) -> bool:
        """Whether it waits in line: recorded, never sent to any backend yet."""
        return not self.deleted and self.status in statuses.WAITS

    @property
    def shown_template_name(self) -> str:
        """The launched template's name in the reader's language: the revision launched
        carries its translations, and revisions never change, so this is the name it had then.
        A revision gone, or one whose name is not the one recorded, leaves the record's."""
        if not self.revision_id or current_language() is None:
            return self.template_name
        template = parsed_template(self.revision_id)
        if template is None or template.name != self.template_name:
            return self.template_name
        return template.localised().name

    @property
    def runs_on(self) -> str:
        """Where it runs, as people are told ("PaaS Orchestrator")."""
        return registry.label(self.backend)

    @property
    def backend_words(self):
        """How pages speak of its backend (``app.backends.base.Words``)."""
        return registry.words(self.backend)

    @property
    def capabilities(self):
        """What its backend can do beyond the common verbs (``app.backends.base``)."""
        return registry.kind(self.backend).capabilities()

    @property
    def short_uuid(self) -> str:
        return (self.uuid or "")[:8]

    def __repr__(self) -> str:
        return f"<Deployment {self.id} {self.uuid} {self.status}>"


class DeploymentEvent(db.Model):
    """One step of a deployment's timeline: a status change, or an action someone took.

    ``source`` is one of "launch", "callback", "sync", "user", "admin", "portal" (the portal
    acting by itself, e.g. at the end of a lease); ``actor_id`` is who acted for "user" and
    "admin" entries (admins acting on someone else's deployment are recorded). ``kind`` names
    events that are not status changes (e.g. "lease-extended"); None for a status change or a
    plain action. ``details`` holds what such an event needs to be told again (an end time, a
    warning's distance), as JSON.
    """

    __tablename__ = "deployment_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    deployment_id: Mapped[int] = mapped_column(
        ForeignKey("deployments.id", ondelete="CASCADE"), index=True
    )
    at: Mapped[datetime] = mapped_column(default=utcnow)
    from_status: Mapped[str | None] = mapped_column(String(40), nullable=True)
    to_status: Mapped[str | None] = mapped_column(String(40), nullable=True)
    reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    source: Mapped[str] = mapped_column(String(20))
    actor_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    kind: Mapped[str | None] = mapped_column(String(40), nullable=True)
    details: Mapped[dict | None] = mapped_column(JSON, nullable=True)

    deployment: Mapped[Deployment] = relationship(back_populates="events")


class DeploymentShare(db.Model):
    """One person (``kind`` "user", ``name`` their username) or one group (``kind`` "group")
    a deployment's owner shared it with, as a "viewer" or a "co-owner"
    (``app.deployments.access`` says what each may do)."""

    __tablename__ = "deployment_shares"
    __table_args__ = (
        UniqueConstraint("deployment_id", "kind", "name", name="uq_deployment_shares_whom"),
        # "Shared with me": a person's shares, and their groups'.
        Index("ix_deployment_shares_user", "user_id", "deployment_id"),
        Index("ix_deployment_shares_group", "kind", "name", "deployment_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    deployment_id: Mapped[int] = mapped_column(ForeignKey("deployments.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(255))
    # The person, for a share with one (a username may name accounts of several providers).
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), nullable=True
    )
    role: Mapped[str] = mapped_column(String(16))
    granted_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    granted_at: Mapped[datetime] = mapped_column(default=utcnow)


class DeploymentListing(db.Model):
    """When the sync worker last listed, and next lists, one orchestrator identity's deployments.

    ``identity`` is "user:<id>" for someone calling in their own name (see identity.identity_of),
    "service" for the portal's service identity. Listing adopts deployments made elsewhere,
    resolves unconfirmed submissions and notices deployments that vanished; workers claim a
    listing with a row lock so that two never list the same identity at once.
    """

    __tablename__ = "deployment_listings"

    identity: Mapped[str] = mapped_column(String(64), primary_key=True)
    next_at: Mapped[datetime] = mapped_column(default=utcnow)
    listed_at: Mapped[datetime | None] = mapped_column(nullable=True)
    failures: Mapped[int] = mapped_column(default=0)
