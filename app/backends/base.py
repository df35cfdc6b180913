"""The interface every backend implements, the portal's own words for a deployment's state, and
the errors the rest of the portal understands.

A backend is where deployments are made: the INDIGO PaaS Orchestrator (``paas``), the
Infrastructure Manager (``im``). Like JupyterHub's spawners and Open OnDemand's job adapters,
each one translates at its own door: it maps its states onto ``Phase``, keeps its raw words in
``RemoteState.raw_state`` for admins, and turns its failures into the errors below. Nothing
outside ``app/backends/`` names a backend's own words.

A backend object acts for one caller (a person, or the portal's service identity), chosen when
it is made (``app.backends.registry.backend_for``); use it in a ``with`` block.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from flask_babel import lazy_gettext as _l


class Phase(StrEnum):
    """Where a deployment stands, in the portal's words; the value is what the portal stores.

    A backend reports one of these for every state it knows, and ``UNKNOWN`` when it has lost
    track itself. The portal adds four of its own before and around a create (see
    ``app.deployments.status``).
    """

    CREATING = "creating"
    READY = "ready"
    FAILED = "failed"
    UPDATING = "updating"
    UPDATED = "updated"
    UPDATE_FAILED = "update-failed"
    DELETING = "deleting"
    DELETED = "deleted"
    DELETE_FAILED = "delete-failed"
    UNKNOWN = "unknown"


# Still moving without anyone doing anything: worth asking about again.
MOVING = frozenset({Phase.CREATING, Phase.UPDATING, Phase.DELETING})
FAILED = frozenset({Phase.FAILED, Phase.UPDATE_FAILED, Phase.DELETE_FAILED})


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do beyond the verbs every backend has; callers ask these flags
    rather than which backend it is."""

    # It reports changes to a callback address (otherwise the sync worker polls it).
    callbacks: bool = False
    # It takes the inputs apart from the template (otherwise they are written into it).
    separate_inputs: bool = False
    # It takes the group a deployment is charged to.
    user_group: bool = False
    # The person may choose the site it deploys to.
    site_choice: bool = False
    # Deployments can be stopped and started again.
    stop_start: bool = False
    # A delete can be forced, and a stuck one reset.
    force_delete: bool = False
    reset_delete: bool = False
    # It lists the machines and other resources of a deployment.
    resources: bool = False
    # It fetches a template's imports itself (the portal hands it addresses it can reach).
    fetches_imports: bool = False
    # It may hold deployments made elsewhere in the caller's name (the portal adopts them).
    made_elsewhere: bool = False
    # It takes the portal's word for who is calling (a demo): everyone calls in their own
    # name, whatever their login, and nothing can be there but what this portal made.
    trusts_every_login: bool = False
    # It has an identity of its own the portal may act with for logins it does not accept as
    # themselves (local and LDAP accounts): the orchestrator's configured service identity,
    # IM's username and password. Without it such people cannot launch there.
    acts_for_anyone: bool = False
    # It reaches a site only through the site's placement (IM's cloud id): a site of it
    # without one can be neither read nor chosen.
    site_needs_placement: bool = False


@dataclass(frozen=True)
class Words:
    """How people are told of a backend: each package gives its own table (``WORDS``), so that
    no page chooses phrases by a backend's name. Lazy strings: rendered in the reader's
    language."""

    # Its name ("Infrastructure Manager").
    label: Any
    # The heading of what is asked of it on demand ("From the orchestrator").
    asked_from: Any
    # That asking it takes a moment ("Loaded when you ask; the orchestrator may take ...").
    slow_to_answer: Any
    # When it last answered about a deployment ("Last heard from the orchestrator").
    heard_from: Any
    # The heading over its own words for why a deployment failed ("What the orchestrator said").
    said: Any
    # Where a launch goes, told on the launch form ("The orchestrator picks a cloud site ...").
    places_it: Any
    # The same where the person may choose a site ("Unless you choose a site above, ...").
    places_it_unless_chosen: Any
    # What a site's placement is to it, told where operators name sites ("The SLA id ...").
    placement: Any
    # That it did not confirm a launch in time, which may have started (%(name)s: the
    # deployment's name); told when the launch page hands over to the deployment's page.
    unconfirmed_launch: Any = None
    # That an earlier identical launch (%(name)s) is still being confirmed with it.
    pending_launch: Any = None
    # Its name inside a sentence the catalogue stores about a template ("the orchestrator"):
    # a message id (``N_``), translated when an admin reads the sentence.
    named: str = ""
    # Only for a backend that runs tosca-parser on a template itself and refuses it on any
    # finding: the sentence saying so, a message id with %(finding)s. Those findings are then
    # errors before anything is sent; None for a backend that decides by itself.
    refuses_findings: str | None = None


def N_(msgid: str) -> str:  # noqa: N802 (gettext's own name for "mark, translate later")
    """``msgid`` unchanged, marked for the translations file: a ``Words`` entry kept as a
    message id, translated where it is shown."""
    return msgid


# For a backend name no package has (a record older than its removal): neutral words.
UNKNOWN_WORDS = Words(
    label=_l("another deployment service"),
    asked_from=_l("From the deployment service"),
    slow_to_answer=_l("Loaded when you ask; it may take a few seconds."),
    heard_from=_l("Last heard from it"),
    said=_l("What the deployment service said"),
    places_it=_l("The deployment service decides where it runs."),
    places_it_unless_chosen=_l(
        "Unless you choose a site above, the deployment service decides where it runs."
    ),
    placement=_l("What the deployment service needs to send a deployment to the site."),
    unconfirmed_launch=_l(
        "The deployment service did not confirm the launch of %(name)s in time. It may have "
        "started anyway: the portal is checking and will not submit it twice, so there is no "
        "need to launch again."
    ),
    pending_launch=_l(
        "Your earlier launch \u201c%(name)s\u201d with the same settings is still being "
        "confirmed with the deployment service; launching again could create it twice. Follow "
        "it in My deployments; it is settled within a few minutes."
    ),
    named=N_("the deployment service"),
)


@dataclass(frozen=True)
class RemoteState:
    """What a backend says of one deployment, in the portal's words.

    ``raw_state`` is the backend's own word for it (shown to admins); ``reason`` a sentence
    for people when it failed; ``details`` what else the backend tells this time (its task,
    the group it charged, a log). ``data`` is what the backend wants kept with the portal's
    record (``Deployment.backend_data``), in its own words: a key it sends replaces the kept
    value (None forgets it), a key it leaves out keeps it.
    """

    backend_id: str
    phase: Phase | str = Phase.UNKNOWN
    raw_state: str | None = None
    reason: str | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    site: str | None = None
    region: str | None = None
    kind: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    # Who the backend says made it, as "subject@issuer", when it says.
    owner: str | None = None
    owner_subject: str | None = None
    owner_issuer: str | None = None
    callback: str | None = None
    tag: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def moving(self) -> bool:
        return self.phase in MOVING

    @property
    def failed(self) -> bool:
        return self.phase in FAILED


@dataclass(frozen=True)
class Caller:
    """Whom a backend acts for, as the portal knows them: the login provider they came through
    ("local", "ldap" or an identity provider's name), their subject there, their groups."""

    provider: str
    subject: str
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class CreateRequest:
    """A deployment to make: the TOSCA text as launched, the inputs (``separate_inputs``
    backends take them apart; the others get them written into the text), and how the portal
    finds it again: ``tag`` is unique to the portal's record, ``callback`` where to report.
    ``site`` is where the person chose to deploy, as the backend names it (the site's
    placement); only backends with the ``site_choice`` capability are sent one."""

    template: str
    inputs: dict[str, Any]
    tag: str
    callback: str | None = None
    group: str | None = None
    site: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


class BackendError(Exception):
    """A backend refused or failed a call. ``message`` can be shown to a person;
    ``status_code`` is the backend's HTTP status, or None when no answer came."""

    default_message = _l("The deployment service answered with an error.")
    # The backend that raised it, where the caller knows (``app.backends.registry`` names).
    service: str | None = None
    # The backend's own words where ``message`` says them for people instead: for admins.
    detail: str | None = None

    def __init__(self, message: str | None = None, *, status_code: int | None = None):
        self.message = message or str(self.default_message)
        self.status_code = status_code
        super().__init__(self.message)


class Refused(BackendError):
    """The backend clearly refused: nothing was done. ``message`` says why."""

    default_message = _l("The deployment service refused the request.")


class NotAllowed(Refused):
    """The caller's identity was not accepted, or may not do this."""

    default_message = _l("The deployment service does not allow this.")


class Unauthenticated(NotAllowed):
    """The caller's identity (their token, the service's credentials) was not accepted."""

    default_message = _l("The deployment service did not accept the login.")


class NotFound(BackendError):
    """The backend does not know this deployment (any more)."""

    default_message = _l("The deployment service does not know this deployment.")


class Busy(BackendError):
    """The deployment is busy with another operation. ``retry_after`` is in seconds when the
    backend said when to try again: then nothing was done and the call may be repeated."""

    default_message = _l("The deployment is busy with another operation.")

    def __init__(self, message=None, *, status_code=409, retry_after: int | None = None):
        super().__init__(message, status_code=status_code)
        self.retry_after = retry_after


class Unavailable(BackendError):
    """No usable answer (timeout, dropped connection, a server error): the call may or may not
    have been carried out."""

    default_message = _l("The deployment service is not answering right now.")


class Unreachable(Unavailable):
    """The call never reached the backend: it certainly did nothing."""

    default_message = _l("The deployment service cannot be reached right now.")


# What a credential is shown as. Values shorter than SHORTEST_CREDENTIAL are not looked for: a
# two-letter password would mask every word holding those letters.
MASK = "***"
SHORTEST_CREDENTIAL = 4


def masked(text: str, credentials: Iterable[str]) -> str:
    """``text`` with every one of ``credentials`` written as ``MASK``: the one rule by which
    what a backend says (its errors, reasons, logs and outputs) never shows a credential it
    was called with, wherever it is kept or shown. Longer credentials first, so that one
    holding another is masked whole."""
    for credential in sorted(set(credentials), key=len, reverse=True):
        if credential and len(credential) >= SHORTEST_CREDENTIAL:
            text = text.replace(credential, MASK)
    return text


class Backend(ABC):
    """Makes, follows and removes deployments for one caller at one service."""

    #: The name stored with each deployment and used in settings ("paas", "im").
    name: str = ""
    capabilities: Capabilities = Capabilities()

    @abstractmethod
    def create(self, request: CreateRequest) -> RemoteState:
        """Start making a deployment; returns its first state (with its ``backend_id``).
        Raises Refused (nothing made), Unreachable (nothing made), Unavailable (unknown),
        BackendError."""

    @abstractmethod
    def state(self, backend_id: str) -> RemoteState:
        """The deployment's state now. Raises NotFound, Unavailable, BackendError."""

    @abstractmethod
    def list_mine(self) -> list[RemoteState]:
        """Every deployment the caller holds at this service (tags included where the backend
        keeps them, so that a create whose answer was lost is found again)."""

    @abstractmethod
    def delete(self, backend_id: str, *, force: bool = False) -> None:
        """Start removing the deployment. Raises NotFound (already gone), Busy, BackendError."""

    @abstractmethod
    def log(self, backend_id: str) -> str:
        """The deployment's contextualisation log, as text."""

    def outputs(self, backend_id: str) -> dict[str, Any]:
        """The deployment's outputs (those its state carries, unless the backend has a
        cheaper way)."""
        return dict(self.state(backend_id).outputs)

    def template(self, backend_id: str) -> str:
        """The TOSCA text the deployment was made from."""
        raise Refused(str(_l("This deployment service does not give back templates.")))

    def resources(self, backend_id: str) -> list[dict]:
        """The deployment's machines and other resources (``capabilities.resources``)."""
        raise Refused(str(_l("This deployment service does not list resources.")))

    def reset_delete(self, backend_id: str) -> None:
        """Reset a stuck delete so it can be asked for again (``capabilities.reset_delete``)."""
        raise Refused(str(_l("This deployment service cannot reset a delete.")))

    def credentials(self) -> tuple[str, ...]:
        """The secret values this backend is called with (passwords, tokens), which must never
        be shown: what it says is masked with them (``masked``). None by default."""
        return ()

    def thread_copies(self):
        """A function making copies of this backend for worker threads: the credentials are
        read now, in the caller's thread (reading them may touch the database), and each copy
        has connections of its own. By default the backend itself is shared."""
        return lambda: self

    def close(self) -> None:  # noqa: B027 - optional: only backends holding connections need it
        """Release connections; the object is not used afterwards."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class Unreadable(Unavailable):
    """An answer came but could not be read (or named no deployment): the call may have been
    carried out."""

    default_message = _l("The deployment service's answer could not be read.")


class NoId(Unreadable):
    """A create was answered without the new deployment's id: it may have been made."""

    default_message = _l("The deployment service's answer named no deployment.")
