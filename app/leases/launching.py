"""The lease part of the launch form: the duration field within the policy, and the sentence
saying when the deployment would end ("ends about ... once ready; can be extended up to ...").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from app.catalogue.loader import catalogue
from app.clock import utcnow
from app.deployments.job_text import revision_runs_once
from app.leases.clock_text import iso, shown
from app.leases.durations import format_duration, parse_duration, spoken_duration
from app.leases.errors import InvalidPolicy
from app.leases.operations import check_choice
from app.leases.policy import Policy, resolve


@dataclass
class LaunchOffer:
    """What the launch form shows about the lease; ``expires`` False: nothing to show."""

    expires: bool
    template: str = ""
    text: str = ""
    minutes: int | None = None
    longest: str = ""
    error: str | None = None
    ends_at: datetime | None = None
    cap_end: datetime | None = None
    # A batch job that runs once: done when its run is, it holds nothing after and needs no end.
    runs_once: bool = False

    @property
    def ends_iso(self):
        return iso(self.ends_at)

    @property
    def ends_text(self):
        return shown(self.ends_at)

    @property
    def cap_iso(self):
        return iso(self.cap_end)

    @property
    def cap_text(self):
        return shown(self.cap_end)


def read_choice(policy: Policy, typed: str | None) -> int | None:
    """The minutes typed in the form's duration field (empty: the default), checked against
    ``policy``. Raises InvalidPolicy with a sentence for the field."""
    if typed is None or not typed.strip():
        return check_choice(policy, None)
    minutes = parse_duration(typed, field="lease_duration", label="Duration")
    return check_choice(policy, minutes)


def launch_offer(template_slug: str, group_name: str | None, typed: str | None) -> LaunchOffer:
    policy = resolve(template_slug, group_name)
    if not policy.expires:
        return LaunchOffer(False, template=template_slug)
    entry = catalogue().get(template_slug)
    if entry is not None and revision_runs_once(entry.revision_id):
        # Its lease never starts (``app.leases.hooks``); the default stands in case the person
        # makes the schedule repeat.
        return LaunchOffer(
            True, template=template_slug, runs_once=True, minutes=check_choice(policy, None)
        )
    result = LaunchOffer(
        True,
        template=template_slug,
        text=typed if typed is not None else format_duration(policy.default),
        longest=spoken_duration(policy.longest_initial),
    )
    try:
        result.minutes = read_choice(policy, typed)
    except InvalidPolicy as error:
        result.error = error.message
        return result
    now = utcnow()
    result.ends_at = now + timedelta(minutes=result.minutes)
    extendable = policy.extend_step and policy.max_extends != 0
    if extendable:
        result.cap_end = (
            policy.cap_end(now)
            if policy.cap
            else (
                result.ends_at + timedelta(minutes=policy.extend_step * policy.max_extends)
                if policy.max_extends
                else None
            )
        )
    return result
