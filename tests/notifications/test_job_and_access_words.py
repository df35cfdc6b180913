"""What a notice says fits what was launched: a batch job is told that it succeeded or failed,
never that it is running and can be used; a ready service's mail carries its non-secret ways
in (the link, the address, the ``ssh`` line), never a secret; in English and Italian."""

from pathlib import Path

import pytest
from flask_babel import force_locale

from app.auth.models import User
from app.catalogue.operations import save_revision
from app.extensions import db
from app.notifications.preferences import choose_email_kinds
from app.notifications.wording import compose

CATALOGUE = Path(__file__).resolve().parents[2] / "tosca-catalog"


def _revision(portal, slug: str) -> int:
    with portal.app.app_context():
        revision = save_revision(
            slug,
            (CATALOGUE / f"{slug}.yaml").read_text(),
            (CATALOGUE / f"{slug}.portal.yaml").read_text(),
            "test",
            create=True,
        )
        db.session.commit()
        return revision.id


def _job(portal, owner: int) -> int:
    return portal.deployment(
        owner,
        name="train-once",
        template_slug="chronos-gpu-job",
        template_name="Batch job with GPUs (Chronos)",
        template_text=(CATALOGUE / "chronos-gpu-job.yaml").read_text(),
        parameters={"command": "python train.py", "schedule": "R1//P1D"},
        deployment_type="CHRONOS",
        site="ReCaS-Bari",
    )


def _wants_mail(portal, user_id: int, *kinds) -> None:
    with portal.app.app_context():
        choose_email_kinds(db.session.get(User, user_id), set(kinds))


def _words(portal, notice, language: str):
    with portal.app.test_request_context(), force_locale(language):
        message = compose(notice)
        return message.subject, " ".join(message.paragraphs)


def test_a_job_that_succeeded_is_told_so_in_the_bell_and_the_mail(portal, smtp_server):
    ada = portal.user()
    _wants_mail(portal, ada, "ready")
    portal.record(_job(portal, ada), "ready", source="sync")

    [notice] = portal.notifications(ada)
    subject, text = _words(portal, notice, "en")
    assert subject == "train-once succeeded"
    assert text == "The batch job train-once ran and succeeded."
    subject, text = _words(portal, notice, "it")
    assert subject == "train-once è terminato con successo"
    assert "ready" not in subject and "pronto" not in subject
    assert "può essere usato" not in text and "in esecuzione" not in text

    assert portal.send().sent == 1
    [message] = smtp_server.wait_for(1)
    assert message["Subject"] == "train-once succeeded"
    body = message.get_body(("plain",)).get_content()
    assert "ran and succeeded" in body
    assert "running and can be used" not in body


def test_a_job_that_failed_is_told_it_ran_and_failed(portal, smtp_server):
    ada = portal.user()
    job = _job(portal, ada)
    portal.record(job, "failed", source="sync", reason="Chronos job x failed to execute")

    [notice] = portal.notifications(ada)
    subject, text = _words(portal, notice, "en")
    assert subject == "train-once failed"
    assert text.startswith("The batch job train-once ran and failed.")
    assert "could not create" not in text and "nothing of it is running" not in text
    subject, text = _words(portal, notice, "it")
    assert subject == "train-once non è riuscito"
    assert portal.send().sent == 1
    [message] = smtp_server.wait_for(1)
    assert message["Subject"] == "train-once failed"


def test_a_service_keeps_its_ready_words(portal):
    ada = portal.user()
    service = portal.deployment(ada, name="notebook")
    portal.record(service, "ready", source="sync")

    [notice] = portal.notifications(ada)
    assert _words(portal, notice, "en") == (
        "notebook is ready",
        "notebook is running and can be used.",
    )


@pytest.mark.parametrize(
    ("language", "address", "ssh"),
    [
        ("en", "IP address: 203.0.113.9", "SSH: ssh cloudadm@203.0.113.9"),
        ("it", "Indirizzo IP: 203.0.113.9", "SSH: ssh cloudadm@203.0.113.9"),
    ],
)
def test_the_ready_mail_gives_the_address_and_the_ssh_line_and_no_secret(
    portal, smtp_server, language, address, ssh
):
    ada = portal.user(locale=language)
    _wants_mail(portal, ada, "ready")
    machine = portal.deployment(
        ada,
        name="my-vm",
        template_slug="vm",
        template_name="Virtual machine",
        revision_id=_revision(portal, "vm"),
        outputs={
            "node_ip": "203.0.113.9",
            "ssh_access": "cloudadm@203.0.113.9",
            "admin_password": "hunter2-not-marked-secret",
            "private_key": "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n"
            "-----END OPENSSH PRIVATE KEY-----",
        },
    )
    portal.record(machine, "ready", source="callback")

    assert portal.send().sent == 1
    [message] = smtp_server.wait_for(1)
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    assert address in text and ssh in text
    assert "<code>ssh cloudadm@203.0.113.9</code>" in html and "<code>203.0.113.9</code>" in html
    for secret in ("hunter2", "PRIVATE KEY"):
        assert secret not in text and secret not in html


def test_the_main_link_is_given_once_with_the_other_addresses(portal, smtp_server):
    ada = portal.user()
    _wants_mail(portal, ada, "ready")
    lab = "https://203.0.113.7:8888/lab"
    deployment = portal.deployment(ada, outputs={"endpoint": lab, "node_ip": "203.0.113.7"})
    portal.record(deployment, "ready", source="callback")

    portal.send()
    [message] = smtp_server.wait_for(1)
    text = message.get_body(("plain",)).get_content()
    assert text.count(lab) == 1 and "IP address: 203.0.113.7" in text
