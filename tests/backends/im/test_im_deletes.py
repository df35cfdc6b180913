"""Deletes at a real IM 2.0.0, which loses some of those that arrive together: through
ImBackend, ten at once leave nothing behind, from threads and from processes."""

import contextlib
import threading

from app.backends.base import NotFound
from app.backends.im.backend import ImBackend
from app.backends.im.client import ImClient, auth_lines
from app.backends.im.deletes import file_lock, lock_file
from tests.backends.im.conftest import TIMEOUT, wait_until_settled
from tests.backends.im.test_im_backend import create
from tests.fixtures.im_server import DUMMY_CLOUD
from tests.processes import race


def make_ten(backend: ImBackend) -> list[str]:
    ids = [create(backend, "compute.yaml").backend_id for _ in range(10)]
    for infid in ids:
        wait_until_settled(backend, infid)
    return ids


def delete_quietly(backend: ImBackend, infid: str) -> None:
    with contextlib.suppress(NotFound):
        backend.delete(infid)


def test_ten_deletes_at_once_from_threads_leave_none_at_im(make_im_backend):
    maker = make_im_backend()
    ids = make_ten(maker)
    barrier = threading.Barrier(len(ids))

    def one(infid):
        with make_im_backend() as backend:
            barrier.wait()
            delete_quietly(backend, infid)

    threads = [threading.Thread(target=one, args=(infid,)) for infid in ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)

    assert maker.client.list_ids() == []


def _delete_in_a_process(url, username, password, lock_dir, ids, barrier, queue):
    lines = auth_lines([DUMMY_CLOUD], username=username, password=password)
    lock_path = lock_file(lock_dir, url)
    barrier.wait()
    threads = []
    for infid in ids:
        backend = ImBackend(ImClient(url, lines, TIMEOUT), delete_lock=lambda: file_lock(lock_path))
        threads.append(threading.Thread(target=delete_quietly, args=(backend, infid)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    queue.put(len(ids))


def test_ten_deletes_at_once_from_two_processes_leave_none_at_im(
    make_im_backend, im_server, im_identity, tmp_path
):
    maker = make_im_backend()
    ids = make_ten(maker)
    username, password = im_identity
    halves = [ids[:5], ids[5:]]

    done = race(
        _delete_in_a_process,
        [(im_server.url, username, password, str(tmp_path), half) for half in halves],
        parties=2,
        outcomes=2,
    )

    assert sorted(done) == [5, 5]
    assert maker.client.list_ids() == []
