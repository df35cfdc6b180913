"""A member's limits inside a group, through the launch decision and the line: a launch past
them waits in the member's own line while the pool has room for others, and the admission
pass starts it once the member's own deployments hand back what they hold, without holding
back anyone else."""

import pytest

from app.auth.models import User
from app.deployments.models import Deployment
from app.deployments.operations import delete
from app.extensions import db
from app.launch.decision import CannotWait
from app.lines.models import LineEntry
from app.quotas.editing import parse_limit
from app.quotas.member_limits import set_member_limits


def _member_limit(line, user_id, **limits):
    with line.app.app_context():
        member = db.session.get(User, user_id)
        changes = {key: parse_limit(key, text) for key, text in limits.items()}
        set_member_limits(None, "physics", member, changes, "a fair share")


def test_a_launch_past_the_members_limit_waits_and_starts_when_their_own_come_back(line):
    ada, bea = line.emulated.user("ada"), line.emulated.user("bea")
    line.pool(gpus="4")
    _member_limit(line, ada, gpus="1")
    first = line.launch(ada)
    waiting = line.wait(ada, name="second")
    assert waiting.status == "WAITING"
    with line.app.app_context():
        # Their own deployments free it: they wait in their own line.
        assert db.session.get(LineEntry, waiting.id).line == f"user:{ada}:gpus:"
    # Bea is bound by the pool alone: she starts at once, and the pass starts nobody.
    assert line.launch(bea, gpus=2)
    assert line.admit().admitted == 0

    uuid = line.emulated.row(first).uuid
    line.emulated.emulator.set_status(uuid, "CREATE_COMPLETE")
    line.emulated.sync()
    with line.app.app_context():
        delete(db.session.get(User, ada), db.session.get(Deployment, first))
    line.emulated.emulator.set_status(uuid, "DELETE_COMPLETE")
    line.emulated.sync()
    result = line.admit()
    assert result.admitted == 1, result
    assert line.status(waiting.id) == "creating"


def test_a_launch_over_the_members_limit_by_itself_is_refused(line):
    ada = line.emulated.user("ada")
    line.pool(gpus="4")
    _member_limit(line, ada, gpus="1")
    with pytest.raises(CannotWait) as refused:
        line.wait(ada, gpus=2, name="too big")
    assert "It needs 2 GPUs, but your limit in group physics is 1 GPU" in refused.value.message
