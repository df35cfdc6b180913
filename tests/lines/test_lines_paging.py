"""The operators' Lines page a page at a time: ten thousand waiting requests in three lines,
each line kept together with its count, the last request reachable, a page past the end
answered with the last page and said so, and the same few queries for any page."""

import re

import pytest
from sqlalchemy import event, select

from app.deployments.models import Deployment
from app.extensions import db
from app.lines import places
from app.lines.listing import PAGE_SIZE
from app.lines.models import LineEntry
from tests.conftest import People, csrf_from
from tests.lines.crowd import GROUP_LINE, SITE_LINE, fill

# The lines as the pages lay them out: by key, so the group's first, the site's, then ada's own.
SIZES = {GROUP_LINE: 6450, SITE_LINE: 550, "user": 3000}


@pytest.fixture
def crowded(make_app):
    """A portal with ten thousand waiting requests, and an operator logged in."""
    app = make_app()
    client = app.test_client()
    people = People(app, client)
    ada = people.create("ada")
    people.login_as("operator", username="olga")
    fill(app, ada, GROUP_LINE, SIZES[GROUP_LINE], "grp")
    fill(app, ada, SITE_LINE, SIZES[SITE_LINE], "site")
    fill(app, ada, f"user:{ada}:cores:", SIZES["user"], "own")
    return app, client


def sections(page: str) -> list[tuple[str, list[tuple[int, str]]]]:
    """Each line shown: its heading, and its rows' (place, request name)."""
    found = []
    for part in page.split('<section class="mb-4 waiting-line"')[1:]:
        heading = re.search(r"<h2[^>]*>(.*?)</h2>", part, re.S).group(1)
        rows = re.findall(r'<tr class="line-entry">\s*<td>([\d,]+)</td>\s*<td>([\w-]+)<', part)
        found.append((" ".join(heading.split()), [(int(p.replace(",", "")), n) for p, n in rows]))
    return found


def test_every_page_keeps_its_lines_together_with_their_counts(crowded):
    app, client = crowded
    assert sum(SIZES.values()) == 100 * PAGE_SIZE == 10_000
    first = client.get("/lines/").get_data(as_text=True)
    assert "10,000 requests wait in line." in first
    assert "This page shows requests 1 to 100." in first
    assert "Page 1 of 100" in first
    # The overview names every line, its count and the page it starts on.
    counts = re.findall(r'<tr class="lines-count">.*?</tr>', first, re.S)
    assert len(counts) == 3
    assert "6,450" in counts[0] and "550" in counts[1] and "3,000" in counts[2]
    assert re.search(r'page=65#line-2".*?>65<', counts[1], re.S)
    (line,) = sections(first)
    assert line[0].startswith("A100 GPUs in group physics") and "6,450" in line[0]
    assert line[1][0] == (1, "grp-00001") and line[1][-1] == (100, "grp-00100")

    # Page 65 ends the group's line and starts the sites' one: each under its own heading.
    split = sections(client.get("/lines/?page=65").get_data(as_text=True))
    assert [len(rows) for _heading, rows in split] == [50, 50]
    assert split[0][1][-1] == (6450, "grp-06450")
    assert split[1][0].startswith("GPUs free at a site")
    assert split[1][1][0] == (1, "site-00001")


def test_the_ten_thousandth_request_is_on_the_last_page(crowded):
    app, client = crowded
    last = client.get("/lines/?page=100").get_data(as_text=True)
    (line,) = sections(last)
    assert line[0].startswith("CPU cores under the own limit of ada")
    assert line[1][-1] == (3000, "own-03000")
    assert "Places 2,901 to 3,000 of 3,000." in last
    assert "This page shows requests 9,901 to 10,000." in last
    assert "lines-past-end" not in last and "Next page" not in last
    with app.app_context():
        newest = db.session.scalar(
            select(LineEntry).join(Deployment).where(Deployment.name == "own-03000")
        )
        assert places.position(newest) == 3000  # the place shown is the place a move counts


def test_a_page_past_the_end_shows_the_last_one_and_says_so(crowded):
    _app, client = crowded
    for asked in ("101", "5000", "99999999999999"):
        answer = client.get(f"/lines/?page={asked}")
        assert answer.status_code == 200
        page = answer.get_data(as_text=True)
        assert "lines-past-end" in page
        assert "the lines fill 100 pages. This is the last one." in page
        assert sections(page)[-1][1][-1] == (3000, "own-03000")
    assert "There is no page 5,000:" in client.get("/lines/?page=5000").get_data(as_text=True)


def test_a_page_number_that_names_no_page_shows_the_first(crowded):
    _app, client = crowded
    for asked in ("0", "-3", "abc", ""):
        page = client.get(f"/lines/?page={asked}").get_data(as_text=True)
        assert "Page 1 of 100" in page and "lines-past-end" not in page


def test_any_page_costs_the_same_few_queries(crowded):
    app, client = crowded
    counted = []

    def count(*_args):
        counted.append(1)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        costs = {}
        for page in (1, 65, 100):
            counted.clear()
            assert client.get(f"/lines/?page={page}").status_code == 200
            costs[page] = len(counted)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    # Login and session reads, the counts, the page, its deployments and its owners, and who
    # may move or remove each (their relations, read at once): never one per request listed
    # (a page lists PAGE_SIZE of them).
    assert max(costs.values()) <= 9 < PAGE_SIZE, costs
    assert len(set(costs.values())) == 1, costs


def test_a_move_comes_back_to_the_page_it_was_made_on(crowded):
    app, client = crowded
    page = client.get("/lines/?page=70").get_data(as_text=True)
    (line,) = sections(page)
    place, name = line[1][-1]
    with app.app_context():
        deployment_id = db.session.scalar(select(Deployment.id).where(Deployment.name == name))
    moved = client.post(
        f"/lines/{deployment_id}/move",
        data={"csrf_token": csrf_from(page), "place": "1", "reason": "deadline", "page": "70"},
    )
    assert moved.status_code == 302 and moved.headers["Location"].endswith("/lines/?page=70")
    assert (place, name) == (550, "site-00550")  # pages 65 to 70 hold the sites' line
    front = sections(client.get("/lines/?page=65").get_data(as_text=True))[1]
    assert front[1][0] == (1, name)


def test_the_pages_speak_italian(crowded):
    _app, client = crowded
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "it"
    page = client.get("/lines/?page=101").get_data(as_text=True)
    assert "10.000 richieste in coda." in page
    assert "Pagina 100 di 100" in page and "Vai alla pagina" in page
    assert "Non esiste la pagina 101: le code occupano 100 pagine." in page
