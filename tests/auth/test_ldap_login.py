"""LDAP login against a real OpenLDAP server: the module itself, then through the login form."""

import logging

import pytest
from sqlalchemy import func, select

from app.auth import ldap
from app.auth.errors import BAD_CREDENTIALS, DirectoryUnavailable, LoginFailed
from app.auth.models import User
from app.errors import ConfigurationError
from app.extensions import db
from tests.conftest import csrf_from
from tests.fixtures.slapd import PASSWORDS, PEOPLE, SERVICE_DN, SERVICE_PASSWORD

UNAVAILABLE = "The institute directory is not answering right now. Try again in a few minutes."
HOSTILE_USERNAME = "*)(uid=*))(|(uid=*"


def needs_memberof(slapd):
    if not slapd.memberof:
        pytest.skip("slapd has no memberof overlay module, so no entry carries memberOf")


def login_form(client, username, password):
    page = client.get("/login").get_data(as_text=True)
    return client.post(
        "/login",
        data={
            "csrf_token": csrf_from(page),
            "username": username,
            "password": password,
            "method": "ldap",
        },
    )


@pytest.fixture
def ldap_app(make_app, slapd):
    """Build an app whose LDAP settings point at the test slapd, with ``overrides``."""

    def factory(**overrides):
        return make_app(
            LDAP=slapd.settings(**overrides),
            ROLE_GROUPS={"admin": ["portal-admins"], "operator": []},
        )

    return factory


def user_records(app, **criteria):
    with app.app_context():
        return db.session.scalars(select(User).filter_by(**criteria)).all()


# --- The module -------------------------------------------------------------------------------


def test_groupofnames_membership_gives_name_email_and_groups(slapd):
    identity = ldap.authenticate(slapd.settings(), "ada", PASSWORDS["ada"])
    assert identity.provider == "ldap"
    assert identity.subject == identity.username == "ada"
    assert identity.display_name == "Ada Lovelace"
    assert identity.email == "ada@portal.test"
    assert identity.groups == ("portal-admins", "researchers")


def test_posixgroup_membership_is_found_by_memberuid(slapd):
    settings = slapd.settings(group_membership="memberUid")
    identity = ldap.authenticate(settings, "grace", PASSWORDS["grace"])
    assert identity.display_name == "Grace Hopper"
    assert identity.groups == ("gpu-users", "hpc-users")


def test_groupofuniquenames_membership_is_found_by_uniquemember(slapd):
    settings = slapd.settings(group_membership="uniqueMember")
    assert ldap.authenticate(settings, "hedy", PASSWORDS["hedy"]).groups == ("data-stewards",)
    assert ldap.authenticate(settings, "ada", PASSWORDS["ada"]).groups == ()


def test_memberof_on_the_user_entry_names_the_groups_by_their_rdn(slapd):
    needs_memberof(slapd)
    settings = slapd.settings(group_membership="memberOf", group_base="")
    identity = ldap.authenticate(settings, "ada", PASSWORDS["ada"])
    assert identity.groups == ("portal-admins", "researchers")


def test_memberof_group_names_can_come_from_another_attribute_of_the_group(slapd):
    needs_memberof(slapd)
    settings = slapd.settings(group_membership="memberOf", group_name_attribute="description")
    identity = ldap.authenticate(settings, "ada", PASSWORDS["ada"])
    assert identity.groups == ("Portal administrators", "Researchers")


def test_a_person_in_no_group_logs_in_with_no_groups(slapd):
    for strategy in ("member", "uniqueMember", "memberUid"):
        settings = slapd.settings(group_membership=strategy)
        assert ldap.authenticate(settings, "loner", PASSWORDS["loner"]).groups == ()


def test_the_subject_is_the_username_as_the_directory_stores_it(slapd):
    identity = ldap.authenticate(slapd.settings(), "ADA", PASSWORDS["ada"])
    assert identity.subject == identity.username == "ada"


def test_a_password_full_of_special_characters_is_sent_as_typed(slapd):
    identity = ldap.authenticate(slapd.settings(), "kat", PASSWORDS["kat"])
    assert identity.display_name == "Katherine Johnson"


def test_missing_settings_fall_back_to_documented_defaults(slapd):
    settings = {"url": slapd.url, "user_base": PEOPLE}
    identity = ldap.authenticate(settings, "ada", PASSWORDS["ada"])
    assert (identity.display_name, identity.email, identity.groups) == (
        "Ada Lovelace",
        "ada@portal.test",
        (),
    )


def test_an_empty_password_is_refused_before_anything_is_asked_of_the_directory(closed_ldap_url):
    # Nothing listens there: reaching out would give DirectoryUnavailable, not LoginFailed.
    settings = {"url": closed_ldap_url}
    with pytest.raises(LoginFailed):
        ldap.authenticate(settings, "ada", "")


@pytest.mark.parametrize(
    ("username", "password"),
    [("ada", "not her password"), ("nobody", "whatever"), (HOSTILE_USERNAME, "x"), ("twin", "x")],
    ids=["wrong password", "unknown user", "filter metacharacters", "several entries"],
)
def test_every_refusal_gives_the_same_generic_message(slapd, username, password):
    with pytest.raises(LoginFailed) as refused:
        ldap.authenticate(slapd.settings(), username, password)
    assert refused.value.message == BAD_CREDENTIALS


def test_a_search_that_finds_several_entries_refuses_even_the_right_password(slapd):
    with pytest.raises(LoginFailed):
        ldap.authenticate(slapd.settings(), "twin", PASSWORDS["twin"])


def test_the_service_account_can_search_for_people(slapd):
    settings = slapd.settings(bind_dn=SERVICE_DN, bind_password=SERVICE_PASSWORD)
    assert ldap.authenticate(settings, "ada", PASSWORDS["ada"]).display_name == "Ada Lovelace"


def test_ldaps_succeeds_when_the_server_certificate_is_signed_by_the_configured_ca(slapd):
    settings = slapd.settings(url=slapd.ldaps_url, ca_file=slapd.ca_file)
    assert ldap.authenticate(settings, "ada", PASSWORDS["ada"]).username == "ada"


def test_ldaps_with_another_ca_is_unavailable_and_the_reason_is_logged(slapd, caplog):
    settings = slapd.settings(url=slapd.ldaps_url, ca_file=slapd.other_ca_file)
    with (
        caplog.at_level(logging.WARNING, "app.auth.ldap"),
        pytest.raises(DirectoryUnavailable) as e,
    ):
        ldap.authenticate(settings, "ada", PASSWORDS["ada"])
    assert e.value.message == UNAVAILABLE
    assert "certificate verify failed" in caplog.text


def test_starttls_upgrades_the_plain_port_and_verifies_the_certificate(slapd):
    settings = slapd.settings(start_tls=True, ca_file=slapd.ca_file)
    assert ldap.authenticate(settings, "ada", PASSWORDS["ada"]).username == "ada"
    with pytest.raises(DirectoryUnavailable):
        ldap.authenticate({**settings, "ca_file": slapd.other_ca_file}, "ada", PASSWORDS["ada"])


def test_a_missing_ca_file_makes_the_directory_unavailable(slapd, tmp_path):
    settings = slapd.settings(url=slapd.ldaps_url, ca_file=str(tmp_path / "missing.pem"))
    with pytest.raises(DirectoryUnavailable):
        ldap.authenticate(settings, "ada", PASSWORDS["ada"])


def test_an_unknown_group_membership_strategy_stops_the_portal_at_start_up(make_app, slapd):
    with pytest.raises(ConfigurationError) as error:
        make_app(LDAP=slapd.settings(group_membership="members"))
    assert str(error.value) == (
        "LDAP: group_membership is 'members'; use one of member, uniqueMember, memberUid, memberOf."
    )


# --- Through the login form -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strategy", "groups"),
    [
        ("member", ["portal-admins", "researchers"]),
        ("memberUid", ["hpc-users"]),
        ("memberOf", ["portal-admins", "researchers"]),
    ],
)
def test_a_directory_user_logs_in_and_their_record_holds_name_email_and_groups(
    ldap_app, slapd, strategy, groups
):
    if strategy == "memberOf":
        needs_memberof(slapd)
    app = ldap_app(group_membership=strategy)
    client = app.test_client()
    response = login_form(client, "ada", PASSWORDS["ada"])
    assert response.status_code == 302
    page = client.get("/catalogue/", follow_redirects=True).get_data(as_text=True)
    assert "Welcome, Ada Lovelace." in page
    [user] = user_records(app, provider="ldap")
    assert (user.subject, user.display_name, user.email) == (
        "ada",
        "Ada Lovelace",
        "ada@portal.test",
    )
    assert user.groups == groups


def test_a_directory_group_mapped_in_role_groups_makes_its_members_admins(ldap_app):
    client = ldap_app().test_client()
    assert login_form(client, "ada", PASSWORDS["ada"]).status_code == 302
    assert 'href="/admin/catalogue/"' in client.get("/catalogue/").get_data(as_text=True)
    other = ldap_app().test_client()
    assert login_form(other, "grace", PASSWORDS["grace"]).status_code == 302
    assert 'href="/admin/catalogue/"' not in other.get("/catalogue/").get_data(as_text=True)


def test_a_wrong_password_and_an_unknown_directory_user_get_the_same_401(ldap_app):
    client = ldap_app().test_client()
    wrong = login_form(client, "ada", "not her password")
    unknown = login_form(client, "nobody", "not her password")
    assert wrong.status_code == unknown.status_code == 401
    for response in (wrong, unknown):
        assert BAD_CREDENTIALS in response.get_data(as_text=True)


def test_filter_metacharacters_in_the_username_give_401_not_500(ldap_app):
    response = login_form(ldap_app().test_client(), HOSTILE_USERNAME, "anything")
    assert response.status_code == 401
    assert BAD_CREDENTIALS in response.get_data(as_text=True)


def test_a_directory_that_is_down_gives_503_with_a_clear_message(ldap_app, closed_ldap_url):
    app = ldap_app(url=closed_ldap_url)
    response = login_form(app.test_client(), "ada", PASSWORDS["ada"])
    assert response.status_code == 503
    assert UNAVAILABLE in response.get_data(as_text=True)


def test_a_server_that_does_not_speak_ldap_is_an_unavailable_directory(
    ldap_app, echoing_ldap_server, caplog
):
    """Something else on the directory's port answers what ldap3 cannot read as an answer: the
    person is told the directory is not answering, and the log says why."""
    app = ldap_app(url=echoing_ldap_server)
    with caplog.at_level(logging.WARNING, logger="app.auth.ldap"):
        response = login_form(app.test_client(), "ada", PASSWORDS["ada"])
    assert response.status_code == 503
    assert UNAVAILABLE in response.get_data(as_text=True)
    assert "not an LDAP answer" in caplog.text


def test_a_directory_that_never_answers_gives_503_after_the_receive_timeout(
    ldap_app, silent_ldap_server
):
    app = ldap_app(url=silent_ldap_server, receive_timeout=1, connect_timeout=1)
    response = login_form(app.test_client(), "ada", PASSWORDS["ada"])
    assert response.status_code == 503
    assert UNAVAILABLE in response.get_data(as_text=True)


def test_a_refused_service_bind_gives_503_and_logs_the_details(ldap_app, caplog):
    app = ldap_app(bind_dn=SERVICE_DN, bind_password="not the service password")
    with caplog.at_level(logging.WARNING, "app.auth.ldap"):
        response = login_form(app.test_client(), "ada", PASSWORDS["ada"])
    html = response.get_data(as_text=True)
    assert response.status_code == 503
    assert UNAVAILABLE in html and "invalidCredentials" not in html
    assert "service bind was refused" in caplog.text and "invalidCredentials" in caplog.text


def test_ldaps_login_through_the_form_with_the_institute_ca(ldap_app, slapd):
    app = ldap_app(url=slapd.ldaps_url, ca_file=slapd.ca_file)
    assert login_form(app.test_client(), "grace", PASSWORDS["grace"]).status_code == 302


def test_the_user_record_follows_the_directory_at_the_next_login(ldap_app, slapd):
    app = ldap_app()
    assert login_form(app.test_client(), "hedy", PASSWORDS["hedy"]).status_code == 302
    dn = f"uid=hedy,{PEOPLE}"
    with slapd.admin() as admin:
        admin.modify(dn, {"cn": [("MODIFY_REPLACE", ["Hedy Kiesler Markey"])]})
    try:
        assert login_form(app.test_client(), "hedy", PASSWORDS["hedy"]).status_code == 302
    finally:
        with slapd.admin() as admin:
            admin.modify(dn, {"cn": [("MODIFY_REPLACE", ["Hedy Lamarr"])]})
    [user] = user_records(app, provider="ldap", subject="hedy")
    assert user.display_name == "Hedy Kiesler Markey"


def test_one_user_record_per_identity_however_the_username_is_typed(ldap_app):
    app = ldap_app()
    for typed in ("ada", "ADA", " Ada "):
        assert login_form(app.test_client(), typed, PASSWORDS["ada"]).status_code == 302
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(User)) == 1
    [user] = user_records(app, provider="ldap", subject="ada")
    assert user.username == "ada"


def test_a_directory_that_is_down_says_so_in_italian(ldap_app, closed_ldap_url):
    client = ldap_app(url=closed_ldap_url).test_client()
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "it"
    html = login_form(client, "ada", PASSWORDS["ada"]).get_data(as_text=True)
    assert "La directory dell&#39;istituto non risponde in questo momento." in html
    assert UNAVAILABLE not in html


def test_control_characters_in_directory_attributes_are_not_stored(ldap_app, slapd):
    dn = f"uid=mallory,{PEOPLE}"
    with slapd.admin() as conn:
        assert conn.add(
            dn,
            "inetOrgPerson",
            {
                "cn": "Mallory\r\nMalicious\x1b[0m",
                "sn": "Malicious",
                "mail": "mallory@portal.test\nBcc: all@portal.test",
                "userPassword": "mallory-pass",
            },
        ), conn.result
    try:
        app = ldap_app()
        assert login_form(app.test_client(), "mallory", "mallory-pass").status_code == 302
        [user] = user_records(app, provider="ldap")
    finally:
        with slapd.admin() as conn:
            conn.delete(dn)
    assert (user.username, user.display_name, user.email) == (
        "mallory",
        "Mallory Malicious [0m",
        "",
    )
