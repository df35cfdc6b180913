"""The budgets a launch meets are read together: the figures are those of reading each owner's
use and commitments apart, in fewer statements."""

from datetime import datetime, timedelta

import pytest
from sqlalchemy import event

from app.auth.models import User
from app.clock import set_clock
from app.extensions import db
from app.leases.editing import set_policy
from app.quotas.budget_usage import used_by_period
from app.quotas.budgets import budget_left, period_of
from app.quotas.commitments import committed_by_ends
from app.quotas.models import GROUP, USER
from app.quotas.usage_marks import account_usage_once
from app.quotas.usage_models import CORE_HOURS
from app.quotas.usage_totals import one_reading, used_since
from tests.clocks import Clock
from tests.quotas.conftest import charge
from tests.quotas.test_budgets import A100, NOW, budget


@pytest.fixture
def clock():
    at = Clock(NOW - timedelta(hours=24))
    set_clock(at)
    return at


def _three_budgets_and_what_runs(quotas, clock):
    """A person in physics with a core-hours budget, physics with a monthly A100 and a 30-day
    any-model budget; deployments of theirs, of another member, and of theirs in no group,
    some finished, some running."""
    user = quotas.user(groups=["physics"])
    other = quotas.user(groups=["physics"])
    clock.at = NOW - timedelta(days=3)
    done = quotas.hold(user, charge(cores=8, gpus=1, gpu_models={"A100": 1}), group_name="physics")
    clock.at = NOW - timedelta(hours=30)
    quotas.update(done, status="deleted")
    clock.at = NOW - timedelta(hours=5)
    quotas.hold(user, charge(cores=4, gpus=2, gpu_models={"A100": 2}), group_name="physics")
    quotas.hold(other, charge(cores=2, gpus=1, gpu_models={"T4": 1}), group_name="physics")
    quotas.hold(user, charge(cores=16))
    clock.at = NOW
    with quotas.app.app_context():
        set_policy(None, None, None, {"default": 300}, "test")  # what runs ends in 5 hours
    budget(quotas, USER, user, CORE_HOURS, 1_000)
    budget(quotas, GROUP, "physics", A100, 500)
    budget(quotas, GROUP, "physics", "gpus", 2_000, period_days=30)
    return user


def test_the_budgets_of_a_person_and_their_group_are_those_read_owner_by_owner(quotas, clock):
    from app.launch.constraints.budget import committed_hours, lease_ends

    user = _three_budgets_and_what_runs(quotas, clock)
    owners = {USER: {"user_id": user}, GROUP: {"group_name": "physics"}}
    with quotas.app.test_request_context():
        person = db.session.get(User, user)
        request = charge(cores=8, gpus=2, gpu_models={"A100": 2})
        found = budget_left(person, "physics", request, 24, NOW, committed=committed_hours())
        assert len(found) == 3
        one_by_one = committed_by_ends(lease_ends)
        for check in found:
            owner = owners[check.scope]
            start, renewal = period_of(check.period_days, NOW)
            used = used_since(start, **owner, now=NOW)
            apart = one_by_one(owner, NOW, renewal)
            resource = check.resource
            expected_used = used.core_hours if resource == CORE_HOURS else used.gpu(check.model)
            expected_committed = (
                apart.core_hours if resource == CORE_HOURS else apart.gpu(check.model)
            )
            assert round(check.used, 6) == round(expected_used, 6) > 0
            assert round(check.committed, 6) == round(expected_committed, 6) > 0


def test_three_budgets_of_a_person_and_their_group_cost_a_few_statements(quotas, clock):
    from app.launch.constraints.budget import committed_hours

    user = _three_budgets_and_what_runs(quotas, clock)
    sent = []
    with quotas.app.test_request_context():
        person = db.session.get(User, user)
        request = charge(cores=8, gpus=2, gpu_models={"A100": 2})
        budget_left(person, "physics", request, 24, NOW, committed=committed_hours())

        def count(_conn, _cursor, statement, *_rest):
            sent.append(statement)

        event.listen(db.engine, "before_cursor_execute", count)
        try:
            found = budget_left(person, "physics", request, 24, NOW, committed=committed_hours())
        finally:
            event.remove(db.engine, "before_cursor_execute", count)
    assert len(found) == 3
    # The budgets (1), what runs now and what is not folded yet of both owners at once (1), the
    # totals of every owner and period (1), what runs will still use, of both owners for both
    # periods (1), the lease policies of those with no lease yet (1). Read owner by owner and
    # period by period, 16.
    assert len(sent) <= 5


def test_what_runs_of_a_person_and_their_group_read_together_is_what_each_reads_alone(
    quotas, clock
):
    from app.launch.constraints.budget import committed_hours, lease_ends

    user = _three_budgets_and_what_runs(quotas, clock)
    together = {"user_id": user, "group_name": "physics"}
    owners = ({"user_id": user}, {"group_name": "physics"}, together)
    renewal = period_of(0, NOW)[1]
    with quotas.app.test_request_context():
        sent = []

        def count(_conn, _cursor, statement, *_rest):
            if "usage_marks" in statement:
                sent.append(statement)

        read_together = committed_hours()
        event.listen(db.engine, "before_cursor_execute", count)
        try:
            at_once = [
                read_together(owner, NOW, until, together)
                for owner in owners
                for until in (renewal, None)
            ]
        finally:
            event.remove(db.engine, "before_cursor_execute", count)
        one_by_one = committed_by_ends(lease_ends)
        apart = [one_by_one(owner, NOW, until) for owner in owners for until in (renewal, None)]
    # The person's and the group's running deployments, both caps: one statement.
    assert len(sent) == 1
    for found, expected in zip(at_once, apart, strict=True):
        assert round(found.core_hours, 6) == round(expected.core_hours, 6)
        assert {m: round(h, 6) for m, h in found.gpu_hours.items() if h} == {
            m: round(h, 6) for m, h in expected.gpu_hours.items() if h
        }
    # The person in the group is neither the person alone nor the group alone.
    assert at_once[4].core_hours < at_once[0].core_hours
    assert at_once[4].gpu(None) < at_once[2].gpu(None)


def test_what_the_totals_do_not_hold_yet_is_read_in_one_statement_each_for_its_own_time(
    quotas, clock
):
    """Use folded into the totals, a piece not folded yet, two marks alike begun before today
    (a late worker's) and a mark of today, of a person in a group: read together in one
    statement, each counted for its own hours, whoever asks (the person, the person in the
    group, the group), and kept for the reading."""
    user = quotas.user(groups=["physics"])
    clock.at = NOW - timedelta(hours=30)  # 19 November, 06:00
    ended = quotas.hold(user, charge(cores=3), group_name="physics")
    clock.at = NOW - timedelta(hours=28)
    quotas.update(ended, status="deleted")  # 2 hours at 3 cores, written down and folded
    with quotas.app.app_context():
        account_usage_once()
    clock.at = NOW - timedelta(hours=20)  # 19 November, 16:00
    for _ in range(2):
        quotas.hold(user, charge(cores=2, gpus=1, gpu_models={"A100": 1}), group_name="physics")
    clock.at = NOW - timedelta(hours=4)  # today, 08:00
    ended = quotas.hold(user, charge(cores=5), group_name="physics")
    clock.at = NOW - timedelta(hours=3)
    quotas.update(ended, status="deleted")  # 1 hour at 5 cores, written down, not folded
    clock.at = NOW - timedelta(hours=2)  # today, 10:00
    quotas.hold(user, charge(cores=4, memory=8), group_name="physics")
    clock.at = NOW
    owners = ({"user_id": user}, {"user_id": user, "group_name": "physics"})
    owners += ({"group_name": "physics"},)
    month, today = datetime(2026, 11, 1), datetime(2026, 11, 20)
    sent = []

    def count(_conn, _cursor, statement, *_rest):
        if "usage_marks" in statement or "usage_pieces" in statement:
            sent.append(statement)

    with quotas.app.test_request_context(), one_reading(NOW):
        event.listen(db.engine, "before_cursor_execute", count)
        try:
            asked = [(owner, start) for owner in owners for start in (month, today)]
            read = used_by_period(asked, NOW, opening=(user, "physics", True))
            found = [used_since(start, **owner) for owner, start in asked]
        finally:
            event.remove(db.engine, "before_cursor_execute", count)
    assert len(sent) == 1
    for used, start in zip(found + read, [month, today] * 6, strict=True):
        if start == month:
            cores, a100 = 3 * 2 + 2 * 2 * 20 + 5 + 4 * 2, 2 * 20
        else:
            cores, a100 = 2 * 2 * 12 + 5 + 4 * 2, 2 * 12
        assert round(used.core_hours, 6) == cores
        assert round(used.memory_gb_hours, 6) == 8 * 2
        assert {model: round(hours, 6) for model, hours in used.gpu_hours.items()} == {"A100": a100}
