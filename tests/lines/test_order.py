"""The written-down order of the line (app/lines/fairness.py), on plain data: first come,
fair share, the ageing bound, an operator's move, backfill without overtaking."""

from datetime import datetime, timedelta

from app.lines.fairness import Request, order_key, penalty, plan

T0 = datetime(2026, 11, 28, 9, 0)
POOL_A100 = ("group", "gpu-users", "gpus", "A100")
POOL_T4 = ("group", "gpu-users", "gpus", "T4")
POOL_CORES = ("group", "gpu-users", "cores", None)
HOUR = timedelta(hours=1)


def ask(request_id, **needs):
    keys = {"a100": POOL_A100, "t4": POOL_T4, "cores": POOL_CORES}
    return Request(request_id, {keys[name]: amount for name, amount in needs.items()})


def in_order(entries, fair_share=True):
    """Entries (id, joined, fair_at, placed_at) sorted by the line's order."""
    return [
        e[0]
        for e in sorted(
            entries, key=lambda e: order_key(e[1], e[2], e[3], e[0], fair_share=fair_share)
        )
    ]


def test_first_come_first_served_when_no_one_used_gpus_lately():
    entries = [
        (3, T0 + 2 * HOUR, T0 + 2 * HOUR, None),
        (1, T0, T0, None),
        (2, T0 + HOUR, T0 + HOUR, None),
    ]
    assert in_order(entries) == [1, 2, 3]


def test_recent_gpu_hours_move_a_request_back_by_the_written_rate():
    # 90 GPU-hours at 1 minute each: 90 minutes back, behind one who joined an hour later.
    moved = penalty(90, 1, timedelta(hours=4))
    assert moved == timedelta(minutes=90)
    heavy = (1, T0, T0 + moved, None)
    light = (2, T0 + HOUR, T0 + HOUR, None)
    assert in_order([heavy, light]) == [2, 1]


def test_the_ageing_bound_caps_the_move_so_later_arrivals_never_pass_for_ever():
    moved = penalty(10_000, 1, timedelta(hours=4))
    assert moved == timedelta(hours=4)
    heavy = (1, T0, T0 + moved, None)
    newcomers = [
        (n, T0 + timedelta(hours=4, minutes=n), T0 + timedelta(hours=4, minutes=n), None)
        for n in range(2, 12)
    ]
    assert in_order([heavy, *newcomers])[0] == 1


def test_with_fair_share_off_the_moment_of_joining_alone_counts():
    heavy = (1, T0, T0 + 2 * HOUR, None)
    light = (2, T0 + HOUR, T0 + HOUR, None)
    assert in_order([heavy, light], fair_share=False) == [1, 2]


def test_an_operators_move_stands_instead_of_the_rules():
    entries = [(1, T0, T0, None), (2, T0 + HOUR, T0 + HOUR, T0 - HOUR)]
    assert in_order(entries) == [2, 1]


def test_the_first_in_line_starts_as_soon_as_it_fits_and_no_later_one_overtakes():
    limits = {POOL_A100: 2}
    requests = [ask(1, a100=2), ask(2, a100=1), ask(3, a100=1)]
    # One A100 free: the first needs two, so nothing starts, and the smaller ones behind it
    # do not take the one it waits for.
    assert plan(requests, limits, {POOL_A100: 1}).admit == []
    assert plan(requests, limits, {POOL_A100: 0}).admit == [1]


def test_a_small_request_is_not_held_behind_a_large_one_for_a_resource_it_does_not_need():
    limits = {POOL_A100: 2, POOL_T4: 4}
    requests = [ask(1, a100=2), ask(2, t4=1), ask(3, a100=1)]
    assert plan(requests, limits, {POOL_A100: 1, POOL_T4: 0}).admit == [2]


def test_a_backfilled_request_leaves_what_the_first_needs_of_a_shared_resource():
    limits = {POOL_A100: 2, POOL_CORES: 8}
    first = ask(1, a100=2, cores=4)
    requests = [first, ask(2, cores=2), ask(3, cores=4)]
    # 6 cores free, 4 set aside for the first: the 2-core one goes, the 4-core one waits.
    assert plan(requests, limits, {POOL_A100: 2, POOL_CORES: 2}).admit == [2]


def test_a_request_over_a_lowered_limit_by_itself_is_dropped_rather_than_blocking_the_line():
    result = plan([ask(1, a100=4), ask(2, a100=1)], {POOL_A100: 2}, {POOL_A100: 1})
    assert result.never_fit == [1] and result.admit == [2]


def test_a_pass_starts_at_most_its_batch_and_keeps_the_rest_in_order():
    requests = [ask(n, a100=1) for n in range(1, 6)]
    assert plan(requests, {POOL_A100: 10}, {}, most=2).admit == [1, 2]


def test_a_request_no_site_has_room_for_waits_and_holds_its_share_for_later():
    requests = [ask(1, a100=1), ask(2, a100=1)]
    result = plan(requests, {POOL_A100: 1}, {}, startable=lambda request_id: request_id != 1)
    assert result.admit == []


def test_unlimited_resources_never_hold_anyone_back():
    assert plan([ask(1, a100=50)], {POOL_A100: None}, {POOL_A100: 100}).admit == [1]


def test_a_request_waiting_on_its_owners_own_limit_holds_nothing_of_the_pool():
    own = ("user", "7", "gpus", None)
    requests = [
        Request(1, {own: 1, POOL_A100: 1}),
        Request(2, {("user", "8", "gpus", None): 1, POOL_A100: 1}),
    ]
    limits = {own: 1, ("user", "8", "gpus", None): 1, POOL_A100: 2}
    assert plan(requests, limits, {own: 1, POOL_A100: 1}).admit == [2]
