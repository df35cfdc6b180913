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
