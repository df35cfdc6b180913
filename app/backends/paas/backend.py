"""The PaaS Orchestrator as a backend: ``OrchestratorClient`` behind the portal's interface.

The orchestrator takes the inputs apart from the template, reports to a callback address,
charges a group (``userGroup``), can force and reset deletes and lists a deployment's
resources. Which orchestrator and whose token: ``connect.client_for``.
"""

from __future__ import annotations

from typing import Any

from app.backends.base import (
    Backend,
    Capabilities,
    CreateRequest,
    NoId,
    Refused,
    RemoteState,
    Unreadable,
)
from app.backends.paas import schemas
from app.backends.paas.client import OrchestratorClient
from app.backends.paas.errors import OrchestratorError
from app.backends.paas.placement import placed

# The portal's names for the steering options a create may carry, and the orchestrator's.
OPTIONS = {
    "keep_failed_attempt": "keep_last_attempt",
    "timeout_minutes": "timeout_mins",
    "provider_timeout_minutes": "provider_timeout_mins",
    "max_provider_retries": "max_providers_retry",
}


class PaasBackend(Backend):
    name = "paas"
    capabilities = Capabilities(
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
