"""What one request of each page kind the crowd asks for costs, in counts rather than times.

One app in one process on PostgreSQL (a database of its own, created and dropped here) holding
``deployments`` deployments of ``owners`` people, as bench/crowd.py fills it; one researcher
logged in (CSRF on, as a browser sees the portal), one of their deployments in progress. Each
page kind of bench/crowd_researchers.py is asked for in English and in Italian, and counted per
request (medians over ``rounds`` requests):
- statements: what SQLAlchemy sends (its ``before_cursor_execute`` event);
- round trips: each time psycopg sends something to PostgreSQL and waits for the answer,
  BEGIN, COMMIT, ROLLBACK and the preparing of a statement included;
- compiled: statements SQLAlchemy had to compile, not finding them in its cache (a statement
  built anew for each request, rather than from the cache, costs its compilation each time);
- function calls (cProfile), a measure of the Python work that does not depend on the load;
- CPU time, of this process's thread and of the PostgreSQL backends serving it (Linux's
  /proc/<pid>/schedstat), in ms: less steady than the counts on a busy machine, far steadier
  than wall time, and the figure the crowd's hosts run out of.

These do not move with the machine's load, unlike times. ``--show`` prints each kind's
statements and round trips as sent. ``python -m bench.requests_cost [--rounds N]
[--deployments N] [--show]``
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import pstats
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from sqlalchemy.engine.interfaces import CacheStats

from bench.catalogue import CONFIG
from bench.deployments_page import PASSWORD

SLUG = "vm"
OWNERS = 200
LANGUAGES = ("en", "it")
# As the crowd's browsers ask (bench/crowd_researchers.py, which patches the standard library
# when imported).
ACCEPT_LANGUAGE = {"en": "en-GB,en;q=0.9", "it": "it-IT,it;q=0.9,en;q=0.5"}


class Counter:
    """Statements and round trips seen while ``counting``; the texts kept when ``keep``."""

    def __init__(self):
        self.counting = False
        self.keep = False
        self.statements = 0
        self.trips = 0
        self.compiled = 0
        self.seen: list[str] = []
        self.pending = ""  # what was sent last, for ``seen``
        self.statement_text = ""

    def reset(self) -> None:
        self.statements, self.trips, self.compiled, self.seen = 0, 0, 0, []

    def statement(self, _conn, _cursor, statement, _parameters, context, _many) -> None:
        self.pending = self.statement_text = " ".join(statement.split())[:110]
        if self.counting:
            self.statements += 1
            if getattr(context, "cache_hit", None) is not CacheStats.CACHE_HIT:
                self.compiled += 1

    def trip(self) -> None:
        if self.counting:
            self.trips += 1
            if self.keep:
                self.seen.append(self.pending)


def _count_round_trips(counter: Counter) -> None:
    """Count every answer psycopg waits for: each is one round trip outside pipeline mode.

    psycopg sends a command (BEGIN, COMMIT, ROLLBACK) or a statement, then waits for its
    results in ``generators.execute``; the cursor module holds its own reference to it.
    """
    from psycopg import _connection_base, _cursor_base, generators

    original = generators.execute

    def execute(pgconn, *args, **kwargs):
        counter.trip()
        return original(pgconn, *args, **kwargs)

    generators.execute = execute
    _cursor_base.execute = execute
    # What was sent, for --show: the connection's commands, else the cursor's statement.
    command = _connection_base.BaseConnection._exec_command

    def exec_command(self, text, *args, **kwargs):
        counter.pending = text.decode() if isinstance(text, bytes) else str(text)
        return command(self, text, *args, **kwargs)

    _connection_base.BaseConnection._exec_command = exec_command
    start = _connection_base.BaseConnection._start_query

    def start_query(self):
        # BEGIN goes through _exec_command; the statement itself follows it.
        yield from start(self)
        counter.pending = counter.statement_text

    _connection_base.BaseConnection._start_query = start_query


def build(folder: Path, url: str, total: int, owners: int = OWNERS):
    """The app on ``url`` with its database written (``total`` deployments shared evenly by
    ``owners`` people); returns it and the researcher's name."""
    from app import create_app
    from app.auth.local import hash_password
    from app.auth.models import User
    from app.catalogue.models import CatalogueTemplate
    from app.catalogue.operations import import_folder
    from app.deployments.models import Deployment
    from bench.crowd import _rows, vacuum
    from bench.deployments_page import ROOT

    app = create_app(
        {**CONFIG, "SQLALCHEMY_DATABASE_URI": url, "SESSION_COOKIE_SECURE": False},
        instance_path=str(folder / "instance"),
    )
    from app.extensions import db

    with app.app_context():
        db.create_all()
        import_folder(ROOT / "tosca-catalog", author="bench")
        password = hash_password(PASSWORD)
        people = [
            User(
                provider="local",
                subject=f"cost-{n:04d}",
                username=f"cost-{n:04d}",
                password_hash=password,
                groups=[],
                group_roles=[],
            )
            for n in range(owners)
        ]
        db.session.add_all(people)
        db.session.commit()
        revision = db.session.scalar(
            db.select(CatalogueTemplate.published_revision_id).where(CatalogueTemplate.slug == SLUG)
        )
        rows = _rows([p.id for p in people], total, [str(uuid.uuid4())])
        for row in rows:
            row["revision_id"] = revision
        for start in range(0, len(rows), 5_000):
            db.session.execute(Deployment.__table__.insert(), rows[start : start + 5_000])
        db.session.commit()
        username = people[0].username
        db.session.remove()
        if db.engine.dialect.name == "postgresql":
            vacuum(db.engine)
    return app, username


def _logged_in(app, username: str):
    from bench.forms import FormFields

    client = app.test_client()
    fields = FormFields()
    fields.feed(client.get("/login").text)
    answer = client.post(
        "/login",
        data={
            "csrf_token": fields.fields["csrf_token"],
            "username": username,
            "password": PASSWORD,
            "method": "local",
        },
    )
    assert answer.status_code == 302, answer.status_code
    return client


def pages(app, username: str, language: str) -> dict[str, Callable]:
    """Each page kind as the crowd asks for it, in ``language``: a call returning the answer."""
    import re

    from bench.forms import FormFields

    client = _logged_in(app, username)
    anonymous = app.test_client()
    headers = {"Accept-Language": ACCEPT_LANGUAGE[language]}
    page = client.get("/deployments/", headers=headers).text
    chosen = re.findall(r'id="deployment-(\d+)"', page)[0]
    form = FormFields()
    form.feed(client.get(f"/catalogue/{SLUG}/", headers=headers).text)
    fields = form.fields
    htmx = {**headers, "HX-Request": "true"}
    tag = client.get("/deployments/rows?poll=1", headers=htmx).headers["X-List-Stamp"]
    return {
        "catalogue": lambda: client.get("/catalogue/", headers=headers),
        "cost box": lambda: client.post(
            f"/catalogue/{SLUG}/summary",
            data=fields,
            headers={**htmx, "X-CSRFToken": fields.get("csrf_token", "")},
        ),
        "deployment page": lambda: client.get(f"/deployments/{chosen}", headers=headers),
        "launch form": lambda: client.get(f"/catalogue/{SLUG}/", headers=headers),
        "my deployments p1": lambda: client.get("/deployments/", headers=headers),
        "my deployments p2": lambda: client.get("/deployments/?page=2", headers=headers),
        "rows poll (unchanged)": lambda: client.get(
            "/deployments/rows?poll=1", headers={**htmx, "X-List-Stamp": tag}
        ),
        "rows poll (in full)": lambda: client.get("/deployments/rows?poll=1", headers=htmx),
        "trivial page": lambda: anonymous.get("/healthz", headers=headers),
        "health (logged in)": lambda: client.get("/healthz", headers=headers),
    }


EXPECTED = {"rows poll (unchanged)": 204}


def _cpu_ns(pid: int) -> int:
    """The CPU time process ``pid`` has used, in ns (0 where Linux does not say)."""
    try:
        with open(f"/proc/{pid}/schedstat") as stat:
            return int(stat.read().split()[0])
    except OSError:
        return 0


def _backends(url: str) -> list[int]:
    """The PostgreSQL backends connected to ``url``'s database but this question's own."""
    import psycopg
    from sqlalchemy.engine import make_url

    libpq = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with contextlib.closing(psycopg.connect(libpq, autocommit=True)) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return [pid for (pid,) in rows]


def measure(
    kind: str, call: Callable, counter: Counter, rounds: int, backends: Callable[[], list[int]]
) -> dict:
    answer = call()
    assert answer.status_code == EXPECTED.get(kind, 200), (kind, answer.status_code)
    statements, trips, compiled = [], [], []
    for n in range(rounds):
        counter.reset()
        counter.counting, counter.keep = True, n == 0
        call()
        counter.counting = False
        statements.append(counter.statements)
        trips.append(counter.trips)
        compiled.append(counter.compiled)
        if n == 0:
            sent = counter.seen
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(rounds):
        call()
    profile.disable()
    pids = backends()
    app_cpu, database_cpu = [], []
    for _ in range(rounds):
        database = sum(_cpu_ns(pid) for pid in pids)
        start = time.thread_time_ns()
        call()
        app_cpu.append(time.thread_time_ns() - start)
        database_cpu.append(sum(_cpu_ns(pid) for pid in pids) - database)
    return {
        "app_ms": statistics.median(app_cpu) / 1e6,
        "database_ms": statistics.median(database_cpu) / 1e6,
        "statements": statistics.median(statements),
        "trips": statistics.median(trips),
        "compiled": statistics.median(compiled),
        "calls": pstats.Stats(profile).total_calls / rounds,
        "sent": sent,
    }


def run(rounds: int, total: int) -> list[tuple[str, str, dict]]:
    from sqlalchemy import event

    from bench.quotas import _postgres_url

    database = _postgres_url(Path(tempfile.gettempdir()))
    if database is None:
        raise SystemExit("This benchmark needs PostgreSQL at 127.0.0.1:5432.")
    url, drop = database
    counter = Counter()
    _count_round_trips(counter)
    results = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            app, username = build(Path(tmp), url, total)
            from app.extensions import db

            with app.app_context():
                event.listen(db.engine, "before_cursor_execute", counter.statement)
            for language in LANGUAGES:
                for kind, call in pages(app, username, language).items():
                    cost = measure(kind, call, counter, rounds, lambda: _backends(url))
                    results.append((kind, language, cost))
            with app.app_context():
                db.engine.dispose()
    finally:
        with contextlib.suppress(Exception):
            drop()
    return results


def report(results: list[tuple[str, str, dict]], rounds: int, total: int, show: bool) -> None:
    print(
        f"\n== Work per request on PostgreSQL ({total:,} deployments of {OWNERS} people; "
        f"medians of {rounds} requests, one process) =="
    )
    print(
        f"{'page kind':22} {'lang':4} {'statements':>10} {'round trips':>11} {'compiled':>8} "
        f"{'calls/req':>10} {'app CPU':>8} {'db CPU':>7}"
    )
    for kind, language, f in results:
        print(
            f"{kind:22} {language:4} {f['statements']:10.0f} {f['trips']:11.0f} "
            f"{f['compiled']:8.0f} {f['calls']:10,.0f} {f['app_ms']:8.2f} {f['database_ms']:7.2f}"
        )
    if show:
        for kind, language, f in results:
            if language == LANGUAGES[0]:
                print(f"\n{kind}:")
                for sent in f["sent"]:
                    print(f"  {sent}")


def main(quick: bool = False, rounds: int | None = None, total: int | None = None) -> None:
    rounds = rounds or (10 if quick else 50)
    total = total or (5_000 if quick else 20_000)
    report(run(rounds, total), rounds, total, show=False)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--deployments", type=int, default=20_000)
    parser.add_argument("--show", action="store_true")
    options = parser.parse_args()
    report(
        run(options.rounds, options.deployments), options.rounds, options.deployments, options.show
    )
