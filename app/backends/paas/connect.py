"""Which orchestrator a call goes to: the one at ORCHESTRATOR_URL, over the network, or in the
demo mode (ORCHESTRATOR_URL = "demo") the emulator inside this process. The only place that
tells the two apart: both are reached through the same ``OrchestratorClient``.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import current_app

from app.backends.base import Caller
from app.backends.paas.client import OrchestratorClient, Timeout

DEMO_URL = "demo"


def trusts_every_login() -> bool:
    """Whether the configured orchestrator takes the portal's word for who is calling (the
    demo, which accepts tokens the portal signs itself). Then everyone calls as themselves,
    whatever their login, and nothing can have been deployed there but through this portal."""
    return current_app.config["ORCHESTRATOR_URL"] == DEMO_URL


def client_for(
    caller: Caller | None, token_provider: Callable[[], str], timeout: Timeout
) -> OrchestratorClient:
    """A client calling the configured orchestrator for ``caller`` (None: the portal itself)
    with the tokens ``token_provider`` gives; the demo ignores them and signs its own."""
    if trusts_every_login():
        from app.backends.paas.emulator.demo import demo_client

        return demo_client(current_app._get_current_object(), caller, timeout)
    return OrchestratorClient(current_app.config["ORCHESTRATOR_URL"], token_provider, timeout)


def service_secrets() -> tuple[str, ...]:
    """The secrets of the portal's service identity (ORCHESTRATOR_SERVICE_IDENTITY): its
    client secret and its fixed token, where set. Whatever the orchestrator says is masked
    with them, as with the tokens sent (``PaasBackend.credentials``)."""
    settings = current_app.config.get("ORCHESTRATOR_SERVICE_IDENTITY") or {}
    return tuple(str(settings[key]) for key in ("client_secret", "token") if settings.get(key))


def login_provider_named_by(issuer: str) -> str | None:
    """The portal login provider that an orchestrator ``createdBy.issuer`` names itself (the
    demo's issuers do); None when ``issuer`` is an identity provider's, to be matched against
    the configured ones."""
    if trusts_every_login():
        from app.backends.paas.emulator.demo import login_provider_of

        return login_provider_of(issuer)
    return None
