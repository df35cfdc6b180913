"""The quotas: a launch of unknown cost where that is refused, or over a limit. Short only of
what running deployments hold, it may wait in the line of the limit it is short of; over a
limit by itself, it never could fit and may not wait."""

from __future__ import annotations

from flask import current_app
from flask_babel import gettext as _

from app.launch.constraints.hold import Claim, Hold
from app.lines import places, wording
from app.quotas.errors import QuotaExceeded
from app.quotas.fit import could_wait, refusal_message
from app.quotas.operations import quota_of_launch

KIND = "over-quota"


def held(claim: Claim) -> Hold | None:
    user, group_name, charge = claim.user, claim.group_name, claim.charge
    quota = claim.quota
    if quota is None:
        quota = quota_of_launch(user, group_name, charge, excluding=claim.excluding)
    refusal = quota.refusal
    if refusal:
        return Hold(KIND, refusal, QuotaExceeded, cannot_wait=refusal)
    assessments = quota.assessments
    short = [(a, a.misfits()) for a in assessments if a.misfits()]
    if not short:
        return None
    sentence = refusal_message(*short[0])
    if not (current_app.config["LINE_ENABLED"] and could_wait(assessments)):
        alone = _("It is over the limit by itself, so it cannot wait in line.")
        return Hold(KIND, sentence, QuotaExceeded, cannot_wait=f"{sentence} {alone}")
    return Hold(
        KIND,
        sentence,
        QuotaExceeded,
        line=places.line_of(user.id, assessments),
        reason=" ".join(refusal_message(a, misfits) for a, misfits in short),
        joined=wording.JOINED,
    )
