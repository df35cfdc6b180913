"""Login through a real OpenID Connect provider, driven without a browser."""

import socket
from contextlib import closing

import pytest
from sqlalchemy import select

from app.auth.models import User
from app.auth.oidc import Provider, groups_from_claims, identity_from_claims
from app.errors import ConfigurationError
from app.extensions import db
from tests.conftest import csrf_from

ROLE_GROUPS = {"admin": ["portal-admins"], "operator": ["/cms/users"]}
STATE_MESSAGE = "The login could not be verified (it may have expired or been started in"


@pytest.fixture
def oidc_app(make_app, oidc_provider):
    return make_app(OIDC_PROVIDERS=[oidc_provider.config()], ROLE_GROUPS=ROLE_GROUPS)


@pytest.fixture
def client(oidc_app):
    return oidc_app.test_client()


def user_with_subject(app, subject: str) -> User | None:
    with app.app_context():
        user = db.session.scalar(select(User).where(User.subject == subject))
        if user is not None:
            db.session.expunge(user)
        return user


def flashed_page(client) -> str:
    return client.get("/login").get_data(as_text=True)


def log_out(client) -> None:
    page = client.get("/catalogue/").get_data(as_text=True)
    client.post("/logout", data={"csrf_token": csrf_from(page)})


def is_logged_in(client) -> bool:
    return client.get("/catalogue/").status_code == 200


def test_a_researcher_logs_in_through_the_provider_and_gets_a_user_record_with_groups(
    client, oidc_app, oidc_provider
):
    response = oidc_provider.log_in(client, "ada")
    assert response.status_code == 302 and response.headers["Location"] == "/"
    assert "Welcome, Ada Lovelace." in client.get("/catalogue/").get_data(as_text=True)
    user = user_with_subject(oidc_app, oidc_provider.sub("ada"))
    assert (user.provider, user.username, user.email) == ("mock", "ada", "ada@example.org")
    assert user.display_name == "Ada Lovelace"
    assert user.groups == ["physics", "portal-admins"]
    assert user.group_roles == ["admin"]


def test_membership_of_the_admin_group_makes_the_user_an_admin_of_the_catalogue(
    client, oidc_provider
):
    oidc_provider.log_in(client, "ada")
    assert client.get("/admin/catalogue/").status_code == 200


def test_a_user_outside_the_role_groups_is_a_plain_user(client, oidc_app, oidc_provider):
    oidc_provider.log_in(client, "linus")
    assert client.get("/admin/catalogue/").status_code == 403
    user = user_with_subject(oidc_app, oidc_provider.sub("linus"))
    # Without preferred_username the e-mail address names the account.
    assert user.username == "linus@example.org" and user.groups == []


def test_wlcg_groups_are_read_when_configured_as_the_groups_claim(make_app, oidc_provider):
    app = make_app(
        OIDC_PROVIDERS=[oidc_provider.config(groups_claim="wlcg.groups")], ROLE_GROUPS=ROLE_GROUPS
    )
    client = app.test_client()
    oidc_provider.log_in(client, "grace")
    user = user_with_subject(app, oidc_provider.sub("grace"))
    # Stored in the portal's one form for group names (app.auth.groups): no slash at the ends.
    assert user.groups == ["cms", "cms/users"]
    assert user.group_roles == ["operator"]


def test_a_second_login_follows_group_changes_at_the_provider(client, oidc_app, oidc_provider):
    sub = "marie-0004"
    oidc_provider.set_claims(sub, {"name": "Marie Curie", "groups": ["portal-admins"]})
    oidc_provider.log_in(client, sub)
    assert user_with_subject(oidc_app, sub).group_roles == ["admin"]
    log_out(client)
    oidc_provider.set_claims(sub, {"name": "Marie Curie", "groups": ["chemistry"]})
    oidc_provider.log_in(client, sub)
    user = user_with_subject(oidc_app, sub)
    assert user.groups == ["chemistry"] and user.group_roles == []
    with oidc_app.app_context():
        assert db.session.scalar(select(db.func.count(User.id)).where(User.subject == sub)) == 1


def test_the_authorization_request_carries_pkce_s256_state_and_nonce(client, oidc_provider):
    params = oidc_provider.query_of(oidc_provider.start_login(client))
    assert params["code_challenge_method"] == "S256"
    assert len(params["code_challenge"]) >= 43
    assert params["state"] and params["nonce"]
    assert params["client_id"] == "portal-test-client"
    assert params["scope"].split() == ["openid", "profile", "email", "offline_access"]
    assert params["redirect_uri"] == "http://localhost/login/oidc/mock/callback"


def test_a_forged_state_is_refused_with_a_clear_message_and_no_login(client, oidc_provider):
    callback = oidc_provider.sign_in(oidc_provider.start_login(client), "ada")
    code = oidc_provider.query_of(callback)["code"]
    for query in (f"code={code}&state=forged", f"code={code}"):
        response = client.get("/login/oidc/mock/callback?" + query)
        assert response.status_code == 302 and response.headers["Location"] == "/login"
        assert STATE_MESSAGE in flashed_page(client)
    assert not is_logged_in(client)


def test_a_callback_replayed_in_another_browser_is_refused(oidc_app, oidc_provider):
    victim, attacker = oidc_app.test_client(), oidc_app.test_client()
    callback = oidc_provider.sign_in(oidc_provider.start_login(attacker), "ada")
    victim.get(oidc_provider.callback_path(callback))
    assert STATE_MESSAGE in flashed_page(victim)
    assert not is_logged_in(victim)


def test_an_id_token_for_another_nonce_is_refused(client, oidc_provider):
    callback = oidc_provider.sign_in(oidc_provider.start_login(client), "ada")
    with client.session_transaction() as session:
        key = next(k for k in session if k.startswith("_state_mock_"))
        pending = session[key]
        pending["data"]["nonce"] = "not-the-nonce-sent"
        session[key] = pending
    client.get(oidc_provider.callback_path(callback))
    assert "The login from Mock IAM could not be verified." in flashed_page(client)
    assert not is_logged_in(client)


def test_a_code_the_provider_does_not_know_is_refused(client, oidc_provider):
    state = oidc_provider.query_of(oidc_provider.start_login(client))["state"]
    client.get(f"/login/oidc/mock/callback?code=made-up&state={state}")
    assert "The identity provider Mock IAM did not accept the login." in flashed_page(client)
    assert not is_logged_in(client)


def test_a_person_who_denies_access_at_the_provider_is_told_so(client, oidc_provider):
    callback = oidc_provider.deny(oidc_provider.start_login(client))
    assert oidc_provider.query_of(callback)["error"] == "access_denied"
    response = client.get(oidc_provider.callback_path(callback))
    assert response.status_code == 302
    assert "The identity provider Mock IAM refused the login (access_denied)." in flashed_page(
        client
    )
    assert not is_logged_in(client)


def test_the_providers_reason_is_shown_only_for_a_login_the_portal_started(client, oidc_provider):
    state = oidc_provider.query_of(oidc_provider.start_login(client))["state"]
    reason = "Your account is suspended"
    client.get(
        "/login/oidc/mock/callback",
        query_string={"error": "access_denied", "error_description": reason, "state": state},
    )
    assert f"The identity provider refused the login: {reason}" in flashed_page(client)
    client.get(
        "/login/oidc/mock/callback",
        query_string={"error": "access_denied", "error_description": "Call +1 555 0100"},
    )
    page = flashed_page(client)
    assert "refused the login (access_denied)." in page and "555" not in page


def test_an_unreachable_provider_gets_a_clear_message_and_no_error_page(make_app, oidc_provider):
    # Bound and held, never listening: refused for the whole test, whatever else runs.
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{held.getsockname()[1]}"
        app = make_app(OIDC_PROVIDERS=[oidc_provider.config(issuer=closed, label="Down IAM")])
        client = app.test_client()
        response = client.get("/login/oidc/mock")
        assert response.status_code == 302 and response.headers["Location"] == "/login"
        page = client.get("/login")
    assert page.status_code == 200
    assert "The identity provider Down IAM is not answering right now." in page.get_data(
        as_text=True
    )


def test_a_provider_without_a_discovery_document_gets_a_clear_message(make_app, oidc_provider):
    issuer = oidc_provider.url + "/nowhere"
    app = make_app(OIDC_PROVIDERS=[oidc_provider.config(issuer=issuer)])
    client = app.test_client()
    assert client.get("/login/oidc/mock").headers["Location"] == "/login"
    assert "Mock IAM sent an answer the portal cannot use." in flashed_page(client)


def test_a_provider_that_does_not_answer_in_time_gets_a_clear_message(make_app, oidc_provider):
    # Connections are queued by the kernel but never answered.
    with closing(socket.socket()) as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        issuer = f"http://127.0.0.1:{silent.getsockname()[1]}"
        app = make_app(
            OIDC_PROVIDERS=[oidc_provider.config(issuer=issuer, label="Slow IAM", timeout=0.3)]
        )
        client = app.test_client()
        client.get("/login/oidc/mock")
        assert "The identity provider Slow IAM is not answering right now." in flashed_page(client)


def test_several_providers_enabled_at_once_appear_on_the_login_page(make_app, oidc_provider):
    app = make_app(
        OIDC_PROVIDERS=[
            oidc_provider.config(),
            oidc_provider.config(name="egi", label="EGI Check-in"),
        ]
    )
    page = app.test_client().get("/login").get_data(as_text=True)
    assert "Log in with Mock IAM" in page and "Log in with EGI Check-in" in page
    assert 'href="/login/oidc/egi"' in page
    client = app.test_client()
    assert oidc_provider.log_in(client, "ada", name="egi").status_code == 302
    assert is_logged_in(client)


def test_the_login_page_shows_only_enabled_providers(make_app, oidc_provider):
    without = make_app().test_client()
    assert "Log in with" not in without.get("/login").get_data(as_text=True)
    assert without.get("/login/oidc/mock").status_code == 404
    with_one = make_app(OIDC_PROVIDERS=[oidc_provider.config()]).test_client()
    page = with_one.get("/login").get_data(as_text=True)
    assert page.count("Log in with") == 1 and "Log in with Mock IAM" in page
    assert with_one.get("/login/oidc/egi").status_code == 404


def test_apps_built_in_one_process_keep_their_own_providers(make_app, oidc_provider):
    first = make_app(OIDC_PROVIDERS=[oidc_provider.config(name="first", label="First IAM")])
    second = make_app(OIDC_PROVIDERS=[oidc_provider.config(name="second", label="Second IAM")])
    assert first.test_client().get("/login/oidc/second").status_code == 404
    page = second.test_client().get("/login").get_data(as_text=True)
    assert "Second IAM" in page and "First IAM" not in page


def test_next_is_kept_through_the_round_trip_only_when_on_site(client, oidc_provider):
    response = oidc_provider.log_in(client, "ada", next_url="/deployments/")
    assert response.headers["Location"] == "/deployments/"
    for hostile in ("https://evil.example/", "//evil.example/", "/\\evil.example"):
        log_out(client)
        response = oidc_provider.log_in(client, "ada", next_url=hostile)
        assert response.headers["Location"] == "/", hostile


def test_the_login_button_carries_next_to_the_provider_login(client):
    page = client.get("/login?next=/deployments/").get_data(as_text=True)
    assert 'href="/login/oidc/mock?next=/deployments/"' in page


@pytest.mark.parametrize(
    ("entry", "complaint"),
    [
        ({"name": "iam", "client_id": "x"}, "needs 'issuer'"),
        ({"name": "iam", "issuer": "https://iam.example.org/"}, "needs 'client_id'"),
        ({"name": "Bad Name", "issuer": "https://i.example/", "client_id": "x"}, "lower-case"),
        ({"name": "iam", "issuer": "http://iam.example.org/", "client_id": "x"}, "https://"),
        (
            {"name": "iam", "issuer": "https://i.example/", "client_id": "x", "scopes": "email"},
            "must include openid",
        ),
    ],
)
def test_an_unusable_provider_entry_stops_the_portal_with_a_clear_message(
    make_app, entry, complaint
):
    with pytest.raises(ConfigurationError, match=complaint):
        make_app(OIDC_PROVIDERS=[entry])


@pytest.mark.parametrize(
    ("claims", "claim", "groups"),
    [
        ({"groups": ["a", "b", "a"]}, "groups", ("a", "b")),
        ({"groups": "solo"}, "groups", ("solo",)),
        ({"wlcg.groups": ["/cms", "/cms/users"]}, "wlcg.groups", ("/cms", "/cms/users")),
        ({"realm": {"roles": ["x", 3, ""]}}, "realm.roles", ("x",)),
        (
            {"eduperson_entitlement": ["urn:mace:egi.eu:group:vo.example:role=member#aai"]},
            "eduperson_entitlement",
            ("urn:mace:egi.eu:group:vo.example:role=member#aai",),
        ),
        ({"groups": {"not": "a list"}}, "groups", ()),
        ({}, "groups", ()),
    ],
)
def test_groups_are_read_from_lists_single_strings_and_nested_claims(claims, claim, groups):
    assert groups_from_claims(claims, claim) == groups


def test_the_subject_names_the_account_when_nothing_else_does():
    provider = Provider(name="iam", label="IAM", issuer="https://i.example", client_id="x")
    identity = identity_from_claims(provider, {"sub": "abc-123"})
    assert (identity.provider, identity.subject, identity.username) == ("iam", "abc-123", "abc-123")


def test_a_disabled_user_is_refused_after_the_provider_round_trip_and_no_token_is_kept(
    client, oidc_app, oidc_provider
):
    from app.auth.models import OAuthToken

    oidc_provider.log_in(client, "linus")
    log_out(client)
    with oidc_app.app_context():
        user = db.session.scalar(select(User).where(User.subject == oidc_provider.sub("linus")))
        user.active = False
        user_id = user.id
        db.session.commit()
    oidc_provider.log_in(client, "linus")
    assert not is_logged_in(client)
    assert "This account has been disabled." in flashed_page(client)
    with oidc_app.app_context():
        assert db.session.scalar(select(OAuthToken).where(OAuthToken.user_id == user_id)) is None


def test_a_refusal_at_the_provider_is_told_in_italian(client, oidc_provider):
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "it"
    client.get(oidc_provider.callback_path(oidc_provider.deny(oidc_provider.start_login(client))))
    page = flashed_page(client)
    assert "L&#39;identity provider Mock IAM ha rifiutato l&#39;accesso (access_denied)." in page
    assert "Accedi con Mock IAM" in page and "refused the login" not in page


def test_control_characters_in_the_providers_claims_are_not_stored(client, oidc_app, oidc_provider):
    sub = "eve-0009"
    oidc_provider.set_claims(
        sub,
        {
            "preferred_username": "eve\r\nadmin",
            "name": "Eve\x1b[31m Evil\u2028",
            "email": "eve@example.org\r\nBcc: all@example.org",
            "groups": ["physics\n", "/chem\x00istry/"],
        },
    )

    assert oidc_provider.log_in(client, sub).status_code == 302

    user = user_with_subject(oidc_app, sub)
    assert (user.username, user.display_name, user.email) == ("eve admin", "Eve [31m Evil", "")
    assert user.groups == ["chem istry", "physics"]
