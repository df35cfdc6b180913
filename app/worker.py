"""The worker: one runner for every background duty, each duty in a thread of its own.

Features declare their duties at start-up (``BACKGROUND_DUTIES`` in ``app.extension_points``):
the sync of deployments, the end of leases, the capacity refresh, admission from the line, the
mail outbox. ``flask worker`` runs them all in one process; each duty runs its passes in its
own thread, with its own application context and database session, every ``every`` seconds.
So a slow duty never holds up another: a pass of the leases that waits on an IM delete under
its cross-host lock, a capacity source that hangs or a thousand mails to send do not delay
admission from the line, which keeps its own pace.

A pass has a time budget: a duty that works in turns asks ``out_of_time()`` before taking more
rows and leaves the rest for its next pass, so that what came due meanwhile (a lease that just
ended) is not queued behind the whole backlog. A pass under way when the worker is told to
stop (SIGTERM, SIGINT) is out of time too: it finishes what it holds, and the worker ends.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import click
from flask import Flask, current_app

from app.extension_points import BACKGROUND_DUTIES
from app.extensions import db

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Duty:
    """One background duty.

    ``run`` makes one pass and returns what it did (its ``str`` is logged; an ``acted``
    attribute that is false keeps an idle pass out of the log). ``every`` names the setting of
    seconds between the starts of two passes. ``budget`` gives, from the configuration, the
    seconds a pass may take before it stops taking more rows. ``claims`` says in words which
    rows it claims and how (for operators: ``flask worker --list``).
    """

    name: str
    run: Callable[[], object]
    every: str
    budget: Callable[[Mapping], float]
    claims: str

    def interval(self, config: Mapping) -> float:
        return float(config[self.every])


_pass = threading.local()


def out_of_time() -> bool:
    """Whether the pass under way (``run_pass``) has spent its time budget, or the worker is
    stopping. Outside a pass (a duty's function called on its own, a test) never."""
    deadline = getattr(_pass, "deadline", None)
    stop = getattr(_pass, "stop", None)
    if stop is not None and stop.is_set():
        return True
    return deadline is not None and time.monotonic() >= deadline


def duties(app: Flask | None = None) -> tuple[Duty, ...]:
    """Every duty declared, in the order the features declared them."""
    return BACKGROUND_DUTIES.each(app)


def chosen(names: Iterable[str] = (), *, leaving: Iterable[str] = ()) -> list[Duty]:
    """The declared duties named (none named: all of them), less those ``leaving`` names.
    Raises click.UsageError for a name no duty has."""
    names, leaving = list(names), set(leaving)
    known = {duty.name: duty for duty in duties()}
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise click.UsageError(
            f"No duty is called {', '.join(unknown)}; the duties are {', '.join(known)}."
        )
    picked = [known[name] for name in names] if names else list(known.values())
    return [duty for duty in picked if duty.name not in leaving]


def run_pass(duty: Duty, stop: threading.Event | None = None) -> object | None:
    """One pass of ``duty`` within its budget; a failure is logged and rolled back (the next
    pass retries) and gives None."""
    budget = duty.budget(current_app.config)
    started = time.monotonic()
    _pass.deadline, _pass.stop = started + budget, stop
    try:
        return duty.run()
    except Exception:  # keep the worker alive; the next pass retries
        log.exception("The %s pass failed", duty.name)
        db.session.rollback()
        return None
    finally:
        _pass.deadline = _pass.stop = None
        took = time.monotonic() - started
        if took > budget:
            log.warning(
                "The %s pass took %.0f s, over its budget of %.0f s", duty.name, took, budget
            )


def _keep(app: Flask, duty: Duty, stop: threading.Event) -> None:
    """Run ``duty``'s passes until ``stop`` is set, in this thread's own app context."""
    with app.app_context():
        try:
            while not stop.is_set():
                started = time.monotonic()
                outcome = run_pass(duty, stop)
                if outcome is not None and getattr(outcome, "acted", True):
                    log.info("%s pass: %s", duty.name.capitalize(), outcome)
                waited = duty.interval(app.config) - (time.monotonic() - started)
                stop.wait(max(waited, 0.1))
        finally:
            db.session.remove()


def run_duties(chosen_duties: Iterable[Duty], stop: threading.Event | None = None) -> None:
    """Run each of ``chosen_duties`` in a thread of its own until SIGTERM or SIGINT (or
    ``stop`` is set); the passes under way finish, then this returns."""
    app = current_app._get_current_object()
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
    chosen_duties = list(chosen_duties)
    threads = [
        threading.Thread(target=_keep, args=(app, duty, stop), name=f"duty {duty.name}")
        for duty in chosen_duties
    ]
    log.info("Worker started: %s", ", ".join(duty.name for duty in chosen_duties))
    for thread in threads:
        thread.start()
    while not stop.is_set() and any(thread.is_alive() for thread in threads):
        stop.wait(1.0)
    stop.set()
    for thread in threads:
        thread.join()
    log.info("Worker stopped")


@click.command("worker")
@click.option("--duty", "names", multiple=True, help="Run only this duty (may be repeated).")
@click.option("--list", "listing", is_flag=True, help="List the duties and what each claims.")
def worker_command(names: tuple[str, ...], listing: bool) -> None:
    """Run every background duty (sync, leases, capacity, lines, mail), each in its own
    thread, until stopped (SIGTERM/SIGINT)."""
    if listing:
        config = current_app.config
        for duty in chosen(names):
            click.echo(
                f"{duty.name}: every {duty.interval(config):g} s ({duty.every}), "
                f"budget {duty.budget(config):g} s per pass; claims {duty.claims}"
            )
        return
    run_duties(chosen(names))
