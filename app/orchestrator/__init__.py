"""The INDIGO PaaS Orchestrator's REST API and nothing else.

``client.OrchestratorClient`` speaks it; ``errors`` names what can go wrong; ``schemas`` turns its
JSON into what the portal shows. ``emulator`` (with ``emulator_store`` and ``emulator_demo``) is a
stand-in for the real service, used by the tests and by the demo mode.
"""
