"""``flask backends check`` says whether each backend answers, and as whom: against the
suite's real IM, and an IM that is not there."""

from tests.backends.im.test_im_portal import DUMMY_CLOUD


def _check(make_app, **settings):
    app = make_app(ORCHESTRATOR_URL="demo", IM_CLOUDS=DUMMY_CLOUD, **settings)
    return app.test_cli_runner().invoke(args=["backends", "check"])


def test_the_check_says_both_backends_answer_and_as_whom(make_app, im_server, im_identity):
    username, password = im_identity
    result = _check(make_app, IM_URL=im_server.url, IM_USERNAME=username, IM_PASSWORD=password)
    assert result.exit_code == 0, result.output
    assert "paas  PaaS Orchestrator: answers" in result.output
    assert f"im    Infrastructure Manager: answers, calling as service identity {username}" in (
        result.output
    )
    assert password not in result.output


def test_the_check_fails_when_a_configured_im_does_not_answer(make_app, im_server, im_identity):
    relay = im_server.fault_relay()
    host, port = relay.address
    relay.close()
    username, password = im_identity
    result = _check(
        make_app, IM_URL=f"http://{host}:{port}", IM_USERNAME=username, IM_PASSWORD=password
    )
    assert result.exit_code == 1
    assert "Infrastructure Manager: does not answer" in result.output
    assert password not in result.output


def test_the_check_says_an_unconfigured_im_is_not_configured(make_app):
    result = _check(make_app, IM_URL="")
    assert result.exit_code == 0, result.output
    assert "Infrastructure Manager: not configured" in result.output
