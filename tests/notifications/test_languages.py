"""Each notice in its reader's language and time zone: the mail worker writes every mail for
its recipient, whoever else the same pass writes to, and the portal shows stored notices in
the language of whoever reads them."""

import pytest

ENDS = "2026-11-27T14:00:00Z"  # a Friday; 15:00 in Rome, 09:00 in New York


@pytest.fixture
def choosing(portal):
    """Make people with a chosen language and time zone, kept on their account."""

    def person(username, language, zone):
        return portal.user(username, f"{username}@example.org", locale=language, timezone=zone)

    return person


def _warned(portal, owner):
    deployment = portal.deployment(owner, status="ready")
    details = {"ends_at": ENDS, "before_minutes": 60}
    portal.record(deployment, None, source="portal", kind="lease-warned", details=details)
    return deployment


def test_one_pass_mails_each_expiry_warning_in_its_recipients_language_and_time_zone(
    portal, smtp_server, choosing
):
    giulia = choosing("giulia", "it", "Europe/Rome")
    ben = choosing("ben", "en", "America/New_York")
    _warned(portal, giulia)
    _warned(portal, ben)
    assert portal.send().sent == 2
    mails = {m["To"]: m for m in smtp_server.wait_for(2)}

    italian = mails["giulia@example.org"]
    assert italian["Subject"] == "Notebook for the course scade tra 1 ora"
    text = italian.get_body(("plain",)).get_content()
    html = italian.get_body(("html",)).get_content()
    assert "Notebook for the course scade tra 1 ora (27 nov 2026, 15:00 CET)." in text
    assert "Salva il tuo lavoro prima di allora" in text
    assert "Vedi Notebook for the course nel portale: https://portal.test/deployments/" in text
    assert "Scegli cosa ricevere per e-mail: https://portal.test/account/" in text
    assert '<html lang="it">' in html and "Vedi Notebook for the course nel portale</a>" in html
    for english in ("ends", "hour", "Save your work", "See ", "Choose what", "UTC", "Fri"):
        assert english not in text and english not in html, english

    english = mails["ben@example.org"]
    assert english["Subject"] == "Notebook for the course ends in 1 hour"
    text = english.get_body(("plain",)).get_content()
    assert "Notebook for the course ends at Nov 27, 2026, 09:00 EST, in 1 hour." in text
    assert "See Notebook for the course in the portal: https://portal.test/deployments/" in text
    assert '<html lang="en">' in english.get_body(("html",)).get_content()


def test_people_without_a_choice_get_the_sites_language_and_time_zone(
    make_app, smtp_server, choosing
):
    from tests.notifications.conftest import Portal

    portal = Portal(
        make_app(**smtp_server.settings(), DEFAULT_LOCALE="it", DEFAULT_TIMEZONE="Europe/Rome")
    )
    anna = portal.user("anna", "anna@example.org")
    _warned(portal, anna)
    assert portal.send().sent == 1
    [mail] = smtp_server.wait_for(1)
    assert mail["Subject"] == "Notebook for the course scade tra 1 ora"
    assert "(27 nov 2026, 15:00 CET)" in mail.get_body(("plain",)).get_content()


def test_a_stored_notice_reads_in_the_language_of_whoever_opens_the_page(portal):
    from tests.conftest import People

    people = People(portal.app, portal.app.test_client())
    owner = people.login_as("user", username="rita")
    _warned(portal, owner)
    it = people.client.get("/notifications/", headers={"Accept-Language": "it"})
    page = it.get_data(as_text=True)
    assert "Notebook for the course scade tra 1 ora" in page and "Notifiche" in page
    assert "27 nov 2026, 14:00 UTC" in page  # the site's time zone: rita chose none
    en = people.client.get("/notifications/", headers={"Accept-Language": "en"})
    assert "Notebook for the course ends in 1 hour" in en.get_data(as_text=True)


def test_a_failure_keeps_the_orchestrators_reason_and_says_it_plainly_when_read(portal):
    from app.notifications.wording import compose

    owner = portal.user()
    deployment = portal.deployment(owner)
    reason = "Quota exceeded for instances on site RECAS-BARI"
    portal.record(deployment, "failed", source="sync", reason=reason)
    [notice] = portal.notifications(owner)
    assert notice.details["reason"] == reason and "plain_reason" not in notice.details
    with portal.app.test_request_context():
        paragraphs = compose(notice).paragraphs
    assert "The cloud site has no room left under its quota for this request." in paragraphs
    assert f"The orchestrator said: {reason}" in paragraphs
