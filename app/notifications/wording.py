"""What a notification says: its subject and sentences, the same in the portal and in mail.

The words are composed from the notification's kind and the details kept with it when it was
written; nothing here reads the database.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flask_babel import format_date, format_percent, get_locale, ngettext
from flask_babel import gettext as _

from app import formatting
from app.deployments import presenters
from app.hours_text import hours_text
from app.notifications import kinds
from app.notifications.models import Notification
from app.tosca.display import output_label


@dataclass(frozen=True)
class Message:
    subject: str
    paragraphs: list[str]
    # The deployment's main way in (its first link output), for "ready".
    access_link: str | None = None
    # Its other non-secret ways in, for "ready": (label, text) pairs, the ``ssh`` line whole.
    access: tuple[tuple[str, str], ...] = ()


def when(iso: str | None) -> str:
    """An ISO 8601 UTC time as the reader reads it, as every time of the portal is written
    (``app.formatting.when``): "Nov 27, 2026, 14:00 UTC", "27 nov 2026, 15:00 CET"; "" for
    none."""
    if not iso:
        return ""
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    return formatting.when(moment)


def distance(minutes: int) -> str:
    """A warning's distance from the end in whole days, hours or minutes."""
    if minutes and minutes % 1440 == 0:
        return ngettext("%(num)d day", "%(num)d days", minutes // 1440)
    if minutes and minutes % 60 == 0:
        return ngettext("%(num)d hour", "%(num)d hours", minutes // 60)
    return ngettext("%(num)d minute", "%(num)d minutes", minutes)


def compose(notification: Notification) -> Message:
    """The words of ``notification``; raises KeyError for a kind this portal does not know."""
    details = notification.details or {}
    name = details.get("name") or _("Your deployment")
    return _COMPOSERS[notification.kind](name, details)


def shown(notification: Notification) -> Message:
    """The words of ``notification`` for a page: a kind this portal does not know (written by
    a newer version) is shown by its deployment's name rather than breaking the page."""
    try:
        return compose(notification)
    except KeyError:
        return Message((notification.details or {}).get("name") or _("Your deployment"), [])


def _ready(name: str, details: dict) -> Message:
    if details.get("job"):
        return Message(
            _("%(name)s succeeded", name=name),
            [_("The batch job %(name)s ran and succeeded.", name=name)],
            access_link=details.get("link"),
            access=_access(details),
        )
    paragraphs = [_("%(name)s is running and can be used.", name=name)]
    return Message(
        _("%(name)s is ready", name=name),
        paragraphs,
        access_link=details.get("link"),
        access=_access(details),
    )


def _access(details: dict) -> tuple[tuple[str, str], ...]:
    """The kept ways in, labelled in the reader's language; the main link is told apart."""
    found = []
    for item in details.get("access") or ():
        text = str(item.get("text") or "")
        if not text or text == details.get("link"):
            continue
        if item.get("show") == "ssh":
            text = f"ssh {text}"
        labels = item.get("labels") or {}
        label = labels.get(str(get_locale() or "")) or output_label(str(item.get("name") or ""))
        found.append((label, text))
    return tuple(found)


def _failed(name: str, details: dict) -> Message:
    if details.get("job"):
        return _job_failed(name, details)
    paragraphs = [_("The cloud could not create %(name)s; nothing of it is running.", name=name)]
    # Notices written before the plain sentence was found at reading time kept it in English.
    plain = presenters.plain_reason(details.get("reason")) or details.get("plain_reason")
    if plain:
        paragraphs.append(str(plain))
    if details.get("reason"):
        paragraphs.append(_("The orchestrator said: %(reason)s", reason=details["reason"]))
    paragraphs.append(
        _(
            "What to try next: launch it again from its page (Relaunch keeps your settings), "
            "perhaps asking for fewer resources or at a quieter time; if it fails again, write "
            "to the site's support and quote the reason above."
        )
    )
    return Message(_("%(name)s failed to start", name=name), paragraphs)


def _job_failed(name: str, details: dict) -> Message:
    paragraphs = [_("The batch job %(name)s ran and failed.", name=name)]
    plain = presenters.plain_reason(details.get("reason"))
    if plain:
        paragraphs.append(str(plain))
    if details.get("reason"):
        paragraphs.append(_("The orchestrator said: %(reason)s", reason=details["reason"]))
    paragraphs.append(
        _(
            "What to try next: check its command and settings on its page, then launch it "
            "again (Relaunch keeps your settings); the batch system's own output stays with it."
        )
    )
    return Message(_("%(name)s failed", name=name), paragraphs)


def _lease_warning(name: str, details: dict) -> Message:
    left = distance(int(details.get("before_minutes") or 0))
    ends = when(details.get("ends_at"))
    return Message(
        _("%(name)s ends in %(left)s", name=name, left=left),
        [
            _("%(name)s ends at %(ends)s, in %(left)s.", name=name, ends=ends, left=left),
            _(
                "Save your work before then, or extend it from its page if you need more time "
                "and extending is allowed."
            ),
        ],
    )


def _lease_expired(name: str, details: dict) -> Message:
    return Message(
        _("Time is up for %(name)s", name=name),
        [
            _(
                "The time of %(name)s ended at %(ends)s.",
                name=name,
                ends=when(details.get("ends_at")),
            ),
            _(
                "It will be deleted at %(delete_at)s; copy what you need off it before then.",
                delete_at=when(details.get("delete_at")),
            ),
        ],
    )


def _lease_deleted(name: str, _details: dict) -> Message:
    return Message(
        _("%(name)s was deleted when its time was up", name=name),
        [_("%(name)s was deleted because its time was up; its quota is free again.", name=name)],
    )


def _failed_cleanup(name: str, details: dict) -> Message:
    return Message(
        _("Failed deployment %(name)s was removed", name=name),
        [
            _(
                "%(name)s failed to start (%(failed_at)s) and has now been removed, with "
                "whatever the cloud kept of it.",
                name=name,
                failed_at=when(details.get("failed_at")),
            )
        ],
    )


def _deleted_by_admin(name: str, _details: dict) -> Message:
    return Message(
        _("%(name)s was deleted by an administrator", name=name),
        [
            _(
                "An administrator deleted %(name)s. Ask the site's support if you do not know why.",
                name=name,
            )
        ],
    )


def _delete_failed(name: str, details: dict) -> Message:
    paragraphs = [
        _(
            "Deleting %(name)s did not finish; it still holds its resources and your quota.",
            name=name,
        ),
    ]
    if details.get("reason"):
        paragraphs.append(_("The orchestrator said: %(reason)s", reason=details["reason"]))
    paragraphs.append(_("Open its page and delete it again; a forced delete is offered too."))
    return Message(_("Deleting %(name)s failed", name=name), paragraphs)


def _lease_extended(name: str, details: dict) -> Message:
    paragraphs = [
        _(
            "An operator extended %(name)s; it now ends at %(ends)s.",
            name=name,
            ends=when(details.get("ends_at")),
        )
    ]
    if details.get("reason"):
        paragraphs.append(_("Their reason: %(reason)s", reason=details["reason"]))
    return Message(_("An operator extended %(name)s", name=name), paragraphs)


def _line_started(name: str, _details: dict) -> Message:
    return Message(
        _("%(name)s left the line and is starting", name=name),
        [
            _(
                "The resources %(name)s waited for came back: it has left the line and is "
                "being launched now. You are told again when it is ready.",
                name=name,
            )
        ],
    )


def _line_dropped(name: str, _details: dict) -> Message:
    return Message(
        _("%(name)s was dropped from the line", name=name),
        [
            _(
                "%(name)s waited in line as long as a request may, or the limits changed so "
                "that it could no longer fit; nothing was launched and nothing was charged. "
                "Launch it again from its page when you still need it.",
                name=name,
            )
        ],
    )


def _line_removed(name: str, details: dict) -> Message:
    if details.get("manager"):
        paragraphs = [
            _(
                "%(manager)s, a manager of group %(group)s, removed %(name)s from the line; "
                "nothing was launched.",
                manager=details["manager"],
                group=details.get("group", ""),
                name=name,
            )
        ]
    else:
        paragraphs = [
            _("An operator removed %(name)s from the line; nothing was launched.", name=name)
        ]
    if details.get("reason"):
        paragraphs.append(_("Their reason: %(reason)s", reason=details["reason"]))
    return Message(_("%(name)s was removed from the line", name=name), paragraphs)


def _line_moved(name: str, details: dict) -> Message:
    if details.get("manager"):
        said = _(
            "%(manager)s, a manager of group %(group)s, moved %(name)s to place %(place)s in "
            "its line.",
            manager=details["manager"],
            group=details.get("group", ""),
            name=name,
            place=details.get("to", ""),
        )
    else:
        said = _(
            "An operator moved %(name)s to place %(place)s in its line.",
            name=name,
            place=details.get("to", ""),
        )
    paragraphs = [said]
    if details.get("reason"):
        paragraphs.append(_("Their reason: %(reason)s", reason=details["reason"]))
    return Message(_("%(name)s was moved in the line", name=name), paragraphs)


def _budget_warning(_name: str, details: dict) -> Message:
    hours, used = float(details.get("hours") or 0), float(details.get("used") or 0)
    threshold = int(details.get("threshold") or 0)
    amount = hours_text(hours, str(details.get("counts") or ""), details.get("model"))
    left = hours_text(
        max(hours - used, 0.0), str(details.get("counts") or ""), details.get("model")
    )
    # Whole per cent, rounded down, never below the threshold reached: "81 %", not "80.6 %".
    share = max(threshold, int(used * 100 / hours + 1e-6) if hours else threshold)
    percent = format_percent(share / 100)
    group = details.get("owner") if details.get("scope") == "group" else None
    if threshold >= 100:
        subject = (
            _("Group %(group)s has used all of its %(amount)s", group=group, amount=amount)
            if group
            else _("You have used all of your %(amount)s", amount=amount)
        )
        then = _(
            "Launches that need more of it are refused, or wait in line, until the budget "
            "renews or an operator raises it."
        )
    else:
        subject = (
            _(
                "Group %(group)s has used %(percent)s of its %(amount)s",
                group=group,
                percent=percent,
                amount=amount,
            )
            if group
            else _("You have used %(percent)s of your %(amount)s", percent=percent, amount=amount)
        )
        then = _(
            "%(left)s are left; a launch that needs more than that is refused, or waits in "
            "line until the budget renews.",
            left=left,
        )
    paragraphs = [_budget_sentence(details, group, percent, amount), then]
    if group:
        paragraphs.append(_("You are told as a manager of group %(group)s.", group=group))
    return Message(subject, paragraphs)


def _budget_sentence(details: dict, group: str | None, percent: str, amount: str) -> str:
    """``Group physics has used 81 % of its 2,000 A100 GPU-hours this month; renewed on 1
    December.``"""
    renews = details.get("renews_on")
    if renews:
        day = format_date(datetime.fromisoformat(renews).date(), "d MMMM")
        if group:
            return _(
                "Group %(group)s has used %(percent)s of its %(amount)s this month; renewed on "
                "%(date)s.",
                group=group,
                percent=percent,
                amount=amount,
                date=day,
            )
        return _(
            "You have used %(percent)s of your %(amount)s this month; renewed on %(date)s.",
            percent=percent,
            amount=amount,
            date=day,
        )
    days = int(details.get("period_days") or 0)
    if group:
        return _(
            "Group %(group)s has used %(percent)s of its %(amount)s over the last %(days)d days.",
            group=group,
            percent=percent,
            amount=amount,
            days=days,
        )
    return _(
        "You have used %(percent)s of your %(amount)s over the last %(days)d days.",
        percent=percent,
        amount=amount,
        days=days,
    )


_COMPOSERS = {
    kinds.READY: _ready,
    kinds.FAILED: _failed,
    kinds.LEASE_WARNING: _lease_warning,
    kinds.LEASE_EXPIRED: _lease_expired,
    kinds.LEASE_DELETED: _lease_deleted,
    kinds.FAILED_CLEANUP: _failed_cleanup,
    kinds.DELETED_BY_ADMIN: _deleted_by_admin,
    kinds.DELETE_FAILED: _delete_failed,
    kinds.LEASE_EXTENDED: _lease_extended,
    kinds.LINE_STARTED: _line_started,
    kinds.LINE_DROPPED: _line_dropped,
    kinds.LINE_REMOVED: _line_removed,
    kinds.LINE_MOVED: _line_moved,
    kinds.BUDGET_WARNING: _budget_warning,
}
