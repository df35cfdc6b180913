"""Lease policies: their fields, how the levels combine, and when a policy makes no sense.

Levels, from the most specific: a template launched in a group, the template, the group, the
site. They combine **field by field**: each field comes from the most specific level that sets
it, so a site can set the warnings once and a group only its own cap. A deployment expires only
when the combined policy has a default duration and "no expiry" is not set; with nothing
configured nothing expires, as before leases existed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import bindparam, select

from app.caches import remembered
from app.extensions import db
from app.leases.durations import format_duration, format_durations, spoken_duration
from app.leases.errors import InvalidPolicy
from app.leases.models import LeasePolicy

DURATION, DURATIONS, COUNT, FLAG = "duration", "durations", "count", "flag"


@dataclass(frozen=True)
class Field:
    key: str
    kind: str
    label: str
    help: str


FIELDS = (
    Field("default", DURATION, _l("Default duration"), _l("Offered on the launch form.")),
    Field("max_initial", DURATION, _l("Longest initial duration"), _l("The most one may choose.")),
    Field("extend_step", DURATION, _l("Extend step"), _l("Added by each extend.")),
    Field("max_extends", COUNT, _l("Extends allowed"), _l("How many times one may extend.")),
    Field("cap", DURATION, _l("Cap"), _l("The longest life in all, counted from ready.")),
    Field(
        "extend_window",
        DURATION,
        _l("Extends open"),
        _l("How long before the end extending is allowed."),
    ),
    Field("warn", DURATIONS, _l("Warnings"), _l("Before the end, e.g. 24h,1h.")),
    Field("grace", DURATION, _l("Grace period"), _l("After the end, before the delete.")),
    Field(
        "failed_cleanup",
        DURATION,
        _l("Failed deployments kept"),
        _l("Then removed."),
    ),
    Field("no_expiry", FLAG, _l("No expiry"), _l("For long-lived services.")),
)
FIELD_KEYS = tuple(f.key for f in FIELDS)
BY_KEY = {f.key: f for f in FIELDS}


def level_label(template_slug: str, group_name: str) -> str:
    """How pages and the command line name a level."""
    if template_slug and group_name:
        return _("template %(slug)s in group %(group)s", slug=template_slug, group=group_name)
    if template_slug:
        return _("template %(slug)s", slug=template_slug)
    if group_name:
        return _("group %(group)s", group=group_name)
    return _("site")


def levels(template_slug: str | None, group_name: str | None) -> list[tuple[str, str]]:
    """The levels that apply to a launch, the most specific first."""
    slug, group = template_slug or "", group_name or ""
    found = [(slug, group), (slug, ""), ("", group), ("", "")]
    return list(dict.fromkeys(found))


@dataclass
class Policy:
    """The combined policy for one template and group: each field's value and the level that
    set it (``sources``)."""

    values: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)

    def __getattr__(self, key):
        if key in BY_KEY:
            return self.values.get(key)
        raise AttributeError(key)

    @property
    def expires(self) -> bool:
        return bool(self.values.get("default")) and not self.values.get("no_expiry")

    @property
    def longest_initial(self) -> int | None:
        """The longest duration one may choose at launch (the default when none is set)."""
        if not self.expires:
            return None
        longest = self.values.get("max_initial") or self.values["default"]
        return min(longest, self.cap) if self.cap else longest

    @property
    def warnings(self) -> list[int]:
        return sorted(self.values.get("warn") or [], reverse=True)

    def cap_end(self, started_at: datetime) -> datetime | None:
        return started_at + timedelta(minutes=self.cap) if self.cap else None

    def describe(self) -> str:
        """``default 8h, cap 14d, warn 24h,1h``; "nothing set" when empty."""
        return describe(self.values)


def describe(values: dict) -> str:
    parts = []
    for spec in FIELDS:
        if spec.key not in values:
            continue
        value = values[spec.key]
        if spec.kind == DURATION:
            shown = format_duration(value)
        elif spec.kind == DURATIONS:
            shown = format_durations(value)
        elif spec.kind == FLAG:
            shown = "yes" if value else "no"
        else:
            shown = str(value)
        parts.append(f"{spec.key.replace('_', '-')} {shown}")
    return ", ".join(parts) or _("nothing set")


def spoken(values: dict) -> str:
    """A level's fields in words, for pages: "Default duration: 8 hours; Warnings: 1 day,
    1 hour; No expiry"; "nothing set" when empty. (``describe`` keeps the command line's
    spelling, for the command line.)"""
    parts = []
    for spec in FIELDS:
        if spec.key not in values:
            continue
        value = values[spec.key]
        if spec.kind == FLAG:
            if value:
                parts.append(str(spec.label))
            continue
        if spec.kind == DURATION:
            shown = spoken_duration(value)
        elif spec.kind == DURATIONS:
            shown = ", ".join(spoken_duration(v) for v in value or [])
        else:
            shown = str(value)
        parts.append(_("%(label)s: %(text)s", label=spec.label, text=shown))
    return "; ".join(parts) or _("nothing set")


@cache
def _stored_statement():
    """Built once: building it cost more than running it, at every launch form and cost box."""
    return select(LeasePolicy.template_slug, LeasePolicy.group_name, LeasePolicy.values).where(
        LeasePolicy.template_slug.in_(bindparam("slugs", expanding=True)),
        LeasePolicy.group_name.in_(bindparam("groups", expanding=True)),
    )


def stored_levels(template_slug: str | None, group_name: str | None) -> dict[tuple, dict]:
    """The stored values of every level applying to (template, group), by level."""
    wanted = levels(template_slug, group_name)
    slugs, groups = sorted({s for s, _g in wanted}), sorted({g for _s, g in wanted})
    rows = db.session.execute(_stored_statement(), {"slugs": slugs, "groups": groups}).all()
    found = {(slug, group): dict(values or {}) for slug, group, values in rows}
    return {level: found[level] for level in wanted if level in found}


def combine(by_level: dict[tuple, dict], order: list[tuple[str, str]]) -> Policy:
    """Field by field, the most specific level (first in ``order``) that sets a field wins."""
    policy = Policy()
    for level in reversed(order):
        values = by_level.get(level)
        if not values:
            continue
        label = level_label(*level)  # translated once for every field the level sets
        for key, value in values.items():
            policy.values[key] = value
            policy.sources[key] = label
    return policy


def resolve(template_slug: str | None, group_name: str | None) -> Policy:
    """The policy in force for a launch of ``template_slug`` charged to ``group_name``.

    Inside ``app.caches.remembering`` (the launch form and its box, which ask it for the
    offer and the budgets, and ``resolver`` for what runs) the policies are read once."""
    return _combined(_every_stored(), template_slug, group_name)


@cache
def _every_level():
    return select(LeasePolicy.template_slug, LeasePolicy.group_name, LeasePolicy.values)


def _every_stored() -> dict[tuple, dict]:
    """Every stored level's values, by level: policies are a handful of rows, so one launch
    reads them all once (``remembered``) for its own policy and those of what runs."""
    return remembered("lease_policies", None, _read_every_level)


def _read_every_level() -> dict[tuple, dict]:
    # Rows, not objects, by a statement built once: read at every cost box.
    return {
        (slug, group): dict(values or {})
        for slug, group, values in db.session.connection().execute(_every_level())
    }


def _combined(stored: dict[tuple, dict], template_slug: str | None, group_name: str | None):
    order = levels(template_slug, group_name)
    return combine({lv: stored[lv] for lv in order if lv in stored}, order)


def resolver():
    """``resolve`` for many launches at once: every level read in one query (policies are a
    handful of rows), each (template, group) combined once."""
    stored = _every_stored()
    combined: dict[tuple, Policy] = {}

    def resolve_one(template_slug: str | None, group_name: str | None) -> Policy:
        key = (template_slug or "", group_name or "")
        if key not in combined:
            combined[key] = _combined(stored, *key)
        return combined[key]

    return resolve_one


def check(policy: Policy) -> None:
    """Refuse, in words, a combined policy that contradicts itself. Raises InvalidPolicy."""
    values = policy.values
    if values.get("no_expiry"):
        return
    problems = []
    for key in ("default", "max_initial", "extend_step", "cap", "extend_window"):
        if values.get(key) == 0:
            problems.append(_("%(label)s cannot be zero.", label=BY_KEY[key].label))
    default, longest, cap = values.get("default"), values.get("max_initial"), values.get("cap")
    if default and longest and default > longest:
        problems.append(
            _(
                "The default duration (%(default)s) is longer than the longest initial duration "
                "(%(longest)s).",
                default=spoken_duration(default),
                longest=spoken_duration(longest),
            )
        )
    past_cap = {
        "default": _l("The default duration (%(value)s) is longer than the cap (%(cap)s)."),
        "max_initial": _l(
            "The longest initial duration (%(value)s) is longer than the cap (%(cap)s)."
        ),
    }
    for key, sentence in past_cap.items():
        if values.get(key) and cap and values[key] > cap:
            problems.append(
                str(sentence) % {"value": spoken_duration(values[key]), "cap": spoken_duration(cap)}
            )
    for before in values.get("warn") or []:
        if before == 0:
            problems.append(_("A warning at the very end warns of nothing; drop the 0."))
        elif default and before >= default:
            problems.append(
                _(
                    "A warning %(before)s before the end comes before a lease of the default "
                    "duration (%(default)s) has even started.",
                    before=spoken_duration(before),
                    default=spoken_duration(default),
                )
            )
    if values.get("max_extends") and not values.get("extend_step"):
        problems.append(_("Extends are allowed but no extend step says how long each adds."))
    if problems:
        raise InvalidPolicy(" ".join(problems))
