"""What /metrics says after real actions: page requests, a launch on the demo orchestrator
that becomes ready, refused callbacks, failing orchestrator calls, the sync worker's lag, and
group quotas; never a label naming a person."""

from datetime import UTC, datetime, timedelta

from sqlalchemy import text, update

from app.backends.paas.emulator.core import emulator_of
from app.backends.paas.emulator.demo import demo_emulator
from app.clock import use_clock
from app.deployments.models import Deployment
from app.deployments.timeline import change_status
from app.extensions import db
from app.instruments import count_lease_event, count_notification
from app.quotas.editing import set_limits
from app.quotas.models import GROUP
from app.sync.passes import sync_once
from tests.metrics.conftest import SLUG

CALLBACK_ROUTE = "/deployments/callback/<int:deployment_id>/<secret>"
# Every label the portal's own figures may carry: routes, operations, outcomes, templates,
# statuses and group names, never a person.
PORTAL_LABELS = {
    "method",
    "route",
    "status",
    "le",
    "operation",
    "error",
    "reason",
    "template",
    "queue",
    "group",
    "resource",
    "gpu_model",
    "collector",
    "kind",
    "outcome",
    "event",
    "period",
}


def _person(app, username: str, groups=()) -> int:
    from app.auth.cli import create_local_user

    with app.app_context():
        user = create_local_user(username, "correct horse battery")
        user.groups = list(groups)
        db.session.commit()
        return user.id


def _row(app, deployment_id: int) -> Deployment:
    with app.app_context():
        row = db.session.get(Deployment, deployment_id)
        db.session.expunge(row)
        return row


def _sync_until(app, deployment_id: int, status: str) -> int:
    """Run sync passes, each a minute later than the last (when the next check is due), until
    the deployment has ``status``; returns how many passes it took."""
    for passes in range(1, 6):
        later = datetime.now(UTC) + timedelta(minutes=passes)
        with app.app_context(), use_clock(lambda at=later: at):
            sync_once()
        if _row(app, deployment_id).status == status:
            return passes
    raise AssertionError(f"still {_row(app, deployment_id).status} after 5 passes")


def test_page_requests_are_counted_by_url_rule_and_status(app, scrape):
    client = app.test_client()
    before = scrape()

    for _ in range(3):
        assert client.get("/healthz").status_code == 200
    assert client.get("/no/such/page").status_code == 404
    assert client.post("/deployments/callback/987654/some-secret", json={}).status_code == 404

    after = scrape()
    counted = "portal_http_requests_total"
    for name, labels, grew in [
        (counted, {"method": "GET", "route": "/healthz", "status": "200"}, 3),
        (counted, {"method": "GET", "route": "(unmatched)", "status": "404"}, 1),
        (counted, {"method": "POST", "route": CALLBACK_ROUTE, "status": "404"}, 1),
        ("portal_http_request_duration_seconds_count", {"route": "/healthz"}, 3),
    ]:
        assert after.total(name, **labels) - before.total(name, **labels) == grew, labels
    # The raw path, with its id and secret, is never a label value.
    assert not any("some-secret" in v for s in after.samples(counted) for v in s.labels.values())
    slowest = after.value(
        "portal_http_request_duration_seconds_bucket", method="GET", route="/healthz", le="+Inf"
    )
    assert slowest >= 3


def test_a_launch_that_becomes_ready_shows_in_every_figure_it_touches(app, scrape, launch_as):
    ada = _person(app, "ada", groups=["physics"])
    with app.app_context():
        set_limits(None, GROUP, "physics", {"cores": 10, "deployments": 3}, "course")
    before = scrape()

    deployment_id = launch_as(ada, group="physics")
    passes = _sync_until(app, deployment_id, "ready")

    after = scrape()

    def grew(name, **labels):
        return after.total(name, **labels) - before.total(name, **labels)

    assert after.value("portal_deployments", status="CREATE_COMPLETE", template=SLUG) == 1
    assert grew("portal_deployment_launch_to_ready_seconds_count", template=SLUG) == 1
    create, poll = "POST /deployments", "GET /deployments/{uuid}"
    assert grew("portal_orchestrator_request_duration_seconds_count", operation=create) == 1
    assert grew("portal_orchestrator_request_duration_seconds_count", operation=poll) >= 1
    assert grew("portal_orchestrator_errors_total") == 0
    assert grew("portal_sync_pass_duration_seconds_count") == passes
    used = {"group": "physics", "gpu_model": ""}
    assert after.value("portal_quota_group_used", resource="cores", **used) == 2
    assert after.value("portal_quota_group_used", resource="deployments", **used) == 1
    assert after.value("portal_quota_group_limit", resource="cores", **used) == 10
    assert after.value("portal_quota_group_limit", resource="deployments", **used) == 3
    # Unlimited resources have no limit series at all.
    assert not [
        s for s in after.samples("portal_quota_group_limit") if s.labels["resource"] == "gpus"
    ]


def test_no_figure_carries_a_label_naming_a_person(app, scrape, launch_as):
    ada = _person(app, "ada-lovelace", groups=["physics"])
    launch_as(ada, group="physics")
    client = app.test_client()
    client.get("/login")
    count_notification("deployment-ready", "sent")
    count_lease_event("lease-extended")

    scraped = scrape()
    names = {key for f in scraped.families.values() for s in f.samples for key in s.labels}
    portal = {
        key
        for f in scraped.families.values()
        if f.name.startswith("portal_")
        for s in f.samples
        for key in s.labels
    }
    assert portal <= PORTAL_LABELS, portal - PORTAL_LABELS
    assert not names & {"user", "user_id", "username", "owner", "email", "subject", "identity"}
    values = {v for f in scraped.families.values() for s in f.samples for v in s.labels.values()}
    assert "ada-lovelace" not in values and str(ada) not in values - {"1", "2", "3"}


def test_a_ready_deployment_is_timed_once_and_only_when_committed(app, scrape, launch_as):
    ada = _person(app, "ada")
    deployment_id = launch_as(ada)
    before = scrape().total("portal_deployment_launch_to_ready_seconds_count")

    with app.app_context():
        row = db.session.get(Deployment, deployment_id)
        assert change_status(row, "ready", source="callback")
        db.session.rollback()
    assert scrape().total("portal_deployment_launch_to_ready_seconds_count") == before

    start = datetime(2026, 11, 25, 10, 0)
    with app.app_context():
        db.session.execute(
            update(Deployment).where(Deployment.id == deployment_id).values(created_at=start)
        )
        db.session.commit()
    with use_clock(lambda: start + timedelta(minutes=7)), app.app_context():
        # Two workers (two sessions) read the deployment in progress and both learn it is ready.
        late = db.session.get(Deployment, deployment_id)
        assert late.status == "creating"
        with app.app_context():
            first = db.session.get(Deployment, deployment_id)
            assert change_status(first, "ready", source="callback")
            db.session.commit()
        assert late.status == "creating"
        assert not change_status(late, "ready", source="sync")
        db.session.commit()

    after = scrape()
    assert after.total("portal_deployment_launch_to_ready_seconds_count") == before + 1
    # 420 s falls in the 600 s bucket and not in the 300 s one.
    bucket = "portal_deployment_launch_to_ready_seconds_bucket"
    assert (
        after.value(bucket, template=SLUG, le="600.0")
        - after.value(bucket, template=SLUG, le="300.0")
        >= 1
    )


def test_callbacks_received_and_refused_are_counted_by_reason(app, scrape, launch_as):
    ada = _person(app, "ada")
    row = _row(app, launch_as(ada))
    client = app.test_client()
    before = scrape()

    base = f"/deployments/callback/{row.id}"
    assert client.post(f"{base}/forged-secret", json={"uuid": row.uuid}).status_code == 404
    assert client.post(f"{base}/{row.reference_secret}", data="not json").status_code == 400
    other = {"uuid": "another-uuid", "status": "CREATE_COMPLETE"}
    assert client.post(f"{base}/{row.reference_secret}", json=other).status_code == 404
    done = {"uuid": row.uuid, "status": "CREATE_COMPLETE"}
    assert client.post(f"{base}/{row.reference_secret}", json=done).status_code == 204

    after = scrape()
    assert (
        after.total("portal_callbacks_received_total")
        - before.total("portal_callbacks_received_total")
        == 4
    )
    for reason in ("unknown", "unreadable", "mismatch"):
        refused = "portal_callbacks_refused_total"
        grew = after.value(refused, reason=reason) - before.value(refused, reason=reason)
        assert grew == 1, reason


def test_failing_orchestrator_calls_are_counted_by_operation_and_error(app, scrape, launch_as):
    ada = _person(app, "ada")
    faults = emulator_of(demo_emulator(app)).faults
    before = scrape()
    faults.down = True
    try:
        deployment_id = launch_as(ada)
    finally:
        faults.down = False

    assert _row(app, deployment_id).status == "UNCONFIRMED"
    after = scrape()
    errors = "portal_orchestrator_errors_total"
    labels = {"operation": "POST /deployments", "error": "OrchestratorUnavailable"}
    assert after.value(errors, **labels) - before.value(errors, **labels) == 1
    timed = "portal_orchestrator_request_duration_seconds_count"
    assert (
        after.value(timed, operation="POST /deployments")
        - before.value(timed, operation="POST /deployments")
        == 1
    )


def test_sync_lag_is_the_age_of_the_oldest_overdue_check(app, scrape, launch_as):
    ada = _person(app, "ada")
    deployment_id = launch_as(ada)
    now = datetime(2026, 11, 25, 10, 0)
    with app.app_context():
        db.session.execute(
            update(Deployment)
            .where(Deployment.id == deployment_id)
            .values(next_check_at=now - timedelta(minutes=10))
        )
        db.session.commit()

    with use_clock(lambda: now):
        lagging = scrape()
    with use_clock(lambda: now - timedelta(hours=1)):
        nothing_due = scrape()

    assert lagging.value("portal_sync_lag_seconds", queue="deployments") == 600
    assert nothing_due.value("portal_sync_lag_seconds", queue="deployments") == 0
    assert nothing_due.value("portal_sync_lag_seconds", queue="listings") == 0


def test_a_collector_that_cannot_read_is_reported_down_and_the_rest_is_served(app, scrape):
    app.test_client().get("/healthz")
    with app.app_context():
        db.session.execute(text("DROP TABLE deployment_listings"))
        db.session.commit()

    scraped = scrape()

    assert scraped.value("portal_metrics_collector_up", collector="sync_lag") == 0
    assert scraped.value("portal_metrics_collector_up", collector="deployments") == 1
    assert scraped.value("portal_metrics_collector_up", collector="quota") == 1
    assert scraped.total("portal_http_requests_total", route="/healthz") >= 1


def test_notifications_and_lease_events_are_counted_through_their_functions(app, scrape):
    before = scrape()

    count_notification("deployment-ready", "sent")
    count_notification("deployment-ready", "failed")
    count_lease_event("lease-expired")

    after = scrape()
    for name, labels in [
        ("portal_notifications_total", {"kind": "deployment-ready", "outcome": "sent"}),
        ("portal_notifications_total", {"kind": "deployment-ready", "outcome": "failed"}),
        ("portal_lease_events_total", {"event": "lease-expired"}),
    ]:
        assert after.value(name, **labels) - before.value(name, **labels) == 1, labels


def test_an_unknown_outcome_or_refusal_is_a_programming_error():
    import pytest

    from app.instruments import count_callback_refused

    with pytest.raises(ValueError, match="unknown notification outcome"):
        count_notification("deployment-ready", "bounced")
    with pytest.raises(ValueError, match="unknown callback refusal"):
        count_callback_refused("because")
