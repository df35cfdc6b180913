"""The INDIGO PaaS Orchestrator's REST API and nothing else.

``client.OrchestratorClient`` speaks it; ``errors`` names what can go wrong; ``schemas`` turns its
JSON into what the portal shows. ``emulator`` and its ``emulator_*`` modules are a stand-in for
the real service, used by the tests and the demo mode (in-process, ``emulator_demo``) or served
over HTTP (``emulator_server``, ``cli``: ``flask orchestrator emulate``).
"""
