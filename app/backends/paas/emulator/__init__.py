"""An emulator of the INDIGO PaaS Orchestrator, for the tests and the demo mode; not the client.

``core`` is its WSGI app (the REST API); ``rules`` what it checks in a call, ``lifecycle`` how
deployments move on by themselves and call back, ``outputs`` the outputs and resources it makes
up, ``store`` where it keeps them, ``faults`` what can be made to go wrong, ``control`` the
``/__emulator__/`` API that drives it. It runs in the portal's own process for the demo mode
(``demo``: an orchestrator client whose calls reach it without a network) or as a real HTTP
server (``server``, and ``cli``: ``flask orchestrator emulate``).
"""
