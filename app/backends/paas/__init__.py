"""The INDIGO PaaS Orchestrator as a backend.

``backend.PaasBackend`` is everything the portal asks of it; ``client.OrchestratorClient``
speaks its REST API; ``errors`` names what can go wrong; ``schemas`` turns its JSON into what
the portal shows; ``connect.client_for`` picks the orchestrator a call goes to (the configured
one, or the demo); ``service_identity`` is the portal's own login for it; ``words`` how people
are told of it; ``cli`` is the ``flask orchestrator`` command group. The stand-in for the real
service, for the tests and the demo mode, lives apart in ``emulator``.
"""
