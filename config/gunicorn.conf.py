"""gunicorn settings the portal needs whatever the site: ``gunicorn -c config/gunicorn.conf.py``.

With several workers, each writes its metrics to files in PROMETHEUS_MULTIPROC_DIR (an empty
folder, wiped before each start) and /metrics adds them up. A worker that exits is marked dead
here, so that its live figures stop counting while its counters are kept.
"""

import gc
import os


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def post_worker_init(worker):
    """The app is loaded: what it holds now (routes, the ORM's mappings, translations, the
    catalogue's types) lives as long as the worker. Frozen, it is left out of the collector's
    full passes, which walked all of it every hundred requests or so (a list page's worth of
    CPU each time, spread over those requests)."""
    gc.collect()
    gc.freeze()
