"""My deployments does its repeated work once: the numbers and a charge's resources are worded
once per language and value and kept (they never change for either), so that the list's rows,
which mostly repeat the same few charges, cost a page little more than their own markup."""

from babel import numbers

from tests.deployments.pages_support import GB, page_text, row_of, rows_of
from tests.deployments.test_pages_italian import text_of


def test_a_second_look_at_the_list_formats_no_number_anew(
    client, login_as, make_deployment, no_orchestrator, monkeypatch
):
    user_id = login_as()
    for cores in (2, 4, 4):
        make_deployment(
            user_id, charge={"cores": cores, "memory": 8 * GB, "disk": 50 * GB, "gpus": 0}
        )
    page_text(client, "/deployments/")
    formatted = []
    original = numbers.format_decimal

    def format_decimal(*args, **kwargs):
        formatted.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(numbers, "format_decimal", format_decimal)

    again = text_of(page_text(client, "/deployments/"))

    assert formatted == []
    assert again.count("4 cores, 8 GB memory, 50 GB disk") == 2
    assert again.count("2 cores, 8 GB memory, 50 GB disk") == 1


def test_the_list_built_once_shows_each_person_only_their_own_rows(
    app, make_deployment, no_orchestrator, people
):
    # The list's statements are built once and kept, whose list and the filters left as
    # parameters: people in turn, asking for the same shapes of list, see their own rows only.
    clients, made = {}, {}
    for username in ("first-owner", "second-owner", "no-owner"):
        user_id = people.create(username)
        clients[username] = app.test_client()
        people.login(username, client=clients[username])
        if username != "no-owner":
            made[username] = make_deployment(user_id, name=f"{username} machine")
    for url in ("/deployments/", "/deployments/?q=machine", "/deployments/rows?q=machine"):
        for username in ("second-owner", "first-owner", "no-owner"):
            page = rows_of(page_text(clients[username], url))
            for owner, deployment_id in made.items():
                assert (f'id="deployment-{deployment_id}"' in page) == (owner == username), (
                    url,
                    username,
                )


def test_an_admin_naming_a_person_sees_that_persons_rows_and_no_one_elses(
    client, login_as, make_deployment, no_orchestrator, people
):
    mine = make_deployment(people.create("first-owner"), name="First's machine")
    theirs = make_deployment(people.create("second-owner"), name="Second's machine")
    login_as("admin")
    for owner, shown, hidden in (("first-owner", mine, theirs), ("SECOND-owner", theirs, mine)):
        page = rows_of(page_text(client, f"/deployments/?user={owner}"))
        assert f'id="deployment-{shown}"' in page
        assert f'id="deployment-{hidden}"' not in page
    everyone = rows_of(page_text(client, "/deployments/?user=everyone&template=test-notebook"))
    assert f'id="deployment-{mine}"' in everyone and f'id="deployment-{theirs}"' in everyone


def test_a_rows_words_are_the_ones_the_template_said_before(
    client, login_as, make_deployment, no_orchestrator
):
    user_id = login_as()
    reason = "The orchestrator said " + "no " * 40
    failed = make_deployment(user_id, name="Broken <one>", status="failed", status_reason=reason)
    deleting = make_deployment(user_id, name="Going", status="deleting")
    reached = make_deployment(
        user_id,
        name="Reached",
        outputs={"jupyter_endpoint": "https://10.0.0.7", "node_ip": "10.0.0.7"},
    )
    page = page_text(client, "/deployments/")

    failed_row = row_of(page, failed)
    cut = reason[:77].rsplit(" ", 1)[0] + "..."
    assert f">{cut}</div>" in failed_row
    assert f'title="{reason}"' in failed_row
    assert 'aria-label="Delete Broken &lt;one&gt;"' in failed_row
    assert "Broken <one>" not in page
    assert f'id="row-{deleting}-delete"' not in row_of(page, deleting)
    reached_row = row_of(page, reached)
    assert 'href="https://10.0.0.7"' in reached_row and ">Open Notebook</a>" in reached_row
    assert 'aria-label="Copy the Notebook address"' in reached_row
    assert 'data-copy-value="ssh 10.0.0.7"' in reached_row
    assert 'aria-label="Copy IP address"' in reached_row
