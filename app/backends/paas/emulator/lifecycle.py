"""The orchestrator emulator's state, and how its deployments move through their life.

A deployment moves on by itself after ``complete_after_polls`` reads or
``complete_after_seconds`` (either may be None: then that trigger is off; both None means it
only moves when told to, through ``set_status``). On reaching a final state it is announced to
its ``callback`` URL, as the orchestrator's notify step does: a JSON POST of the deployment
(without ``links``) whose failure is logged and otherwise ignored. A completed delete removes
the deployment, unannounced: afterwards it is unknown (404).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC

import requests

from app import remote
from app.backends.paas import schemas as s
from app.backends.paas.emulator import chronos
from app.backends.paas.emulator.faults import Faults, RequestLog
from app.backends.paas.emulator.outputs import Topology
from app.backends.paas.emulator.placement import SLAS, placement
from app.backends.paas.emulator.rules import Identity
from app.backends.paas.emulator.store import EmulatorStore, Stored
from app.clock import utcnow

logger = logging.getLogger(__name__)

Verifier = Callable[[str], Identity | None]
SITE = "provider-DEMO-SITE"
REGION = "demo-region"
ENDPOINTS = {
    "OPENSTACK": "https://openstack.demo.invalid:5000/v3",
    "MARATHON": "https://marathon.demo.invalid:8443",
    "CHRONOS": "https://chronos.demo.invalid:4443",
    "QCG": "https://qcg.demo.invalid:19000",
}
FINAL = frozenset(
    {
        s.CREATE_COMPLETE,
        s.CREATE_FAILED,
        s.UPDATE_COMPLETE,
        s.UPDATE_FAILED,
        s.DELETE_COMPLETE,
        s.DELETE_FAILED,
    }
)
CALLBACK_TIMEOUT = 10
# Fields of the stored record that are the emulator's own bookkeeping, never shown.
_PRIVATE = ("parameters",)


def now_text() -> str:
    return s.format_time(utcnow().replace(tzinfo=UTC))


def public(record: dict) -> dict:
    """The deployment JSON as the orchestrator shows it (without links)."""
    return {
        key: value
        for key, value in record.items()
        if not key.startswith("_") and key not in _PRIVATE
    }


def parameters_of(stored: Stored) -> dict:
    record = stored.record
    return record.get("_parameters", record.get("parameters")) or {}


class Callbacks:
    """Posts callbacks in background threads and remembers how each went."""

    def __init__(self):
        self._sent: list[dict] = []
        self._lock = threading.Lock()

    def send(self, url: str, deployment: dict) -> None:
        thread = threading.Thread(target=self._post, args=(url, deployment), daemon=True)
        thread.start()

    def _post(self, url: str, deployment: dict) -> None:
        outcome = {"url": url, "uuid": deployment.get("uuid"), "status": deployment.get("status")}
        try:
            with remote.session() as session:
                answer = remote.bounded(
                    lambda **streaming: session.post(
                        url,
                        json=deployment,
                        headers={"Accept": "application/json, application/*+json"},
                        timeout=CALLBACK_TIMEOUT,
                        **streaming,
                    ),
                    deadline=CALLBACK_TIMEOUT,
                )
            outcome["code"] = answer.status_code
            if answer.status_code >= 400:
                logger.warning("Callback for %s answered %s", outcome["uuid"], answer.status_code)
        except requests.RequestException as error:
            outcome["error"] = str(error)
            logger.warning("Callback for %s failed: %s", outcome["uuid"], error)
        with self._lock:
            self._sent.append(outcome)

    def sent(self) -> list[dict]:
        with self._lock:
            return list(self._sent)

    def clear(self) -> None:
        with self._lock:
            self._sent.clear()


@dataclass
class Emulator:
    """One emulator: its deployments, who it trusts, its switches and its logs."""

    store: EmulatorStore
    verifier: Verifier | None = None
    complete_after_polls: int | None = 2
    complete_after_seconds: float | None = None
    group_rule: str = "given"
    control_secret: str | None = None
    tokens: dict[str, Identity] = field(default_factory=dict)
    faults: Faults = field(default_factory=Faults)
    requests: RequestLog = field(default_factory=RequestLog)
    callbacks: Callbacks = field(default_factory=Callbacks)
    chooser: random.Random = field(default_factory=random.Random)
    lock: threading.RLock = field(default_factory=threading.RLock)
    # The SLAs a placement policy may name: id to the cloud provider it places at.
    slas: dict[str, str] = field(default_factory=lambda: dict(SLAS))

    def identify(self, token: str) -> Identity | None:
        """Who ``token`` belongs to: a registered static token, else what the verifier says."""
        if token in self.tokens:
            return self.tokens[token]
        return self.verifier(token) if self.verifier else None

    # --- life cycle ------------------------------------------------------------------------

    def advance(self, stored: Stored, count_poll: bool) -> Stored | None:
        """Move an in-progress deployment on when its time has come; ``None`` once deleted."""
        if stored.record.get("status") not in s.IN_PROGRESS:
            return stored
        with self.lock:
            # Another thread (the clock, a concurrent call) may have moved it meanwhile.
            stored = self.store.get(stored.uuid)
            if stored is None:
                return None
            status = stored.record.get("status")
            if status not in s.IN_PROGRESS:
                return stored
            stored.polls += 1 if count_poll else 0
            changed = count_poll
            waited = time.time() - stored.changed_at
            polls, seconds = self.complete_after_polls, self.complete_after_seconds
            done = (polls is not None and stored.polls >= polls) or (
                seconds is not None and waited >= seconds
            )
            brokered = done or stored.polls or waited >= 1
            if (
                status == s.CREATE_IN_PROGRESS
                and brokered
                and "cloudProviderName" not in stored.record
            ):
                # Brokering has picked a site by the time the deployer runs.
                _site, refused = placement(stored.template, self.slas)
                if refused:
                    return self.set_status(stored.uuid, s.CREATE_FAILED, refused, stored=stored)
                stored.record["task"] = "DEPLOYER"
                self._place(stored)
                changed = True
            job = status == s.CREATE_IN_PROGRESS and _kind(stored) == chronos.CHRONOS
            if job:
                topology = Topology(stored.template, parameters_of(stored), stored.uuid)
                stored.record["_states"] = chronos.job_states(topology, bool(stored.polls))
                changed = True
                # A job is done when it has run: never before its schedule starts.
                done = done and chronos.may_run(topology)
            if not done:
                if changed:
                    self.store.save(stored)
                return stored
            if job:
                failing = chronos.failing_job(topology, forced=bool(stored.record.get("_fail")))
                stored.record.pop("_states", None)
                if failing:
                    reason = chronos.failure_reason(failing)
                    return self.set_status(stored.uuid, s.CREATE_FAILED, reason, stored=stored)
            if status == s.CREATE_IN_PROGRESS and stored.record.get("_fail"):
                reason = "Emulated failure: no site could host the deployment"
                return self.set_status(stored.uuid, s.CREATE_FAILED, reason, stored=stored)
            finals = {
                s.CREATE_IN_PROGRESS: s.CREATE_COMPLETE,
                s.UPDATE_IN_PROGRESS: s.UPDATE_COMPLETE,
            }
            final = finals.get(status, s.DELETE_COMPLETE)
            return self.set_status(stored.uuid, final, stored=stored)

    def advance_all(self) -> None:
        """Move on every deployment whose time has come (the server's clock tick)."""
        seconds, now = self.complete_after_seconds, time.time()
        for stored in self.store.in_progress():
            waited = now - stored.changed_at
            placed = "cloudProviderName" in stored.record
            if seconds is not None and waited < seconds and (placed or waited < 1):
                continue  # nothing to do yet: spare the lock
            self.advance(stored, False)

    def set_status(
        self, uuid: str, status: str, reason: str | None = None, *, stored: Stored | None = None
    ) -> Stored | None:
        """Put deployment ``uuid`` in ``status`` (with ``reason`` as its statusReason), fill in
        what that status implies, and call back if it is final. DELETE_COMPLETE removes it
        (returns None). Raises KeyError for an unknown deployment."""
        with self.lock:
            stored = stored or self.store.get(uuid)
            if stored is None:
                raise KeyError(uuid)
            record = stored.record
            record.update(status=status, task="NONE", updateTime=now_text())
            record.pop("statusReason", None)
            if reason:
                record["statusReason"] = reason
            if status in s.IN_PROGRESS:
                record["task"] = "DEPLOYER"
            stored.polls, stored.changed_at = 0, time.time()
            if status != s.CREATE_IN_PROGRESS:
                self._place(stored)
            if status in (s.CREATE_COMPLETE, s.UPDATE_COMPLETE):
                topology = Topology(stored.template, parameters_of(stored), uuid)
                record["outputs"] = topology.outputs()
                record["physicalId"] = f"infrastructure-{uuid[:8]}"
            if status == s.DELETE_COMPLETE:
                self.store.remove(uuid)
            else:
                self.store.save(stored)
            # A completed delete is not announced: the orchestrator removes the record first,
            # and its notify step then finds nothing to send.
            if status in FINAL - {s.DELETE_COMPLETE} and record.get("callback"):
                self.callbacks.send(record["callback"], public(record))
            return None if status == s.DELETE_COMPLETE else stored

    def _place(self, stored: Stored) -> None:
        record = stored.record
        if "cloudProviderName" in record:
            return
        kind = Topology(stored.template, parameters_of(stored), stored.uuid).deployment_type()
        site, refused = placement(stored.template, self.slas)
        if refused:
            return  # brokering failed: no site was ever picked
        record["cloudProviderName"] = site or SITE
        record["cloudProviderEndpoint"] = {
            "cpEndpoint": ENDPOINTS.get(kind, ENDPOINTS["OPENSTACK"]),
            "cpComputeServiceId": f"demo-{kind.lower()}-service",
            "deploymentType": kind,
            "region": REGION,
        }


def _kind(stored: Stored) -> str | None:
    """The deployment type of the site it was placed at (None before brokering)."""
    return (stored.record.get("cloudProviderEndpoint") or {}).get("deploymentType")


def log_text(stored: Stored) -> str:
    """The contextualisation log the emulator shows: what happened to the deployment so far
    (nothing for Chronos jobs, for which the orchestrator keeps no log)."""
    record = stored.record
    if _kind(stored) == chronos.CHRONOS:
        return ""
    lines = [f"{record['creationTime']} Deployment {stored.uuid} submitted"]
    if "cloudProviderName" in record:
        lines.append(f"{record['updateTime']} Deploying at {record['cloudProviderName']}")
    lines.append(f"{record['updateTime']} Status: {record['status']}")
    if record.get("statusReason"):
        lines.append(f"{record['updateTime']} Reason: {record['statusReason']}")
    return "\n".join(lines) + "\n"
