"""``flask users ...``: local accounts and role grants from the command line."""

import re

import pytest

from app.auth.errors import GroupsNotEditable
from app.auth.identity import Identity
from app.auth.local import find_local_user
from app.auth.operations import change_local_groups, record_identity


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


def test_create_prints_a_generated_password_that_logs_in(app, people):
    result = run(app, "create", "ada", "--name", "Ada Lovelace", "--role", "operator")
    assert result.exit_code == 0, result.output
    password = re.fullmatch(r"Created ada; password \(shown once\): (\S{12,})\n", result.output)
    assert password, result.output
    assert people.login("ada", password.group(1)).status_code == 302
    with app.app_context():
        user = find_local_user("ada")
        assert user.display_name == "Ada Lovelace" and user.is_operator


def test_create_takes_the_password_from_the_named_variable_and_never_prints_it(app, people):
    result = run(app, "create", "ada", "--password-env", "ADA_PW", env={"ADA_PW": "from env 123"})
    assert result.output == "Created ada with the password from $ADA_PW.\n"
    assert people.login("ada", "from env 123").status_code == 302


def test_create_refuses_a_name_that_is_taken(app, people):
    people.create("ada")
    result = run(app, "create", "ada")
    assert result.exit_code != 0 and "A local user named 'ada' already exists." in result.output


def test_list_shows_every_user_with_provider_roles_groups_and_state(app, people):
    people.create("ada", roles=("admin",))
    people.create("bob")
    run(app, "groups", "bob", "--add", "gpu-users", "--add", "physics")
    run(app, "disable", "bob")
    lines = run(app, "list").output.splitlines()
    assert lines[0].split() == ["PROVIDER", "USERNAME", "ROLES", "GROUPS"]
    assert lines[1].split() == ["local", "ada", "admin,", "user", "-"]
    assert lines[2].split() == ["local", "bob", "user", "gpu-users,", "physics", "(disabled)"]


def test_groups_adds_and_removes_and_group_roles_follow(make_app, people_for):
    app = make_app(ROLE_GROUPS={"admin": [], "operator": ["quota-keepers"]})
    people = people_for(app, app.test_client())
    people.create("ada")
    result = run(app, "groups", "ada", "--add", "gpu-users", "--add", "quota-keepers")
    assert result.output == "ada is in: gpu-users, quota-keepers\n"
    people.login("ada")
    assert people.client.get("/quotas/").status_code == 200
    assert run(app, "groups", "ada", "--remove", "quota-keepers").output == "ada is in: gpu-users\n"
    assert people.client.get("/quotas/").status_code == 403
    assert run(app, "groups", "ada").output == "ada is in: gpu-users\n"


def test_groups_refuses_a_name_that_cannot_be_a_group(app, people):
    people.create("ada")
    result = run(app, "groups", "ada", "--add", "gpu users;drop")
    assert result.exit_code != 0
    assert "'gpu users;drop' is not a group name" in result.output
    assert "for example gpu-users" in result.output


def test_groups_of_directory_accounts_are_left_to_the_directory(app):
    with app.app_context():
        user = record_identity(Identity("ldap", "grace", "grace", groups=("hpc-users",)))
        with pytest.raises(GroupsNotEditable, match="come from ldap at each login"):
            change_local_groups(user, add=["gpu-users"])
        assert user.groups == ["hpc-users"]


def test_the_command_line_answers_in_english_whatever_the_sites_language(make_app):
    app = make_app(DEFAULT_LOCALE="it")
    result = run(app, "create", "ada", "--password-env", "SHORT_PW", env={"SHORT_PW": "short"})
    assert "Choose a password of at least 12 characters." in result.output
    run(app, "create", "ada")
    assert "A local user named 'ada' already exists." in run(app, "create", "ada").output
    tokens = app.test_cli_runner().invoke(
        args=["tokens", "create", "ada", "--name", "ci", "--scopes", "nonsense"]
    )
    assert "Unknown scope nonsense" in tokens.output


def test_grants_from_the_command_line_and_the_first_setup_are_kept_as_kinds_not_words(app, people):
    from app import actors

    people.create("ada")
    run(app, "grant", "ada", "operator")
    run(app, "bootstrap")
    with app.app_context():
        [grant] = find_local_user("ada").grants
        [setup] = find_local_user("admin").grants
        assert (grant.granted_by, setup.granted_by) == (actors.COMMAND_LINE, actors.SETUP)
