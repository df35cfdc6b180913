"""The INDIGO PaaS Orchestrator's REST API and nothing else.

``client.OrchestratorClient`` speaks it; ``errors`` names what can go wrong; ``schemas`` turns its
JSON into what the portal shows; ``cli`` is the ``flask orchestrator`` command group. A stand-in
for the real service, for the tests and the demo mode, lives apart in ``emulator``.
"""
