"""What a source says cannot break the capacity pass, and every failure is seen: a number past
what the database holds is bounded, a source that never answered usably shows its failure on
the Capacity page and in ``flask capacity show``, ``flask capacity refresh`` fails when every
source failed and names them, and sizes read as the quotas write them."""

from app.capacity import snapshot
from app.capacity.refresh import refresh_due
from app.capacity.sources.base import MOST


def cli(app, *args):
    return app.test_cli_runner().invoke(args=["capacity", *args])


def test_a_number_past_what_the_database_holds_is_bounded_not_a_failed_pass(capacity_app, world):
    world.change("RECAS-BARI", cores=(2**64, 0), ram_gib=(2**80, 0))
    app = capacity_app("cluster-stats")
    with app.app_context():
        result = refresh_due()
        (bari,) = [free for free in snapshot.current() if free.site == "RECAS-BARI"]
    assert (result.read, result.failed) == (1, [])
    # RAM is read in MiB: bounded there, it is still more than any request asks.
    assert bari.cores == MOST and bari.memory_gib > 10**6
    assert all(node.cores <= MOST for node in bari.nodes)


def test_a_source_that_never_answered_usably_shows_its_failure(capacity_app, emulator, people_for):
    wrong = [{"kind": "cluster-stats", "url": f"{emulator.url}/papi/NOWHERE", "site": "RECAS-BARI"}]
    app = capacity_app("cluster-stats", CAPACITY_SOURCES=wrong)
    with app.app_context():
        refresh_due()
        refresh_due(everything=True)
    client = app.test_client()
    people_for(app, client).login_as("operator")
    page = client.get("/capacity/").get_data(as_text=True)
    sources = page[page.index("Last usable read") :]
    assert "Never: no read has given a usable answer yet" in sources
    assert "answered HTTP 404" in sources
    shown = cli(app, "show")
    assert "no usable read yet" in shown.output
    assert "last failure: The cluster statistics of RECAS-BARI answered HTTP 404" in shown.output
    italian = client.get("/capacity/", headers={"Accept-Language": "it"}).get_data(as_text=True)
    assert "Ultima lettura utilizzabile" in italian


def test_refresh_fails_when_every_source_failed_and_names_them(capacity_app, emulator, world):
    app = capacity_app("cluster-stats", "fedreg")
    world.faults.refuse = {"cluster-stats"}
    partly = cli(app, "refresh", "--all")
    assert partly.exit_code == 0
    assert f"failed: cluster-stats {emulator.url}/papi/RECAS-BARI:" in partly.output
    world.faults.refuse = True
    wholly = cli(app, "refresh", "--all")
    assert wholly.exit_code == 1
    assert "read 2 sources (2 failed)" in wholly.output
    assert f"failed: fedreg {emulator.url}/fedreg:" in wholly.output
    assert "Every capacity source read failed" in wholly.output


def test_sizes_read_as_the_quotas_write_them(capacity_app, people_for):
    app = capacity_app("cluster-stats")
    with app.app_context():
        refresh_due()
    client = app.test_client()
    people_for(app, client).login_as("operator")
    page = client.get("/capacity/").get_data(as_text=True)
    assert "1,408 GiB of memory" in page and "14,000 GiB of disk" in page
    assert ".0 GiB" not in page
    assert "1,408 GiB memory, 14,000 GiB disk" in cli(app, "show").output
