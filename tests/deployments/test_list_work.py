"""My deployments does its repeated work once: the numbers and a charge's resources are worded
once per language and value and kept (they never change for either), so that the list's rows,
which mostly repeat the same few charges, cost a page little more than their own markup."""

from babel import numbers

from tests.deployments.pages_support import GB, page_text
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
