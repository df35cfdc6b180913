"""The operators' quota pages, the launch form's cost and fit box, and the usage panel."""

import pytest

from app.extensions import db
from app.quotas.models import QuotaChange
from tests.conftest import People, post_form
from tests.quotas.conftest import GB, Quotas, charge


@pytest.fixture
def people(quota_app):
    return People(quota_app, quota_app.test_client())


@pytest.fixture
def operator(people):
    people.login_as("operator", username="olga")
    return people.client


@pytest.mark.parametrize(
    "url",
    [
        "/quotas/",
        "/quotas/users/1",
        "/quotas/groups/",
        "/quotas/groups/physics",
        "/quotas/site",
        "/quotas/history",
        "/quotas/usage",
        "/quotas/usage.csv",
    ],
)
def test_researchers_are_refused_every_quota_page(people, url):
    people.login_as("user", username="rita")
    assert people.client.get(url).status_code == 403


def test_operators_see_users_with_their_usage_sorted_heaviest_gpu_users_first(operator, quotas):
    light, heavy = quotas.user("light-user"), quotas.user("heavy-user")
    quotas.hold(light, charge(gpus=1))
    quotas.hold(heavy, charge(gpus=3))
    quotas.limit("user", heavy, gpus="4")
    page = operator.get("/quotas/?sort=gpus").get_data(as_text=True)
    page = page[page.index('id="quota-users"') :]
    assert page.index("heavy-user") < page.index("light-user") < page.index("olga")
    assert "GPUs: 3 GPUs held, limit 4 GPUs" in page
    by_name = operator.get("/quotas/?sort=name&q=-user").get_data(as_text=True)
    assert by_name.index("heavy-user") < by_name.index("light-user")
    assert "olga" not in operator.get("/quotas/?q=heavy", headers={"HX-Request": "1"}).text


def test_an_operator_sets_a_users_limits_with_a_reason_and_sees_the_history(operator, quotas):
    user = quotas.user("ada")
    url = f"/quotas/users/{user}"
    response = post_form(
        operator,
        url,
        url,
        {
            "gpus": "2",
            "memory": "64 GB",
            "gpu_models": "A100 = 1\nT4 = unlimited",
            "reason": "thesis deadline",
        },
    )
    assert response.status_code == 302
    page = operator.get(url).get_data(as_text=True)
    assert "thesis deadline" in page and "olga" in page
    assert 'value="64 GB"' in page and "A100 = 1" in page
    with quotas.app.app_context():
        change = db.session.scalar(db.select(QuotaChange))
        assert change.new == {"gpus": 2, "memory": 64 * GB, "gpu_models": {"A100": 1, "T4": None}}
        assert change.actor_name == "olga"


def test_a_limits_form_with_bad_values_keeps_what_was_typed_and_says_what_is_wrong(
    operator, quotas
):
    user = quotas.user("ada")
    url = f"/quotas/users/{user}"
    response = post_form(
        operator, url, url, {"gpus": "two", "memory": "64", "cores": "12", "reason": ""}
    )
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "GPUs: must be a whole number of zero or more" in page
    assert "Memory: must be a number followed by a unit" in page
    assert 'value="two"' in page and 'value="12"' in page
    with quotas.app.app_context():
        assert db.session.scalar(db.select(QuotaChange)) is None


def test_group_member_defaults_and_pool_are_edited_separately(operator, quotas):
    url = "/quotas/group?name=physics"
    post_form(
        operator, url, url, {"scope": "group", "group-gpus": "32", "group-reason": "ReCaS share"}
    )
    post_form(
        operator, url, url, {"scope": "member", "member-gpus": "4", "member-reason": "fair share"}
    )
    page = operator.get(url).get_data(as_text=True)
    assert "ReCaS share" in page and "fair share" in page
    listing = operator.get("/quotas/groups/").get_data(as_text=True)
    assert "physics" in listing and "32 GPUs" in listing and "4 GPUs" in listing


def test_the_site_default_is_edited_and_listed_in_the_history(operator):
    post_form(operator, "/quotas/site", "/quotas/site", {"cores": "8", "reason": "launch day"})
    page = operator.get("/quotas/history").get_data(as_text=True)
    assert "site default" in page and "launch day" in page and "8 cores" in page


def test_usage_over_time_is_exported_as_csv(operator, quotas):
    from datetime import timedelta

    from app.clock import utcnow

    user = quotas.user("gpu-heavy")
    quotas.hold(
        user,
        charge(cores=2, gpus=1, gpu_models={"A100": 1}),
        created_at=utcnow() - timedelta(hours=10),
        group_name="physics",
    )
    text = operator.get("/quotas/usage.csv").get_data(as_text=True)
    lines = text.splitlines()
    assert lines[0] == "month,owner_kind,owner,resource,hours"
    assert any(",user,gpu-heavy,gpu:A100," in line for line in lines)
    assert any(",group,physics,cores," in line for line in lines)
    assert "gpu-heavy" in operator.get("/quotas/usage").get_data(as_text=True)


def test_the_user_list_pages_by_name_and_by_usage(make_app):
    app = make_app(QUOTA_USERS_PAGE_SIZE=2)
    people, quotas = People(app, app.test_client()), Quotas(app)
    people.login_as("operator", username="zoe-operator")
    ids = {name: quotas.user(name) for name in ("anna", "bert", "cleo")}
    quotas.hold(ids["cleo"], charge(gpus=2))
    first = people.client.get("/quotas/?sort=name").get_data(as_text=True)
    second = people.client.get("/quotas/?sort=name&page=2").get_data(as_text=True)
    assert "anna" in first and "bert" in first and "cleo" not in first
    assert "cleo" in second and "page 2 of 2" in second
    heaviest = people.client.get("/quotas/?sort=gpus").get_data(as_text=True)
    table = heaviest[heaviest.index('id="quota-users"') :]
    assert table.index("cleo") < table.index("anna")


@pytest.mark.parametrize("name", ["infn/physics", "/physics/cms", "physics group"])
def test_a_group_whose_name_has_slashes_or_spaces_is_opened_and_edited(operator, name):
    """Keycloak and INDIGO IAM send groups as paths ("/physics/cms"); they open and save."""
    opened = operator.get("/quotas/groups/", query_string={"name": name})
    assert opened.status_code == 302
    url = opened.location
    response = post_form(
        operator, url, url, {"scope": "group", "group-gpus": "8", "group-reason": "sub-group"}
    )
    assert response.status_code == 302 and response.location == url
    page = operator.get(url).get_data(as_text=True)
    # "/physics/cms" is the group "physics/cms": the page shows the portal's one form of it.
    assert "sub-group" in page and f">Group {name.strip('/')}</h1>" in page
    listing = operator.get("/quotas/groups/").get_data(as_text=True)
    assert f'href="{url}"' in listing.replace("&amp;", "&")


def test_an_earlier_address_of_a_group_page_leads_to_it(operator):
    moved = operator.get("/quotas/groups/infn/physics")
    assert moved.status_code == 301 and moved.location.endswith("/quotas/group?name=infn/physics")


def test_operators_find_groups_people_belong_to_without_typing_their_names(operator, quotas):
    quotas.user("grace", groups=["astro-lab", "gpu-users"], provider="ldap")
    quotas.limit("group", "physics", gpus="8")

    listing = operator.get("/quotas/groups/").get_data(as_text=True)
    found = operator.get("/quotas/groups/?q=ASTRO").get_data(as_text=True)

    for name in ("astro-lab", "gpu-users", "physics"):
        assert f'href="/quotas/group?name={name}"' in listing
        assert f'<option value="{name}">' in listing
    assert 'href="/quotas/group?name=astro-lab"' in found and "gpu-users" not in found
    assert "No known group matches" in operator.get("/quotas/groups/?q=nothing").text


def test_usage_charts_name_their_months_and_carry_a_scale_and_a_text_alternative(operator, quotas):
    from datetime import timedelta

    from app.clock import utcnow
    from app.quotas.views import month_name

    user = quotas.user("gpu-heavy")
    quotas.hold(user, charge(cores=2, gpus=1), created_at=utcnow() - timedelta(hours=10))
    page = operator.get("/quotas/usage").get_data(as_text=True)

    this_month = utcnow().strftime("%Y-%m")
    with operator.application.test_request_context():
        short, long = month_name(this_month), month_name(this_month, long=True)
    assert f'<span class="flex-fill text-center">{short}</span>' in page
    assert f'<th scope="row">{long}</th>' in page
    assert '<caption class="caption-top">Core-hours per month, whole site</caption>' in page
    assert 'class="quota-chart-scale' in page and ">0</span>" in page
    assert long == utcnow().strftime("%B %Y")


def test_a_chart_of_a_fraction_of_an_hour_reads_that_fraction_not_zero(operator, quotas):
    import re
    from datetime import timedelta

    from app.clock import utcnow

    user = quotas.user("brief-user")
    quotas.hold(user, charge(cores=1), created_at=utcnow() - timedelta(minutes=18))
    page = operator.get("/quotas/usage").get_data(as_text=True)

    scales = re.findall(r'class="quota-chart-scale[^"]*">\s*<span>([^<]*)</span>', page)
    assert scales[0] == "0 h"  # no GPU was held
    assert re.fullmatch(r"0\.[1-3]\d? h", scales[1]), scales
    cores = re.search(
        r"<caption[^>]*>Core-hours per month, whole site</caption>.*?</table>", page, re.S
    )
    assert re.search(r'<td class="text-end">0\.3</td>', cores.group(0)), cores.group(0)
