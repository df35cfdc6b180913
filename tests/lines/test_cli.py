"""``flask lines``: list, move and remove with a reason (the owner told), and one admission
pass, as the README shows them."""

from sqlalchemy import select

from app.auth.cli import create_local_user
from app.auth.operations import grant_role
from app.extensions import db
from app.notifications.models import Notification


def test_the_lines_commands_list_move_remove_and_admit(line):
    ada, bea = line.emulated.user("ada"), line.emulated.user("bea")
    with line.app.app_context():
        grant_role(create_local_user("operator1", "correct horse battery"), "operator", "test")
        db.session.commit()
    line.pool(gpus="1")
    line.launch(ada)
    first, second = line.wait(ada, name="first"), line.wait(bea, name="second")
    runner = line.app.test_cli_runner()

    listed = runner.invoke(args=["lines", "list"])
    assert listed.exit_code == 0, listed.output
    assert "group:physics:gpus:" in listed.output
    assert listed.output.index(f"#{first.id}") < listed.output.index(f"#{second.id}")

    moved = runner.invoke(
        args=[
            "lines",
            "move",
            str(second.id),
            "1",
            "--reason",
            "course deadline",
            "--as",
            "operator1",
        ]
    )
    assert moved.exit_code == 0, moved.output
    assert f"Request {second.id} is now at place 1." in moved.output
    listed = runner.invoke(args=["lines", "list"]).output
    assert listed.index(f"#{second.id}") < listed.index(f"#{first.id}")

    no_reason = runner.invoke(
        args=["lines", "remove", str(first.id), "--reason", "  ", "--as", "operator1"]
    )
    assert no_reason.exit_code != 0 and "Say why" in no_reason.output
    removed = runner.invoke(
        args=[
            "lines",
            "remove",
            str(first.id),
            "--reason",
            "duplicate request",
            "--as",
            "operator1",
        ]
    )
    assert removed.exit_code == 0, removed.output
    assert line.status(first.id) == "NOT_LAUNCHED"
    again = runner.invoke(
        args=["lines", "remove", str(first.id), "--reason", "again", "--as", "operator1"]
    )
    assert again.exit_code != 0 and "no longer waits" in again.output

    admitted = runner.invoke(args=["lines", "admit"])
    assert admitted.exit_code == 0 and "1 waiting, 0 admitted" in admitted.output
    with line.app.app_context():
        told = {
            (n.user_id, n.kind, (n.details or {}).get("reason"))
            for n in db.session.scalars(select(Notification))
        }
    assert (bea, "line-moved", "course deadline") in told
    assert (ada, "line-removed", "duplicate request") in told
