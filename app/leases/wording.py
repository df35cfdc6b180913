"""The words of the lease entries on a deployment's timeline, and of a delete refused at a
lease's end, composed when a page shows them from what was kept (a kind and its details, the
refusal's parts), in the reader's language."""

from __future__ import annotations

import json

from flask_babel import gettext as _

from app.deployments.errors import problem_text
from app.deployments.models import DeploymentEvent
from app.leases.clock_text import from_iso, shown

# The detail that marks the portal's delete at a lease's end refused (a status change, so
# recorded without a kind: notifications and the lease hooks read those as status news).
DELETE_REFUSED = "lease_delete_refused"


def stored(problem: dict) -> str:
    """A refusal from ``problem_of`` as the lease keeps it."""
    return json.dumps(problem, ensure_ascii=False, sort_keys=True)


def problem_shown(kept: str | None) -> str | None:
    """A lease's kept refusal in the reader's language (a plain text, from before refusals
    were kept in parts, as it is)."""
    if not kept or not kept.startswith("{"):
        return kept
    try:
        return problem_text(json.loads(kept))
    except ValueError:
        return kept


def _at(details: dict, key: str) -> str:
    try:
        return shown(from_iso(details.get(key)))
    except (TypeError, ValueError):
        return ""


def event_words(event: DeploymentEvent) -> tuple[str, str | None] | None:
    """The title and text of a lease entry; None for anything else."""
    details = event.details or {}
    kind = event.kind
    if kind == "lease-chosen":
        return _("Lease started"), _("Ends %(end)s.", end=_at(details, "ends_at"))
    if kind == "lease-warned":
        return _("Lease ends soon"), _("It ends %(end)s.", end=_at(details, "ends_at"))
    if kind == "lease-expired":
        return _("Lease ended"), _("It will be deleted %(when)s.", when=_at(details, "delete_at"))
    if kind == "lease-extended":
        end = _at(details, "ends_at")
        if details.get("reason"):
            # The reason is the operator's own words, shown as typed.
            text = _("Now ends %(end)s. Reason: %(reason)s", end=end, reason=details["reason"])
        else:
            text = _("Now ends %(end)s.", end=end)
        return _("Lease extended"), text
    if kind == "lease-deleted":
        return _("Deleted by the portal"), _("Deleted by the portal: the lease expired.")
    if kind == "failed-cleanup":
        return _("Removed by the portal"), _(
            "Removed by the portal: it failed to create and was kept long enough."
        )
    if DELETE_REFUSED in details:
        return _("Delete failed"), _(
            "The delete at the end of the lease failed. %(problem)s",
            problem=problem_text(details[DELETE_REFUSED]),
        )
    return None
