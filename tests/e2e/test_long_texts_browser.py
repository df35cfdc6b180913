"""Long texts a backend gave show in boxes of bounded height on the deployment's page: a cut
4,096-character output, a many-line output, a long failure reason. Each box scrolls (by keyboard
too: it takes the focus), the page stays short and never scrolls sideways, and axe finds no
serious problem; laptop and phone width, English and Italian."""

import pytest
from playwright.sync_api import expect

from app.deployments import said
from tests.e2e.conftest import log_in
from tests.e2e.test_every_page_browser import serious_violations
from tests.quotas.conftest import Quotas, charge

PASSWORD = "correct horse battery"
# The box is at most 12rem high (192 px at the page's 16 px), its padding and border beside.
MOST = 12 * 16 + 24
REASON = "Stack creation failed: " + "resource quota exceeded on compute node; " * 60


@pytest.fixture
def app(catalogue_app):
    return catalogue_app


@pytest.fixture
def deployments(app, people):
    user_id = people.create("ada", PASSWORD, display_name="Ada Lovelace")
    quotas = Quotas(app)
    ready = quotas.hold(user_id, charge(cores=2), name="Thesis analysis")
    outputs = said.outputs(
        {
            "banner": "0123456789" * 2000,
            "motd": "\n".join(f"line {n}: welcome to the machine" for n in range(60)),
            "node_ip": "203.0.113.9",
        }
    )
    quotas.update(ready, outputs=outputs)
    failed = quotas.hold(user_id, charge(cores=2), status="failed", name="Broken run")
    quotas.update(failed, status_reason=REASON)
    return ready, failed


def _bounded(page, box) -> None:
    expect(box).to_be_visible()
    height = box.evaluate("e => e.getBoundingClientRect().height")
    assert height <= MOST, height
    assert box.evaluate("e => e.scrollHeight > e.clientHeight + 20")
    # Reached by keyboard, and the arrow keys scroll it.
    box.focus()
    expect(box).to_be_focused()
    box.press("End")
    page.wait_for_function("e => e.scrollTop > 0", arg=box.element_handle())


@pytest.mark.parametrize("language", ["en", "it"])
@pytest.mark.parametrize(("width", "height"), [(1280, 860), (390, 844)])
def test_long_outputs_and_reasons_show_in_bounded_boxes(
    live_server, browser, shot, deployments, language, width, height
):
    ready, failed = deployments
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=width < 500
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "ada", PASSWORD)
    context.set_extra_http_headers({"Accept-Language": language})

    page.goto(f"{live_server.url}/deployments/{ready}")
    outputs = page.locator(".deployment-outputs")
    boxes = outputs.locator(".bounded-text")
    expect(boxes).to_have_count(2)  # the cut banner and the many lines; not the address
    for index in range(2):
        _bounded(page, boxes.nth(index))
    expect(outputs.locator("code.output-text")).to_have_text("203.0.113.9")
    # Two boxes and the rest of the page: far from the 40,000 px the texts would take whole.
    assert page.evaluate("document.documentElement.scrollHeight") < 3 * height + 2 * MOST
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert serious_violations(page) == []
    outputs.scroll_into_view_if_needed()
    shot(f"{language}-{width}-long-outputs-bounded", page)

    page.goto(f"{live_server.url}/deployments/{failed}")
    reason = page.locator(".reason-text")
    if not reason.is_visible():  # under the plain sentence, the backend's words are folded
        page.locator(".status-reason summary").click()
    _bounded(page, reason)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert serious_violations(page) == []
    shot(f"{language}-{width}-long-reason-bounded", page, full_page=False)
    context.close()
