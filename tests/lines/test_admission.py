def test_a_request_short_of_held_gpus_waits_and_starts_when_they_come_back(line):
    ada = line.emulated.user("ada")
    line.pool(gpus="2")
    first, second = line.launch(ada), line.launch(ada)
    waiting = line.wait(ada)
    assert waiting.status == "WAITING"
    assert line.admit().admitted == 0
    uuid = line.emulated.row(first).uuid
    line.emulated.emulator.set_status(uuid, "CREATE_COMPLETE")
    line.emulated.sync()
    with line.app.app_context():
        from app.auth.models import User
        from app.deployments.models import Deployment
        from app.deployments.operations import delete
        from app.extensions import db

        delete(db.session.get(User, ada), db.session.get(Deployment, first))
    line.emulated.emulator.set_status(uuid, "DELETE_COMPLETE")
    line.emulated.sync()
    assert line.status(first) == "deleted"
    result = line.admit()
    assert result.admitted == 1, result
    assert line.status(waiting.id) == "creating"
    assert second


def _places(line, *deployments):
    from app.extensions import db
    from app.lines.models import LineEntry
    from app.lines.places import position

    with line.app.app_context():
        return [position(db.session.get(LineEntry, d.id)) for d in deployments]


def test_recent_gpu_hours_move_a_request_back_unless_fair_share_is_off(line, clock):
    from tests.lines.test_line_workers import _past_gpu_hours

    heavy, light = line.emulated.user("heavy"), line.emulated.user("light")
    _past_gpu_hours(line.app, heavy, hours=30)  # 30 minutes back
    line.pool(gpus="1")
    line.launch(light)
    first = line.wait(heavy)
    clock.move(minutes=10)
    second = line.wait(light)
    assert _places(line, first, second) == [2, 1]
    line.app.config["LINE_FAIR_SHARE"] = False
    assert _places(line, first, second) == [1, 2]


def test_a_request_waits_at_most_the_longest_wait_then_is_dropped_with_a_notice(line, clock):
    from sqlalchemy import select

    from app.extensions import db
    from app.notifications.models import Notification

    ada = line.emulated.user("ada")
    line.pool(gpus="1")
    line.launch(ada)
    waiting = line.wait(ada)
    clock.move(days=3, minutes=-1)
    assert line.admit().dropped == 0
    clock.move(minutes=2)
    assert line.admit().dropped == 1
    assert line.status(waiting.id) == "NOT_LAUNCHED"
    with line.app.app_context():
        kinds = [n.kind for n in db.session.scalars(select(Notification))]
    assert "line-dropped" in kinds
