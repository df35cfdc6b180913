"""The PaaS Orchestrator as a backend: ``OrchestratorClient`` behind the portal's interface.

The orchestrator takes the inputs apart from the template, reports to a callback address,
charges a group (``userGroup``), can force and reset deletes and lists a deployment's
resources. Which orchestrator and whose token: ``connect.client_for``. Its settings are
ORCHESTRATOR_*: read here and in the modules beside this one, nowhere else.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flask import current_app
from flask_babel import gettext as _

from app.backends.base import (
    Backend,
    Caller,
    Capabilities,
    CreateRequest,
    NoId,
    Refused,
    RemoteState,
    Unreadable,
)
from app.backends.paas import connect, schemas, service_identity
from app.backends.paas.client import OrchestratorClient
from app.backends.paas.errors import OrchestratorError
from app.backends.paas.placement import placed
from app.backends.paas.words import WORDS
from app.errors import ConfigurationError

# The portal's names for the steering options a create may carry, and the orchestrator's.
OPTIONS = {
    "keep_failed_attempt": "keep_last_attempt",
    "timeout_minutes": "timeout_mins",
    "provider_timeout_minutes": "provider_timeout_mins",
    "max_provider_retries": "max_providers_retry",
}
# The settings each steering option comes from (None: the orchestrator's default).
_OPTION_SETTINGS = {
    "keep_failed_attempt": "ORCHESTRATOR_KEEP_LAST_ATTEMPT",
    "timeout_minutes": "ORCHESTRATOR_TIMEOUT_MINS",
    "provider_timeout_minutes": "ORCHESTRATOR_PROVIDER_TIMEOUT_MINS",
    "max_provider_retries": "ORCHESTRATOR_MAX_PROVIDERS_RETRY",
}


class PaasBackend(Backend):
    name = "paas"
    words = WORDS
    address_setting = "ORCHESTRATOR_URL"
    abilities = Capabilities(
        callbacks=True,
        separate_inputs=True,
        user_group=True,
        site_choice=True,
        force_delete=True,
        reset_delete=True,
        resources=True,
        made_elsewhere=True,
    )

    def __init__(self, client: OrchestratorClient, secrets: tuple[str, ...] = ()):
        self.client = client
        # The portal's own secrets for the orchestrator (``service_secrets``).
        self.secrets = tuple(secrets)

    @classmethod
    def capabilities(cls) -> Capabilities:
        """The built-in demo takes the portal's word for every login, and a configured
        service identity acts for the logins the orchestrator does not accept."""
        return replace(
            cls.abilities,
            trusts_every_login=connect.trusts_every_login(),
            acts_for_anyone=service_identity.configured(),
        )

    @classmethod
    def settle(cls, config) -> None:
        """The demo when nothing else is set in development; an orchestrator is needed."""
        if not config.get("ORCHESTRATOR_URL") and config["DEVELOPMENT"]:
            config["ORCHESTRATOR_URL"] = connect.DEMO_URL
        if not config.get("ORCHESTRATOR_URL"):
            raise ConfigurationError(
                "No orchestrator is configured. Set PORTAL_ORCHESTRATOR_URL to the PaaS "
                'orchestrator\'s URL, or to "demo" for the built-in emulator (nothing real is '
                "deployed); `make setup` writes the demo's setting to instance/portal.cfg."
            )

    @classmethod
    def deploys_for_real(cls) -> bool:
        """False for the built-in demo orchestrator, which makes nothing at any site."""
        return not connect.trusts_every_login()

    @classmethod
    def check(cls) -> tuple[bool, str, str]:
        """Whether the configured orchestrator answers: (answers, who the portal calls as,
        what it said). Raises ValueError when no orchestrator is configured."""
        url = current_app.config.get("ORCHESTRATOR_URL") or ""
        if not url:
            raise ValueError("ORCHESTRATOR_URL is not set.")
        if connect.trusts_every_login():
            return True, "each person as themselves", "the built-in demo orchestrator"
        settings = current_app.config.get("ORCHESTRATOR_SERVICE_IDENTITY") or {}
        who = (
            f"service identity {settings.get('client_id') or 'with a fixed token'}"
            if settings
            else "people with their own token only (no ORCHESTRATOR_SERVICE_IDENTITY)"
        )
        with OrchestratorClient(
            url, lambda: "", current_app.config["ORCHESTRATOR_TIMEOUT"]
        ) as client:
            try:
                info = client.info(auth=False)
            except OrchestratorError as error:
                return False, who, error.message
        version = (info.get("build") or {}).get("version") or info.get("version") or "answered"
        return True, who, f"orchestrator {version}"

    @classmethod
    def read_report(cls, body: dict) -> RemoteState:
        """What the orchestrator's callback ``body`` says of a deployment. Raises ValueError
        when it names no deployment."""
        return schemas.DeploymentState.from_json(body).remote()

    @classmethod
    def login_provider_named_by(cls, issuer: str) -> str | None:
        return connect.login_provider_named_by(issuer)

    @classmethod
    def for_caller(cls, caller: Caller | None, *, quick: bool = False) -> PaasBackend:
        """The orchestrator acting for ``caller`` with their login's token, or with the
        service identity's for a caller it does not take as themselves (and for None).
        ORCHESTRATOR_TIMEOUT bounds its calls, ORCHESTRATOR_ACTION_TIMEOUT the ``quick``
        ones a person waits for."""
        config = current_app.config
        timeout = config["ORCHESTRATOR_ACTION_TIMEOUT" if quick else "ORCHESTRATOR_TIMEOUT"]
        if caller is not None and cls.calls_as_self(caller):
            # The demo signs tokens of its own for everyone: a login without one needs none.
            tokens = caller.access_token or (lambda: "")
            return cls(connect.client_for(caller, tokens, timeout), connect.service_secrets())
        identity = service_identity.service_identity
        return cls(
            connect.client_for(None, lambda: identity().access_token(), timeout),
            connect.service_secrets(),
        )

    @classmethod
    def group_to_send(cls, group: str | None) -> str | None:
        """Per ORCHESTRATOR_USER_GROUP: "always" (refused without a group), "never" or
        "when-member" (only when the person has one)."""
        rule = current_app.config["ORCHESTRATOR_USER_GROUP"]
        if rule == "never":
            return None
        if group is None and rule == "always":
            raise Refused(
                _(
                    "This orchestrator needs every deployment charged to a group, and your "
                    "account belongs to none. Ask your administrators to add you to a project "
                    "group."
                )
            )
        return group

    @classmethod
    def request_options(cls) -> dict[str, Any]:
        """Whether a failed attempt is kept, time limits and retries, from the settings."""
        config = current_app.config
        options = {key: config[setting] for key, setting in _OPTION_SETTINGS.items()}
        return {key: value for key, value in options.items() if value is not None}

    @classmethod
    def service_token(cls) -> str | None:
        """The service identity's token; None when none is configured."""
        if not service_identity.configured():
            return None
        return service_identity.service_identity().access_token()

    def create(self, request: CreateRequest) -> RemoteState:
        options = {OPTIONS[key]: value for key, value in request.options.items() if key in OPTIONS}
        # A site the person picked goes as the template's SLA placement policy.
        try:
            template = placed(request.template, request.site) if request.site else request.template
        except ValueError as error:
            raise Refused(str(error)) from error
        try:
            answer = self.client.create_deployment(
                template,
                request.inputs,
                callback=request.callback,
                user_group=request.group,
                **options,
            )
        except OrchestratorError as error:
            if error.status_code is not None and 200 <= error.status_code < 300:
                raise Unreadable(error.message, status_code=error.status_code) from error
            raise
        try:
            return schemas.DeploymentState.from_json(answer).remote()
        except ValueError as error:
            raise NoId() from error

    def state(self, backend_id: str) -> RemoteState:
        try:
            return schemas.DeploymentState.from_json(
                self.client.get_deployment(backend_id)
            ).remote()
        except ValueError as error:
            raise Unreadable() from error

    def list_mine(self) -> list[RemoteState]:
        states = []
        for item in self.client.list_deployments():
            try:
                states.append(schemas.DeploymentState.from_json(item).remote())
            except ValueError:
                continue
        return states

    def delete(self, backend_id: str, *, force: bool = False) -> None:
        self.client.delete_deployment(backend_id, force=True if force else None)

    def log(self, backend_id: str) -> str:
        return self.client.get_log(backend_id)

    def template(self, backend_id: str) -> str:
        return self.client.get_template(backend_id)

    def resources(self, backend_id: str) -> list[dict[str, Any]]:
        return self.client.list_resources(backend_id)

    def reset_delete(self, backend_id: str) -> None:
        self.client.reset_deployment(backend_id)

    def credentials(self) -> tuple[str, ...]:
        """The service identity's secrets and every token this backend's client has sent
        (a person's or the service's): never shown in what the orchestrator says."""
        return (*self.secrets, *sorted(self.client.sent_tokens))

    def thread_copies(self):
        token = self.client.token_provider()
        secrets = (*self.secrets, token)
        return lambda: PaasBackend(self.client.with_token(token), secrets)

    def close(self) -> None:
        self.client.close()
