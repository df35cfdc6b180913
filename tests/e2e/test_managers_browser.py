"""In the browser: the admins' Users page shows who manages which group, and names a manager,
at a laptop's width and a phone's, with no accessibility violation (axe)."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from app.auth.models import User
from app.extensions import db
from tests.e2e.conftest import log_in

PASSWORD = "correct horse battery"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True}
LAPTOP = {"viewport": {"width": 1366, "height": 800}}


def violations(page) -> list[str]:
    """Every axe-core finding in the page's own content, and the serious or critical ones of
    the frame around it (the navigation bar is checked where it is tested)."""
    found = []
    for context, impacts in (({"include": [["main"]]}, None), (None, ("serious", "critical"))):
        results = Axe().run(page, context=context)
        found += [
            f"{violation['id']} {node['target']}"
            for violation in results.response["violations"]
            if impacts is None or violation.get("impact") in impacts
            for node in violation["nodes"]
        ]
    return found


def test_an_admin_names_a_group_manager_on_the_users_page(app, people, live_server, browser, shot):
    people.create("root", PASSWORD, roles=("admin",), display_name="Portal Admin")
    people.create("ada", PASSWORD, display_name="Ada Lovelace")
    carol = people.create("carol", PASSWORD, display_name="Carol Shaw")
    with app.app_context():
        db.session.get(User, carol).managed_by_membership = ["chemistry", "physics"]
        db.session.commit()
    page = browser.new_context(**LAPTOP).new_page()
    log_in(page, live_server.url, "root", PASSWORD)
    page.goto(live_server.url + "/admin/users/")
    page.wait_for_load_state()

    page.get_by_label("Group", exact=True).fill("physics")
    page.get_by_label("Username").fill("nobody")
    page.get_by_role("button", name="Name manager").click()
    expect(page.get_by_text("No user is called nobody.")).to_be_visible()
    expect(page.get_by_label("Group", exact=True)).to_have_value("physics")

    page.get_by_label("Username").fill("ada")
    page.get_by_role("button", name="Name manager").click()
    expect(page.get_by_text("ada now manages physics.")).to_be_visible()
    row = page.get_by_role("row").filter(has_text="Ada Lovelace")
    expect(row).to_contain_text("physics named by root")
    expect(page.get_by_role("row").filter(has_text="Carol Shaw")).to_contain_text(
        "chemistry by membership"
    )
    assert violations(page) == []
    shot("admin-users-managers", target=page)

    phone = browser.new_context(**PHONE).new_page()
    log_in(phone, live_server.url, "root", PASSWORD)
    phone.goto(live_server.url + "/admin/users/")
    expect(phone.get_by_role("heading", name="Group managers")).to_be_visible()
    assert violations(phone) == []
    shot("admin-users-managers-phone", target=phone)
