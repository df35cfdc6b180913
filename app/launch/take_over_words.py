"""The words of a take-over: why it does not fit the new owner, one whole sentence per limit
with its numbers (``needs 2 A100 GPUs; you have 1 left``), and its timeline entry."""

from __future__ import annotations

from flask_babel import gettext as _

from app.deployments.models import DeploymentEvent
from app.quotas.amounts import amount_phrase

TAKEN_OVER = "taken-over"


def _left(bar) -> float:
    return max((bar.limit or 0) - bar.used, 0)


def limit_sentence(assessment, bar) -> str:
    """``It needs 2 A100 GPUs; you have 1 A100 GPU left of your limit of 4 A100 GPUs.``"""
    values = {
        "needs": amount_phrase(bar.key, bar.request, bar.model),
        "left": amount_phrase(bar.key, _left(bar), bar.model),
        "limit": amount_phrase(bar.key, bar.limit or 0, bar.model),
    }
    if assessment.group is None:
        return _("It needs %(needs)s; you have %(left)s left of your limit of %(limit)s.", **values)
    return _(
        "It needs %(needs)s; group %(group)s has %(left)s left of its pool of %(limit)s.",
        group=assessment.group,
        **values,
    )


def misfit_words(short: list) -> str:
    """The refusal for ``short``: (assessment, bars that do not fit) of each owner of limits."""
    sentences = [_("This deployment does not fit your quota, so you cannot take it over.")]
    for assessment, bars in short:
        sentences.extend(limit_sentence(assessment, bar) for bar in bars)
    sentences.append(_("Nothing changed."))
    return " ".join(sentences)


def over_budget_words(over: list) -> str:
    """The refusal for the budgets ``over`` (``BudgetCheck``) it would overrun."""
    return _(
        "Taking this deployment over would overrun a budget for the rest of its lease: "
        "%(why)s. Nothing changed.",
        why="; ".join(check.sentence for check in over),
    )


def event_words(event: DeploymentEvent) -> tuple[str, str | None] | None:
    """The timeline's words for a take-over: who took it from whom, and the group charged."""
    if event.kind != TAKEN_OVER:
        return None
    details = event.details or {}
    title = _(
        "Taken over by %(new)s from %(old)s",
        new=details.get("to", ""),
        old=details.get("from", ""),
    )
    group = details.get("group")
    text = (
        _(
            "Charged to %(new)s and group %(group)s from now on.",
            new=details.get("to", ""),
            group=group,
        )
        if group
        else _("Charged to %(new)s from now on.", new=details.get("to", ""))
    )
    return title, text
