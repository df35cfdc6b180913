"""A member's limits and budgets inside a group: set by the group's managers (and operators)
on /groups/<group>/members/<username>/limits, never above the group's own, recorded with who
and why; every bad input refused in words beside its field with nothing typed lost; and the
launch decision holding a person to them."""

import re
from datetime import datetime

import pytest
from sqlalchemy import select

from app.auth import managers
from app.auth.models import User
from app.clock import set_clock
from app.extensions import db
from app.lines import places, reading
from app.quotas.budgets import budget_left, set_budget
from app.quotas.errors import QuotaExceeded
from app.quotas.models import GROUP, IN_GROUP, QuotaChange, QuotaLimit, member_subject
from app.quotas.operations import assess_launch, reserve
from app.quotas.usage_models import UsageBudget
from tests.conftest import csrf_from
from tests.quotas.conftest import Quotas, charge, new_deployment

NOW = datetime(2026, 11, 20, 12, 0)


class World:
    """Group physics with its pool, its manager mia, members ada and bea, and hal who
    manages chemistry; each logged in with their own browser."""

    def __init__(self, app, people_for):
        self.app = app
        self.quotas = Quotas(app)
        self.ids, self.clients = {}, {}
        roles = {"olga": ("operator",)}
        groups = {"ada": ["physics"], "bea": ["physics"], "mia": ["staff"], "hal": ["staff"]}
        with app.app_context():
            for name in ("ada", "bea", "mia", "hal", "olga", "sam"):
                user_id = people_for(app, None).create(name, roles=roles.get(name, ()))
                user = db.session.get(User, user_id)
                user.groups = groups.get(name, [])
                db.session.commit()
                self.ids[name] = user_id
            managers.name_manager("physics", db.session.get(User, self.ids["mia"]), "test")
            managers.name_manager("chemistry", db.session.get(User, self.ids["hal"]), "test")
        self.quotas.limit(GROUP, "physics", cores="8", gpus="4", memory="64 GB")
        for name in self.ids:
            client = app.test_client()
            assert people_for(app, client).login(name).status_code == 302
            self.clients[name] = client

    def page(self, who, group="physics", member="ada"):
        return self.clients[who].get(f"/groups/{group}/members/{member}/limits")

    def post(self, who, data, group="physics", member="ada"):
        url = f"/groups/{group}/members/{member}/limits"
        page = self.clients[who].get(url).get_data(as_text=True)
        token = csrf_from(page)
        if data.get("form") == "budget":
            data = {f"budget-{k}" if k != "form" else k: v for k, v in data.items()}
            data["budget-csrf_token"] = _budget_token(page)
        else:
            data = {**data, "csrf_token": token}
        return self.clients[who].post(url, data=data)

    def stored(self, member="ada", group="physics") -> dict:
        with self.app.app_context():
            row = db.session.scalar(
                select(QuotaLimit).where(
                    QuotaLimit.scope == IN_GROUP,
                    QuotaLimit.subject == member_subject(self.ids[member], group),
                )
            )
            return dict(row.limits or {}) if row else {}

    def budgets(self, member="ada", group="physics"):
        with self.app.app_context():
            return [
                (b.resource, b.hours, b.period_days, b.actor_name, b.reason)
                for b in db.session.scalars(
                    select(UsageBudget).where(
                        UsageBudget.scope == IN_GROUP,
                        UsageBudget.subject == member_subject(self.ids[member], group),
                    )
                )
            ]


def _budget_token(page: str) -> str:
    return re.search(r'name="budget-csrf_token"[^>]*value="([^"]+)"', page).group(1)


def _text(answer) -> str:
    return answer.get_data(as_text=True)


@pytest.fixture
def world(app, people_for):
    return World(app, people_for)


def test_the_manager_sees_the_members_limits_beside_the_groups_and_sets_them(world):
    page = world.page("mia")
    assert page.status_code == 200
    text = _text(page)
    assert "ada in group physics" in text
    assert "8 cores, 4 GPUs, 64 GB of memory" in text
    assert '/groups/physics"' not in text  # no Group page in this portal: no link to it
    answer = world.post(
        "mia", {"form": "limits", "cores": "4", "gpu_models": "A100 = 2", "reason": "thesis"}
    )
    assert answer.status_code == 302
    assert world.stored() == {"cores": 4, "gpu_models": {"A100": 2}}
    with world.app.app_context():
        change = db.session.scalars(select(QuotaChange).where(QuotaChange.scope == IN_GROUP)).one()
        assert (change.actor_name, change.reason, change.old) == ("mia", "thesis", {})
    shown = _text(world.page("mia"))
    assert "Limits saved for ada in group physics." in shown
    assert "thesis" in shown and 'value="4"' in shown


def test_operators_set_them_too_and_a_budget_within_the_groups(world):
    with world.app.app_context():
        set_budget(None, GROUP, "physics", "gpus", 1000, 0, "grant")
    answer = world.post(
        "olga",
        {"form": "budget", "kind": "gpus", "hours": "200", "period": "month", "reason": "fair"},
    )
    assert answer.status_code == 302, _text(answer)
    assert world.budgets() == [("gpus", 200.0, 0, "olga", "fair")]
    assert "Budget saved for ada in group physics." in _text(world.page("olga"))
    text = _text(world.page("mia"))
    assert "fair" in text and "grant" in text


@pytest.mark.parametrize(
    ("field", "typed", "said"),
    [
        ("cores", "16", "Group physics's own limit is 8 cores; a member's cannot be more"),
        ("cores", "unlimited", "Group physics's own limit is 8 cores"),
        ("memory", "128 GB", "Group physics's own limit is 64 GB of memory"),
        ("gpu_models", "A100 = 5", "A100 GPUs: group physics's own limit is 4 GPUs"),
        ("cores", "-1", "must be a number of zero or more"),
        ("gpus", "two", "must be a whole number of zero or more"),
        ("memory", "lots", "Memory:"),
    ],
)
def test_a_limit_above_the_groups_or_unreadable_is_refused_and_nothing_typed_is_lost(
    world, field, typed, said
):
    data = {"form": "limits", "deployments": "3", "reason": "keep me", field: typed}
    answer = world.post("mia", data)
    assert answer.status_code == 400
    text = _text(answer)
    assert said in text.replace("&#39;", "'")
    assert 'value="keep me"' in text and 'value="3"' in text
    assert typed in text
    assert world.stored() == {}


def test_a_change_without_a_reason_is_refused(world):
    answer = world.post("mia", {"form": "limits", "cores": "2", "reason": ""})
    assert answer.status_code == 400
    assert "Say why the limits change" in _text(answer)
    assert world.stored() == {}


@pytest.mark.parametrize(
    ("hours", "said"),
    [
        ("1500", "Group physics's own budget is 1,000 GPU-hours; a member's cannot be more"),
        ("-5", "A budget is zero hours or more."),
        ("lots", "Hours are a number, such as 2000."),
    ],
)
def test_a_budget_above_the_groups_or_unreadable_is_refused_as_typed(world, hours, said):
    with world.app.app_context():
        set_budget(None, GROUP, "physics", "gpus", 1000, 0, "grant")
    data = {"form": "budget", "kind": "gpus", "hours": hours, "period": "30d", "reason": "why"}
    answer = world.post("mia", data)
    assert answer.status_code == 400
    text = _text(answer).replace("&#39;", "'")
    assert said in text
    assert f'value="{hours}"' in text and 'value="30d"' in text and 'value="why"' in text
    assert world.budgets() == []


def test_a_model_budget_may_not_pass_the_groups_gpu_hours_of_any_model(world):
    with world.app.app_context():
        set_budget(None, GROUP, "physics", "gpus", 100, 0, "grant")
    data = {"form": "budget", "kind": "model", "gpu_model": "A100", "hours": "101"}
    answer = world.post("mia", {**data, "period": "month", "reason": "r"})
    assert answer.status_code == 400
    assert "own budget is 100 GPU-hours" in _text(answer).replace("&#39;", "'")


@pytest.mark.parametrize(
    ("who", "group", "member"),
    [
        ("hal", "physics", "ada"),  # manages another group
        ("ada", "physics", "bea"),  # a member, not a manager
        ("sam", "physics", "ada"),  # nobody in particular
        ("mia", "physics", "sam"),  # not a member of the group
        ("mia", "physics", "nobody"),  # no such person
        ("mia", "chemistry", "ada"),  # a group mia does not manage
    ],
)
def test_anyone_else_and_anyone_not_in_the_group_is_answered_404(world, who, group, member):
    assert world.page(who, group, member).status_code == 404
    url = f"/groups/{group}/members/{member}/limits"
    token = csrf_from(_text(world.clients[who].get("/deployments/")))
    answer = world.clients[who].post(
        url, data={"csrf_token": token, "form": "limits", "cores": "1", "reason": "x"}
    )
    assert answer.status_code == 404
    assert world.stored(member="ada") == {}


def test_the_page_links_back_to_the_group_page_when_the_portal_has_one(make_app, people_for):
    app = make_app()
    app.add_url_rule("/groups/<group>", "groups.group_page", lambda group: group)
    world = World(app, people_for)
    assert 'href="/groups/physics"' in _text(world.page("mia"))


def _reserve(world, who, cores, group="physics"):
    with world.app.test_request_context():
        user = db.session.get(User, world.ids[who])
        deployment = new_deployment(user.id, group_name=group)
        deployment.status = "ready"
        reserve(user, group, charge(cores=cores), deployment)
        db.session.commit()


def test_a_launch_charged_to_the_group_must_fit_the_members_limits_there(world):
    world.post("mia", {"form": "limits", "cores": "2", "reason": "share"})
    _reserve(world, "ada", 2)
    with pytest.raises(QuotaExceeded) as refused:
        _reserve(world, "ada", 1)
    said = refused.value.message
    assert "This launch does not fit your limits in group physics, set by its managers." in said
    assert "already holds 2 cores of your limit there of 2 cores (1 core over)" in said
    _reserve(world, "bea", 4)  # others are bound by the pool alone
    _reserve(world, "ada", 1, group=None)  # and ada outside the group is not bound by it
    with world.app.test_request_context():
        ada = db.session.get(User, world.ids["ada"])
        found = assess_launch(ada, "physics", charge(cores=1))
        member = [a for a in found if a.member][0]
        assert places.line_of(ada.id, found).key == f"user:{ada.id}:cores:"
        assert member.title == "Your limits in group physics"


def test_the_line_plan_knows_the_members_limits(world):
    world.post("mia", {"form": "limits", "cores": "2", "reason": "share"})
    with world.app.test_request_context():
        waiting = reading.Waiting(1, world.ids["ada"], "physics", charge(cores=1))
        limits, used = reading.room_of([waiting])
        key = (IN_GROUP, member_subject(world.ids["ada"], "physics"), "cores", None)
        assert (limits[key], used[key]) == (2, 0)
        assert places.needs_of(world.ids["ada"], "physics", charge(cores=1))[key] == 1.0


def test_a_member_budget_binds_the_launches_charged_to_the_group(world):
    set_clock(lambda: NOW)
    with world.app.app_context():
        set_budget(None, GROUP, "physics", "gpus", 1000, 0, "grant")
    world.post(
        "mia",
        {"form": "budget", "kind": "gpus", "hours": "10", "period": "month", "reason": "r"},
    )
    with world.app.test_request_context():
        ada = db.session.get(User, world.ids["ada"])
        checks = budget_left(ada, "physics", charge(gpus=1, gpu_models={"A100": 1}), 24, NOW)
        inside = [c for c in checks if c.scope == IN_GROUP]
        assert len(inside) == 1 and not inside[0].fits
        assert "left in your budget in group physics this month" in inside[0].sentence
        assert budget_left(ada, None, charge(gpus=1, gpu_models={"A100": 1}), 24, NOW) == []
