"""The interface every backend implements, and the portal's own words for a deployment's
state, for whom a backend acts and what a site may use.

A backend is where deployments are made: the INDIGO PaaS Orchestrator, the Infrastructure
Manager. Like JupyterHub's spawners and Open OnDemand's job adapters, each one translates at
its own door: it maps its states onto ``Phase``, keeps its raw words in
``RemoteState.raw_state`` for admins, and turns its failures into the errors of
``app.backends.errors`` (handed on here). Nothing outside ``app/backends/`` names a backend,
its settings or its own words.

One class per backend carries everything the portal asks of it. Its class methods answer
before anyone calls it: its words, its capabilities (from the configuration), template and
placement checks, reading a report, its health check, its sites' quotas, its credential
rules, and ``for_caller``, which makes an object acting for one caller (a person, or the
portal's own identity); use that object in a ``with`` block. ``app.backends.registry`` maps a
backend's name to its class.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

# The errors and words reach the rest of the portal through this module.
from app.backends.errors import (  # noqa: F401
    MASK,
    SHORTEST_CREDENTIAL,
    BackendError,
    Busy,
    NoId,
    NotAllowed,
    NotFound,
    Refused,
    Unauthenticated,
    Unavailable,
    Unreachable,
    Unreadable,
    masked,
)
from app.backends.words import N_, UNKNOWN_WORDS, Words  # noqa: F401


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
    # It tells what each of its sites may use and has used (``Backend.quotas``), whatever
    # its settings say: a capacity source of its own name reads them.
    quotas: bool = False


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
    ("local", "ldap" or an identity provider's name), their subject there, their groups, and
    the access token of that login (a function giving a fresh one), if the login has any:
    people who log in through an identity provider have one, local and LDAP accounts none."""

    provider: str
    subject: str
    groups: tuple[str, ...] = ()
    access_token: Callable[[], str] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Quota:
    """One resource of a site, as its backend tells it: the limit (None: no limit, or none
    said) and what is used, in the portal's units (GiB for memory and disk)."""

    limit: float | None
    used: float = 0.0


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


class Backend(ABC):
    """Makes, follows and removes deployments for one caller at one service."""

    #: The name stored with each deployment and used in settings.
    name: str = ""
    #: How people are told of it.
    words: Words = UNKNOWN_WORDS
    #: What it can do whatever its settings say; ``capabilities`` adds what they say.
    abilities: Capabilities = Capabilities()
    #: The setting naming where it is reached, as operators know it.
    address_setting: str = ""

    # What the portal asks of the backend itself, before anyone calls it.

    @classmethod
    def capabilities(cls) -> Capabilities:
        """What it can do as the portal is set up: the one answer, asked alike of the class
        (by ``registry.kind(name)``) and of an object acting for someone."""
        return cls.abilities

    @classmethod  # noqa: B027 - optional: only a backend with settings of its own needs it
    def settle(cls, config) -> None:
        """Fill in what its settings take from others and check them, once ``config`` is
        loaded. Raises ConfigurationError when they cannot be used."""

    @classmethod
    def configured(cls) -> bool:
        """Whether the portal is set up to deploy through it."""
        return True

    @classmethod
    def deploys_for_real(cls) -> bool:
        """False for a backend that stands in for a real one and makes nothing (a demo)."""
        return True

    @classmethod
    def check(cls) -> tuple[bool, str, str]:
        """Whether it answers, as whom, and what it said. Raises ValueError when it is not
        configured."""
        raise ValueError(f"backend {cls.name!r} cannot be checked")

    @classmethod
    def template_problem(cls, node_types: tuple[str, ...]) -> str | None:
        """Why it cannot deploy a template made of ``node_types`` (every node's type and the
        types it derives from), as a sentence for an admin; None when it can. Asked when an
        admin routes a template to it, never at launch."""
        return None

    @classmethod
    def placement_problem(cls, placement: str) -> str | None:
        """Why it could never deploy at ``placement`` as the portal is set up (a sentence for
        operators); None when it could, or when it cannot tell."""
        return None

    @classmethod
    def read_report(cls, body: dict) -> RemoteState:
        """What its report to the portal's callback address says. Raises ValueError when
        ``body`` is no such report, or it sends none."""
        raise ValueError(f"backend {cls.name!r} sends no reports")

    @classmethod
    def login_provider_named_by(cls, issuer: str) -> str | None:
        """The portal login provider that its ``issuer`` names itself (a demo's issuers do);
        None when ``issuer`` is an identity provider's, to be matched against the configured
        ones."""
        return None

    @classmethod
    def quotas(cls, placement: str, url: str | None = None) -> dict[str, Quota | None]:
        """What the site at ``placement`` may use and has used, by the portal's resource
        ("cores", "memory_gib", "disk_gib", "instances", "gpus"; None where it does not tell),
        read at its configured address or ``url``. Raises ValueError when it cannot tell, and
        the errors of ``app.backends.errors`` when the call fails."""
        raise ValueError(f"backend {cls.name!r} does not tell what its sites have free")

    # For whom it acts: each backend's own credential rules.

    @classmethod
    def calls_as_self(cls, caller: Caller) -> bool:
        """Whether ``caller``'s calls are made in their own name: with their login's access
        token, or at a backend that takes the portal's word for every login."""
        return cls.capabilities().trusts_every_login or caller.access_token is not None

    @classmethod
    def launch_blocker(cls, caller: Caller) -> str | None:
        """Why ``caller`` cannot launch here at all, as a sentence for them; None when they
        can: it takes them as themselves, or it has an identity to act for them with."""
        if cls.calls_as_self(caller) or cls.capabilities().acts_for_anyone:
            return None
        from babel.lists import format_list
        from flask_babel import get_locale

        from app.auth import oidc

        labels = [str(provider.label) for provider in oidc.enabled_providers()]
        if not labels:
            return _(
                "Launching needs a login the orchestrator accepts, and this portal is not set up "
                "to launch for accounts like yours. Your administrators can enable it by "
                "configuring a service identity."
            )
        return _(
            "Launching needs a login the orchestrator accepts, and this portal is not set up to "
            "launch for accounts like yours. Log out and log in with %(providers)s to launch. "
            "Your administrators can enable it by configuring a service identity.",
            providers=format_list(labels, style="or", locale=get_locale() or "en"),
        )

    @classmethod
    @abstractmethod
    def for_caller(cls, caller: Caller | None, *, quick: bool = False) -> Backend:
        """The backend acting for ``caller`` (None: the portal's own identity there), as its
        credential rules say; ``quick`` for a call a person waits for (a shorter deadline
        where it has one). Ask ``launch_blocker`` first. Raises ConfigurationError or
        ValueError when it is not set up."""

    @classmethod
    def group_to_send(cls, group: str | None) -> str | None:
        """The group to send with a launch charged to ``group``. Raises Refused with a
        sentence for the person when it takes no launch without one."""
        return group

    @classmethod
    def request_options(cls) -> dict[str, Any]:
        """The steering options it gives every create, in the portal's words (kept with the
        record: ``keep_failed_attempt`` makes a failed one hold quota)."""
        return {}

    @classmethod
    def service_token(cls) -> str | None:
        """An access token of the portal's own login at an identity provider, where this
        backend has one configured; None otherwise. Raises TokenUnavailable,
        ConfigurationError."""
        return None

    # What an object acting for one caller does.

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
        """The deployment's machines and other resources (``capabilities().resources``)."""
        raise Refused(str(_l("This deployment service does not list resources.")))

    def reset_delete(self, backend_id: str) -> None:
        """Reset a stuck delete so it can be asked for again (``capabilities().reset_delete``)."""
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
