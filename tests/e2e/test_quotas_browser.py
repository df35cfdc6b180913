"""Quotas in the browser: the launch form's live cost and fit, an over-quota refusal that keeps
what was typed, the usage panel, and the operators' pages."""

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, log_in
from tests.quotas.conftest import Quotas, charge


def shot_of(locator, name: str) -> None:
    """Screenshot one part of a page (the ``shot`` fixture takes whole pages)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    locator.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.fixture
def app(catalogue_app):
    return catalogue_app


@pytest.fixture
def ada(app, people):
    user_id = people.create("ada", "correct horse battery", display_name="Ada Lovelace")
    quotas = Quotas(app)
    quotas.limit("user", user_id, gpus="4", cores="64", memory="256 GB", gpu_models={"A100": "1"})
    quotas.hold(
        user_id,
        {
            **charge(cores=8, memory=32, gpus=1, gpu_models={"T4": 1}),
            "summary": "1 × (8 cores, 32 GB, 1 T4 GPU)",
        },
        name="old notebook",
    )
    return quotas


def test_the_launch_form_shows_cost_and_fit_as_values_change(live_server, page, shot, ada):
    log_in(page, live_server.url, "ada", "correct horse battery")
    page.goto(live_server.url + "/catalogue/jupyter-ml-gpu/")
    box = page.locator("#launch-summary")
    expect(box.get_by_text("Fits")).to_be_visible()
    expect(
        box.get_by_role("img", name="GPUs: 1 GPU held, 1 GPU requested, limit 4 GPUs")
    ).to_be_visible()
    shot("quota-launch-fits")

    page.get_by_role("button", name="Four A100").click()
    expect(box.get_by_text("Does not fit:")).to_be_visible()
    expect(box).to_contain_text(
        "It needs 4 A100 GPUs, but your limit is 1 A100 GPU (3 A100 GPUs over)."
    )
    expect(box).to_contain_text(
        "It needs 4 GPUs, but deployment old notebook already holds 1 GPU of your limit of "
        "4 GPUs (1 GPU over)."
    )
    expect(box.get_by_role("link", name="old notebook").first).to_be_visible()
    shot("quota-launch-does-not-fit")

    launch = page.get_by_role("button", name="Launch", exact=True)
    expect(launch).to_be_disabled()
    expect(page.locator("#launch-reason")).to_contain_text("Launch is off until the request fits")
    shot("quota-launch-off")

    page.get_by_role("button", name="One T4").click()
    expect(box.get_by_text("Fits")).to_be_visible()
    expect(launch).to_be_enabled()
    expect(page.locator("#launch-reason")).to_be_hidden()


def test_switching_presets_resets_what_the_new_one_does_not_name(live_server, page, shot, ada):
    log_in(page, live_server.url, "ada", "correct horse battery")
    page.goto(live_server.url + "/catalogue/jupyter-ml-gpu/")
    page.get_by_role("button", name="Four A100").click()
    page.get_by_role("tab", name="Advanced").click()
    disk = page.get_by_label("Disk", exact=True)
    expect(disk).to_have_value("500 GB")

    page.get_by_role("button", name="One T4").click()

    # "One T4" names no disk: the template's 100 GB comes back, not Four A100's 500 GB.
    expect(disk).to_have_value("100 GB")
    expect(page.get_by_label("Cores", exact=True)).to_have_value("8")
    expect(page.locator("#launch-summary")).to_contain_text("Fits")
    shot("launch-preset-switched")


def test_an_over_quota_launch_is_refused_and_keeps_the_typed_values(live_server, page, shot, ada):
    log_in(page, live_server.url, "ada", "correct horse battery")
    page.goto(live_server.url + "/catalogue/jupyter-ml-gpu/")
    page.get_by_role("button", name="Four A100").click()
    page.get_by_role("tab", name="Advanced").click()
    page.get_by_label("Disk", exact=True).fill("321 GB")
    expect(page.get_by_role("button", name="Launch", exact=True)).to_be_disabled()
    # A box that had no time to catch up, or a browser without scripts: the server refuses.
    page.evaluate("document.getElementById('launch-form').submit()")
    alert = page.locator(".alert-danger").first
    expect(alert).to_contain_text("This launch does not fit your quota.")
    expect(alert).to_contain_text(
        "It needs 4 A100 GPUs, but your limit is 1 A100 GPU (3 A100 GPUs over)."
    )
    expect(alert).to_contain_text("Nothing was launched")
    expect(page.get_by_label("Disk", exact=True)).to_have_value("321 GB")
    expect(page.get_by_label("Cores", exact=True)).to_have_value("64")
    # The tabs holding the fields that size what went over say so; the first one is open,
    # with the keyboard on its first such field.
    expect(page.get_by_role("tab", name="Basic")).to_contain_text("needs attention")
    expect(page.get_by_role("tab", name="Advanced")).to_contain_text("needs attention")
    expect(page.get_by_label("GPUs", exact=True)).to_be_focused()
    expect(page.get_by_text("Over your quota: choose less here.").first).to_be_visible()
    shot("quota-launch-refused")


def test_the_form_box_reads_well_on_a_phone(live_server, browser, shot, ada):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    log_in(phone, live_server.url, "ada", "correct horse battery")
    phone.goto(live_server.url + "/catalogue/jupyter-ml-gpu/")
    phone.get_by_role("button", name="Four A100").click()
    box = phone.locator(".launch-sidebar")
    expect(box.get_by_text("Does not fit:")).to_be_visible()
    shot_of(box, "quota-launch-phone")
    phone.goto(live_server.url + "/deployments/")
    expect(phone.get_by_text("My usage")).to_be_visible()
    shot("quota-usage-panel-phone", target=phone)
    context.close()


def test_my_deployments_shows_my_usage(live_server, page, shot, ada):
    log_in(page, live_server.url, "ada", "correct horse battery")
    page.goto(live_server.url + "/deployments/")
    panel = page.locator(".quota-panel")
    expect(panel.get_by_role("link", name="old notebook")).to_be_visible()
    shot_of(panel, "quota-usage-panel")


def test_what_holds_my_usage_drops_a_deployment_once_its_delete_finishes(
    app, live_server, page, ada
):
    from sqlalchemy import select

    from app.auth.models import User
    from app.deployments.models import Deployment
    from app.extensions import db

    app.config["DEPLOYMENTS_POLL_SECONDS"] = 1
    with app.app_context():
        ada_id = db.session.scalar(select(User.id).where(User.username == "ada"))
    going = ada.hold(ada_id, charge(cores=4), status="deleting", name="notebook going away")
    log_in(page, live_server.url, "ada", "correct horse battery")
    page.goto(live_server.url + "/deployments/")
    holders = page.locator(".quota-panel .quota-holders")
    expect(holders.get_by_role("link", name="notebook going away")).to_be_visible()

    with app.app_context():
        deployment = db.session.get(Deployment, going)
        deployment.status, deployment.deleted = "deleted", True
        db.session.commit()

    # No reload: the list's own poll brings the figures, and what holds them follows.
    expect(holders.get_by_role("link", name="notebook going away")).to_have_count(0, timeout=15_000)
    expect(holders.get_by_role("link", name="old notebook")).to_be_visible()


def test_an_operator_finds_the_heaviest_gpu_user_and_changes_their_limit(
    live_server, page, shot, ada, people
):
    people.create("olga", "correct horse battery", roles=("operator",), display_name="Olga")
    for name in ("bob", "carla"):
        ada.hold(ada.user(name), charge(cores=4, gpus=2 if name == "bob" else 0))
    log_in(page, live_server.url, "olga", "correct horse battery")
    page.goto(live_server.url + "/quotas/")
    page.get_by_label("Sort by").select_option("gpus")
    expect(page.locator("#quota-users tbody tr").first).to_contain_text("bob")
    shot("quota-operator-users")
    page.get_by_role("link", name="Ada Lovelace").click()
    page.get_by_label("GPUs (all models)").fill("8")
    # The page has a budget form too, with a reason of its own.
    limits = page.locator("form", has=page.get_by_role("button", name="Save limits"))
    limits.get_by_label("Reason for the change").fill("new project grant")
    page.get_by_role("button", name="Save limits").click()
    expect(page.get_by_text("new project grant")).to_be_visible()
    shot("quota-operator-user")
