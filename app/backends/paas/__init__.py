"""The INDIGO PaaS Orchestrator's REST API and nothing else.

``client.OrchestratorClient`` speaks it; ``errors`` names what can go wrong; ``schemas`` turns its
JSON into what the portal shows; ``connect.client_for`` picks the orchestrator a call goes to
(the configured one, or the demo); ``cli`` is the ``flask orchestrator`` command group. The
stand-in for the real service, for the tests and the demo mode, lives apart in ``emulator``.
"""

from flask_babel import lazy_gettext as _l

from app.backends.base import N_, Words

WORDS = Words(
    label=_l("PaaS Orchestrator"),
    asked_from=_l("From the orchestrator"),
    slow_to_answer=_l("Loaded when you ask; the orchestrator may take a few seconds."),
    heard_from=_l("Last heard from the orchestrator"),
    said=_l("What the orchestrator said"),
    places_it=_l("The orchestrator picks a cloud site with room for this request."),
    places_it_unless_chosen=_l(
        "Unless you choose a site above, the orchestrator picks a cloud site with room for this "
        "request."
    ),
    placement=_l(
        "The SLA id the orchestrator's placement policy names for the site, such as sla-recas-bari."
    ),
    unconfirmed_launch=_l(
        "The orchestrator did not confirm the launch of %(name)s in time. It may have started "
        "anyway: the portal is checking and will not submit it twice, so there is no need to "
        "launch again."
    ),
    pending_launch=_l(
        "Your earlier launch \u201c%(name)s\u201d with the same settings is still being "
        "confirmed with the orchestrator; launching again could create it twice. Follow it in "
        "My deployments; it is settled within a few minutes."
    ),
    named=N_("the orchestrator"),
)


def template_problem(node_types: tuple[str, ...]) -> str | None:
    """The orchestrator takes every template the catalogue accepts: nothing to refuse here."""
    return None


def make_backend(caller, token_provider, timeout):
    """The orchestrator as a backend acting for ``caller`` (None: the portal's service
    identity) with the tokens ``token_provider`` gives."""
    from app.backends.paas.backend import PaasBackend
    from app.backends.paas.connect import client_for, service_secrets

    return PaasBackend(client_for(caller, token_provider, timeout), service_secrets())


def read_report(body: dict):
    """What the orchestrator's callback ``body`` says of a deployment (a RemoteState).
    Raises ValueError when it names no deployment."""
    from app.backends.paas.schemas import DeploymentState

    return DeploymentState.from_json(body).remote()


def login_provider_named_by(issuer: str) -> str | None:
    """The portal login provider an issuer of the demo's names, if it is one."""
    from app.backends.paas.connect import login_provider_named_by as named

    return named(issuer)


def deploys_for_real() -> bool:
    """False for the built-in demo orchestrator, which makes nothing at any site."""
    from flask import current_app

    return current_app.config.get("ORCHESTRATOR_URL") != "demo"


def capabilities():
    """The orchestrator's flags; the built-in demo takes the portal's word for every login, and
    a configured service identity acts for the logins the orchestrator does not accept."""
    from dataclasses import replace

    from flask import current_app

    from app.backends.paas.backend import PaasBackend
    from app.backends.paas.connect import trusts_every_login

    return replace(
        PaasBackend.capabilities,
        trusts_every_login=trusts_every_login(),
        acts_for_anyone=bool(current_app.config.get("ORCHESTRATOR_SERVICE_IDENTITY")),
    )


def check() -> tuple[bool, str, str]:
    """Whether the configured orchestrator answers: (answers, who the portal calls as, what it
    said). Raises ValueError when no orchestrator is configured."""
    from flask import current_app

    from app.backends.paas.client import OrchestratorClient
    from app.backends.paas.connect import trusts_every_login
    from app.backends.paas.errors import OrchestratorError

    url = current_app.config.get("ORCHESTRATOR_URL") or ""
    if not url:
        raise ValueError("ORCHESTRATOR_URL is not set.")
    if trusts_every_login():
        return True, "each person as themselves", "the built-in demo orchestrator"
    settings = current_app.config.get("ORCHESTRATOR_SERVICE_IDENTITY") or {}
    who = (
        f"service identity {settings.get('client_id') or 'with a fixed token'}"
        if settings
        else "people with their own token only (no ORCHESTRATOR_SERVICE_IDENTITY)"
    )
    timeout = current_app.config["ORCHESTRATOR_TIMEOUT"]
    with OrchestratorClient(url, lambda: "", timeout) as client:
        try:
            info = client.info(auth=False)
        except OrchestratorError as error:
            return False, who, error.message
    version = (info.get("build") or {}).get("version") or info.get("version") or "answered"
    return True, who, f"orchestrator {version}"
