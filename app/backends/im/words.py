"""How people are told of the Infrastructure Manager; known without loading its client."""

from flask_babel import lazy_gettext as _l

from app.backends.words import N_, Words

WORDS = Words(
    label=_l("Infrastructure Manager"),
    asked_from=_l("From the Infrastructure Manager"),
    slow_to_answer=_l("Loaded when you ask; the Infrastructure Manager may take a few seconds."),
    heard_from=_l("Last heard from the Infrastructure Manager"),
    said=_l("What the Infrastructure Manager said"),
    places_it=_l("The Infrastructure Manager deploys it on the clouds this portal is set up for."),
    places_it_unless_chosen=_l(
        "Unless you choose a site above, the Infrastructure Manager deploys it on the clouds this "
        "portal is set up for."
    ),
    placement=_l("The id of the site's cloud line in IM_CLOUDS, such as recas."),
    unconfirmed_launch=_l(
        "The Infrastructure Manager did not confirm the launch of %(name)s in time. It may have "
        "started anyway: the portal is checking and will not submit it twice, so there is no "
        "need to launch again."
    ),
    pending_launch=_l(
        "Your earlier launch \u201c%(name)s\u201d with the same settings is still being "
        "confirmed with the Infrastructure Manager; launching again could create it twice. "
        "Follow it in My deployments; it is settled within a few minutes."
    ),
    named=N_("the Infrastructure Manager"),
    # IM reads every template with tosca-parser and refuses it on any finding.
    refuses_findings=N_(
        "%(finding)s The Infrastructure Manager runs this same check (tosca-parser) on the "
        "template and refuses it on this finding, so it cannot be launched there."
    ),
    quotas=_l("Infrastructure Manager quotas"),
    quotas_of=_l("The Infrastructure Manager's quotas of %(site)s"),
)
