"""What the quotas feature does for the rest of the portal: price a launch, reserve it
atomically against the limits, and say how much is in use.

``reserve`` is the only way a launch gets recorded under a quota: it locks the user's and the
group pool's rows, sums what their holding deployments hold, checks the limits, and adds the
new deployment, all in the caller's transaction, which the caller (the launch workflow)
commits: launches racing from several worker processes or hosts can never together exceed a
limit, since each holds the locks until that commit. Nothing needs releasing afterwards: usage is
derived from the deployments' own records (see ``app.quotas.holding``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import current_app, has_app_context
from flask_babel import gettext as _
from markupsafe import Markup, escape

from app.extensions import db
from app.quotas.accounting import ANY_GPU_MODEL, AccountingError, count_resources
from app.quotas.anchors import lock_limit_row
from app.quotas.bars import quota_number
from app.quotas.errors import QuotaExceeded
from app.quotas.fit import Assessment, assess, refusal_message
from app.quotas.flavours import flavours_for
from app.quotas.limits import Limits, limits_for, own_keys, pool_limits, rows_for
from app.quotas.member_limits import limits_in_group
from app.quotas.models import GROUP, IN_GROUP, USER, member_subject
from app.quotas.usage import holders_of, usage_of, usage_pair
from app.quotas.usage_charts import months_chart

log = logging.getLogger(__name__)

__all__ = [
    "assess_launch",
    "charge_for",
    "lock_for_launch",
    "quota_of_launch",
    "reserve",
    "uncounted_charge",
    "usage_panel_context",
]


def uncounted_charge(reason: str) -> dict:
    """The charge of a launch whose resources could not be counted at all, saying why: it
    holds one deployment, and the unknown-cost policy decides whether it may launch."""
    return {
        "cores": 0,
        "memory": 0,
        "disk": 0,
        "gpus": 0,
        "gpu_models": {},
        "deployments": 1,
        "nodes": 0,
        "summary": "",
        "uncounted": [reason],
    }


def charge_for(template_document: Mapping[str, Any], parameters: Mapping[str, Any]) -> dict:
    """What launching ``template_document`` with ``parameters`` will hold, as stored on
    ``Deployment.charge``: ``cores``, ``memory`` and ``disk`` (bytes), ``gpus``,
    ``gpu_models`` ({model: count}), ``deployments`` (1), ``nodes``, ``machines`` (the size
    of one machine of each kind and how many: what a site must place machine by machine), a
    one-line ``summary``, and ``uncounted``: sentences saying what could not be counted
    (empty when all could).

    Never raises: a template that can't be read at all is reported in ``uncounted``.
    """
    configured = current_app.config.get("QUOTA_FLAVOURS") if has_app_context() else None
    flavours, problems = flavours_for(template_document, configured)
    try:
        resources = count_resources(template_document, parameters, flavours)
    except AccountingError as error:
        return uncounted_charge(str(error))
    return {
        "cores": resources.cpus,
        "memory": resources.memory,
        "disk": resources.disk,
        "gpus": resources.gpus,
        "gpu_models": dict(resources.gpu_models),
        "deployments": 1,
        "nodes": resources.nodes,
        "machines": [
            {
                "count": machine.count,
                "cores": machine.cpus,
                "memory": machine.memory,
                "disk": machine.disk,
                "gpus": machine.gpus,
                "gpu_model": machine.gpu_model or ANY_GPU_MODEL,
            }
            for machine in resources.machines
        ],
        "summary": resources.summary,
        # What is charged beyond the template's starting size, and why (an elastic cluster).
        **({"notes": list(resources.notes)} if resources.notes else {}),
        # A misread flavour statement matters only when a flavour could not be sized.
        "uncounted": [*problems, *resources.uncounted] if resources.uncounted else [],
    }


@dataclass(frozen=True)
class LaunchQuota:
    """The quotas' answer for one launch, each limit set read once for both its parts:
    ``assessments`` (``assess_launch``) and ``refusal`` (``uncountable_refusal``)."""

    assessments: list[Assessment]
    refusal: str | None


def quota_of_launch(
    user, group_name: str | None, charge: dict, excluding: int | None = None
) -> LaunchQuota:
    """``assess_launch`` and ``uncountable_refusal`` of one launch together: the person's,
    the pool's and the person's in the group's limit sets read in one statement."""
    limits = _launch_limits(user, group_name)
    return LaunchQuota(
        _assess_launch(user, group_name, charge, excluding, limits),
        _uncountable_refusal(charge, limits),
    )


def _launch_limits(user, group_name: str | None) -> tuple[Limits, Limits | None, Limits | None]:
    """The limits binding a launch by ``user`` charged to ``group_name``: the person's own,
    and charged to a group, its pool's and the person's inside it (else None)."""
    if not group_name:
        return limits_for(user), None, None
    keys = [*own_keys(user), (GROUP, group_name), (IN_GROUP, member_subject(user.id, group_name))]
    stored = rows_for(keys)
    return (
        limits_for(user, stored),
        pool_limits(group_name, stored),
        limits_in_group(user, group_name, stored),
    )


def assess_launch(
    user, group_name: str | None, charge: dict, excluding: int | None = None
) -> list[Assessment]:
    """How ``charge`` fits ``user``'s limits and, when charged to a group, the group pool's
    and the user's own inside the group (when its managers set any): one Assessment each (the
    user's first), leaving the deployment ``excluding`` out of the usage. Reads without
    locking: ``reserve`` locks first."""
    return _assess_launch(user, group_name, charge, excluding, _launch_limits(user, group_name))


def _assess_launch(user, group_name: str | None, charge: dict, excluding: int | None, limits):
    own, pool, inside = limits
    charged = [*(charge.get("gpu_models") or {})]
    models = [*own.gpu_models, *charged]
    if group_name:  # the person's and the pool's usage asked together
        used, pool_used = usage_pair(
            user.id, group_name, models, [*pool.gpu_models, *charged], excluding=excluding
        )
    else:
        used = usage_of(user_id=user.id, models=models, excluding=excluding)
    found = [assess(None, own, used, charge, lambda: holders_of(user_id=user.id))]
    if group_name:
        found.append(
            assess(
                group_name,
                pool,
                pool_used,
                charge,
                # Only the person's own are named: others' are not theirs to see or delete.
                lambda: holders_of(group_name=group_name, user_id=user.id),
            )
        )
        if inside.any_finite:
            models = [*inside.gpu_models, *(charge.get("gpu_models") or {})]
            used = usage_of(
                user_id=user.id, group_name=group_name, models=models, excluding=excluding
            )
            found.append(
                assess(
                    group_name,
                    inside,
                    used,
                    charge,
                    lambda: holders_of(group_name=group_name, user_id=user.id),
                    member=True,
                )
            )
    return found


def uncountable_refusal(user, group_name: str | None, charge: dict) -> str | None:
    """Why a charge that could not be fully counted may not launch, or None if it may.

    Under QUOTA_UNCOUNTABLE_POLICY "refuse" (the default) such a launch is refused for anyone
    with a finite limit, on themselves or on the group pool charged; "allow" lets it through.
    """
    if not charge.get("uncounted"):
        return None  # counted: no limit needs reading
    return _uncountable_refusal(charge, _launch_limits(user, group_name))


def _uncountable_refusal(charge: dict, limits) -> str | None:
    if not charge.get("uncounted"):
        return None
    if current_app.config.get("QUOTA_UNCOUNTABLE_POLICY", "refuse") == "allow":
        return None
    if not any(found is not None and found.any_finite for found in limits):
        return None
    return _(
        "The cost of this launch cannot be computed (%(reasons)s), and launches of unknown cost "
        "are refused while limits apply to you. Choose sizes the portal can count, or ask an "
        "operator to describe the flavour.",
        reasons="; ".join(charge["uncounted"]),
    )


def reserve(user, group_name: str | None, charge: dict, deployment) -> None:
    """Check ``charge`` against ``user``'s limits (and ``group_name``'s pool) and add
    ``deployment`` (populated, status SUBMITTING) to the session, flushed under the locks.
    Does not commit: the caller commits, which releases the locks.

    The transaction takes row locks on the user's and the pool's quota rows on PostgreSQL (an
    immediate transaction on SQLite: ``lock_for_launch``), so concurrent reservations for the
    same user or pool run one after the other and each sees the others' deployments once they
    commit. The launch decision (``app.launch.decision``) takes the same locks first and asks
    its other constraints (the line, the sites) under them before it reserves.

    Raises QuotaExceeded, with the session rolled back and nothing recorded, when a limit would
    be exceeded or the charge cannot be counted and the site refuses that.
    """
    if deployment in db.session.new:
        db.session.expunge(deployment)
    deployment.charge = charge
    try:
        lock_for_launch(user.id, group_name)
        refusal = uncountable_refusal(user, group_name, charge)
        if refusal:
            raise QuotaExceeded(refusal)
        for assessment in assess_launch(user, group_name, charge, excluding=deployment.id):
            misfits = assessment.misfits()
            if misfits:
                raise QuotaExceeded(refusal_message(assessment, misfits))
        db.session.add(deployment)
        db.session.flush()
    except BaseException:
        db.session.rollback()
        raise


def lock_for_launch(user_id: int, group_name: str | None) -> None:
    """Serialise launches touching the same user or group pool until the transaction ends
    (see ``reserve``)."""
    # Always the user's row first, then the pool's: one order everywhere, so no deadlock.
    lock_limit_row(USER, str(user_id))
    if group_name:
        lock_limit_row(GROUP, group_name)


def usage_panel_context(user) -> dict:
    """The usage panel on My deployments: ``quota``, bars of the user's usage against their
    limits (every resource, limited or not). Sums only: what holds the resources and the
    months are ``usage_details_context``, loaded when the person opens the panel."""
    limits = limits_for(user)
    nothing = {"gpu_models": {}}
    assessment = assess(
        None,
        limits,
        usage_of(user_id=user.id, models=limits.gpu_models),
        nothing,
        lambda: holders_of(user_id=user.id),
        show_unlimited=True,
    )
    for bar in assessment.bars:
        bar.request = 0  # the panel shows what is held, not a request
    return {
        "quota": assessment,
        "limited": any(bar.limit is not None for bar in assessment.bars),
        "summary": _usage_summary(assessment),
    }


# The resources the closed usage panel sums up: the counted ones people watch most.
_SUMMED_UP = ("cores", "gpus", "deployments")


def _usage_summary(assessment: Assessment) -> Markup:
    """``100 cores · 2 of 4 GPUs · 50 deployments``: what the closed usage panel says."""
    shown = []
    for bar in assessment.bars:
        if bar.key not in _SUMMED_UP or bar.model:
            continue
        used = bar.text(bar.used)
        if bar.limit is None:
            shown.append(escape(used))
        else:
            # The portal's sentence, its values escaped by Markup's ``%``.
            sentence = Markup(_("%(used)s of %(limit)s"))  # noqa: S704
            shown.append(sentence % {"used": used, "limit": quota_number(bar.limit)})
    return Markup(" · ").join(shown)


def usage_details_context(user) -> dict:
    """``quota_holders``, the deployments holding the user's resources, and ``quota_months``,
    their core-hours and GPU-hours of the last six months."""
    chart = months_chart(user_id=user.id, count=6)
    months = [
        {"month": m.month, "core_hours": m.hours.core_hours, "gpu_hours": m.hours.gpu_total}
        for m in chart.months
    ]
    return {"quota_holders": holders_of(user_id=user.id), "quota_months": months}
