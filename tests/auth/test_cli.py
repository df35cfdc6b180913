"""``flask users ...``: local accounts and role grants from the command line."""

import re

from app.auth.local import find_local_user


def run(app, *args, env=None):
    return app.test_cli_runner().invoke(args=["users", *args], env=env)


def test_bootstrap_creates_an_admin_and_a_researcher_and_prints_passwords_once(app, people):
    first = run(app, "bootstrap")
    passwords = dict(re.findall(r"account '(\w+)'; password \(shown once\): (\S+)", first.output))
    assert set(passwords) == {"admin", "researcher"}
    assert people.login("admin", passwords["admin"]).status_code == 302
    second = run(app, "bootstrap")
    assert "exists already" in second.output and "shown once" not in second.output
    with app.app_context():
        assert find_local_user("admin").is_admin
        assert not find_local_user("researcher").is_operator


def test_bootstrap_takes_passwords_from_the_environment(app, people):
    env = {"PORTAL_ADMIN_PASSWORD": "admin pass 123", "PORTAL_RESEARCHER_PASSWORD": "res pass 456"}
    result = run(app, "bootstrap", env=env)
    assert "shown once" not in result.output
    assert people.login("researcher", "res pass 456").status_code == 302


def test_reset_password_prints_a_new_one_and_ends_existing_sessions(app, people, client):
    people.create("ada")
    people.login("ada")
    assert client.get("/catalogue/").status_code == 200
    result = run(app, "reset-password", "ada")
    new_password = result.output.rsplit(": ", 1)[1].strip()
    assert client.get("/catalogue/").status_code == 302  # the old session is gone
    assert people.login("ada", new_password).status_code == 302


def test_grant_and_revoke_change_what_the_user_may_reach(app, people, client):
    people.create("ada")
    assert "ada is now operator." in run(app, "grant", "ada", "operator").output
    people.login("ada")
    assert client.get("/quotas/").status_code == 200
    run(app, "revoke", "ada", "operator")
    assert client.get("/quotas/").status_code == 403


def test_commands_about_unknown_users_fail_with_a_clear_message(app):
    result = run(app, "grant", "nobody", "admin")
    assert result.exit_code != 0 and "No local user named 'nobody'." in result.output


def test_a_disabled_user_is_logged_out_and_cannot_log_in(app, people, client):
    people.create("ada")
    people.login("ada")
    run(app, "disable", "ada")
    assert client.get("/catalogue/").status_code == 302
    assert people.login("ada").status_code == 401
