"""What words, dates and numbers cost a page, per page kind, in English and in Italian.

One app in one process (SQLite), a researcher with 60 deployments of the starter catalogue's
``vm`` template, logged in; each page kind is fetched ``rounds`` times per language (chosen by
``Accept-Language``, as a browser chooses). Figures printed per page kind and language:
- the page: median wall time and process CPU time per request;
- translation and formatting: the CPU time spent inside the portal's i18n and formatting entry
  points (every gettext of templates and code, lazy strings, the date, number and size
  filters, Flask-Babel's format functions and locale look-ups, a template's localised words),
  each counted once however they nest, and its share of the page's CPU time (CPU time, so that
  a busy machine does not inflate either); the number of such calls;
- function calls per request (cProfile), a measure that does not depend on the machine's load.

Medians of ``rounds`` requests. ``python -m bench.translation [--quick] [--rounds N]``
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.catalogue import CONFIG
from bench.deployments_page import ROOT

PASSWORD = "bench password 1"  # noqa: S105 - a throwaway account of a throwaway database
SLUG = "vm"
DEPLOYMENTS = 60
LANGUAGES = ("en", "it")


class Meter:
    """CPU time and calls inside the wrapped functions; a call made inside another wrapped call
    counts as a call but not again as time."""

    def __init__(self):
        self.depth = 0
        self.seconds = 0.0
        self.calls = 0

    def reset(self) -> None:
        self.seconds, self.calls = 0.0, 0

    def wrap(self, function):
        if getattr(function, "_bench_meter", None) is self:
            return function
        meter = self

        @functools.wraps(function)
        def measured(*args, **kwargs):
            meter.calls += 1
            if meter.depth:
                return function(*args, **kwargs)
            meter.depth = 1
            start = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                meter.seconds += time.thread_time() - start
                meter.depth = 0

        measured._bench_meter = self
        return measured


def _instrument(app, meter: Meter) -> None:
    """Wrap every way into translation and formatting: the template callables and filters, the
    message domain, lazy strings, and each reference app modules hold to Flask-Babel's and
    app.formatting's functions (imported by name, so each module's own name is replaced)."""
    import flask_babel
    from flask_babel import speaklater

    from app import formatting
    from app.tosca.parsed import ParsedTemplate

    env = app.jinja_env
    for name in ("_", "gettext", "ngettext", "pgettext", "npgettext"):
        if name in env.globals:
            env.globals[name] = meter.wrap(env.globals[name])
    for name, function in list(env.filters.items()):
        module = getattr(function, "__module__", "") or ""
        if module.startswith(("flask_babel", "babel", "app.formatting", "app.templating")):
            env.filters[name] = meter.wrap(function)
    from app.extensions import babel

    for cls in {flask_babel.Domain, type(babel.domain_instance)}:
        for name in ("gettext", "ngettext", "pgettext", "npgettext", "get_translations"):
            if name in cls.__dict__:
                setattr(cls, name, meter.wrap(cls.__dict__[name]))
    for name in ("__str__", "__html__", "__mod__", "__add__", "__radd__", "__eq__", "__hash__"):
        if name in speaklater.LazyString.__dict__:
            setattr(speaklater.LazyString, name, meter.wrap(speaklater.LazyString.__dict__[name]))
    ParsedTemplate.localised = meter.wrap(ParsedTemplate.localised)

    targets = {}
    for name in dir(flask_babel):
        if name.startswith(("format_", "get_locale", "get_timezone", "gettext", "ngettext")) or (
            name in ("pgettext", "npgettext", "to_user_timezone", "to_utc")
        ):
            targets[id(getattr(flask_babel, name))] = getattr(flask_babel, name)
    for name in ("when", "day", "relative", "number", "size"):
        targets[id(getattr(formatting, name))] = getattr(formatting, name)
    wrapped = {key: meter.wrap(function) for key, function in targets.items()}
    for module_name, module in list(sys.modules.items()):
        if module is None or not module_name.startswith(("app", "flask_babel")):
            continue
        for attribute, value in list(vars(module).items()):
            if callable(value) and id(value) in wrapped and value is targets[id(value)]:
                setattr(module, attribute, wrapped[id(value)])


def _deployment_rows(user_id: int, revision_id: int) -> list[dict]:
    from bench.crowd import _rows

    rows = _rows([user_id], DEPLOYMENTS, [])
    for row in rows:
        row["revision_id"] = revision_id
    return rows


def build(folder: Path):
    """The app, its database written, and a client logged in as the researcher."""
    from app import create_app
    from app.auth.cli import create_local_user
    from app.catalogue.models import CatalogueTemplate
    from app.catalogue.operations import import_folder
    from app.deployments.models import Deployment
    from app.extensions import db

    app = create_app(
        {
            **CONFIG,
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/translation.sqlite",
            "WTF_CSRF_ENABLED": False,
        },
        instance_path=str(folder / "instance"),
    )
    with app.app_context():
        db.create_all()
        import_folder(ROOT / "tosca-catalog", author="bench")
        user = create_local_user("ada", PASSWORD)
        revision = db.session.scalar(
            db.select(CatalogueTemplate.published_revision_id).where(CatalogueTemplate.slug == SLUG)
        )
        db.session.execute(Deployment.__table__.insert(), _deployment_rows(user.id, revision))
        db.session.commit()
        shown = db.session.scalar(db.select(db.func.max(Deployment.id)))
    client = app.test_client()
    answer = client.post(
        "/login", data={"username": "ada", "password": PASSWORD, "method": "local"}
    )
    assert answer.status_code == 302, answer.status_code
    return app, client, shown


def _form_fields(client, language: str) -> dict:
    from bench.forms import FormFields

    parser = FormFields()
    parser.feed(client.get(f"/catalogue/{SLUG}/", headers={"Accept-Language": language}).text)
    return parser.fields


def pages(client, deployment_id: int, language: str) -> dict:
    """Each page kind as a call of the client, as a browser in ``language`` asks for it."""
    headers = {"Accept-Language": language}
    fields = _form_fields(client, language)
    return {
        "catalogue": lambda: client.get("/catalogue/", headers=headers),
        "launch form": lambda: client.get(f"/catalogue/{SLUG}/", headers=headers),
        "cost box": lambda: client.post(
            f"/catalogue/{SLUG}/summary", data=fields, headers={**headers, "HX-Request": "true"}
        ),
        "deployment page": lambda: client.get(f"/deployments/{deployment_id}", headers=headers),
        "my deployments": lambda: client.get("/deployments/", headers=headers),
        "health (logged in)": lambda: client.get("/healthz", headers=headers),
    }


def measure(call, meter: Meter, rounds: int, language: str) -> dict:
    answer = call()
    assert answer.status_code == 200, answer.status_code
    head = answer.data[:400]
    if b"<html" in head:  # a whole page says which language it is in
        assert f'lang="{language}"'.encode() in head, f"the page is not in {language}"
    walls, cpus, shares = [], [], []
    calls = 0
    for _ in range(rounds):
        meter.reset()
        start, cpu_start = time.perf_counter(), time.thread_time()
        call()
        walls.append(time.perf_counter() - start)
        cpus.append(time.thread_time() - cpu_start)
        shares.append(meter.seconds)
        calls = meter.calls
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(min(rounds, 20)):
        call()
    profile.disable()
    function_calls = pstats.Stats(profile).total_calls / min(rounds, 20)
    return {
        "ms": statistics.median(walls) * 1000,
        "cpu_ms": statistics.median(cpus) * 1000,
        "i18n_ms": statistics.median(shares) * 1000,
        "i18n_calls": calls,
        "function_calls": function_calls,
    }


def run(rounds: int) -> list[tuple[str, str, dict]]:
    meter = Meter()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        app, client, deployment_id = build(Path(tmp))
        _instrument(app, meter)
        for language in LANGUAGES:
            for kind, call in pages(client, deployment_id, language).items():
                results.append((kind, language, measure(call, meter, rounds, language)))
    return results


def report(results: list[tuple[str, str, dict]], rounds: int) -> None:
    print(f"\n== Translation and formatting per page ({rounds} requests each, one process) ==")
    print(
        f"{'page':20} {'lang':4} {'page ms':>8} {'CPU ms':>7} {'i18n CPU':>8} {'share':>6} "
        f"{'i18n calls':>10} {'calls/req':>10}"
    )
    for kind, language, f in results:
        share = f["i18n_ms"] / f["cpu_ms"] if f["cpu_ms"] else 0.0
        print(
            f"{kind:20} {language:4} {f['ms']:8.2f} {f['cpu_ms']:7.2f} {f['i18n_ms']:8.2f} "
            f"{share:6.0%} {f['i18n_calls']:10d} {f['function_calls']:10,.0f}"
        )


def main(quick: bool = False, rounds: int | None = None) -> None:
    rounds = rounds or (20 if quick else 200)
    report(run(rounds), rounds)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int)
    options = parser.parse_args()
    main(quick=options.quick, rounds=options.rounds)
