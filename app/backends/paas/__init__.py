"""The INDIGO PaaS Orchestrator's REST API and nothing else.

``client.OrchestratorClient`` speaks it; ``errors`` names what can go wrong; ``schemas`` turns its
JSON into what the portal shows; ``connect.client_for`` picks the orchestrator a call goes to
(the configured one, or the demo); ``cli`` is the ``flask orchestrator`` command group. The
stand-in for the real service, for the tests and the demo mode, lives apart in ``emulator``.
"""


def template_problem(node_types: tuple[str, ...]) -> str | None:
    """The orchestrator takes every template the catalogue accepts: nothing to refuse here."""
    return None
