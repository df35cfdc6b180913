"""How people are told of a backend: each backend class carries its own table (``words``), so
that no page chooses phrases by a backend's name."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask_babel import lazy_gettext as _l


@dataclass(frozen=True)
class Words:
    """How people are told of a backend: each package gives its own table (``WORDS``), so that
    no page chooses phrases by a backend's name. Lazy strings: rendered in the reader's
    language."""

    # Its name ("Infrastructure Manager").
    label: Any
    # The heading of what is asked of it on demand ("From the orchestrator").
    asked_from: Any
    # That asking it takes a moment ("Loaded when you ask; the orchestrator may take ...").
    slow_to_answer: Any
    # When it last answered about a deployment ("Last heard from the orchestrator").
    heard_from: Any
    # The heading over its own words for why a deployment failed ("What the orchestrator said").
    said: Any
    # Where a launch goes, told on the launch form ("The orchestrator picks a cloud site ...").
    places_it: Any
    # The same where the person may choose a site ("Unless you choose a site above, ...").
    places_it_unless_chosen: Any
    # What a site's placement is to it, told where operators name sites ("The SLA id ...").
    placement: Any
    # That it did not confirm a launch in time, which may have started (%(name)s: the
    # deployment's name); told when the launch page hands over to the deployment's page.
    unconfirmed_launch: Any = None
    # That an earlier identical launch (%(name)s) is still being confirmed with it.
    pending_launch: Any = None
    # Its name inside a sentence the catalogue stores about a template ("the orchestrator"):
    # a message id (``N_``), translated when an admin reads the sentence.
    named: str = ""
    # Only for a backend that runs tosca-parser on a template itself and refuses it on any
    # finding: the sentence saying so, a message id with %(finding)s. Those findings are then
    # errors before anything is sent; None for a backend that decides by itself.
    refuses_findings: str | None = None
    # Its own sentences for what it refused or failed, by the kind of refusal (the keys of
    # ``app.deployments.errors``: "unavailable", "unauthorized", "forbidden", "conflict",
    # "bad-request", "failed"), with %(outcome)s and %(said)s. None: the portal's neutral
    # sentences, which name it by its label.
    refusals: Mapping[str, Any] | None = None
    # For a backend that tells what its sites have left under their quotas: that source's
    # name ("Infrastructure Manager quotas") and its reading of one site (%(site)s).
    quotas: Any = None
    quotas_of: Any = None


def N_(msgid: str) -> str:  # noqa: N802 (gettext's own name for "mark, translate later")
    """``msgid`` unchanged, marked for the translations file: a ``Words`` entry kept as a
    message id, translated where it is shown."""
    return msgid


# For a backend name no package has (a record older than its removal): neutral words.
UNKNOWN_WORDS = Words(
    label=_l("another deployment service"),
    asked_from=_l("From the deployment service"),
    slow_to_answer=_l("Loaded when you ask; it may take a few seconds."),
    heard_from=_l("Last heard from it"),
    said=_l("What the deployment service said"),
    places_it=_l("The deployment service decides where it runs."),
    places_it_unless_chosen=_l(
        "Unless you choose a site above, the deployment service decides where it runs."
    ),
    placement=_l("What the deployment service needs to send a deployment to the site."),
    unconfirmed_launch=_l(
        "The deployment service did not confirm the launch of %(name)s in time. It may have "
        "started anyway: the portal is checking and will not submit it twice, so there is no "
        "need to launch again."
    ),
    pending_launch=_l(
        "Your earlier launch \u201c%(name)s\u201d with the same settings is still being "
        "confirmed with the deployment service; launching again could create it twice. Follow "
        "it in My deployments; it is settled within a few minutes."
    ),
    named=N_("the deployment service"),
)
