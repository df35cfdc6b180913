"""How people are told of the PaaS Orchestrator."""

from flask_babel import lazy_gettext as _l

from app.backends.words import N_, Words

WORDS = Words(
    label=_l("PaaS Orchestrator"),
    asked_from=_l("From the orchestrator"),
    slow_to_answer=_l("Loaded when you ask; the orchestrator may take a few seconds."),
    heard_from=_l("Last heard from the orchestrator"),
    said=_l("What the orchestrator said"),
    places_it=_l("The orchestrator picks a cloud site with room for this request."),
    places_it_unless_chosen=_l(
        "Unless you choose a site above, the orchestrator picks a cloud site with room for this "
        "request."
    ),
    placement=_l(
        "The SLA id the orchestrator's placement policy names for the site, such as sla-recas-bari."
    ),
    unconfirmed_launch=_l(
        "The orchestrator did not confirm the launch of %(name)s in time. It may have started "
        "anyway: the portal is checking and will not submit it twice, so there is no need to "
        "launch again."
    ),
    pending_launch=_l(
        "Your earlier launch \u201c%(name)s\u201d with the same settings is still being "
        "confirmed with the orchestrator; launching again could create it twice. Follow it in "
        "My deployments; it is settled within a few minutes."
    ),
    named=N_("the orchestrator"),
    # The portal's words were first written for the orchestrator: its refusals are told in
    # sentences of their own, by kind (``app.deployments.errors``).
    refusals={
        "unavailable": _l(
            "The orchestrator is not answering right now. %(outcome)s Try again in a few minutes."
        ),
        "unauthorized": _l(
            "The orchestrator did not accept your login. %(outcome)s Log out, log in again "
            "and retry."
        ),
        "forbidden": _l(
            "The orchestrator does not allow your account to do this. %(outcome)s It said: %(said)s"
        ),
        "conflict": _l(
            "The deployment is busy with another operation at the orchestrator. %(outcome)s "
            "Try again in a moment. It said: %(said)s"
        ),
        "bad-request": _l("The orchestrator refused the request. %(outcome)s It said: %(said)s"),
        "failed": _l("The orchestrator failed. %(outcome)s It said: %(said)s"),
    },
)
