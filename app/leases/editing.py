"""Changing lease policies: reading what an operator typed, and recording every change with
who made it, when, the fields before and after, and why (as quota limits are kept)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask_babel import gettext as _
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.auth.models import User
from app.catalogue.models import CatalogueTemplate
from app.clock import utcnow
from app.extensions import db
from app.leases.durations import parse_duration, parse_durations
from app.leases.errors import InvalidPolicy
from app.leases.models import LeasePolicy, LeasePolicyChange
from app.leases.policy import (
    BY_KEY,
    COUNT,
    DURATION,
    DURATIONS,
    FLAG,
    check,
    combine,
    levels,
    stored_levels,
)
from app.text import one_line_problem

# A field set to UNSET is removed from its level: the next level decides again.
UNSET = object()


def parse_field(key: str, text: Any) -> Any:
    """One typed field (``8h``, ``24h,1h``, ``3``, a flag); empty text is UNSET.

    Raises InvalidPolicy naming the field.
    """
    spec = BY_KEY[key]
    if spec.kind == FLAG:
        return (
            bool(text)
            if not isinstance(text, str)
            else text.strip().lower() in ("1", "yes", "on", "true", "y")
        )
    if text is None or (isinstance(text, str) and not text.strip()):
        return UNSET
    label = str(spec.label)
    if spec.kind == DURATION:
        return parse_duration(text, field=key, label=label)
    if spec.kind == DURATIONS:
        return parse_durations(text, field=key, label=label)
    if spec.kind == COUNT:
        text = str(text).strip()
        if not text.isdigit() or len(text) > 4:
            raise InvalidPolicy(
                _(
                    "%(label)s: a whole number of zero or more; got \u201c%(text)s\u201d.",
                    label=label,
                    text=text,
                ),
                field=key,
            )
        return int(text)
    raise InvalidPolicy(_("Unknown policy field %(key)s.", key=key))


def apply_changes(current: Mapping, changes: Mapping[str, Any]) -> dict:
    result = dict(current)
    for key, value in changes.items():
        if key not in BY_KEY:
            raise InvalidPolicy(_("Unknown policy field %(key)s.", key=key))
        if value is UNSET or (BY_KEY[key].kind == FLAG and value is False):
            result.pop(key, None)
        else:
            result[key] = value
    return {key: result[key] for key in BY_KEY if key in result}


def _row(template_slug: str, group_name: str) -> LeasePolicy:
    """The level's row, locked for this transaction (created empty if missing)."""
    query = select(LeasePolicy).where(
        LeasePolicy.template_slug == template_slug, LeasePolicy.group_name == group_name
    )
    row = db.session.scalar(query.with_for_update())
    if row is not None:
        return row
    try:
        with db.session.begin_nested():
            row = LeasePolicy(template_slug=template_slug, group_name=group_name, values={})
            db.session.add(row)
    except IntegrityError:  # another operator created it just now
        row = db.session.scalar(query.with_for_update())
    return row


def set_policy(
    actor: User | None,
    template_slug: str | None,
    group_name: str | None,
    changes: Mapping[str, Any],
    reason: str,
    *,
    replace: bool = False,
) -> LeasePolicyChange | None:
    """Apply ``changes`` ({field: value | UNSET}) to one level (``replace``: the level becomes
    exactly ``changes``), check the combined policy there, and record the change; commits.
    Returns the LeasePolicyChange, or None when nothing changed.

    Raises InvalidPolicy (nothing stored) when the reason is empty or the result contradicts
    itself.
    """
    if problem := one_line_problem(group_name, _("Group")):
        raise InvalidPolicy(problem)
    slug, group = (template_slug or "").strip(), (group_name or "").strip()
    reason = (reason or "").strip()
    if not reason:
        raise InvalidPolicy(
            _("Say why the policy changes: the reason is kept in the history."), field="reason"
        )
    try:
        row = _row(slug, group)
        old = dict(row.values or {})
        if slug and not old:
            _check_template(slug)
        new = apply_changes({} if replace else old, changes)
        if new == old:
            db.session.rollback()
            return None
        by_level = stored_levels(slug, group)
        by_level[(slug, group)] = new
        check(combine(by_level, levels(slug, group)))
    except BaseException:
        db.session.rollback()
        raise
    row.values, row.updated_at = new, utcnow()
    change = LeasePolicyChange(
        actor_id=actor.id if actor else None,
        actor_name=actor.username if actor else "",
        template_slug=slug,
        group_name=group,
        old=old,
        new=new,
        reason=reason,
    )
    db.session.add(change)
    db.session.commit()
    return change


def _check_template(slug: str) -> None:
    """Refuse a new level for a template the catalogue does not have (a typing mistake would
    set a policy nothing ever reads). A level set already may still be changed or cleared,
    even once its template is gone. Raises InvalidPolicy."""
    if db.session.scalar(select(CatalogueTemplate.id).where(CatalogueTemplate.slug == slug)):
        return
    raise InvalidPolicy(
        _(
            "The catalogue has no template named “%(slug)s”: check the name as the catalogue "
            "page shows it.",
            slug=slug,
        ),
        field="template",
    )


def history(template_slug: str | None = None, group_name: str | None = None, limit: int = 50):
    """The latest changes, newest first; of one level when one is named."""
    query = select(LeasePolicyChange).order_by(
        LeasePolicyChange.at.desc(), LeasePolicyChange.id.desc()
    )
    if template_slug is not None or group_name is not None:
        query = query.where(
            LeasePolicyChange.template_slug == (template_slug or ""),
            LeasePolicyChange.group_name == (group_name or ""),
        )
    return list(db.session.scalars(query.limit(limit)))


def all_policies() -> list[LeasePolicy]:
    """Every level that sets something, site first, then groups, templates, both."""
    rows = db.session.scalars(select(LeasePolicy)).all()
    rows = [row for row in rows if row.values]
    return sorted(
        rows,
        key=lambda r: (bool(r.template_slug), bool(r.group_name), r.template_slug, r.group_name),
    )
