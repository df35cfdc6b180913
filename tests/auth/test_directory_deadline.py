"""A login at a directory that answers a byte now and then ends by the login's overall deadline,
not by the per-read timeout it never trips, with a sentence that says so; a directory that
answers in time is not affected."""

import time

import pytest

from app.auth import ldap
from app.auth.errors import DirectoryUnavailable
from tests.auth.test_ldap_login import login_form
from tests.fixtures.dribbling_tcp import GIVE_UP, dribbling_server
from tests.fixtures.slapd import PASSWORDS

TOO_SLOW = "The institute directory did not finish checking your login within 1 seconds."


def _settings(port: int, **extra) -> dict:
    return {
        "url": f"ldap://127.0.0.1:{port}",
        "user_base": "ou=people,dc=example,dc=org",
        "connect_timeout": 1,
        "receive_timeout": 1,
        "deadline": 1,
        **extra,
    }


@pytest.mark.parametrize("bind_dn", ["", "cn=portal,dc=example,dc=org"])
def test_a_directory_that_dribbles_is_given_up_at_the_login_deadline(bind_dn):
    with dribbling_server("ldap") as server:
        started = time.monotonic()
        with pytest.raises(DirectoryUnavailable) as refused:
            ldap.authenticate(
                _settings(server.port, bind_dn=bind_dn, bind_password="s3"), "ada", "pw"
            )
        took = time.monotonic() - started
    assert server.calls == 1
    assert took < GIVE_UP / 2, took
    assert str(refused.value).startswith(TOO_SLOW)


def test_the_login_form_says_the_directory_took_too_long(make_app):
    with dribbling_server("ldap") as server:
        app = make_app(LDAP=_settings(server.port))
        response = login_form(app.test_client(), "ada", "pw")
    assert response.status_code == 503
    assert TOO_SLOW in response.get_data(as_text=True)


def test_a_directory_that_answers_in_time_logs_in_under_the_same_deadline(slapd):
    identity = ldap.authenticate(slapd.settings(deadline=5), "ada", PASSWORDS["ada"])
    assert identity.subject == "ada"
