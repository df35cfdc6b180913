"""The Group page: seen by the group's managers, operators and admins, and by nobody else;
what it shows of the members, the running and waiting deployments, usage, limits, budgets."""

import re
from datetime import timedelta

import pytest

from app.clock import utcnow
from app.extensions import db
from app.groups import members as group_members
from app.groups import reading as group_reading
from tests.quotas.conftest import Quotas


@pytest.fixture
def physics(app, group):
    """physics, managed by pi; ada and bob its members; chemistry managed by chem-pi."""
    ids = {
        "pi": group.person("pi", groups=["physics-pi"]),
        "ada": group.person("ada", groups=["physics", "astro"], display_name="Ada Lovelace"),
        "bob": group.person("bob", groups=["physics"]),
        "carl": group.person("carl", groups=["chemistry"]),
        "chem-pi": group.person("chem-pi"),
        "stranger": group.person("stranger"),
        "operator": group.person("operator", roles=("operator",)),
        "admin": group.person("admin", roles=("admin",)),
    }
    group.manager("physics", "pi")
    group.manager("chemistry", "chem-pi")
    return ids


@pytest.mark.parametrize(
    ("who", "sees"),
    [
        ("pi", True),
        ("operator", True),
        ("admin", True),
        ("chem-pi", False),
        ("ada", False),
        ("stranger", False),
    ],
)
def test_a_groups_page_is_seen_by_its_managers_operators_and_admins_alone(
    app, people, physics, who, sees
):
    client = app.test_client()
    assert people.login(who, client=client).status_code == 302
    answer = client.get("/groups/physics")
    assert answer.status_code == (200 if sees else 404)
    listed = client.get("/groups/")
    if who in ("ada", "stranger"):
        assert listed.status_code == 404
    else:
        assert listed.status_code == 200
        assert ("/groups/physics" in listed.get_data(as_text=True)) == sees


def test_a_manager_by_membership_sees_the_page_and_the_menu(make_app, people_for):
    app = make_app(GROUP_MANAGER_GROUPS={"physics": ["physics-pi"]})
    people = people_for(app, app.test_client())
    from tests.groups.conftest import Group

    Group(app, people).person("enrico", groups=["physics-pi"])
    with app.app_context():
        from app.auth.local import find_local_user
        from app.auth.managers import refresh_membership

        refresh_membership(find_local_user("enrico"))
        db.session.commit()
    client = app.test_client()
    assert people.login("enrico", client=client).status_code == 302
    home = client.get("/deployments/").get_data(as_text=True)
    assert 'href="/groups/"' in home and "My groups" in home
    assert client.get("/groups/physics").status_code == 200
    assert client.get("/groups/chemistry").status_code == 404


def test_the_menu_shows_my_groups_to_named_managers_only(app, people, physics):
    manager, member = app.test_client(), app.test_client()
    people.login("pi", client=manager)
    people.login("ada", client=member)
    assert 'href="/groups/"' in manager.get("/deployments/").get_data(as_text=True)
    assert 'href="/groups/"' not in member.get("/deployments/").get_data(as_text=True)


def test_the_bar_asks_no_query_of_its_own_whether_someone_manages_a_group(app, people, physics):
    """The login check counts the groups the person was named a manager of: someone named
    nowhere gets the bar's entry and Lines link decided without a query, and a named manager
    still gets both."""
    from sqlalchemy import event

    member, manager = app.test_client(), app.test_client()
    people.login("ada", client=member)
    people.login("pi", client=manager)
    seen: list[str] = []
    with app.app_context():
        engine = db.engine

    def count(_connection, _cursor, statement, *_args):
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        page = member.get("/deployments/").get_data(as_text=True)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert seen and not [s for s in seen if s.lstrip().startswith("SELECT group_managers.")]
    assert 'href="/groups/"' not in page and 'href="/lines/"' not in page
    page = manager.get("/deployments/").get_data(as_text=True)
    assert 'href="/groups/"' in page and 'href="/lines/"' in page


def test_the_page_shows_members_with_what_they_run_and_used_this_month(app, people, physics, group):
    group.running(physics["ada"], "physics", name="ada-notebook", cores=4)
    group.running(physics["ada"], "physics", name="ada-gpu", gpus=2, gpu_models={"A100": 2})
    group.running(physics["bob"], "physics", name="bob-vm", cores=1)
    group.running(physics["ada"], "astro", name="ada-astro", cores=8)  # another group's
    gone = group.running(physics["carl"], "physics", name="carl-gone", cores=1)
    group.update(gone, status="deleted")
    client = app.test_client()
    people.login("pi", client=client)
    page = client.get("/groups/physics").get_data(as_text=True)
    for shown in ("Ada Lovelace", "bob", "ada-notebook", "ada-gpu", "bob-vm"):
        assert shown in page
    assert "ada-astro" not in page and "carl-gone" not in page
    assert "carl" not in page.split('id="members"')[1].split("</section>")[0]
    assert f'href="/deployments/{gone}"' not in page
    with app.app_context():
        shown = group_members.members_page("physics")
        assert [m.user.username for m in shown.members] == ["ada", "bob"]
        assert [m.running for m in shown.members] == [2, 1]
        assert shown.total == 2


def test_members_are_found_exactly_whatever_their_groups_look_like(app, group):
    group.person("one", groups=["physics/cms"])
    group.person("two", groups=["physics"])
    group.person("three", groups=["Physik-ü", "x"])
    group.person("four", groups=["physics-pi", 'quoted"name'])
    group.person("five", groups=[])
    with app.app_context():
        names = lambda g: [m.user.username for m in group_members.members_page(g).members]  # noqa: E731
        assert names("physics") == ["two"]
        assert names("physics/cms") == ["one"]
        assert names("Physik-ü") == ["three"]
        assert names('quoted"name') == ["four"]
        assert names("phys") == []


def test_members_are_paged_by_username_and_past_the_end_the_last_page_shows(app, group):
    for name in ("dan", "ann", "cat", "bea", "eve"):
        group.person(name, groups=["physics"])
    with app.app_context():
        pages = {n: group_members.members_page("physics", n, size=2) for n in (1, 3, 9)}
    assert [m.user.username for m in pages[1].members] == ["ann", "bea"]
    assert [m.user.username for m in pages[3].members] == ["eve"]
    assert (pages[9].page, [m.user.username for m in pages[9].members]) == (3, ["eve"])
    assert {p.total for p in pages.values()} == {5}
    assert pages[1].pages == 3


def test_running_deployments_are_paged_newest_first(app, people, physics, group):
    start = utcnow() - timedelta(days=2)
    for n in range(30):
        group.running(
            physics["bob"], "physics", name=f"run-{n:02d}", created_at=start + timedelta(minutes=n)
        )
    client = app.test_client()
    people.login("pi", client=client)
    first = client.get("/groups/physics").get_data(as_text=True)
    assert "run-29" in first and "run-05" in first and "run-04" not in first
    assert first.index("run-29") < first.index("run-28")
    assert "/groups/physics?running=2#running" in first
    second = client.get("/groups/physics?running=2").get_data(as_text=True)
    assert "run-04" in second and "run-00" in second and "run-05" not in second
    past = client.get("/groups/physics?running=99").get_data(as_text=True)
    assert "run-00" in past


def test_waiting_requests_show_their_place_in_their_line(app, people, physics, group):
    line = "group:physics:gpus:"
    start = utcnow() - timedelta(hours=3)
    group.waiting(physics["ada"], "physics", "first-wait", line, start)
    group.waiting(physics["carl"], "chemistry", "chem-wait", line, start + timedelta(minutes=1))
    group.waiting(physics["bob"], "physics", "third-wait", line, start + timedelta(minutes=2))
    client = app.test_client()
    people.login("pi", client=client)
    page = client.get("/groups/physics").get_data(as_text=True)
    waiting = page.split('id="waiting"')[1].split("</section>")[0]
    assert "first-wait" in waiting and "third-wait" in waiting and "chem-wait" not in waiting
    places = re.findall(r'>([\w-]+-wait)</a></th>\s*<td data-label="Place">(\d+)<', waiting)
    assert places == [("first-wait", "1"), ("third-wait", "3")]


def test_waiting_requests_are_paged_and_past_the_end_the_last_page_shows(
    app, people, physics, group
):
    line = "group:physics:gpus:"
    start = utcnow() - timedelta(hours=3)
    for n in range(5):
        group.waiting(physics["ada"], "physics", f"wait-{n}", line, start + timedelta(minutes=n))
    with app.app_context():
        pages = {n: group_reading.waiting_requests("physics", n, size=2) for n in (1, 3, 9)}
    names = {n: [w.deployment.name for w in p.rows] for n, p in pages.items()}
    assert names == {1: ["wait-0", "wait-1"], 3: ["wait-4"], 9: ["wait-4"]}
    assert [w.place for w in pages[3].rows] == [5]
    assert (pages[9].page, pages[9].total, pages[1].pages) == (3, 5, 3)
    with app.app_context():
        assert group_reading.waiting_requests("chemistry").total == 0


def test_limits_and_budgets_show_what_is_left_and_when_it_renews(app, people, physics, group):
    Quotas(app).limit("group", "physics", cores="16")
    Quotas(app).limit("member", "physics", gpus="2")
    group.budget("physics", "gpus:A100", 100.0)
    group.budget("physics", "cores", 500.0)
    group.running(physics["ada"], "physics", cores=4)
    client = app.test_client()
    people.login("pi", client=client)
    page = client.get("/groups/physics").get_data(as_text=True)
    limits = page.split('id="limits"')[1]
    assert "A100 GPU-hours" in limits and "Core-hours" in limits
    assert "100.0" in limits and "500.0" in limits
    renewal = (utcnow().date().replace(day=28) + timedelta(days=4)).replace(day=1)
    assert renewal.strftime("%Y") in limits
    assert "2 GPUs" in limits  # the members' default


def test_each_member_links_to_their_limits_inside_the_group(app, people, physics):
    client = app.test_client()
    people.login("pi", client=client)
    page = client.get("/groups/physics").get_data(as_text=True)
    assert "/groups/physics/members/ada/limits" in page
    assert client.get("/groups/physics/members/ada/limits").status_code == 200


def test_a_group_named_with_slashes_has_its_page(app, people, group):
    group.person("cms-pi")
    group.person("muon", groups=["physics/cms"])
    group.manager("/physics/cms/", "cms-pi")
    client = app.test_client()
    people.login("cms-pi", client=client)
    page = client.get("/groups/physics/cms")
    assert page.status_code == 200 and "muon" in page.get_data(as_text=True)
    assert 'href="/groups/physics/cms"' in client.get("/groups/").get_data(as_text=True)


def test_the_page_reads_in_italian(app, people, physics):
    client = app.test_client()
    people.login("pi", client=client)
    page = client.get("/groups/physics", headers={"Accept-Language": "it"}).get_data(as_text=True)
    assert "Membri" in page and "I miei gruppi" in page


def test_the_rows_escape_every_value_as_the_template_did(app, people, physics, group):
    odd = "<b>\"Ada\" & 'co'</b>"
    with app.app_context():
        from app.auth.models import User

        db.session.get(User, physics["ada"]).display_name = odd
        db.session.get(User, physics["bob"]).active = False
        db.session.commit()
    group.running(physics["ada"], "physics", name="<i>run & go</i>", cores=3)
    line = "group:physics:gpus:"
    group.waiting(physics["bob"], "physics", "<w>'wait'", line, utcnow() - timedelta(hours=1))
    client = app.test_client()
    people.login("pi", client=client)
    page = client.get("/groups/physics").get_data(as_text=True)
    members = page.split('id="members"')[1].split("</section>")[0]
    assert (
        '<span class="fw-semibold">&lt;b&gt;&#34;Ada&#34; &amp; &#39;co&#39;&lt;/b&gt;</span> '
        '<span class="d-block text-body-secondary small">ada</span></th>'
    ) in members
    # bob: no display name, so no second line; disabled, so the badge
    assert (
        '<span class="fw-semibold">bob</span> <span class="badge text-bg-secondary">disabled'
        "</span></th>"
    ) in members
    assert '<a href="/groups/physics/members/ada/limits">Limits of ada</a>' in members
    running = page.split('id="running"')[1].split("</section>")[0]
    assert ">&lt;i&gt;run &amp; go&lt;/i&gt;</a>" in running
    assert 'data-label="Resources">3 cores' in running
    assert "<i>" not in running
    waiting = page.split('id="waiting"')[1].split("</section>")[0]
    assert ">&lt;w&gt;&#39;wait&#39;</a></th>" in waiting and "<w>" not in waiting
