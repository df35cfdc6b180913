"""The portal's clock: moved in one process, or for several through a shared offset file."""

from datetime import UTC, datetime, timedelta

from app.clock import OffsetFileClock, install_configured_clock, set_clock, use_clock, utcnow


def test_an_offset_file_moves_every_clock_reading_it(tmp_path):
    path = tmp_path / "offset"
    mine, theirs = OffsetFileClock(path), OffsetFileClock(path)
    assert abs(mine() - datetime.now(UTC)) < timedelta(seconds=5)  # no file yet: not moved

    mine.set_offset(timedelta(days=2))
    assert theirs() - datetime.now(UTC) > timedelta(days=1, hours=23)
    theirs.move(timedelta(hours=1))
    assert mine.offset() == timedelta(days=2, hours=1)


def test_the_setting_installs_the_shared_clock(tmp_path):
    path = tmp_path / "offset"
    OffsetFileClock(path).set_offset(timedelta(hours=-3))
    try:
        install_configured_clock({"CLOCK_OFFSET_FILE": str(path)})
        assert datetime.now(UTC).replace(tzinfo=None) - utcnow() > timedelta(hours=2, minutes=59)
    finally:
        set_clock(None)


def test_no_setting_keeps_the_system_clock():
    with use_clock(lambda: datetime(2030, 1, 1, tzinfo=UTC)):
        install_configured_clock({"CLOCK_OFFSET_FILE": ""})
        assert utcnow() == datetime(2030, 1, 1)
