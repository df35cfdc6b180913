"""The launch form's live box: what the current values cost and whether that fits.

Computed by the same code that charges a launch at submit (``charge_for``, ``quota_of_launch``),
so the box never promises what the check at submit would refuse.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.quotas.accounting import AccountingError, count_resources
from app.quotas.fit import misfit, misfit_sentence
from app.quotas.operations import charge_for, quota_of_launch


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
    quota = quota_of_launch(user, group_name or None, charge)
    assessments, refusal = quota.assessments, quota.refusal
    problems = [
        misfit_sentence(assessment, bar)
        for assessment in assessments
        for bar in assessment.misfits()
    ]
    over = {
        "gpus" if bar.key.startswith("gpu") else bar.key
        for assessment in assessments
        for bar in assessment.misfits()
    }
    return {
        "misfit_inputs": inputs_behind(template_document, parameters, over) if over else [],
        "charge": charge,
        "assessments": assessments,
        "fits": not problems and not refusal,
        "problems": problems,
        "refusal": refusal,
        "limited": any(assessment.bars for assessment in assessments),
        "incomplete": incomplete,
        "group_name": group_name,
        "misfit": misfit,
        # One sentence per resource that does not fit; give it a link macro for the holders.
        "misfit_sentence": misfit_sentence,
    }


def inputs_behind(
    template_document: Mapping[str, Any], parameters: Mapping[str, Any], resources: set[str]
) -> list[str]:
    """The names of the inputs that size any of ``resources`` ("cores", "memory", "disk",
    "gpus"): the fields to change when they do not fit. Empty when the template cannot be
    counted."""
    try:
        counted = count_resources(template_document, parameters)
    except AccountingError:
        return []
    return sorted({name for key in resources for name in counted.inputs.get(key, ())})
