"""The simulated researchers of the crowd benchmark (bench/crowd.py), run with locust as a library.

Started by bench/crowd.py in a process of its own (locust patches the standard library with
gevent), with a JSON description of the run; prints the figures as one JSON line at the end.
Each researcher logs in on one of the hosts, in English or, for a share of them
(``italian_share``, 0.3 unless told), in Italian as their browser asks (``Accept-Language``);
then, every 5 to 15 seconds, does one of: the catalogue, My deployments page 1 or 2, one of
their deployments, the launch form and its cost box, or now and then a launch; meanwhile their
list's rows poll every 5 seconds, sending back the change tag the rows carry, as htmx does. A
probe fetches the trivial page once a second.

What is measured is a window of steady state: the requests that start inside it, however long
they take. The ramp-up (logins hash passwords, costly by design) leaves a queue behind it, and
requests already waiting when the window opens are its, not the crowd's.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import sys
import time
from collections import Counter, defaultdict

import gevent
from locust import FastHttpUser, between, events, task
from locust.contrib.fasthttp import FastHttpSession
from locust.env import Environment

from bench.forms import FormFields

SETTINGS = json.loads(sys.argv[1]) if __name__ == "__main__" else {}
HOSTS = itertools.cycle(SETTINGS.get("hosts", ["http://127.0.0.1"]))
USERNAMES = iter(SETTINGS.get("usernames", []))
OUTCOMES: Counter = Counter()  # in the measured window
LAUNCHED: Counter = Counter()  # over the whole run
LOGGED_IN: Counter = Counter()
LOGIN_REFUSALS: Counter = Counter()  # failed login attempts during the ramp-up, by answer
CSRF = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')
# What each language's browser sends; every n-th researcher is Italian, spread evenly.
ACCEPT_LANGUAGE = {"en": "en-GB,en;q=0.9", "it": "it-IT,it;q=0.9,en;q=0.5"}
ITALIAN_SHARE = SETTINGS.get("italian_share", 0.3)
RESEARCHER_NUMBERS = itertools.count()
# After the last login, time for the queue the ramp-up left to drain before measuring.
SETTLE_SECONDS = 10
# After the window, how long its last requests may take to be answered; any still unanswered
# then are reported as such.
IN_FLIGHT_SECONDS = 120
WINDOW = {"start": None, "end": None}  # seconds since the epoch, as locust's start_time
PENDING = Counter()  # requests started inside the window and not answered yet
TIMES: defaultdict[str, list[float]] = defaultdict(list)  # ms, by kind, for the window's requests
# The same by language: (kind, language) -> ms.
LANGUAGE_TIMES: defaultdict[tuple[str, str], list[float]] = defaultdict(list)
FAILURES: Counter = Counter()  # (kind, error) for the window's requests


class Researcher(FastHttpUser):
    wait_time = between(5, 15)
    slug = SETTINGS.get("slug", "vm")

    def __init__(self, environment):
        self.host = next(HOSTS)  # before the client is made for it
        number = next(RESEARCHER_NUMBERS)
        italian = math.floor((number + 1) * ITALIAN_SHARE) > math.floor(number * ITALIAN_SHARE)
        self.language = "it" if italian else "en"
        self.default_headers = {"Accept-Language": ACCEPT_LANGUAGE[self.language]}
        super().__init__(environment)

    def context(self) -> dict:
        return {"language": self.language}

    def _check_language(self, page: str) -> None:
        # A page that says it is in another language than the one asked for is counted.
        if f'<html lang="{self.language}"' in page[:300]:
            OUTCOMES[f"pages in {self.language}"] += 1
        else:
            OUTCOMES[f"pages not in {self.language}"] += 1

    def on_start(self):
        username = next(USERNAMES)
        # A researcher whose login fails tries again, as a person would; the failed answers are
        # counted (a crowd that cannot log in would otherwise show up only as 401s later).
        for attempt in range(10):
            if self._log_in(username):
                break
            gevent.sleep(2**attempt if attempt < 5 else 30)
        LOGGED_IN["done"] += 1
        self.deployment_ids: list[int] = []
        self.tag = None
        self.poller = gevent.spawn(self._poll_rows)

    def _log_in(self, username: str) -> bool:
        page = self.client.get("/login", name="login form")
        token = CSRF.search(page.text or "")
        if not token:
            LOGIN_REFUSALS[f"login form answered {page.status_code}"] += 1
            return False
        form = {
            "csrf_token": token.group(1),
            "username": username,
            "password": SETTINGS["password"],
            "method": "local",
        }
        with self.client.post(
            "/login", data=form, name="login", allow_redirects=False, catch_response=True
        ) as answer:
            if answer.status_code == 302:
                return True
            LOGIN_REFUSALS[f"login answered {answer.status_code}"] += 1
            answer.failure(f"login answered {answer.status_code}")
            return False

    def on_stop(self):
        self.poller.kill()

    def _poll_rows(self):
        gevent.sleep(random.uniform(0, 5))
        while True:
            headers = {"HX-Request": "true"}
            if self.tag:
                headers["X-List-Stamp"] = self.tag
            with self.client.get(
                "/deployments/rows?poll=1", headers=headers, name="rows poll", catch_response=True
            ) as answer:
                if answer.status_code == 204:
                    OUTCOMES["rows poll unchanged"] += 1
                elif answer.status_code == 200:
                    OUTCOMES["rows poll in full"] += 1
                    self.tag = answer.headers.get("X-List-Stamp")
                else:
                    answer.failure(f"answered {answer.status_code}")
            gevent.sleep(5)

    @task(2)
    def catalogue(self):
        self.client.get("/catalogue/", name="catalogue")

    @task(2)
    def my_deployments(self):
        page = self.client.get("/deployments/", name="my deployments p1").text or ""
        self._check_language(page)
        self.deployment_ids = [int(n) for n in re.findall(r'id="deployment-(\d+)"', page)]

    @task(1)
    def my_deployments_page_2(self):
        self.client.get("/deployments/?page=2", name="my deployments p2")

    @task(2)
    def deployment(self):
        if not self.deployment_ids:
            self.my_deployments()
        if self.deployment_ids:
            chosen = random.choice(self.deployment_ids)
            self.client.get(f"/deployments/{chosen}", name="deployment page")

    def _launch_form(self) -> dict[str, str]:
        page = self.client.get(f"/catalogue/{self.slug}/", name="launch form").text or ""
        self._check_language(page)
        parser = FormFields()
        parser.feed(page)
        return parser.fields

    @task(2)
    def cost_box(self):
        fields = self._launch_form()
        self.client.post(
            f"/catalogue/{self.slug}/summary",
            data=fields,
            headers={"HX-Request": "true", "X-CSRFToken": fields.get("csrf_token", "")},
            name="cost box",
        )

    @task(1)
    def launch(self):
        if random.random() > SETTINGS.get("launch_share", 0.3):
            return
        fields = self._launch_form()
        fields["deployment_name"] = f"crowd {random.getrandbits(32):08x}"
        # The one required field without a default.
        fields["ssh_public_key"] = fields.get("ssh_public_key") or SETTINGS["ssh_public_key"]
        with self.client.post(
            f"/catalogue/{self.slug}/",
            data=fields,
            name="launch",
            allow_redirects=False,
            catch_response=True,
        ) as answer:
            if answer.status_code == 302 and "/deployments/" in answer.headers.get("Location", ""):
                OUTCOMES["launched"] += 1
                LAUNCHED["answered"] += 1
            else:
                answer.failure(f"launch answered {answer.status_code}")


class TrivialProbe(FastHttpUser):
    """The trivial page (the health check), once a second on each host, in the same run."""

    fixed_count = 2
    wait_time = between(1, 1)

    def __init__(self, environment):
        self.host = next(HOSTS)
        super().__init__(environment)

    @task
    def healthz(self):
        self.client.get("/healthz", name="trivial page")


def _in_window() -> bool:
    return WINDOW["start"] is not None and WINDOW["end"] is None


_send = FastHttpSession.request


def _counted_request(self, *args, **kwargs):
    """Every request, counted while it is under way if it started inside the window."""
    counted = _in_window()
    PENDING["requests"] += counted
    try:
        return _send(self, *args, **kwargs)
    finally:
        PENDING["requests"] -= counted


FastHttpSession.request = _counted_request


@events.request.add_listener
def _measure(name, response_time, start_time=None, exception=None, context=None, **_meta):
    opened, closed = WINDOW["start"], WINDOW["end"]
    if opened is None or start_time is None or start_time < opened:
        return
    if closed is not None and start_time >= closed:
        return
    TIMES[name].append(response_time)
    if language := (context or {}).get("language"):
        LANGUAGE_TIMES[(name, language)].append(response_time)
    if exception is not None:
        FAILURES[(name, str(exception))] += 1


def _percentile(times: list[float], share: float) -> float:
    """The nearest-rank percentile: the smallest time that ``share`` of the requests met."""
    ordered = sorted(times)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _figures() -> dict:
    kinds = {}
    for name in sorted(TIMES):
        times = TIMES[name]
        kinds[name] = {
            "requests": len(times),
            "failures": sum(n for (kind, _error), n in FAILURES.items() if kind == name),
            "p50": _percentile(times, 0.5),
            "p95": _percentile(times, 0.95),
        }
    languages: dict[str, dict] = defaultdict(dict)
    for (name, language), times in sorted(LANGUAGE_TIMES.items()):
        languages[language][name] = {"requests": len(times), "p95": _percentile(times, 0.95)}
    errors = {f"{name}: {error}": n for (name, error), n in FAILURES.items()}
    return {
        "kinds": kinds,
        "languages": languages,
        "errors": errors,
        "outcomes": dict(OUTCOMES),
    }


def run() -> None:
    researchers, duration = SETTINGS["researchers"], SETTINGS["duration"]
    env = Environment(user_classes=[Researcher, TrivialProbe], events=events)
    runner = env.create_local_runner()
    runner.start(researchers + TrivialProbe.fixed_count, spawn_rate=SETTINGS["spawn_rate"])
    runner.spawning_greenlet.join()
    # Logins (password hashing, costly by design) and the ramp-up are not what is measured.
    deadline = time.monotonic() + 600
    while LOGGED_IN["done"] < researchers and time.monotonic() < deadline:
        gevent.sleep(1)
    gevent.sleep(SETTLE_SECONDS)
    OUTCOMES.clear()
    WINDOW["start"] = time.time()
    gevent.sleep(duration)
    WINDOW["end"] = time.time()
    # Requests started inside the window are measured to their end, however long they take.
    deadline = time.monotonic() + IN_FLIGHT_SECONDS
    while PENDING["requests"] and time.monotonic() < deadline:
        gevent.sleep(0.2)
    gevent.sleep(0.5)  # a with-block reports its request just after the answer
    figures = _figures()
    figures["unanswered"] = PENDING["requests"]
    figures["seconds"] = WINDOW["end"] - WINDOW["start"]
    figures["window"] = [WINDOW["start"], WINDOW["end"]]
    figures["launches_answered"] = LAUNCHED["answered"]
    figures["login_refusals"] = dict(LOGIN_REFUSALS)
    runner.quit()
    print(json.dumps(figures))


if __name__ == "__main__":
    run()
