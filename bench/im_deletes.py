"""How many of N concurrent deletes leave the infrastructure behind at a real IM 2.0.0, and how
long a create takes to become ``configured``.

Three ways of deleting the same N infrastructures from N threads at once: one DELETE each
with nothing serialised (what a naive client does), one DELETE each under the per-server lock,
and ``ImBackend.delete`` as it is (under the lock, checked and sent again when IM kept it).
Needs root (IM runs in a network namespace, as in the tests); prints why not otherwise.
"""

import contextlib
import secrets
import statistics
import tempfile
import threading
import time
from functools import partial

from app.backends.base import CreateRequest, NotFound
from app.backends.im.backend import ImBackend
from app.backends.im.client import ImClient, auth_lines
from app.backends.im.deletes import file_lock, lock_file, unserialised
from tests.backends.im.conftest import template
from tests.fixtures.im_server import DUMMY_CLOUD, cannot_run_reason, start_im, stop_im

MODES = {
    "one DELETE each, not serialised": dict(serialise=False, attempts=1),
    "one DELETE each, serialised": dict(serialise=True, attempts=1),
    "ImBackend.delete (serialised, checked, repeated)": dict(serialise=True, attempts=3),
}


def _backend(url, lines, lock_path, serialise, attempts) -> ImBackend:
    lock = (lambda: file_lock(lock_path)) if serialise else unserialised
    return ImBackend(ImClient(url, lines, (2, 60)), delete_lock=lock, delete_attempts=attempts)


def _create(backend: ImBackend, count: int) -> tuple[list[str], list[float]]:
    ids, times = [], []
    for _ in range(count):
        started = time.monotonic()
        made = backend.create(
            CreateRequest(template=template("compute.yaml"), inputs={}, tag=secrets.token_hex(6))
        )
        while backend.state(made.backend_id).moving:
            time.sleep(0.02)
        times.append(time.monotonic() - started)
        ids.append(made.backend_id)
    return ids, times


def _delete_all(ids, make_backend) -> None:
    barrier = threading.Barrier(len(ids))

    def one(infid):
        with make_backend() as backend:
            barrier.wait()
            with contextlib.suppress(NotFound):
                backend.delete(infid)

    threads = [threading.Thread(target=one, args=(infid,)) for infid in ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main(quick: bool = False) -> None:
    reason = cannot_run_reason()
    if reason:
        print(f"IM deletes: skipped ({reason})")
        return
    count, rounds = (10, 2) if quick else (20, 3)
    server = start_im()
    folder = tempfile.mkdtemp(prefix="bench-im-")
    created: list[float] = []
    try:
        print(f"IM deletes: {count} concurrent deletes, {rounds} rounds per way")
        for mode, options in MODES.items():
            left = []
            for _ in range(rounds):
                lines = auth_lines([DUMMY_CLOUD], username=secrets.token_hex(4), password="bench")
                lock_path = lock_file(folder, server.url)
                with _backend(server.url, lines, lock_path, True, 1) as maker:
                    ids, times = _create(maker, count)
                    created += times
                    started = time.monotonic()
                    _delete_all(ids, partial(_backend, server.url, lines, lock_path, **options))
                    took = time.monotonic() - started
                    time.sleep(2)  # IM's own threads may still write an infrastructure back
                    left.append(len(maker.client.list_ids()))
            print(f"  {mode}: left behind {left} of {count} (last round took {took:.1f} s)")
        print(
            f"  create to configured: median {statistics.median(created) * 1000:.0f} ms, "
            f"max {max(created) * 1000:.0f} ms over {len(created)} creates"
        )
    finally:
        stop_im(server)


if __name__ == "__main__":
    import sys

    main(quick="--quick" in sys.argv)
