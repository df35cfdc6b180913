"""The backend a template runs on, as its validation needs to know it.

The TOSCA library knows no backend: the catalogue, which knows which one serves a template,
hands ``parse_template`` a ``Judge`` built from that backend's own words. Its sentences name
the backend through ``named`` (a message id, translated where a judgment is shown), and a
backend that runs tosca-parser on the template itself, refusing it on any finding, gives
``refuses_findings``: then those findings are errors in its words, since it would certainly
refuse the template.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.tosca.wording import N_, said


@dataclass(frozen=True)
class Judge:
    """How validation speaks of the backend and whether tosca-parser's findings are fatal.

    ``named`` names the backend inside a sentence ("the orchestrator"); ``refuses_findings``
    is a sentence with ``%(finding)s`` saying the backend refuses the template on that finding,
    None for a backend that decides for itself (the orchestrator)."""

    named: str = N_("the orchestrator")
    refuses_findings: str | None = None

    def name(self) -> dict:
        """The backend's name as a value inside another message (``wording.said``)."""
        return said(self.named)


# The backend the portal's words were first written for, when no other is said.
FIRST = Judge()
