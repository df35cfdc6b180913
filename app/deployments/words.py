"""Sentences the portal writes into timeline entries and status reasons.

They are stored in English, as the message id, and translated when a page shows them: the
reader's language is known then, not when a worker or another person's request records them.
Every such sentence is below, marked for the catalogue with ``N_``; ``said`` translates a stored
text only when it is one of them, so what the orchestrator said is shown as it said it (and an
entry recorded before a sentence was reworded stays as it was written).
"""

from __future__ import annotations

from flask_babel import gettext

_SENTENCES: set[str] = set()


def N_(sentence: str) -> str:  # noqa: N802 (gettext's own name for "mark, translate later")
    """``sentence`` unchanged, marked for the catalogue and known to ``said``."""
    _SENTENCES.add(sentence)
    return sentence


# Deletes and secrets, asked for by people (app.deployments.operations).
REMOVED_FROM_LIST = N_("Removed from the list; the orchestrator holds nothing.")
FORCED_DELETE_ASKED = N_("Forced delete asked for.")
DELETE_ASKED = N_("Delete asked for.")
DELETE_UNDER_WAY = N_("A delete was already under way.")
DELETE_RESET = N_("Stuck delete reset; it can be deleted again.")
SECRETS_FORGOTTEN = N_("Kept secrets forgotten at the owner's request.")
LEFT_THE_LINE = N_("Left the line at the owner's request; nothing was launched.")

# What the orchestrator's answers mean (app.deployments.tracking).
DELETE_FINISHED = N_("The orchestrator finished deleting it.")
GONE = N_("The orchestrator no longer knows this deployment.")

# A launch recorded before it is sent (app.launch.workflow records it).
LAUNCH_RECORDED = N_("Recorded; submitting.")

# What listing an identity's deployments found (app.sync.listing).
FOUND_BY_CALLBACK = N_("Found at the orchestrator by its callback address.")
FOUND_BY_TIME = N_("Found at the orchestrator by its time and template.")
NO_RECORD = N_("The orchestrator has no record of this submission: nothing was launched.")
INTERRUPTED = N_("The launch was interrupted before the orchestrator answered.")
ADOPTED = N_("Found at the orchestrator; made outside this portal.")
# The application of a deployment found there (kept as its template's name).
MADE_ELSEWHERE = N_("Made outside this portal")


def said(text: str | None) -> str | None:
    """A stored reason in the reader's language: the portal's sentences translated, anything
    else (the orchestrator's words, a person's) as it is."""
    if text and text in _SENTENCES:
        return gettext(text)
    return text
