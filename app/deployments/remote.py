"""The deployments feature's remote verbs: the one place that asks a backend to make, read or
remove one deployment, and decides what each answer means for the portal's record.

Whoever asks (the launch, a person on a page or through the API, a lease at its end) comes
through here, so that a rule such as "what a busy answer to a delete means" has one owner. A
deployment is served by the backend named in its record (``Deployment.backend``); the identity
it was made with there is used for every call about it (``held_backend``), since a backend lets
only a deployment's maker act on it: its owner's, or for one taken over, its holder's
(``identity.holder_of``). What the sync worker asks to follow the backends (an identity's
whole listing, many deployments' states at once) is its own (``app.sync.asking``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from contextlib import contextmanager

from flask import current_app, has_request_context, request
from flask_babel import gettext as _

from app.auth.errors import TokenUnavailable
from app.auth.models import User
from app.backends.base import Backend, BackendError, Busy, CreateRequest, NotFound, RemoteState
from app.catalogue.served_types import imports_for_fetching_backends
from app.deployments import identity, said
from app.deployments.errors import DeploymentError
from app.deployments.models import Deployment

__all__ = [
    "Deleted",
    "HolderUnavailable",
    "callback_url",
    "create",
    "delete",
    "held_backend",
    "holder_error",
    "log",
    "reset_delete",
    "resources",
    "tag_of",
    "template",
    "told_by_backend",
]


class Deleted(enum.Enum):
    """What became of a delete the backend was asked for."""

    ASKED = "asked"  # the backend started it
    GONE = "gone"  # the backend no longer knows the deployment: nothing is left to delete
    UNDER_WAY = "under-way"  # a delete was already under way; it is followed


@contextmanager
def _told_by(deployment: Deployment) -> Iterator[None]:
    """Errors from the deployment's backend name that backend (``service``), so that the
    sentences people read say who refused or did not answer."""
    with told_by_backend(deployment.backend):
        yield


@contextmanager
def told_by_backend(name: str) -> Iterator[None]:
    """Errors of backend ``name`` raised inside the block name it (``service``)."""
    try:
        yield
    except BackendError as error:
        error.service = name
        raise


class HolderUnavailable(TokenUnavailable):
    """The person a deployment taken over is held in at its backend (``identity.holder_of``)
    cannot be called as now: their login expired and cannot be renewed, or the portal has no
    way to call the backend for them. The message says so, naming them."""


def _holder_words(deployment: Deployment, holder: User, token: bool) -> str:
    if token:
        return _(
            "The %(backend)s holds this deployment in the name of %(holder)s, who made it there, "
            "and acts on it only for them; their login has expired and can no longer be "
            "renewed, so the portal cannot act on it there until %(holder)s logs in again.",
            backend=deployment.runs_on,
            holder=holder.username,
        )
    return _(
        "The %(backend)s holds this deployment in the name of %(holder)s, who made it there, "
        "and acts on it only for them; the portal has no way to call it for %(holder)s now.",
        backend=deployment.runs_on,
        holder=holder.username,
    )


@contextmanager
def held_backend(deployment: Deployment, *, quick: bool = False) -> Iterator[Backend]:
    """The deployment's backend, acting as its holder (``quick``: a call a person waits for),
    its errors naming that backend (``told_by_backend``). Raises DeploymentError or
    TokenUnavailable when its owner cannot call it, HolderUnavailable when it is held by
    someone else who cannot be called as now."""
    holder = identity.holder_of(deployment)
    try:
        with (
            _told_by(deployment),
            identity.backend_for(holder, deployment.backend, quick=quick) as backend,
        ):
            yield backend
    except (TokenUnavailable, DeploymentError) as error:
        said_for_it = holder_error(deployment, error)
        if said_for_it is error:
            raise
        raise said_for_it from error


def holder_error(deployment: Deployment, error: Exception) -> Exception:
    """``error`` (TokenUnavailable or DeploymentError, met calling as the deployment's holder)
    as it is said of ``deployment``: a HolderUnavailable naming the holder when it is held by
    someone other than its owner, else ``error`` itself."""
    holder = identity.holder_of(deployment)
    if holder.id == deployment.user_id or isinstance(error, HolderUnavailable):
        return error
    token = isinstance(error, TokenUnavailable)
    return HolderUnavailable(_holder_words(deployment, holder, token))


def _portal_address() -> str | None:
    """The portal's own address as backends reach it; None when it is not known (no
    PORTAL_BASE_URL and no request to read it from)."""
    base = current_app.config.get("PORTAL_BASE_URL") or (
        request.host_url if has_request_context() else ""
    )
    return base.rstrip("/") if base.startswith(("http://", "https://")) else None


def callback_url(deployment: Deployment) -> str | None:
    """Where a backend that reports changes tells the portal of ``deployment``; ``None`` when
    the portal does not know its own address."""
    base = _portal_address()
    if base is None:
        return None
    return f"{base}/deployments/callback/{deployment.id}/{deployment.reference_secret}"


def tag_of(deployment: Deployment) -> str:
    """What lets the sync worker find ``deployment`` again at a backend that keeps tags, should
    the create's answer be lost: unique to the record, and known only to the portal."""
    return f"{deployment.id}-{deployment.reference_secret}"


def create(user: User, deployment: Deployment, inputs: dict) -> RemoteState:
    """Ask the deployment's backend to make it, as ``user``; returns its first state.

    Raises the backend's errors (``app.backends.base``), TokenUnavailable, DeploymentError
    (no way to call), ConfigurationError (the backend is not set up).
    """
    options = dict(deployment.request_options or {})
    group = options.pop("group", None)
    # A site the person picked: the backend is sent its placement (its own name for it).
    options.pop("site", None)
    placement = options.pop("placement", None)
    with _told_by(deployment), identity.backend_for(user, deployment.backend) as backend:
        callback = callback_url(deployment) if backend.capabilities().callbacks else None
        text = deployment.template_text or ""
        if backend.capabilities().fetches_imports and (base := _portal_address()):
            # The backend fetches the imports itself: point those a registered type library
            # holds at the portal, which serves them (a site's private library included).
            text = imports_for_fetching_backends(text, base)
        made = backend.create(
            CreateRequest(
                template=text,
                inputs=inputs,
                tag=tag_of(deployment),
                callback=callback,
                group=group,
                site=placement,
                options=options,
            )
        )
        return said.state(made, backend.credentials())


def delete(deployment: Deployment, *, force: bool = False) -> Deleted:
    """Ask the deployment's backend, as its holder, to delete it (``force`` where the backend
    can). Raises BackendError when it refused or did not answer (a Busy error with a retry
    time included: nothing was deleted), TokenUnavailable (HolderUnavailable among them) or
    DeploymentError when its holder cannot be called as."""
    try:
        with held_backend(deployment, quick=True) as backend:
            backend.delete(deployment.uuid, force=force and backend.capabilities().force_delete)
    except NotFound:
        return Deleted.GONE
    except Busy as error:
        if error.retry_after is not None:
            raise  # a concurrent change: nothing was deleted, and it may be asked again
        return Deleted.UNDER_WAY
    return Deleted.ASKED


def reset_delete(deployment: Deployment) -> None:
    """Reset a stuck delete, as its holder. Raises BackendError, TokenUnavailable,
    DeploymentError."""
    with held_backend(deployment, quick=True) as backend:
        backend.reset_delete(deployment.uuid)


def log(deployment: Deployment) -> said.Log:
    """The deployment's log, asked for now (short timeout), masked and bounded. Raises like
    ``reset_delete``."""
    with held_backend(deployment, quick=True) as backend:
        return said.log(backend.log(deployment.uuid), backend.credentials())


def resources(deployment: Deployment) -> list[dict]:
    """The deployment's machines and other resources, asked for now."""
    with held_backend(deployment, quick=True) as backend:
        return backend.resources(deployment.uuid)


def template(deployment: Deployment) -> str:
    """The template the backend holds for the deployment, asked for now."""
    with held_backend(deployment, quick=True) as backend:
        return backend.template(deployment.uuid)
