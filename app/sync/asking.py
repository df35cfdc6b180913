"""What the sync worker asks the backends to follow them: one identity's whole listing
(``listing_for``, for ``listing``) and the states of many deployments at once, in a bounded
pool of threads (``states_of``, for ``polling``). Calls about one deployment that people,
leases and the launch make are ``app.deployments.remote``'s, with the same naming of the
backend in errors (``told_by_backend``) and the same bounding of answers (``said``)."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

from app.auth.errors import TokenUnavailable
from app.backends.base import Backend, BackendError, RemoteState
from app.deployments import identity, remote, said
from app.deployments.errors import DeploymentError
from app.deployments.models import Deployment
from app.deployments.remote import told_by_backend
from app.sync.identities import backend_for_identity


class IdentityListing:
    """What the sync worker's listing asks of one identity's backend (use it in a ``with``
    block): every deployment held there, and of one of them its state or its template.
    Each raises the backend's errors (``app.backends.base``), naming that backend."""

    def __init__(self, backend: Backend, name: str):
        self._backend, self.name = backend, name

    @property
    def adopts_made_elsewhere(self) -> bool:
        """Whether the backend may hold deployments made elsewhere in this identity's name."""
        return self._backend.capabilities().made_elsewhere

    def states(self) -> list[RemoteState]:
        with told_by_backend(self.name):
            found = self._backend.list_mine()
        return [said.state(state, self._backend.credentials()) for state in found]

    def state(self, backend_id: str) -> RemoteState:
        with told_by_backend(self.name):
            return said.state(self._backend.state(backend_id), self._backend.credentials())

    def template(self, backend_id: str) -> str:
        with told_by_backend(self.name):
            return self._backend.template(backend_id)

    def __enter__(self) -> IdentityListing:
        return self

    def __exit__(self, *exc_info) -> None:
        self._backend.close()


def listing_for(key: str) -> IdentityListing | None:
    """The listing of the identity ``key`` (``identity.identity_of``) at its backend; None
    when that identity has no way to call it now."""
    backend = backend_for_identity(key)
    return None if backend is None else IdentityListing(backend, identity.split_key(key)[0])


class _ThreadBackends:
    """One backend per pool thread (connections are not shared), made by ``copies``."""

    def __init__(self, copies):
        self.copies = copies
        self._local = threading.local()

    def get(self) -> Backend:
        backend = getattr(self._local, "backend", None)
        if backend is None:
            backend = self._local.backend = self.copies()
        return backend


def _ask(backends: _ThreadBackends, backend_id: str):
    """The deployment's state, or the exception the call raised (run in a pool thread)."""
    backend = backends.get()
    try:
        return said.state(backend.state(backend_id), backend.credentials())
    except BackendError as error:
        return error


def states_of(rows: list[Deployment], concurrency: int) -> Iterator[tuple[Deployment, object]]:
    """Each row with what its backend says of it now: a RemoteState, or the error met (a
    BackendError, or TokenUnavailable/DeploymentError when its holder, ``identity.holder_of``,
    cannot be called as: HolderUnavailable, with words naming them, for one taken over). Rows
    are asked in the identity that holds them, whoever owns them now. At most
    ``concurrency`` calls run at once, each thread with a backend of its own; everything
    touching the database stays in the caller's thread."""
    grouped: dict[str, list[Deployment]] = defaultdict(list)
    for row in rows:
        grouped[identity.holder_key(row)].append(row)
    jobs = []
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        for members in grouped.values():
            try:
                # The credentials are read here, in the thread owning the database session.
                holder = identity.holder_of(members[0])
                with identity.backend_for(holder, members[0].backend) as template_backend:
                    backends = _ThreadBackends(template_backend.thread_copies())
            except (TokenUnavailable, DeploymentError) as error:
                jobs.extend((row, remote.holder_error(row, error)) for row in members)
                continue
            jobs.extend((row, pool.submit(_ask, backends, row.uuid)) for row in members)
        for row, job in jobs:
            yield row, job if isinstance(job, Exception) else job.result()
