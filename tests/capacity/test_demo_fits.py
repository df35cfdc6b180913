"""``make run``'s demo: RECAS-BARI, known through its cluster statistics with four A100s free
on a node, has room for a one-A100 notebook on the launch form, and says why not for a
notebook needing more A100s than it has free."""

import html

import pytest

from app.capacity import operations
from app.capacity.emulators.demo import demo_world
from app.capacity.emulators.server import CapacityEmulatorServer, create_emulator
from app.capacity.refresh import refresh_due
from tests.conftest import People, csrf_from

FORM = "/catalogue/jupyter-ml-gpu/"
VALUES = {
    "num_gpus": "1",
    "gpu_model": "A100",
    "num_cpus": "8",
    "mem_size": "32 GB",
    "disk_size": "100 GB",
    "cuda_min_version": "12.2",
    "jupyter_password": "a long enough password 1",
}


@pytest.fixture
def demo(make_app, catalogue_database_url):
    """A portal reading the demo's capacity sources as ``make run`` configures them, with the
    demo's two sites, after one refresh pass."""
    server = CapacityEmulatorServer(create_emulator(demo_world(), open_to_anonymous=True))
    server.start()
    app = make_app(
        SQLALCHEMY_DATABASE_URI=catalogue_database_url,
        CAPACITY_SOURCES=[
            {
                "kind": "cluster-stats",
                "url": f"{server.url}/papi/RECAS-BARI",
                "site": "RECAS-BARI",
                "timeout": 10,
            },
            {"kind": "fedreg", "url": f"{server.url}/fedreg", "timeout": 10},
        ],
    )
    with app.app_context():
        operations.add_site("RECAS-BARI", "paas", "sla-recas-bari")
        operations.add_site("DEMO-SITE", "paas", "sla-demo-site")
        assert refresh_due(everything=True).failed == []
    yield app
    server.stop()


def box(app, **values) -> str:
    people = People(app, app.test_client())
    people.login_as("user", username="rita")
    token = csrf_from(people.client.get(FORM).get_data(as_text=True))
    response = people.client.post(FORM + "summary", data={"csrf_token": token, **VALUES, **values})
    assert response.status_code == 200
    return " ".join(html.unescape(response.get_data(as_text=True)).split())


def site_part(text: str, site: str) -> str:
    return text[text.index(f'data-site="{site}"') :][:900]


def test_the_demos_recas_bari_fits_a_one_a100_notebook(demo):
    bari = site_part(box(demo), "RECAS-BARI")
    assert "may not fit" not in bari and "fits" in bari
    assert "does not say how many" not in bari


def test_the_demos_recas_bari_says_why_five_a100s_do_not_fit(demo):
    bari = site_part(box(demo, num_gpus="5"), "RECAS-BARI")
    assert "does not fit" in bari
    assert "needs 5 A100 GPUs, 4 free at RECAS-BARI" in bari
