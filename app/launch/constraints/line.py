"""Those already waiting: a launch its quotas let start waits its turn when requests already in
line would then be kept from what they wait for (``app.lines.ahead``)."""

from __future__ import annotations

from app.launch.constraints.hold import Claim, Hold
from app.lines import ahead, wording
from app.quotas.errors import KeptForLine

KIND = "line-ahead"


def held(claim: Claim) -> Hold | None:
    if claim.from_line:
        return None  # the line's own admission planned in the line's order
    kept = ahead.line_ahead(claim.user.id, claim.group_name, claim.charge)
    if kept is None:
        return None
    sentence = kept.sentence()
    return Hold(
        KIND, sentence, KeptForLine, line=kept.line, reason=sentence, joined=wording.JOINED_BEHIND
    )
