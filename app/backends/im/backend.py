"""The Infrastructure Manager as a backend: ``ImBackend``, everything the portal asks of it, and
``im_backend``, which makes one for the current app and caller (IM_USERNAME and IM_PASSWORD,
or a person's token, written into IM's auth lines)."""

from __future__ import annotations

import re
import time
from typing import Any

from flask import current_app
from flask_babel import gettext as _

from app.backends.base import (
    Backend,
    BackendError,
    Caller,
    Capabilities,
    CreateRequest,
    NotFound,
    Phase,
    Quota,
    Refused,
    RemoteState,
)
from app.backends.im import addresses, capacity, compatibility, deletes
from app.backends.im.client import ImClient, auth_lines, cloud_id_of
from app.backends.im.reasons import reason
from app.backends.im.states import WATCH, UnknownWatch, phase_of
from app.backends.im.template import TAG_PREFIX, prepared, tag_in, tag_pattern
from app.backends.im.words import WORDS
from app.errors import ConfigurationError

# IM 2.0.0 loses deletes that overlap each other or IM's own threads: a delete is checked this
# long after IM answered it, and sent again, up to DELETE_ATTEMPTS times in all.
DELETE_SETTLE_SECONDS = 0.5
DELETE_ATTEMPTS = 3


class ImBackend(Backend):
    """Makes, follows and removes infrastructures at one IM server for one caller.

    ``client`` carries the caller's auth lines; ``delete_lock`` serialises deletes at that
    server (``deletes.serialised``); ``watch`` decides when ``unknown`` is believed.
    """

    name = "im"
    words = WORDS
    address_setting = "IM_URL"
    abilities = Capabilities(
        callbacks=False,
        separate_inputs=False,
        user_group=False,
        # A site picked at launch is the cloud line the portal sends (its IM_CLOUDS id).
        site_choice=True,
        stop_start=False,
        force_delete=True,
        reset_delete=False,
        resources=False,
        fetches_imports=True,
        # People who sign in locally share the portal's one IM identity: what it holds is
        # matched to records by tag, never adopted as the caller's.
        made_elsewhere=False,
        # IM_USERNAME and IM_PASSWORD are the portal's own: it may act for any login.
        acts_for_anyone=True,
        # IM deploys to, and tells the quotas of, a cloud line named by its id.
        site_needs_placement=True,
        quotas=True,
    )

    def __init__(
        self,
        client: ImClient,
        *,
        delete_lock: deletes.DeleteLock = deletes.unserialised,
        watch: UnknownWatch = WATCH,
        settle_seconds: float = DELETE_SETTLE_SECONDS,
        delete_attempts: int = DELETE_ATTEMPTS,
    ):
        self.client = client
        self.delete_lock = delete_lock
        self.watch = watch
        self.settle_seconds = settle_seconds
        self.delete_attempts = delete_attempts

    @classmethod
    def settle(cls, config) -> None:
        """IM_TIMEOUT is seconds or a (connect, read) pair; an IM_URL needs a cloud to
        deploy to."""
        timeout = config.get("IM_TIMEOUT")
        pair = timeout if isinstance(timeout, list | tuple) else [timeout]
        if len(pair) not in (1, 2) or not all(
            isinstance(value, int | float) and not isinstance(value, bool) and value > 0
            for value in pair
        ):
            raise ConfigurationError(
                "IM_TIMEOUT must be a number of seconds, or a (connect, read) pair of them."
            )
        if config.get("IM_URL") and not config.get("IM_CLOUDS"):
            raise ConfigurationError(
                "IM_URL is set but IM_CLOUDS names no cloud: the Infrastructure Manager needs "
                "at least one auth line for a cloud to deploy to."
            )

    @classmethod
    def configured(cls) -> bool:
        """Whether this portal is set up to deploy through IM (IM_URL is set)."""
        return bool(current_app.config.get("IM_URL"))

    @classmethod
    def check(cls) -> tuple[bool, str, str]:
        """Whether the configured IM answers the portal's service identity: (answers, who,
        what it said). Raises ValueError when IM is not configured."""
        who = f"service identity {current_app.config.get('IM_USERNAME') or '(no IM_USERNAME)'}"
        with im_backend() as backend:
            try:
                version = backend.client.version()
                count = len(backend.client.list_ids())
            except BackendError as error:
                return False, who, error.message
        return True, who, f"IM {version}; {count} infrastructures held by this identity"

    @classmethod
    def template_problem(cls, node_types: tuple[str, ...]) -> str | None:
        return compatibility.template_problem(node_types)

    @classmethod
    def placement_problem(cls, placement: str) -> str | None:
        """Why IM could never deploy at cloud ``placement``: no line of IM_CLOUDS has that id
        (IM would hold such a launch pending for ever). None when one has, or while IM_CLOUDS
        names no cloud at all (a site may be recorded before IM is set up)."""
        clouds = [cloud_id_of(line) for line in cloud_lines(current_app.config.get("IM_CLOUDS"))]
        clouds = [cloud for cloud in clouds if cloud]
        if not clouds or placement in clouds:
            return None
        return _(
            "IM_CLOUDS sets up no cloud with the id “%(placement)s”, so the Infrastructure "
            "Manager could never deploy there. Give the id of one of its cloud lines: "
            "%(clouds)s.",
            placement=placement,
            clouds=", ".join(clouds),
        )

    @classmethod
    def quotas(cls, placement: str, url: str | None = None) -> dict[str, Quota | None]:
        """What cloud line ``placement`` may use and has used, read as the service identity
        at IM_URL or ``url``."""
        with im_backend(url=url) as backend:
            return capacity.quotas_of(backend.client.quotas(placement))

    @classmethod
    def for_caller(cls, caller: Caller | None, *, quick: bool = False) -> ImBackend:
        """IM acting for ``caller`` with their login's access token, or for the portal's
        service identity (IM_USERNAME and IM_PASSWORD) for None and for a login without one.
        IM_TIMEOUT bounds every call, ``quick`` or not."""
        if caller is not None and caller.access_token is not None:
            return im_backend(access_token=caller.access_token())
        return im_backend()

    def create(self, request: CreateRequest) -> RemoteState:
        """Send the template, inputs and tag written in. Raises Refused with IM's reason
        (nothing made), Unreachable (nothing made), Unavailable (perhaps made: ``find``)."""
        client = self.client
        if request.site:
            try:
                client = self.client.for_cloud(request.site)
            except ValueError as error:
                raise Refused(
                    _(
                        "The Infrastructure Manager has no cloud %(cloud)s set up; nothing was "
                        "launched. Please tell your administrators.",
                        cloud=request.site,
                    )
                ) from error
        infid = client.create(prepared(request.template, request.inputs, request.tag))
        # IM never says where it deployed: it is the one cloud line sent, when only one is.
        clouds = client.cloud_ids()
        site = clouds[0] if len(clouds) == 1 else None
        return RemoteState(infid, Phase.CREATING, raw_state="pending", tag=request.tag, site=site)

    def state(self, backend_id: str) -> RemoteState:
        """The state now; outputs when ready, and a reason (and the whole log in
        ``details["log"]``) when failed. Raises NotFound once it is deleted."""
        answer = self.client.state(backend_id)
        raw = str(answer.get("state") or "unknown")
        phase = phase_of(raw)
        details: dict[str, Any] = {"vm_states": answer.get("vm_states") or {}}
        if phase is Phase.UNKNOWN and not self.watch.believe(backend_id, raw):
            details["note"] = "IM said unknown; asked again before it is believed"
            return RemoteState(backend_id, Phase.CREATING, raw_state=raw, details=details)
        self.watch.believe(backend_id, raw)
        outputs, why = {}, None
        if phase is Phase.READY:
            outputs = self.outputs(backend_id)
        elif phase is Phase.FAILED:
            details["log"] = self.client.contmsg(backend_id)
            why = reason(details["log"])
        return RemoteState(
            backend_id, phase, raw_state=raw, reason=why, outputs=outputs, details=details
        )

    def outputs(self, backend_id: str) -> dict[str, Any]:
        """A ready infrastructure's outputs, with its machines' addresses added when no output
        says where to reach it (``addresses``)."""
        outputs = dict(self.client.outputs(backend_id))
        if not addresses.holds_an_address(outputs):
            found = addresses.machine_addresses(
                self.client.machines(backend_id, addresses.MACHINES_ASKED)
            )
            outputs.update({k: v for k, v in found.items() if k not in outputs})
        return outputs

    def list_mine(self) -> list[RemoteState]:
        """Every infrastructure of the caller's IM identity, with the portal's tag where its
        template has one. Their phases are IM's word as it is (``unknown`` not held back)."""
        found = []
        for infid in self.client.list_ids(tag_pattern_any()):
            try:
                tag = tag_in(self.client.tosca(infid))
                raw = str(self.client.state(infid).get("state") or "unknown")
                phase = phase_of(raw)
                # A listing may be the first to see it ready: its outputs come with it.
                outputs = self.outputs(infid) if phase is Phase.READY else {}
                why = reason(self.client.contmsg(infid)) if phase is Phase.FAILED else None
            except NotFound:
                continue  # deleted meanwhile
            found.append(
                RemoteState(infid, phase, raw_state=raw, reason=why, tag=tag, outputs=outputs)
            )
        return found

    def find(self, tag: str) -> RemoteState | None:
        """The infrastructure made with ``tag``, or None: what a create whose answer was lost
        made, if anything."""
        for infid in self.client.list_ids(tag_pattern(tag)):
            try:
                if tag_in(self.client.tosca(infid)) == tag:
                    return RemoteState(infid, Phase.CREATING, tag=tag)
            except NotFound:
                continue
        return None

    def delete(self, backend_id: str, *, force: bool = False) -> None:
        """Remove it, one delete at a time at this IM server, and make sure IM forgot it.
        Raises NotFound when IM did not know it, Busy while IM is still creating it,
        Unavailable (perhaps removed: ask ``state`` later).

        IM answers the delete once it is done (not ``async``), then is asked again after a
        pause: IM 2.0.0 sometimes keeps an infrastructure it reported destroyed (its own
        threads write it back, in state ``unknown``), and a second delete then removes it.
        """
        with self.delete_lock():
            for attempt in range(self.delete_attempts):
                try:
                    self.client.delete(backend_id, force=force)
                except NotFound:
                    if attempt == 0:
                        raise
                    break
                time.sleep(self.settle_seconds)
                if self._gone(backend_id):
                    break
        self.watch.forget(backend_id)

    def _gone(self, backend_id: str) -> bool:
        try:
            self.client.state(backend_id)
        except NotFound:
            return True
        return False

    def log(self, backend_id: str) -> str:
        return self.client.contmsg(backend_id)

    def credentials(self) -> tuple[str, ...]:
        return self.client.credentials

    def template(self, backend_id: str) -> str:
        return self.client.tosca(backend_id)

    def thread_copies(self):
        return lambda: ImBackend(
            self.client.copy(),
            delete_lock=self.delete_lock,
            watch=self.watch,
            settle_seconds=self.settle_seconds,
            delete_attempts=self.delete_attempts,
        )

    def close(self) -> None:
        self.client.close()


def tag_pattern_any() -> str:
    """The regular expression that finds every template the portal tagged."""
    return re.escape(TAG_PREFIX)


def im_backend(*, access_token: str | None = None, url: str | None = None) -> ImBackend:
    """The IM backend of the current app acting for a person who logged in through an OIDC
    provider (their ``access_token``), or for the portal's service identity (IM_USERNAME and
    IM_PASSWORD) when none is given; at IM_URL, or ``url`` when given. Raises ValueError
    when the settings do not allow it."""
    config = current_app.config
    url = url or config.get("IM_URL") or ""
    if not url:
        raise ValueError("IM_URL is not set.")
    lines = auth_lines(
        cloud_lines(config.get("IM_CLOUDS")),
        token=access_token,
        username=config.get("IM_USERNAME"),
        password=config.get("IM_PASSWORD"),
    )
    client = ImClient(url, lines, config["IM_TIMEOUT"])
    return ImBackend(client, delete_lock=deletes.serialised(url, current_app.instance_path))


def cloud_lines(setting: str | list[str] | None) -> list[str]:
    """IM_CLOUDS as a list of auth lines: given as a list, or as one text of lines."""
    if not setting:
        return []
    if isinstance(setting, str):
        return [line.strip() for line in setting.splitlines() if line.strip()]
    return [str(line).strip() for line in setting if str(line).strip()]
