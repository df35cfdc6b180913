"""The lock that serialises deletes per IM server: one holder at a time, on SQLite (a file
lock) and on PostgreSQL (an advisory lock), and no lock between two different servers."""

import threading
import time

from app.backends.im.deletes import serialised


def hold_together(app, urls, hold=0.2) -> float:
    """Enter the delete lock of each of ``urls`` from a thread at once; the most holders seen
    inside at the same moment."""
    inside, most, guard = [0], [0], threading.Lock()
    barrier = threading.Barrier(len(urls))

    def one(url):
        with app.app_context():
            lock = serialised(url, app.instance_path)
            barrier.wait()
            with lock():
                with guard:
                    inside[0] += 1
                    most[0] = max(most[0], inside[0])
                time.sleep(hold)
                with guard:
                    inside[0] -= 1

    threads = [threading.Thread(target=one, args=(url,)) for url in urls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return most[0]


def test_deletes_at_one_im_server_hold_the_lock_one_at_a_time(make_app):
    app = make_app()

    assert hold_together(app, ["https://im.example.org/"] * 2 + ["https://im.example.org"] * 2) == 1


def test_deletes_at_two_im_servers_do_not_wait_for_each_other(make_app):
    app = make_app()

    assert hold_together(app, ["https://im-a.example.org", "https://im-b.example.org"]) == 2
