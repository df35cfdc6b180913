"""Group managers: named by operators on the command line, or by membership of another group
(GROUP_MANAGER_GROUPS, read at each login like ROLE_GROUPS)."""

from app.auth import managers
from app.auth.identity import Identity
from app.auth.local import find_local_user
from app.auth.operations import change_local_groups, record_identity
from app.extensions import db


def run(app, *args):
    return app.test_cli_runner().invoke(args=["groups", "managers", *args])


def test_an_operator_names_lists_and_removes_a_manager(app, people):
    people.create("pi")
    people.create("student")
    assert run(app, "add", "/physics/", "pi").output == "pi now manages physics.\n"
    assert run(app, "add", "physics", "pi").output == "pi already managed physics.\n"
    lines = run(app, "list", "physics").output.splitlines()
    assert lines[0].split() == ["GROUP", "USERNAME", "PROVIDER", "HOW"]
    assert lines[1].split() == ["physics", "pi", "local", "named", "by", "cli"]
    with app.app_context():
        assert managers.manages(find_local_user("pi"), "physics")
        assert not managers.manages(find_local_user("student"), "physics")
        assert not managers.manages(find_local_user("pi"), "chemistry")
        assert [user.username for user in managers.managers_of("physics")] == ["pi"]
    assert run(app, "remove", "physics", "pi").output == "pi no longer manages physics by name.\n"
    assert run(app, "remove", "physics", "pi").output == "pi was not named a manager of physics.\n"
    assert run(app, "list", "physics").output.splitlines()[-1] == "physics has no managers."
    with app.app_context():
        assert not managers.manages(find_local_user("pi"), "physics")


def test_naming_someone_unknown_or_no_group_is_refused_in_words(app, people):
    people.create("pi")
    unknown = run(app, "add", "physics", "nobody")
    assert unknown.exit_code != 0 and "No user named 'nobody'." in unknown.output
    empty = run(app, "add", "//", "pi")
    assert empty.exit_code != 0 and "Give a group name." in empty.output


def test_two_accounts_of_one_name_need_the_provider(app, people):
    people.create("grace")
    with app.app_context():
        record_identity(Identity("ldap", "grace", "grace", groups=("hpc",)))
    both = run(app, "add", "hpc", "grace")
    assert both.exit_code != 0 and "say which with --provider" in both.output
    assert run(app, "add", "hpc", "grace", "--provider", "ldap").output == (
        "grace now manages hpc.\n"
    )


def test_members_of_a_group_manage_another_from_their_next_login(make_app, people_for):
    app = make_app(GROUP_MANAGER_GROUPS={"physics": ["/physics-pi"], "chemistry": ["chem-pi"]})
    with app.app_context():
        pi = record_identity(Identity("oidc", "s-1", "enrico", groups=("/physics-pi/",)))
        assert pi.managed_by_membership == ["physics"]
        assert managers.managed_groups(pi) == {"physics"}
        assert [u.username for u in managers.managers_of("physics")] == ["enrico"]
        assert managers.managers_of("chemistry") == []
        # The next login without the group: no longer a manager.
        pi = record_identity(Identity("oidc", "s-1", "enrico", groups=("physics",)))
        assert pi.managed_by_membership == []
    people = people_for(app, app.test_client())
    people.create("marie")
    with app.app_context():
        marie = find_local_user("marie")
        change_local_groups(marie, add=["chem-pi"])
        assert db.session.get(type(marie), marie.id).managed_by_membership == ["chemistry"]
    listed = run(app, "list").output
    assert "chemistry                marie" in listed and "by membership" in listed
    assert "Members of chem-pi manage chemistry (GROUP_MANAGER_GROUPS)." in listed
    assert "Members of physics-pi manage physics (GROUP_MANAGER_GROUPS)." in listed
