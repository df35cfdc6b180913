"""The launch form's live box: what the current values cost and whether that fits.

Computed by the same code that charges a launch at submit (``charge_for``, ``assess_launch``),
so the box never promises what the check at submit would refuse.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.quotas.fit import misfit, misfit_sentence
from app.quotas.operations import assess_launch, charge_for, uncountable_refusal


def launch_preview(
    user,
    template_document: Mapping[str, Any],
    parameters: Mapping[str, Any],
    *,
    group_name: str | None = None,
    incomplete: bool = False,
) -> dict:
    """The context of ``templates/catalogue/_summary.html``: ``charge`` (as ``charge_for``
    makes it), ``assessments`` (bars for the user and, when charged to a group, its pool),
    ``fits``, ``problems`` (sentences for what does not fit), ``refusal`` (why a launch of
    unknown cost would be refused, or None), ``limited`` (whether any limit applies) and
    ``incomplete`` (some values are not valid yet and their defaults are counted)."""
    # Only a group the user belongs to: a pool's usage names its members' deployments.
    if group_name and group_name not in (user.groups or []):
        group_name = None
    charge = charge_for(template_document, parameters)
    assessments = assess_launch(user, group_name or None, charge)
    problems = [
        misfit_sentence(assessment, bar)
        for assessment in assessments
        for bar in assessment.misfits()
    ]
    refusal = uncountable_refusal(user, group_name or None, charge)
    return {
        "charge": charge,
        "assessments": assessments,
        "fits": not problems and not refusal,
        "problems": problems,
        "refusal": refusal,
        "limited": any(assessment.bars for assessment in assessments),
        "incomplete": incomplete,
        "group_name": group_name,
        "misfit": misfit,
    }
