"""Changing limits: reading what an operator typed, and recording every change with a reason."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from flask_babel import gettext as _
from flask_babel import pgettext
from sqlalchemy import select

from app.auth.groups import normalise_group
from app.auth.models import User
from app.clock import utcnow
from app.extensions import db
from app.quotas.amounts import amount_phrase, amount_text
from app.quotas.anchors import lock_limit_row
from app.quotas.errors import InvalidLimit
from app.quotas.models import (
    GROUP,
    IN_GROUP,
    LIMIT_KEYS,
    MEMBER,
    SCOPES,
    SITE,
    USER,
    QuotaChange,
    QuotaLimit,
)
from app.text import one_line_problem
from app.tosca.units import read_size

# What an operator types to lift a limit, and to let the next level decide again.
UNLIMITED_WORDS = ("unlimited", "none", "∞")
INHERIT = object()
_MODEL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._+-]{0,63}$")


def parse_limit(key: str, text: Any, *, field: str | None = None) -> Any:
    """Read one typed limit: a number (a size for memory and disk), ``unlimited``, or empty
    (inherit from the next level). Returns the number, None for unlimited, or INHERIT.

    Raises InvalidLimit with a message naming the field.
    """
    label = {
        "cores": _("Cores"),
        "gpus": _("GPUs"),
        "memory": _("Memory"),
        "disk": _("Disk"),
        "deployments": _("Deployments"),
    }.get(key) or _("%(model)s GPUs", model=key)
    if text is None or (isinstance(text, str) and not text.strip()):
        return INHERIT
    if isinstance(text, str) and text.strip().lower() in UNLIMITED_WORDS:
        return None
    if key in ("memory", "disk"):
        try:
            return read_size(text, unit_required=True).bytes
        except ValueError as error:
            raise InvalidLimit(
                _(
                    "%(label)s: %(problem)s, or “unlimited”; got “%(text)s”.",
                    label=label,
                    problem=error,
                    text=text,
                ),
                field=field,
            ) from None
    try:
        number = float(str(text).strip())
    except ValueError:
        number = math.nan
    whole = key != "cores"
    if not math.isfinite(number) or number < 0 or (whole and not number.is_integer()):
        if whole:
            problem = _(
                "%(label)s: must be a whole number of zero or more, or “unlimited”; got "
                "“%(text)s”.",
                label=label,
                text=text,
            )
        else:
            problem = _(
                "%(label)s: must be a number of zero or more, or “unlimited”; got “%(text)s”.",
                label=label,
                text=text,
            )
        raise InvalidLimit(problem, field=field)
    return int(number) if number.is_integer() else number


def check_model(model: str) -> str:
    """A GPU model name as typed (``A100``, ``Tesla V100``). Raises InvalidLimit."""
    model = (model or "").strip()
    if not _MODEL_RE.match(model):
        raise InvalidLimit(
            _(
                "“%(model)s” is not a GPU model name (letters, digits, spaces, . _ + -).",
                model=model,
            ),
            field="gpu_models",
        )
    return model


def apply_changes(current: Mapping, changes: Mapping[str, Any]) -> dict:
    """``current`` limits with ``changes`` ({key: value | None | INHERIT}, ``gpu_models``:
    {model: value | None | INHERIT}) applied."""
    result = {k: v for k, v in current.items() if k != "gpu_models"}
    models = dict(current.get("gpu_models") or {})
    for key, value in changes.items():
        if key == "gpu_models":
            for model, limit in value.items():
                if limit is INHERIT:
                    models.pop(model, None)
                else:
                    models[model] = limit
        elif key in LIMIT_KEYS:
            if value is INHERIT:
                result.pop(key, None)
            else:
                result[key] = value
    if models:
        result["gpu_models"] = dict(sorted(models.items()))
    return result


def set_limits(actor: User | None, scope: str, subject: str, changes: Mapping, reason: str):
    """Apply ``changes`` to the limits of (``scope``, ``subject``) and record who, when, the
    old and new limits, and ``reason``; commits. Returns the QuotaChange (None when nothing
    changed).

    Raises InvalidLimit when the reason is empty or the scope unknown.
    """
    if scope not in SCOPES:
        raise InvalidLimit(_("Unknown kind of limit “%(scope)s”.", scope=scope))
    reason = (reason or "").strip()
    if not reason:
        raise InvalidLimit(
            _("Say why the limits change: the reason is kept in the history."), field="reason"
        )
    subject = "" if scope == SITE else str(subject)
    if scope in (MEMBER, GROUP):
        if problem := one_line_problem(subject, _("Group")):
            raise InvalidLimit(problem)
        subject = normalise_group(subject)
        if not subject:
            raise InvalidLimit(_("Name the group whose limits change."))
    # Two operators (or an operator and a launch) at once: each reads the limits the other
    # left, so neither change is lost and the history's "old" is what really was.
    lock_limit_row(scope, subject)
    row = db.session.scalar(
        select(QuotaLimit).where(QuotaLimit.scope == scope, QuotaLimit.subject == subject)
    )
    old = dict(row.limits or {}) if row else {}
    new = apply_changes(old, changes)
    if new == old:
        db.session.rollback()  # let go of the lock
        return None
    if row is None:
        row = QuotaLimit(scope=scope, subject=subject, limits=new)
        db.session.add(row)
    row.limits, row.updated_at = new, utcnow()
    change = QuotaChange(
        actor_id=actor.id if actor else None,
        actor_name=actor.username if actor else "",
        scope=scope,
        subject=subject,
        old=old,
        new=new,
        reason=reason,
    )
    db.session.add(change)
    db.session.commit()
    return change


def describe_limits(limits: Mapping) -> str:
    """``8 cores, 2 GPUs, 1 A100 GPU, memory 64 GB``, "unlimited"/"nothing set" spelled out,
    in the reader's language (the history keeps numbers, so it reads in any)."""
    parts = []
    for key in LIMIT_KEYS:
        if key not in limits:
            continue
        value = limits[key]
        if value is None:
            parts.append(_UNLIMITED[key]())
        elif key in ("memory", "disk"):
            parts.append(amount_phrase(key, value))
        else:
            parts.append(amount_text(key, value))
    for model, value in (limits.get("gpu_models") or {}).items():
        if value is None:
            parts.append(_("%(model)s GPUs unlimited", model=model))
        else:
            parts.append(amount_text("gpus", value, model))
    return ", ".join(parts) or pgettext("no quota limits", "nothing set")


_UNLIMITED = {
    "cores": lambda: _("cores unlimited"),
    "gpus": lambda: _("GPUs unlimited"),
    "memory": lambda: _("memory unlimited"),
    "disk": lambda: _("disk unlimited"),
    "deployments": lambda: _("deployments unlimited"),
}


def subject_label(scope: str, subject: str) -> str:
    """How a history entry names what changed: a user, a group's members, a pool, the site."""
    if scope == USER:
        user = db.session.get(User, int(subject)) if subject.isdigit() else None
        if user is None:
            return _("user #%(id)s", id=subject)
        return _("user %(name)s (%(provider)s)", name=user.username, provider=user.provider)
    if scope == SITE:
        return _("the site default")
    if scope == MEMBER:
        return _("members of %(group)s", group=subject)
    if scope == IN_GROUP:
        user_id, _sep, group = subject.partition(":")
        user = db.session.get(User, int(user_id)) if user_id.isdigit() else None
        name = user.username if user else "#" + user_id
        return _("%(name)s in group %(group)s", name=name, group=group)
    return _("the pool of %(group)s", group=subject)
