"""``flask notifications send-test`` says clearly whether the mail settings work, and
``flask notifications send`` sends what is due."""

import pytest

from app import create_app
from app.errors import ConfigurationError
from tests.conftest import TEST_CONFIG


def _run(app, *args):
    return app.test_cli_runner().invoke(args=["notifications", *args])


def test_a_test_message_reaches_the_address(portal, smtp_server):
    result = _run(portal.app, "send-test", "ops@example.org")
    assert result.exit_code == 0, result.output
    assert "Sent a test message to ops@example.org" in result.output
    [message] = smtp_server.wait_for(1)
    assert message["To"] == "ops@example.org"
    assert message["Subject"] == "Test message from Research Cloud Portal"
    assert message.get_body(("html",)) is not None


def test_a_server_that_is_down_is_named_with_what_failed(make_app, smtp_server, closed_port):
    app = make_app(**{**smtp_server.settings(), "MAIL_PORT": closed_port})
    result = _run(app, "send-test", "ops@example.org")
    assert result.exit_code == 1
    assert f"The mail server 127.0.0.1:{closed_port} refused the connection" in result.output


def test_a_refusing_server_is_quoted(portal, smtp_server):
    smtp_server.inbox.refuse_recipients = "550 5.1.1 No such user here"
    result = _run(portal.app, "send-test", "nobody@example.org")
    assert result.exit_code == 1
    assert "nobody@example.org: 550 5.1.1 No such user here" in result.output


def test_without_a_mail_server_it_says_how_to_configure_one(portal_without_mail):
    result = _run(portal_without_mail.app, "send-test", "ops@example.org")
    assert result.exit_code == 1
    assert "No mail server is configured: set PORTAL_MAIL_SERVER" in result.output


def test_send_sends_what_is_due_and_says_so(portal, smtp_server):
    ada = portal.user()
    deployment = portal.deployment(ada)
    portal.record(deployment, "failed", source="sync", reason="boom")
    result = _run(portal.app, "send")
    assert result.exit_code == 0, result.output
    assert "1 sent, 0 to retry, 0 failed for good" in result.output
    assert len(smtp_server.wait_for(1)) == 1


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"MAIL_DEFAULT_SENDER": ""}, "MAIL_DEFAULT_SENDER is not"),
        ({"PORTAL_BASE_URL": ""}, "PORTAL_BASE_URL is not"),
        ({"MAIL_USE_TLS": True, "MAIL_USE_SSL": True}, "not both"),
    ],
)
def test_incomplete_mail_settings_stop_the_portal_with_a_reason(tmp_path, settings, words):
    config = {
        **TEST_CONFIG,
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/x.sqlite",
        "MAIL_SERVER": "127.0.0.1",
        "MAIL_DEFAULT_SENDER": "cloud@portal.test",
        "PORTAL_BASE_URL": "https://portal.test",
        **settings,
    }
    with pytest.raises(ConfigurationError, match=words):
        create_app(config, instance_path=str(tmp_path / "instance"))


def test_the_worker_loop_sends_mail_written_while_it_runs_and_stops_when_told(
    make_app, smtp_server
):
    import threading

    from app.worker import chosen, run_duties
    from tests.notifications.conftest import Portal

    portal = Portal(make_app(**smtp_server.settings(), NOTIFICATIONS_SEND_TICK_SECONDS=0.1))
    ada = portal.user()
    stop = threading.Event()

    def run():
        with portal.app.app_context():
            run_duties(chosen(("mail",)), stop)

    worker = threading.Thread(target=run)
    worker.start()
    try:
        deployment = portal.deployment(ada)
        portal.record(deployment, "failed", source="sync", reason="boom")
        [message] = smtp_server.wait_for(1)
        assert message["Subject"] == "Notebook for the course failed to start"
    finally:
        stop.set()
        worker.join(10)
    assert not worker.is_alive()
