"""The sync worker's listing costs what changed: a deployment the orchestrator has not updated
since the previous listing leaves its row unread and unwritten, while status changes are applied
and every deployment missing from the listing is still found and confirmed gone."""

from datetime import UTC, datetime, timedelta

from sqlalchemy import event

from app.clock import use_clock
from app.extensions import db


def later(minutes: int):
    """A portal clock ``minutes`` ahead: the orchestrator's updates then lie well before it."""
    return lambda: datetime.now(UTC).replace(tzinfo=None) + timedelta(minutes=minutes)


def test_a_listing_rewrites_only_changed_rows_and_still_finds_the_vanished(emulated):
    emulated.app.config.update(
        DEPLOYMENTS_SYNC_LIST_SECONDS=0, DEPLOYMENTS_SUBMITTING_STALE_SECONDS=0
    )
    ada = emulated.user("ada")
    steady, moving, lost = (emulated.launch(ada) for _ in range(3))
    uuids = {i: emulated.row(i).uuid for i in (steady, moving, lost)}
    for uuid in uuids.values():
        emulated.emulator.set_status(uuid, "CREATE_COMPLETE")
    with use_clock(later(10)):
        emulated.sync()  # the first listing applies everything
    first = {i: emulated.row(i).checked_at for i in uuids}
    assert all(emulated.row(i).status == "ready" for i in uuids)

    emulated.emulator.set_status(uuids[moving], "UPDATE_IN_PROGRESS")
    emulated.emulator.set_status(uuids[lost], "DELETE_COMPLETE")  # gone without our asking
    loaded = []

    def count_row_loads(_conn, _cursor, statement, *_args):
        if "deployments.template_text" in statement:
            loaded.append(statement)

    with emulated.app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", count_row_loads)
    try:
        with use_clock(later(20)):
            result = emulated.sync()
    finally:
        event.remove(engine, "before_cursor_execute", count_row_loads)

    assert result.listings == 1 and result.listed.vanished == 1
    assert emulated.row(steady).checked_at == first[steady]  # unread, unwritten
    assert emulated.row(moving).status == "updating"
    assert emulated.row(moving).checked_at > first[moving]
    assert emulated.row(lost).status == "VANISHED"
    # Whole rows read: the changed one and the missing one, in one query each (plus the
    # pending launches' query, which finds none).
    assert len(loaded) <= 3, loaded


def test_the_first_listing_applies_every_listed_deployment(emulated):
    emulated.app.config.update(DEPLOYMENTS_SYNC_LIST_SECONDS=0)
    ada = emulated.user("ada")
    ids = [emulated.launch(ada) for _ in range(2)]
    for held in emulated.emulator.deployments():
        emulated.emulator.set_status(held["uuid"], "CREATE_COMPLETE")

    with use_clock(later(30)):
        emulated.sync()

    assert [emulated.row(i).status for i in ids] == ["ready"] * 2
