"""The status words the portal publishes: in its JSON API (and so in ``rcp``'s output and in
scripts that parse either) and in its metrics' labels.

They were fixed when the portal first published them, with the words the INDIGO PaaS
Orchestrator uses, and they stay so that scripts and dashboards go on working whichever backend
a deployment runs on. Inside, the portal speaks its own words (``app.deployments.status``); this
is the one place that translates them for the outside. A status with no published word (a
backend's state no one has mapped yet) is published as it is stored.
"""

from __future__ import annotations

_PUBLISHED = {
    "creating": "CREATE_IN_PROGRESS",
    "ready": "CREATE_COMPLETE",
    "failed": "CREATE_FAILED",
    "updating": "UPDATE_IN_PROGRESS",
    "updated": "UPDATE_COMPLETE",
    "update-failed": "UPDATE_FAILED",
    "deleting": "DELETE_IN_PROGRESS",
    "deleted": "DELETE_COMPLETE",
    "delete-failed": "DELETE_FAILED",
    "unknown": "UNKNOWN",
}
_STORED = {word: status for status, word in _PUBLISHED.items()}


def published(status: str | None) -> str | None:
    """The published word for a stored ``status`` (the portal's own words are published as
    they are: SUBMITTING, UNCONFIRMED, NOT_LAUNCHED, VANISHED)."""
    if status is None:
        return None
    return _PUBLISHED.get(status, status)


def stored(word: str | None) -> str | None:
    """The stored status a published ``word`` stands for (the inverse of ``published``)."""
    if word is None:
        return None
    return _STORED.get(word, word)
