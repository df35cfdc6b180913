"""What people see of leases: the duration on the launch form with when it would end, time
left on My deployments and the deployment page, Extend as a plain form (or why not), and the
operators' policy page with its history."""

import re

from app.extensions import db
from app.leases.models import Lease
from tests.conftest import csrf_from
from tests.launch.test_launch_form import form_data as _form_data
from tests.launch.test_launch_form import login


def form_data(page: str, **values) -> dict:
    return _form_data(page, jupyter_password="s3cret-passw0rd", **values)


TIME = re.compile(r'<time datetime="(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)">([^<]*)</time>')


def test_the_launch_form_offers_a_duration_within_the_policy_and_says_when_it_ends(
    emulated, leases
):
    leases.policy(default="8h", max_initial="3d", extend_step="1d", cap="14d")
    ada = emulated.user("ada")
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)

    assert re.search(r'id="lease_duration" name="lease_duration" type="text"[^>]*value="8h"', page)
    assert "Up to 3 days: write 90m, 8h or 2d." in page
    offer = page[page.index('id="lease-offer"') :]
    assert "Ends about" in offer and "once ready; can be extended up to" in offer
    # Written as every time of the portal: in the reader's zone, the zone named.
    times = TIME.findall(offer)
    assert len(times) == 2 and all(re.search(r"\d{4}, \d\d:\d\d UTC$", text) for _, text in times)

    answer = client.post("/catalogue/test-notebook/", data=form_data(page, lease_duration="90m"))

    assert answer.status_code == 302
    with emulated.app.app_context():
        [lease] = db.session.scalars(db.select(Lease)).all()
        assert lease.minutes == 90 and lease.deployment.user_id == ada


def test_a_duration_beyond_the_policy_is_refused_beside_the_field_and_nothing_launched(
    emulated, leases
):
    leases.policy(default="8h", max_initial="1d")
    emulated.user("ada")
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)

    for typed, message in (
        ("3d", "Choose 1 day or less: the longest this application may run at first."),
        ("soon", "write a duration as a number and a unit"),
    ):
        answer = client.post(
            "/catalogue/test-notebook/", data=form_data(page, lease_duration=typed)
        )
        html = answer.get_data(as_text=True)
        assert answer.status_code == 400 and message in html
        assert f'value="{typed}"' in html  # what was typed is kept
    assert emulated.emulator.deployments() == []


def test_the_end_time_sentence_follows_what_is_typed(emulated, leases):
    leases.policy(default="8h", max_initial="1d")
    emulated.user("ada")
    client = login(emulated, "ada")
    answer = client.get("/leases/offer?template=test-notebook&lease_duration=2h")
    assert "Ends about" in answer.get_data(as_text=True)
    answer = client.get("/leases/offer?template=test-notebook&lease_duration=2w")
    assert "write a duration" in answer.get_data(as_text=True)


def test_without_a_policy_the_form_has_no_duration(emulated):
    emulated.user("ada")
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)
    assert "lease_duration" not in page


def _ready_lease(emulated, leases, **policy):
    leases.policy(**policy)
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)
    return deployment_id, login(emulated, "ada")


def test_time_left_and_the_end_are_shown_with_extend_as_a_plain_form(emulated, leases, clock):
    deployment_id, client = _ready_lease(
        emulated, leases, default="1d", extend_step="1d", cap="3d", warn="1h"
    )
    listed = client.get("/deployments/").get_data(as_text=True)
    row = listed[listed.index(f'id="deployment-{deployment_id}"') :]
    assert "23 hours 59 minutes" in row or "1 day 0 hours" in row
    assert "text-bg-secondary" in row.split("</tr>")[0]
    page = client.get(f"/deployments/{deployment_id}").get_data(as_text=True)
    lease = page[page.index('id="lease"') :]
    ends = TIME.search(lease).group(1)
    assert ends == leases.lease(deployment_id).ends_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert f'action="/deployments/{deployment_id}/extend"' in lease

    answer = client.post(
        f"/deployments/{deployment_id}/extend", data={"csrf_token": csrf_from(page)}
    )

    assert answer.status_code == 302 and answer.location.endswith(f"/deployments/{deployment_id}")
    page = client.get(answer.location).get_data(as_text=True)
    assert "Extended: it now ends" in page
    assert leases.lease(deployment_id).extends == 1
    clock.move(hours=47, minutes=30)  # past the first warning: amber
    client = login(emulated, "ada")  # the session ended meanwhile
    page = client.get(f"/deployments/{deployment_id}").get_data(as_text=True)
    assert 'class="badge fs-6 text-bg-warning"' in page


def test_a_refused_extend_shows_its_reason_beside_the_button(emulated, leases, clock):
    deployment_id, client = _ready_lease(
        emulated, leases, default="3d", extend_step="1d", extend_window="2d"
    )
    page = client.get(f"/deployments/{deployment_id}").get_data(as_text=True)
    assert "Not now: extends open 2 days before the end." in page
    assert re.search(r"<button[^>]*disabled[^>]*>Extend</button>", page)

    # Posted anyway (a stale page): refused with the same reason, nothing changed.
    answer = client.post(
        f"/deployments/{deployment_id}/extend", data={"csrf_token": csrf_from(page)}
    )
    page = client.get(answer.location).get_data(as_text=True)
    assert "This lease cannot be extended now: extends open 2 days before the end." in page
    assert leases.lease(deployment_id).extends == 0


def test_in_the_grace_period_the_countdown_is_red(emulated, leases, clock):
    deployment_id, client = _ready_lease(emulated, leases, default="1h", grace="2h")
    clock.move(minutes=61)
    leases.expire()
    page = client.get(f"/deployments/{deployment_id}").get_data(as_text=True)
    assert "text-bg-danger" in page[page.index('id="lease"') :]
    assert "The portal deletes this deployment" in page


def test_operators_edit_policies_with_a_reason_and_see_the_history(emulated, leases):
    from app.auth.models import User
    from app.auth.operations import grant_role

    olga = emulated.user("olga")
    with emulated.app.app_context():
        grant_role(db.session.get(User, olga), "operator", granted_by="test")
        db.session.commit()
    client = login(emulated, "olga")
    url = "/leases/?template=test-notebook&group=physics"
    page = client.get(url).get_data(as_text=True)
    token = csrf_from(page)

    refused = client.post(
        url, data={"csrf_token": token, "default": "3d", "cap": "1d", "reason": "x"}
    )
    assert refused.status_code == 400
    assert "longer than the cap" in refused.get_data(as_text=True)
    missing = client.post(url, data={"csrf_token": token, "default": "8h", "reason": ""})
    assert missing.status_code == 400 and "Say why" in missing.get_data(as_text=True)
    saved = client.post(
        url, data={"csrf_token": token, "default": "8h", "warn": "1h", "reason": "GPU demo"}
    )
    assert saved.status_code == 302
    page = client.get(url).get_data(as_text=True)
    assert 'value="8h"' in page and "GPU demo" in page and "olga" in page
    assert "template test-notebook in group physics" in page


def test_researchers_cannot_reach_the_policy_page(emulated):
    emulated.user("ada")
    client = login(emulated, "ada")
    assert client.get("/leases/").status_code == 403


def test_an_operator_extends_past_the_policy_from_the_page_with_a_reason(emulated, leases):
    from app.auth.models import User
    from app.auth.operations import grant_role

    leases.policy(default="1d", cap="1d")
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)
    olga = emulated.user("olga", admin=True)
    with emulated.app.app_context():
        grant_role(db.session.get(User, olga), "operator", granted_by="test")
        db.session.commit()
    client = login(emulated, "olga")
    page = client.get(f"/deployments/{deployment_id}").get_data(as_text=True)
    assert "Extend past the policy (operators)" in page
    url = f"/deployments/{deployment_id}/extend"
    token = csrf_from(page)

    refused = client.post(url, data={"csrf_token": token, "override": "1", "by": "2d"})
    assert "Say why this lease is extended past its policy" in client.get(
        refused.location
    ).get_data(as_text=True)
    client.post(url, data={"csrf_token": token, "override": "1", "by": "2d", "reason": "Defence"})

    lease = leases.lease(deployment_id)
    assert (lease.ends_at - lease.started_at).days == 3
    event = emulated.row(deployment_id).events[-1]
    assert event.kind == "lease-extended" and event.source == "admin"
    assert event.details["past_cap"] is True and event.details["reason"] == "Defence"
